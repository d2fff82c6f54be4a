"""``phone_audit.json``, read back from a real device run, checked against the phone itself.

The README: "After close, each phone is read again in full and compared with how it was before the
run (``phone_audit.json``): nothing s2r created may be left, nothing of the phone's own may have
changed", and what teardown could not undo "is listed in the episode record (``left_on_phone``) and
at the end of the run"; ``config.json`` of every run records what the phone lets the shell do.

One ``s2r run --device SERIAL --grant-appops --policy oracle`` (a subprocess, as a user types it) on a
stock virtual phone that the run did not start — a phone it must treat as a person's — behind this
module's private adb server. Its tasks set up tagged contacts, a tagged event in s2r's own LOCAL
calendar, tagged texts (which need the WRITE_SMS grant) and a Do-Not-Disturb switch, and the oracle
adds a contact of its own through the Contacts app. Afterwards the phone is read again here, through
``adb shell`` (the providers, ``settings``, ``appops``) and through the virtual phone's own world, and
the file's every claim is compared with what is really there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import pytest

pytestmark = pytest.mark.timeout(600)

TASKS = ["contacts.create_phone", "calendar.edit_title", "messages.mark_read_number", "settings.dnd_on"]
NEW_CONTACT = "Elena Silva"  # what contacts.create_phone:0 asks the oracle to add
URIS = {"raw_contacts": ("content://com.android.contacts/raw_contacts", "_id:deleted"),
        "contact_data": ("content://com.android.contacts/data", "_id:raw_contact_id:mimetype:data1"),
        "events": ("content://com.android.calendar/events", "_id:calendar_id:title:description"),
        "calendars": ("content://com.android.calendar/calendars", "_id:account_name:account_type:name"),
        "sms": ("content://sms", "_id:address:body:type:read:subject"),
        "calls": ("content://call_log/calls", "_id:number:type:date")}  # no transcription column here
SETTINGS = {"global": ["stay_on_while_plugged_in", "window_animation_scale", "transition_animation_scale",
                       "animator_duration_scale", "zen_mode", "wifi_on", "airplane_mode_on"],
            "secure": ["default_input_method", "ui_night_mode"], "system": ["screen_brightness", "font_scale"]}
TAG = re.compile(r"\[s2r-[0-9a-f]{8}\]|\u2063")  # the visible run tag, or the start of its invisible form


def _sh(host: Any, serial: str, cmd: str) -> str:
    r = host.adb("-s", serial, "shell", cmd, timeout=60)
    assert r.returncode == 0, (cmd, r.stderr)
    return r.stdout.decode("utf-8")


def read_phone(host: Any, serial: str) -> dict[str, Any]:
    """The phone as adb shows it: provider rows by table, the settings s2r may touch, the app-op."""
    from device.parsers import parse_content_rows
    from device.parsers.services import parse_zen_mode

    out: dict[str, Any] = {}
    for name, (uri, proj) in URIS.items():
        text = _sh(host, serial, f"content query --uri {uri} --projection {proj}")
        out[name] = {r["_id"]: r for r in parse_content_rows(text, columns=proj.split(":"))}
    out["settings"] = {f"{ns}/{k}": _sh(host, serial, f"settings get {ns} {k}").strip()
                       for ns, keys in SETTINGS.items() for k in keys}
    ops = _sh(host, serial, "appops get com.android.shell WRITE_SMS")
    m = re.search(r"^\s*WRITE_SMS: (\w+)", ops, re.M)
    # "No operations." (never set) and "WRITE_SMS: default; time=…" (set back to default) are one mode
    out["appops"] = m.group(1) if m else ("default" if "No operations" in ops else ops.strip())
    out["dnd"] = parse_zen_mode(_sh(host, serial, "dumpsys notification"))  # the service's own state
    return out


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, stock_phone: Any) -> dict[str, Any]:
    phone, host = stock_phone, adb_host
    before = read_phone(host, phone.serial)
    out = tmp_path_factory.mktemp("run") / "audit-run"
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    assert env["ADB_SERVER_SOCKET"] == f"tcp:127.0.0.1:{host.port}"  # the private server, never 5037
    env.update(PYTHONUNBUFFERED="1", COLUMNS="200", S2R_DEVICE_JOURNAL=str(out.parent / "journal"))
    env.pop("S2R_DESTRUCTIVE", None)
    p = subprocess.run([sys.executable, "-m", "s2r.cli", "run", "--device", phone.serial, "--grant-appops",
                        "--policy", "oracle", "--split", "real59", "--tasks", ",".join(TASKS), "--workers", "1",
                        "--out", str(out)], capture_output=True, text=True, env=env, timeout=540)
    assert p.returncode == 0, (p.stdout[-3000:], p.stderr[-3000:])
    return {"host": host, "phone": phone, "before": before, "after": read_phone(host, phone.serial),
            "truth": phone.read_state(), "out": out, "stdout": p.stdout,
            "audit": json.loads((out / "phone_audit.json").read_text(encoding="utf-8")),
            "config": json.loads((out / "config.json").read_text(encoding="utf-8")),
            "episodes": [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x.strip()]}


def _mine(run: dict[str, Any]) -> dict[str, Any]:
    reps = [r for r in run["audit"] if r["serial"] == run["phone"].serial]
    assert len(reps) == 1 and len(run["audit"]) == 1, run["audit"]
    return reps[0]


def test_the_run_did_what_the_audit_is_about(run: dict[str, Any]) -> None:
    """Every episode ran on the phone with a verdict (so setup wrote tagged records and teardown
    removed them), and the phone was used as a person's: not destructive, WRITE_SMS granted."""
    eps = {e["task_id"]: e for e in run["episodes"]}
    assert set(eps) == set(TASKS)
    for e in eps.values():
        assert e["backend"] == "device" and e["error"] is None and e["success"] is True, e
        assert e["device_serial"] == run["phone"].serial
    cfg = run["config"]
    assert cfg["destructive"] is False and cfg["device_run"]["grant_appops"] is True, cfg
    assert NEW_CONTACT in {c.name for c in run["truth"].contacts or []}, "the oracle's own contact is on the phone"


def test_phone_audit_json_holds_one_report_per_phone(run: dict[str, Any]) -> None:
    rep = _mine(run)
    assert set(rep) >= {"serial", "left", "audit", "capabilities", "audit_summary"}, rep.keys()
    a = rep["audit"]
    assert a["serial"] == run["phone"].serial
    assert set(a) >= {"leftovers", "changed", "added", "unreadable"}
    # nothing s2r created is left, nothing of the phone's own changed, nothing teardown could not undo
    assert a["leftovers"] == [] and a["changed"] == [] and rep["left"] == [], rep
    # a stock phone without root: the shell's restricted SMS view is named as what cannot be vouched for
    assert any("restricted view" in u for u in a["unreadable"]), a["unreadable"]
    # the summary line says the same numbers
    assert rep["audit_summary"].startswith(
        f"{run['phone'].serial}: 0 leftover(s), 0 change(s) to the phone's own data, {len(a['added'])} untagged addition(s)"
    ), rep["audit_summary"]


def test_added_is_exactly_what_the_phone_gained(run: dict[str, Any]) -> None:
    """``added`` lists the untagged rows that appeared during the run — here the contact the oracle
    made through the app, which a person's phone keeps — and nothing else; every one is really on
    the phone now and was not there before the run."""
    a = _mine(run)["audit"]
    listed = set()
    for line in a["added"]:
        m = re.match(r"^(\w+) (\d+) \(", line)
        if m:
            listed.add((m.group(1), m.group(2)))
    before, after = run["before"], run["after"]
    gained = {(t, rid) for t in URIS for rid in after[t] if rid not in before[t]}
    assert listed == gained, {"listed, not gained": listed - gained, "gained, not listed": gained - listed}
    new_raw = [rid for t, rid in gained if t == "raw_contacts"]
    assert len(new_raw) == 1, gained
    names = [r["data1"] for r in after["contact_data"].values() if r["raw_contact_id"] == new_raw[0]
             and r["mimetype"] == "vnd.android.cursor.item/name"]
    assert names == [NEW_CONTACT], names
    assert any(NEW_CONTACT in line for line in a["added"]), a["added"]


def test_nothing_s2r_created_is_on_the_phone(run: dict[str, Any]) -> None:
    """No provider row carries a run tag, s2r's calendar account is gone, and the phone's own world
    (the virtual phone's truth, which the providers are views of) holds no tagged record either."""
    after = run["after"]
    tagged = [(t, r) for t in URIS for r in after[t].values()
              if any(isinstance(v, str) and TAG.search(v) for v in r.values())]
    assert tagged == [], tagged
    assert not [r for r in after["calendars"].values() if r.get("account_name") == "s2r"], after["calendars"]
    truth = run["truth"]
    texts = [json.dumps(x.model_dump(mode="json"), ensure_ascii=False) for kind in
             ("contacts", "events", "messages", "calls", "alarms") for x in getattr(truth, kind) or []]
    assert not [t for t in texts if TAG.search(t)], [t for t in texts if TAG.search(t)]


def test_nothing_of_the_phones_own_changed(run: dict[str, Any]) -> None:
    """Every row the phone had is still there, unchanged; the settings s2r switched (tweaks, Do Not
    Disturb) and the WRITE_SMS app-op it lifted read as before."""
    before, after = run["before"], run["after"]
    for t in URIS:
        gone = sorted(set(before[t]) - set(after[t]))
        changed = sorted(rid for rid in before[t] if rid in after[t] and after[t][rid] != before[t][rid])
        assert not gone and not changed, (t, gone, changed)
    assert after["settings"] == before["settings"], {k: (v, after["settings"][k]) for k, v in
                                                     before["settings"].items() if after["settings"][k] != v}
    # WRITE_SMS was not allowed before (the texting setup needed the grant), Do Not Disturb was off
    # (the oracle switched it on): both read as before once the run closed
    assert (before["appops"], before["dnd"]) == ("default", False), before
    assert (after["appops"], after["dnd"]) == (before["appops"], before["dnd"]), after


def test_capabilities_are_in_the_audit_and_in_config_json(run: dict[str, Any]) -> None:
    """config.json of every run: SMS writable and how, SMS boxes readable, calendar, call log,
    service commands, text routes — the same probe result phone_audit.json carries."""
    rep = _mine(run)
    phones = {p["serial"]: p for p in run["config"]["phones"]}
    caps = phones[run["phone"].serial]["capabilities"]
    assert caps == rep["capabilities"]
    assert {"sms", "calendar", "call_log", "services", "text"} <= set(caps)
    assert caps["sms"]["writable"] == "grant_needed" and caps["sms"]["readable_boxes"], caps["sms"]
    assert caps["calendar"]["local_writable"] is True and caps["services"] and caps["text"]["routes"], caps
    assert caps["leftovers"] == [], caps["leftovers"]


def test_the_run_prints_the_audit_and_left_on_phone_is_empty(run: dict[str, Any]) -> None:
    rep = _mine(run)
    assert f"audit {rep['audit_summary']}" in " ".join(run["stdout"].split()), run["stdout"][-2000:]
    assert "not undone" not in run["stdout"] and "left on " not in run["stdout"]
    for e in run["episodes"]:
        assert e["left_on_phone"] == [], (e["task_id"], e["left_on_phone"])


def test_report_reads_the_run_back(run: dict[str, Any]) -> None:
    """``s2r report RUN`` (README: report.html, report.md, summary.json) on the device run."""
    out = run["out"]
    env = {k: v for k, v in os.environ.items() if k != "ANDROID_ADB_SERVER_PORT"}
    p = subprocess.run([sys.executable, "-m", "s2r.cli", "report", str(out), "--bootstrap", "200"],
                       capture_output=True, text=True, env={**env, "COLUMNS": "200"}, timeout=300)
    assert p.returncode == 0, (p.stdout[-2000:], p.stderr[-2000:])
    for name in ("report.html", "report.md", "summary.json"):
        assert (out / name).stat().st_size > 0, name
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary, summary
    # the audit file is left as the run wrote it
    assert json.loads((out / "phone_audit.json").read_text(encoding="utf-8")) == run["audit"]
