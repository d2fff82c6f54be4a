"""Time zones: a phone in America/New_York, on both sides of a DST change (2026-03-08, 02:00 EST →
03:00 EDT), read and written exactly by DeviceEnv.

The rules (Android, and s2r's WorldState):

* ``persist.sys.timezone`` names the phone's zone (PhoneKnobs ``timezone``; ``s2r vdevice start
  --timezone``). DeviceEnv reads it once per session (StateReader.timezone).
* Providers store UTC epoch milliseconds: CalendarContract.Events ``dtstart``/``dtend`` (with the
  event's ``eventTimezone``; all-day events at UTC midnight), ``Telephony.Sms.DATE``,
  ``CallLog.Calls.DATE``. WorldState times are naive *local* wall times of the phone (what its
  apps show); alarms are local hour:minute.
* So 09:00 on 2026-03-07 is 14:00Z (EST, −5) and 09:00 on 2026-03-09 is 13:00Z (EDT, −4).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator
from zoneinfo import ZoneInfo

import pytest

pytestmark = pytest.mark.timeout(600)

NY = "America/New_York"
ZONE = ZoneInfo(NY)


def _utc_ms(y: int, mo: int, d: int, h: int, mi: int = 0) -> int:
    return int(datetime(y, mo, d, h, mi, tzinfo=timezone.utc).timestamp() * 1000)


@pytest.fixture(scope="module")
def ny(adb_host: Any, sim_pool: Any, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    from device.env import DeviceEnv

    phone = adb_host.start_phone(sim_pool, timezone=NY, input_latency_ms=0, animation_ms=0)
    phone.backend.command_log = []
    env = DeviceEnv(phone.serial, client=adb_host.client(), journal_dir=str(tmp_path_factory.mktemp("j")),
                    grant_appops=True, alarm_probe=True)
    env.start()
    try:
        yield {"host": adb_host, "phone": phone, "env": env}
    finally:
        phone.backend.command_log = None
        env.close()


SETUP = {"add": {
    "events": [{"title": "Standup EST", "start": "2026-03-07T09:00:00", "end": "2026-03-07T10:30:00"},
               {"title": "Standup EDT", "start": "2026-03-09T09:00:00", "end": "2026-03-09T10:30:00"},
               {"title": "Across the change", "start": "2026-03-07T23:30:00", "end": "2026-03-08T03:30:00"},
               {"title": "Holiday", "start": "2026-03-09T00:00:00", "all_day": True}],
    "messages": [{"address": "+12025550111", "body": "before the change", "box": "inbox",
                  "time": "2026-03-07T21:15:00"},
                 {"address": "+12025550111", "body": "after the change", "box": "inbox",
                  "time": "2026-03-09T21:15:00"}],
    "calls": [{"number": "+12025550122", "kind": "incoming", "time": "2026-03-07T18:45:00", "duration_s": 61},
              {"number": "+12025550122", "kind": "missed", "time": "2026-03-09T18:45:00"}],
    "alarms": [{"hour": 6, "minute": 45, "label": "Early"}, {"hour": 23, "minute": 5, "label": "Late"}],
}}


def test_the_zone_knob_names_the_phones_zone_and_its_clock(ny: dict[str, Any]) -> None:
    from device.adbshell import Shell
    from device.virtual.knobs import PhoneKnobs

    phone, host = ny["phone"], ny["host"]
    sh = Shell(host.client(), phone.serial)
    assert sh.getprop("persist.sys.timezone") == NY
    assert PhoneKnobs().timezone == "UTC"  # the default, as before
    with pytest.raises(ValueError, match="unknown time zone"):
        PhoneKnobs(timezone="Atlantis/Capital")
    # the phone's clock is a local wall time; its epoch follows the zone's offset on each side of the change
    for day, hour_utc in ((7, 14), (9, 13)):
        local = datetime(2026, 3, day, 9, 0)
        assert phone.local_to_epoch(local) * 1000 == _utc_ms(2026, 3, day, hour_utc)
        assert phone.epoch_to_local(_utc_ms(2026, 3, day, hour_utc) / 1000) == local
    assert phone.utc_offset(datetime(2026, 3, 7, 12)).total_seconds() == -5 * 3600
    assert phone.utc_offset(datetime(2026, 3, 9, 12)).total_seconds() == -4 * 3600
    assert ny["env"].reader.timezone() == NY and ny["env"]._tz == NY


def test_device_env_writes_utc_millis_and_reads_local_times_across_dst(ny: dict[str, Any]) -> None:
    from device.adbshell import Shell
    from device.readers import URI_CALLS, URI_EVENTS, URI_SMS, content_query

    phone, host, env = ny["phone"], ny["host"], ny["env"]
    sh = Shell(host.client(), phone.serial)
    assert "getprop persist.sys.timezone" in " ; ".join(phone.backend.command_log)  # read by env.start()
    phone.backend.command_log = []
    env.reset(SETUP)
    try:
        # what the providers store: UTC epoch millis of the local times, offset by the zone of that day
        ev = {re.sub(r"[\u200b-\u200f\u2060-\u2064\ufeff]+", "", r["title"]): r
              for r in content_query(sh, URI_EVENTS, ("title", "dtstart", "dtend", "eventTimezone", "allDay"))}
        assert int(ev["Standup EST"]["dtstart"]) == _utc_ms(2026, 3, 7, 14)
        assert int(ev["Standup EDT"]["dtstart"]) == _utc_ms(2026, 3, 9, 13)
        assert int(ev["Across the change"]["dtstart"]) == _utc_ms(2026, 3, 8, 4, 30)
        assert int(ev["Across the change"]["dtend"]) == _utc_ms(2026, 3, 8, 7, 30)  # 03:30 EDT
        assert int(ev["Holiday"]["dtstart"]) == _utc_ms(2026, 3, 9, 0)  # all-day: UTC midnight of its date
        sms = {r["body"]: int(r["date"]) for r in content_query(sh, URI_SMS, ("body", "date"))}
        assert sms["before the change"] == _utc_ms(2026, 3, 8, 2, 15)  # 21:15 EST
        assert sms["after the change"] == _utc_ms(2026, 3, 10, 1, 15)  # 21:15 EDT
        calls = sorted(int(r["date"]) for r in content_query(sh, URI_CALLS, ("number", "date"))
                       if r["number"] == "+12025550122")
        assert calls == [_utc_ms(2026, 3, 7, 23, 45), _utc_ms(2026, 3, 9, 22, 45)]
        # and DeviceEnv reads back exactly the local times the setup asked for
        ws = env.read_state()
        got = {e.title[:len(t)]: e for t in ("Standup EST", "Standup EDT", "Across the change", "Holiday")
               for e in ws.events or [] if e.title.startswith(t)}
        assert (got["Standup EST"].start, got["Standup EST"].end) == (datetime(2026, 3, 7, 9), datetime(2026, 3, 7, 10, 30))
        assert (got["Standup EDT"].start, got["Standup EDT"].end) == (datetime(2026, 3, 9, 9), datetime(2026, 3, 9, 10, 30))
        assert (got["Across the change"].start, got["Across the change"].end) == (
            datetime(2026, 3, 7, 23, 30), datetime(2026, 3, 8, 3, 30))
        assert got["Holiday"].all_day and got["Holiday"].start == datetime(2026, 3, 9)
        msgs = {m.body: m.time for m in ws.messages or [] if m.address == "+12025550111"}
        assert msgs == {"before the change": datetime(2026, 3, 7, 21, 15),
                        "after the change": datetime(2026, 3, 9, 21, 15)}, msgs
        cl = sorted((c.time, c.kind) for c in ws.calls or [] if c.number == "+12025550122")
        assert cl == [(datetime(2026, 3, 7, 18, 45), "incoming"), (datetime(2026, 3, 9, 18, 45), "missed")], cl
        alarms = sorted((a.hour, a.minute) for a in ws.alarms or [] if a.label.startswith(("Early", "Late")))
        assert alarms == [(6, 45), (23, 5)], ws.alarms  # alarms are local hour:minute, whatever the zone
        # the zone was read once this session (at start), not again by a reset or a read
        log = " ; ".join(phone.backend.command_log or [])
        assert "date +%s" in log and "getprop persist.sys.timezone" not in log
    finally:
        env.reset(None)


def test_the_phone_shows_local_times_and_date_follows_its_zone(ny: dict[str, Any]) -> None:
    from device.adbshell import Shell

    phone, host, env = ny["phone"], ny["host"], ny["env"]
    sh = Shell(host.client(), phone.serial)
    for day in (7, 9):
        phone.patch({"time": f"2026-03-{day:02d}T08:00:00"})
        # order, not a window: what the phone says lies between the phone's clock read before and after
        before = int(phone.now_epoch())
        said = int(sh.out(["date", "+%s"]).strip())
        assert before <= said <= int(phone.now_epoch()) + 1, (before, said)
        assert sh.out(["date", "+%Z"]).strip() == ("EST" if day == 7 else "EDT")
        first = phone.now().replace(second=0, microsecond=0)  # WorldState.time may be kept to the minute
        ws = env.read_state()
        last = phone.now()
        assert ws.time is not None and first <= ws.time <= last, (first, ws.time, last)
    env.reset(SETUP)
    try:
        from device.readers import URI_EVENTS, content_query

        tz = {r["title"]: r["eventTimezone"] for r in content_query(sh, URI_EVENTS, ("title", "eventTimezone"))}
        assert any(t.startswith("Standup EDT") and z == NY for t, z in tz.items()), tz  # as DeviceEnv wrote it
        shown = {e.title: e.start for e in phone.read_state().events or []}
        assert any(t.startswith("Standup EDT") and s == datetime(2026, 3, 9, 9) for t, s in shown.items()), shown
        texts = {m.body: m.time for m in phone.read_state().messages or []}
        assert any(b.startswith("after the change") and t == datetime(2026, 3, 9, 21, 15) for b, t in texts.items())
    finally:
        env.reset(None)


def test_cli_and_farm_spec_take_a_zone(adb_host: Any, tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from s2r.cli import app
    from transfer.device_backends import parse_vdevice_knobs

    r = CliRunner().invoke(app, ["vdevice", "start", "--port", "0", "--duration", "0.2", "--json",
                                 "--timezone", NY, "--locked-pin", "1234", "--anonymous"])
    assert r.exit_code == 0, r.output
    info = json.loads(r.output.strip().splitlines()[-1])
    assert info["timezone"] == NY and info["knobs"]["locked_pin"] == "1234" and info["knobs"]["anonymous"] is True
    assert info["keyguard"]["showing"] is True and info["keyguard"]["secure"] is True
    r = CliRunner().invoke(app, ["vdevice", "start", "--port", "0", "--duration", "0", "--timezone", "Mars/Olympus"])
    assert r.exit_code != 0 and "unknown time zone" in r.output
    assert parse_vdevice_knobs(f"vdevice:2:aosp:timezone={NY},1@locked", 2) == [
        {"timezone": NY}, {"timezone": NY, "locked": True}]
