"""Heat and battery on a farm of virtual phones: a phone that gets hot mid-run is paused — its
episodes go to the other phone, none is lost or counted against the policy — and comes back once
it cooled; a flat phone is paused until it charged past the margin. Readings are the phones' own
`dumpsys battery`, changed through the temperature knob and, as an operator would, through
`adb shell dumpsys battery set|reset`."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from device.farm_health import HealthLimits, verdict
from device.parsers.battery import BatteryReading

pytestmark = pytest.mark.timeout(600)

TASKS = "messages.query_latest_sender,settings.query_bluetooth,clock.alarm_query_label,contacts.query_company"


def _wait(cond: Any, what: str, timeout: float = 180.0) -> None:
    """Until ``cond()`` (a failure guard, not a speed check)."""
    t0 = time.monotonic()
    while not cond():
        assert time.monotonic() - t0 < timeout, what
        time.sleep(0.1)


def test_rule_and_hysteresis() -> None:
    lim = HealthLimits()  # 20 %, 45 °C, resume at 25 % / 42 °C

    def r(level: int, temp: float, plugged: list[str] | None = None) -> BatteryReading:
        return BatteryReading(level=level, temperature_c=temp, status=2, plugged=["usb"] if plugged is None else plugged)

    assert verdict(r(87, 45.0), lim, paused=False) is None  # at the threshold: still works
    assert "temperature 45.1 °C > 45 °C" in (verdict(r(87, 45.1), lim, paused=False) or "")
    assert verdict(r(87, 43.0), lim, paused=True) is not None  # cooler, but not past the margin
    assert verdict(r(87, 42.0), lim, paused=True) is None
    low = verdict(r(19, 30.0, []), lim, paused=False) or ""
    assert "battery 19 % < 20 %" in low and "plug it in" in low  # paused whether or not it charges
    assert verdict(r(19, 30.0), lim, paused=False) is not None
    assert verdict(r(24, 30.0), lim, paused=True) is not None and verdict(r(25, 30.0), lim, paused=True) is None
    assert verdict(BatteryReading(level=0, temperature_c=25.0, present=False), lim, paused=False) is None
    assert verdict(None, lim, paused=False) is None  # an unreadable dump pauses nothing
    assert verdict(r(5, 60.0), HealthLimits(min_battery=0, max_temp=0), paused=False) is None


def test_hot_phone_is_paused_mid_run_and_its_episodes_go_to_the_other(adb_host: Any, tmp_path: Path) -> None:
    """`s2r run --device vdevice:2 --max-temp 45`'s path (Session → DeviceBackends → DeviceFarm):
    phone A's temperature knob is raised while it runs an episode; after that episode A rests
    and B takes every episode that starts, until A's knob is lowered and the farm resumes it."""
    from transfer.session import DeviceRunOptions, Session

    sess = Session.create(out=tmp_path / "run", policies=["oracle"], split="real59", tasks=TASKS, seeds=3,
                          repeats=1, sim=False, flavor="sim", profile="default", device="vdevice:2", workers=2,
                          resume=False, device_run=DeviceRunOptions(max_temp=45, min_battery=20))
    farm = sess.devices.farm
    a, b = sess.devices.phones
    done: list[Any] = []
    err: list[BaseException] = []

    def run() -> None:
        try:
            done.extend(sess.run())
        except BaseException as e:  # noqa: BLE001 - reported by the assertion below
            err.append(e)

    th = threading.Thread(target=run, daemon=True)
    t_run = time.time()
    th.start()
    timeline: dict[str, float] = {}
    try:
        # handed out (its pre-lease reading passed): an episode is starting or running on A
        _wait(lambda: farm.health().get(a.serial, {}).get("busy") and farm.health()[a.serial]["leases"] >= 1,
              "phone A never ran an episode")
        a.set_battery(temp=470)  # A heats up in the middle of an episode
        _wait(lambda: farm.health()[a.serial]["state"] == "paused", f"A never paused: {farm.events[-5:]}")
        timeline["paused"] = time.time()
        h = farm.health()[a.serial]
        assert "temperature 47.0 °C > 45 °C" in h["reason"] and h["battery"]["temperature_c"] == 47.0
        # while A rests, B runs the episodes that start
        _wait(lambda: sum(1 for r in sess.rundir.records()
                          if r.device_serial == b.serial and r.started_at > timeline["paused"]) >= 2 or not th.is_alive(),
              "B took no episode while A rested")
        assert farm.health()[a.serial]["state"] == "paused"
        a.set_battery(temp=400)  # cooled down: 40 °C ≤ 45 - 3
        _wait(lambda: farm.health()[a.serial]["state"] == "online", f"A never resumed: {farm.events[-5:]}")
        timeline["resumed"] = time.time()
        th.join(timeout=400)
        assert not th.is_alive() and not err, err
    finally:
        reports = sess.close()
    recs = sess.rundir.records()
    n = 4 * 3
    assert len(recs) == n and len({r.episode_id for r in recs}) == n  # every episode recorded once
    assert all(r.error_kind is None and r.attempts == 1 and r.retried_from is None for r in recs), \
        [(r.task_id, r.error_kind, r.error) for r in recs]
    assert all(r.terminated_by != "error" for r in recs)
    paused, resumed = (e["t"] for e in farm.health_log[a.serial])  # when the farm paused and resumed A
    assert timeline["paused"] >= paused and timeline["resumed"] >= resumed
    on_a = [r for r in recs if r.device_serial == a.serial]
    hot = [r for r in on_a if r.started_at < paused]
    assert len(hot) == 1 and hot[0].success is not None  # the episode A heated up in finished and was judged
    assert on_a and not [r for r in on_a if paused < r.started_at < resumed], "A got an episode while paused"
    during = [r for r in recs if paused < r.started_at < resumed]
    assert during and all(r.device_serial == b.serial for r in during)
    # the pause, its reason and the readings are recorded: farm events, and the run's phone_audit.json
    whats = [w for _t, s, w in farm.events if s == a.serial]
    assert any(w.startswith("paused: temperature 47.0") for w in whats) and any(w.startswith("resumed") for w in whats)
    audit = json.loads((sess.rundir.path / "phone_audit.json").read_text())
    log = next(r for r in audit if r["serial"] == a.serial)["health"]["pauses"]
    assert [e["what"] for e in log] == ["paused", "resumed"]
    assert log[0]["battery"]["temperature_c"] == 47.0 and log[1]["battery"]["temperature_c"] == 40.0
    assert next(r for r in audit if r["serial"] == b.serial)["health"]["pauses"] == []
    assert reports
    cfg = json.loads((sess.rundir.path / "config.json").read_text())
    assert cfg["device_run"]["max_temp"] == 45 and cfg["device_run"]["min_battery"] == 20
    after = [r for r in on_a if r.started_at > resumed]
    print(f"\nheat: {len(recs)} episodes in {time.time() - t_run:.1f}s; on A {len(on_a)} "
          f"({len(after)} after it resumed), on B while A rested {len(during)}, "
          f"paused {resumed - paused:.1f}s")


def test_flat_phone_waits_until_charged_past_the_margin(adb_host: Any, sim_pool: Any, tmp_path: Path) -> None:
    """The farm API: a phone whose battery the shell sets to 10 % mid-episode is paused at release
    (no lease for it), stays paused at 24 %, resumes at 25 % (20 + 5); `dumpsys battery reset` puts
    the phone's real values back."""
    from device.env import DeviceEnv
    from device.farm import DeviceFarm, NoDeviceAvailable

    phone = adb_host.start_phone(sim_pool, seed=3)
    serial = phone.serial

    def shell(cmd: str) -> str:
        res = adb_host.adb("-s", serial, "shell", cmd)
        assert res.returncode == 0, res.stderr
        return res.stdout.decode()

    farm = DeviceFarm(adb_host.client(), serials=[serial], poll_s=0.2,
                      limits=HealthLimits(min_battery=20, max_temp=45, recheck_s=0.5),
                      env_factory=lambda s: DeviceEnv(s, client=adb_host.client(), journal_dir=str(tmp_path))).start()
    try:
        lease = farm.lease(timeout=60)
        assert shell("dumpsys battery set level 10") == ""  # the phone drains during the episode
        assert shell("dumpsys battery unplug") == ""
        lease.release()
        h = farm.health()[serial]
        assert h["state"] == "paused" and "battery 10 % < 20 % (no charger online: plug it in)" in h["reason"]
        assert h["battery"]["level"] == 10.0 and h["battery"]["plugged"] == []
        with pytest.raises(NoDeviceAvailable):
            farm.lease(timeout=1.5)  # its lease goes to nothing
        shell("dumpsys battery set usb 1")
        shell("dumpsys battery set level 24")
        _wait(lambda: (farm.health()[serial]["battery"] or {}).get("level") == 24.0, "no re-reading", 60)
        assert farm.health()[serial]["state"] == "paused"  # 24 % < 25 %: not yet
        shell("dumpsys battery set level 25")
        _wait(lambda: farm.health()[serial]["state"] == "online", f"never resumed: {farm.events[-3:]}", 60)
        again = farm.lease(timeout=10)
        again.release()
        assert [e["what"] for e in farm.health_log[serial]] == ["paused", "resumed"]
    finally:
        shell("dumpsys battery reset")
        farm.close()
    text = shell("dumpsys battery")
    assert "UPDATES STOPPED" not in text and "  level: 87\n" in text  # left as found
    assert next(r for r in farm.closing_reports if r["serial"] == serial)["health"]["pauses"][0]["what"] == "paused"


def test_cli_options_reach_the_farm_rule() -> None:
    """`--min-battery`/`--max-temp` of `s2r run` and `s2r paired` become the run's DeviceRunOptions
    (recorded in config.json) and the farm's HealthLimits; out-of-range values are usage errors."""
    from typer.testing import CliRunner

    from s2r.cli import app
    from s2r.commands.run import device_run_options

    opts = device_run_options(None, False, False, 30.0, min_battery=15, max_temp=40)
    lim = opts.health_limits()
    assert (lim.min_battery, lim.max_temp) == (15, 40) and opts.model_dump()["max_temp"] == 40
    runner = CliRunner()
    for cmd in ("run", "paired"):
        res = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "200"})
        assert res.exit_code == 0 and "--min-battery" in res.output and "--max-temp" in res.output, res.output
    bad = runner.invoke(app, ["run", "--out", "/nonexistent/x", "--device", "vdevice:1", "--max-temp", "200"])
    assert bad.exit_code == 2 and not Path("/nonexistent/x").exists()
