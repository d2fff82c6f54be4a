"""Providers of a STOCK virtual phone as the adb shell user sees them, through the real adb
server and adbutils: the WRITE_SMS app-op and ``appops``, the restricted SMS view,
calendars only under an account (a LOCAL one through the sync-adapter URI, soft deletes of
synced events), the call log per Android release, and the legacy ``content://contacts/phones``.

Each behaviour follows the AOSP source named in :mod:`device.virtual.android_content` and
:mod:`device.virtual.android_appops`; a permissive phone keeps the old behaviour.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from device.parsers import parse_appops_mode, parse_content_rows

pytestmark = pytest.mark.timeout(300)

GOOGLE = "user@gmail.com"
CAL = "content://com.android.calendar/calendars"
EVENTS = "content://com.android.calendar/events"
LOCAL_SYNC = "caller_is_syncadapter=true&account_name=s2r&account_type=LOCAL"


@pytest.fixture(scope="module")
def rig(adb_host: Any, sim_pool: Any) -> dict[str, Any]:
    """Four phones on the module's private adb server (stopped with it)."""
    fast = {"input_latency_ms": 0, "animation_ms": 0}
    return {"host": adb_host,
            "p14": adb_host.start_phone(sim_pool, **fast),  # the stock default: Android 14, no account
            "p11": adb_host.start_phone(sim_pool, android=11, **fast),
            "p15": adb_host.start_phone(sim_pool, android=15, google_account=GOOGLE, **fast),
            "perm": adb_host.start_phone(sim_pool, permissive=True, **fast)}


def sh(rig: dict[str, Any], name: str, cmd: str) -> tuple[int, str]:
    """One ``adb shell`` command on phone ``name``: (exit status, stdout+stderr)."""
    r = rig["host"].client().device(rig[name].serial).shell2(cmd)
    return r.returncode, r.output


def rows(rig: dict[str, Any], name: str, uri: str, proj: str, where: str | None = None) -> list[dict[str, Any]]:
    cmd = f"content query --uri '{uri}' --projection {proj}" + (f' --where "{where}"' if where else "")
    rc, out = sh(rig, name, cmd)
    assert rc == 0, out
    return parse_content_rows(out, proj.split(":"))


def world_messages(phone: Any, address: str) -> list[Any]:
    return [m for m in phone.read_state().messages or [] if m.address == address]


# ============================================================================ WRITE_SMS app-op
def test_sms_writes_follow_the_write_sms_appop(rig: dict[str, Any]) -> None:
    p, addr = rig["p14"], "+15550002222"
    assert sh(rig, "p14", "appops get com.android.shell WRITE_SMS") == (0, "No operations.\nDefault mode: ignore\n")
    ins = f"content insert --uri content://sms --bind address:s:{addr} --bind body:s:hello"
    # ignored: content prints nothing, the provider wrote nothing
    assert sh(rig, "p14", ins) == (0, "")
    assert rows(rig, "p14", "content://sms", "_id:address", f"address='{addr}'") == []
    assert world_messages(p, addr) == []
    rc, out = sh(rig, "p14", "appops get com.android.shell WRITE_SMS")
    assert re.fullmatch(r"WRITE_SMS: ignore; rejectTime=\+\d[\dsmh]*ms ago\n", out), out
    assert parse_appops_mode(out, "WRITE_SMS") == "ignore"

    assert sh(rig, "p14", "appops set com.android.shell WRITE_SMS allow") == (0, "")
    out = sh(rig, "p14", "appops get com.android.shell WRITE_SMS")[1]
    assert out.startswith("WRITE_SMS: allow; rejectTime=+"), out
    assert sh(rig, "p14", ins) == (0, "")
    got = rows(rig, "p14", "content://sms", "_id:address:body:type", f"address='{addr}'")
    assert [(r["body"], r["type"]) for r in got] == [("hello", "1")]
    assert [m.body for m in world_messages(p, addr)] == ["hello"]
    assert re.match(r"WRITE_SMS: allow; time=\+\d", sh(rig, "p14", "appops get com.android.shell WRITE_SMS")[1])

    # back to default: ignored again, and update/delete touch nothing
    assert sh(rig, "p14", "appops set com.android.shell WRITE_SMS default") == (0, "")
    assert sh(rig, "p14", "appops get com.android.shell WRITE_SMS")[1].startswith("WRITE_SMS: default; time=+")
    assert sh(rig, "p14", ins.replace("hello", "again")) == (0, "")
    assert sh(rig, "p14", f"content update --uri content://sms --bind body:s:changed --where \"address='{addr}'\"") \
        == (0, "")
    assert sh(rig, "p14", f"content delete --uri content://sms --where \"address='{addr}'\"") == (0, "")
    assert [m.body for m in world_messages(p, addr)] == ["hello"]
    assert sh(rig, "p14", "appops reset com.android.shell") == \
        (0, "Reset all modes for: user 0, package com.android.shell\n")
    assert sh(rig, "p14", "appops get com.android.shell WRITE_SMS")[1].startswith("WRITE_SMS: ignore; time=+")


def test_appops_errors_are_androids(rig: dict[str, Any]) -> None:
    assert sh(rig, "p14", "appops get com.android.shell FOO") == (255, "Error: Unknown operation string: FOO\n")
    assert sh(rig, "p14", "appops get com.nope.app WRITE_SMS") == (255, "Error: No UID for com.nope.app in user 0\n")
    assert sh(rig, "p14", "appops set com.android.shell WRITE_SMS") == (255, "Error: Mode not specified.\n")
    assert sh(rig, "p14", "appops set com.android.shell WRITE_SMS maybe") == (255, "Error: Mode maybe is not valid\n")
    assert sh(rig, "p14", "appops set com.android.shell") == (255, "Error: Operation not specified.\n")
    # the op by its public name and by number, and another op's default
    assert sh(rig, "p11", "appops get com.android.shell android:write_sms")[1] == \
        "No operations.\nDefault mode: ignore\n"
    assert sh(rig, "p11", "appops get com.android.shell 14")[1] == "No operations.\nDefault mode: allow\n"


def test_the_shell_sees_only_inbox_and_sent(rig: dict[str, Any]) -> None:
    p, addr = rig["p14"], "+15550003333"
    assert sh(rig, "p14", "appops set com.android.shell WRITE_SMS allow")[0] == 0
    try:
        for box, body in ((3, "a draft"), (4, "queued out"), (2, "was sent")):
            sh(rig, "p14", f"content insert --uri content://sms --bind address:s:{addr} --bind body:s:'{body}' "
                           f"--bind type:i:{box}")
    finally:
        sh(rig, "p14", "appops set com.android.shell WRITE_SMS default")
    assert sorted(m.box for m in world_messages(p, addr)) == ["draft", "outbox", "sent"]  # all written
    seen = rows(rig, "p14", "content://sms", "_id:type:body", f"address='{addr}'")
    assert [(r["type"], r["body"]) for r in seen] == [("2", "was sent")]
    all_types = {r["type"] for r in rows(rig, "p14", "content://sms", "_id:type")}
    assert all_types <= {"1", "2"}, all_types
    for box in ("draft", "outbox", "failed", "queued"):
        assert sh(rig, "p14", f"content query --uri content://sms/{box}") == (0, "No result found.\n"), box
    assert rows(rig, "p14", "content://sms/sent", "body", f"address='{addr}'") == [{"body": "was sent"}]


# ============================================================================ calendars
def test_a_phone_without_an_account_has_no_calendar(rig: dict[str, Any]) -> None:
    p = rig["p14"]
    assert sh(rig, "p14", f"content query --uri {CAL}") == (0, "No result found.\n")
    assert sh(rig, "p14", f"content query --uri {EVENTS}") == (0, "No result found.\n")
    n_world = len(p.read_state().events or [])
    ok = "--bind dtstart:l:1805000000000 --bind dtend:l:1805003600000 --bind title:s:Nowhere"
    rc, out = sh(rig, "p14", f"content insert --uri {EVENTS} {ok} --bind eventTimezone:s:UTC")
    assert rc == 0 and out.startswith("Error while accessing provider:com.android.calendar\n"
                                      "java.lang.IllegalArgumentException: Event values must include a calendar_id\n")
    rc, out = sh(rig, "p14", f"content insert --uri {EVENTS} {ok} --bind calendar_id:i:1")
    assert rc == 0 and "java.lang.IllegalArgumentException: Event values must include an eventTimezone\n" in out
    rc, out = sh(rig, "p14", f"content insert --uri {EVENTS} --bind calendar_id:i:1 --bind title:s:x")
    assert rc == 0 and "java.lang.RuntimeException: DTSTART field missing from event\n" in out
    # calendar 1 does not exist: stored without a calendar, shown nowhere
    assert sh(rig, "p14", f"content insert --uri {EVENTS} {ok} --bind calendar_id:i:1 --bind eventTimezone:s:UTC") \
        == (0, "")
    assert sh(rig, "p14", f"content query --uri {EVENTS}") == (0, "No result found.\n")
    assert len(p.read_state().events or []) == n_world
    # only a sync adapter that names its account may create a calendar
    rc, out = sh(rig, "p14", f"content insert --uri {CAL} --bind account_name:s:s2r --bind name:s:s2r")
    assert rc == 0 and "java.lang.IllegalArgumentException: Only sync adapters may write to account_name\n" in out
    rc, out = sh(rig, "p14", f"content insert --uri '{CAL}?caller_is_syncadapter=true' --bind name:s:s2r")
    assert rc == 0 and ("java.lang.IllegalArgumentException: Sync adapters must specify an account and account "
                        f"type: {CAL}?caller_is_syncadapter=true\n") in out
    assert sh(rig, "p14", f"content query --uri {CAL}") == (0, "No result found.\n")


def test_a_local_calendar_through_the_sync_adapter_uri(rig: dict[str, Any]) -> None:
    p = rig["p14"]
    rc, out = sh(rig, "p14", f"content insert --uri '{CAL}?{LOCAL_SYNC}' --bind account_name:s:s2r "
                             "--bind account_type:s:LOCAL --bind name:s:s2r --bind calendar_displayName:s:'s2r runs' "
                             "--bind ownerAccount:s:s2r --bind calendar_access_level:i:700 --bind sync_events:i:1")
    assert (rc, out) == (0, "")
    cals = rows(rig, "p14", CAL, "_id:account_name:account_type:name:ownerAccount:isPrimary:deleted")
    assert len(cals) == 1 and cals[0]["_id"], cals  # the phone's only calendar; its id as the provider gave it
    cal = cals[0]["_id"]
    assert cals == [{"_id": cal, "account_name": "s2r", "account_type": "LOCAL", "name": "s2r",
                     "ownerAccount": "s2r", "isPrimary": "1", "deleted": "0"}]
    for title in ("Standup", "Retro"):
        assert sh(rig, "p14", f"content insert --uri {EVENTS} --bind calendar_id:i:{cal} --bind title:s:{title} "
                              "--bind dtstart:l:1805000000000 --bind dtend:l:1805003600000 "
                              "--bind eventTimezone:s:UTC")[0] == 0
    ev = rows(rig, "p14", EVENTS, "_id:calendar_id:title:deleted:dirty:_sync_id:account_type:organizer")
    assert {(r["title"], r["calendar_id"], r["dirty"], r["_sync_id"], r["account_type"], r["organizer"])
            for r in ev} == {("Standup", cal, "1", None, "LOCAL", "s2r"), ("Retro", cal, "1", None, "LOCAL", "s2r")}
    assert {"Standup", "Retro"} <= {e.title for e in p.read_state().events or []}  # the Calendar app shows them
    # an app's delete of a never-synced event removes it (no _sync_id: no tombstone)
    rc, out = sh(rig, "p14", f"content delete --uri {EVENTS} --where \"title='Retro'\"")
    assert (rc, out) == (0, "")
    assert [r["title"] for r in rows(rig, "p14", EVENTS, "title:deleted")] == ["Standup"]
    # deleting the calendar (sync-adapter URI) deletes its events
    assert sh(rig, "p14", f"content delete --uri '{CAL}/{cal}?{LOCAL_SYNC}'") == (0, "")
    assert sh(rig, "p14", f"content query --uri {CAL}") == (0, "No result found.\n")
    assert sh(rig, "p14", f"content query --uri {EVENTS}") == (0, "No result found.\n")
    assert "Standup" not in {e.title for e in p.read_state().events or []}


def test_a_google_account_calendar_and_soft_deletes(rig: dict[str, Any]) -> None:
    p = rig["p15"]
    cals = rows(rig, "p15", CAL, "_id:account_name:account_type:name:ownerAccount:sync_events:_sync_id")
    assert len(cals) == 1 and cals[0]["_id"], cals
    cal = cals[0]["_id"]
    assert cals == [{"_id": cal, "account_name": GOOGLE, "account_type": "com.google", "name": GOOGLE,
                     "ownerAccount": GOOGLE, "sync_events": "1", "_sync_id": GOOGLE}]
    world = {e.title for e in p.read_state().events or []}
    ev = rows(rig, "p15", EVENTS, "_id:calendar_id:title:deleted:dirty:_sync_id")
    assert {r["title"] for r in ev} == world and all(r["calendar_id"] == cal and r["_sync_id"] for r in ev)
    # an app deletes a synced event: the row stays, deleted=1 dirty=1, until the sync adapter removes it
    assert sh(rig, "p15", f"content delete --uri {EVENTS} --where \"title='Dentist'\"") == (0, "")
    dentist = rows(rig, "p15", EVENTS, "_id:title:deleted:dirty:_sync_id", "title='Dentist'")
    assert len(dentist) == 1 and (dentist[0]["deleted"], dentist[0]["dirty"]) == ("1", "1") and dentist[0]["_sync_id"]
    assert "Dentist" not in {e.title for e in p.read_state().events or []}
    sync = f"caller_is_syncadapter=true&account_name={GOOGLE}&account_type=com.google"
    assert sh(rig, "p15", f"content delete --uri '{EVENTS}/{dentist[0]['_id']}?{sync}'") == (0, "")
    assert rows(rig, "p15", EVENTS, "_id", "title='Dentist'") == []
    assert len(rows(rig, "p15", EVENTS, "_id")) == len(world) - 1


# ============================================================================ call log, legacy contacts
def test_the_call_log_is_closed_to_the_shell_on_android_11_only(rig: dict[str, Any]) -> None:
    denial = re.compile(r"Error while accessing provider:call_log\njava\.lang\.SecurityException: Permission Denial: "
                        r"opening provider com\.android\.providers\.contacts\.CallLogProvider from \(null\) "
                        r"\(pid=\d+, uid=2000\) requires android\.permission\.READ_CALL_LOG or "
                        r"android\.permission\.WRITE_CALL_LOG\n\tat ")
    n = len(rig["p11"].read_state().calls or [])
    rc, out = sh(rig, "p11", "content query --uri content://call_log/calls")
    assert rc == 0 and denial.match(out), out
    rc, out = sh(rig, "p11", "content insert --uri content://call_log/calls --bind number:s:0000")
    assert rc == 0 and denial.match(out), out
    assert len(rig["p11"].read_state().calls or []) == n
    for name in ("p14", "p15"):  # Android 13+ grant READ_CALL_LOG/WRITE_CALL_LOG to the shell
        got = rows(rig, name, "content://call_log/calls", "_id:number")
        assert len(got) == len(rig[name].read_state().calls or []) > 0


def test_legacy_contacts_phones(rig: dict[str, Any]) -> None:
    got = rows(rig, "p14", "content://contacts/phones", "display_name:number")
    world = {(c.name, ph.number) for c in rig["p14"].read_state().contacts or [] for ph in c.phones}
    assert {(r["display_name"], r["number"]) for r in got} == world and len(got) == len(world)
    one = rows(rig, "p14", "content://contacts/phones", "name:number:number_key:type:person")[0]
    assert one["number_key"] == re.sub(r"[^\d+*#]", "", one["number"])[::-1] and one["type"] == "2"


# ============================================================================ permissive
def test_a_permissive_phone_keeps_the_old_behaviour(rig: dict[str, Any]) -> None:
    p, addr = rig["perm"], "+15550004444"
    assert parse_appops_mode(sh(rig, "perm", "appops get com.android.shell WRITE_SMS")[1], "WRITE_SMS") == "allow"
    assert sh(rig, "perm", f"content insert --uri content://sms/draft --bind address:s:{addr} --bind body:s:d")[0] == 0
    assert rows(rig, "perm", "content://sms", "type:body", f"address='{addr}'") == [{"type": "3", "body": "d"}]
    cals = rows(rig, "perm", CAL, "_id:account_type:name")
    assert len(cals) == 1 and cals[0]["_id"], cals
    cal = cals[0]["_id"]
    assert cals == [{"_id": cal, "account_type": "LOCAL", "name": "Phone"}]
    assert sh(rig, "perm", f"content insert --uri {EVENTS} --bind calendar_id:i:{cal} --bind title:s:Old "
                           "--bind dtstart:l:1805000000000 --bind dtend:l:1805003600000")[0] == 0
    titles = {r["title"] for r in rows(rig, "perm", EVENTS, "title:calendar_id")}
    assert "Old" in titles and titles == {e.title for e in p.read_state().events or []}
    assert "_sync_id=" not in sh(rig, "perm", f"content query --uri {EVENTS}")[1]
    assert len(rows(rig, "perm", "content://call_log/calls", "_id")) == len(p.read_state().calls or [])
