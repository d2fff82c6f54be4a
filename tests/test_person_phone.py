"""A person's phone and a rooted one: the DeviceEnv branches each takes.

README, "On a real phone": *Contacts, events and alarms it [the policy] creates are removed only on
dedicated test phones (``--destructive``; s2r's own virtual phones always are), because on a
person's phone a new contact may be the owner's or a sync adapter's*; *Real-world effects are
refused … unless you name a number you own*; setup never overwrites a user's file. And
``--permissive`` "models a rooted emulator" whose shell sees every SMS box and may write them.

How DeviceEnv tells them apart (device/session.py, device/writers/, device/preflight.py):

* ``DeviceOptions.destructive`` (``--destructive``, ``S2R_DESTRUCTIVE=1``; off by default, and set
  only for phones a ``vdevice:N`` run or ``serial="vdevice"`` gym env starts) decides whether what
  the policy made through the apps (``EPISODE_ROWS_DESTRUCTIVE``: contacts, events; alarms through
  ``note_alarms``) is undone.
* ``Preflight.virtual`` (``ro.s2r.virtual=1`` or a ``s2r_virtual``/"S2R Virtual Phone" product)
  exempts s2r's virtual phone from the real-world-effect refusal and lets setup accept a file
  that is already there. No knob of the virtual phone turns that off, so the phone here that
  plays a person's is a stock virtual phone whose ``getprop`` leaves out its ``ro.s2r.*``
  properties: to DeviceEnv it is a Pixel 7 with a Google account, like any other.
* ``root_shell`` (``id -u`` answers 0: adbd runs as root, what ``PhoneKnobs.permissive`` models)
  gives the reader the full SMS view, lets setup write SMS rows of any box without an app-op grant,
  and has the audit vouch for every box; a permissive phone also carries the ADB keyboard, which
  DeviceEnv makes current while it drives the phone and puts back at close.

Real components throughout: Chromium behind the phones, the private adb server, adbutils and
uiautomator2, the oracle policy driving the phones' apps.
"""

from __future__ import annotations

import json
import os
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.timeout(600)

OWNER = "ada.owner@gmail.com"
TASKS = {"contact": "contacts.create_phone", "event": "calendar.create_event", "alarm": "clock.alarm_create"}


def _start_phone(host: Any, pool: Any, *, announce_virtual: bool, **knobs: Any) -> Any:
    """As ``adb_host.start_phone``, optionally with a ``getprop`` that does not say it is s2r's."""
    from device.virtual.phone import VirtualPhone

    from transfer.device_backends import ensure_u2server

    phone = VirtualPhone(knobs, pool=pool)
    if not announce_virtual:
        props = phone.properties
        phone.properties = lambda: {k: v for k, v in props().items() if not k.startswith("ro.s2r.")}  # type: ignore[method-assign]
    phone.start()
    host.phones.append(phone)  # stopped with the module's adb server
    ensure_u2server(phone)
    host.client().connect(phone.serial, timeout=10)
    host.wait_state(phone.serial, "device")
    return phone


def _episode(env: Any, task_id: str, seed: int) -> Any:
    from transfer.policies.registry import make_policy
    from transfer.runner import EpisodeSpec, run_episode
    from transfer.tasks.loader import get_template

    inst = get_template(task_id).instantiate(seed)
    spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id=task_id, seed=seed, backend="device",
                       target="phone", split="real59")
    rec = run_episode(env, make_policy("oracle"), inst, spec, backend_info=env.info)
    return inst, rec


def _made(inst: Any, kind: str, phone: Any) -> list[Any]:
    """What the instance's goal asked the policy to make, as the phone's own world has it now."""
    ws = phone.read_state()
    if kind == "contact":
        return [c for c in ws.contacts or [] if c.name == inst.params["p"]["full"]]
    if kind == "event":
        return [e for e in ws.events or [] if e.title == inst.params["title"]]
    t = inst.params["t"]
    return [a for a in ws.alarms or [] if (a.hour, a.minute) == (t["hour"], t["minute"])]


# ============================================================================ (a) a person's phone
@pytest.fixture(scope="module")
def person(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, sim_pool: Any) -> Iterator[dict[str, Any]]:
    """A person's phone (stock, signed in to Google, not announcing itself as s2r's), driven with the
    default options: three oracle episodes that each make a record through an app, then close."""
    from device.env import DeviceEnv, DeviceOptions

    assert os.environ.get("S2R_DESTRUCTIVE", "") != "1"
    assert DeviceOptions().destructive is False, "a person's phone is the default"
    phone = _start_phone(adb_host, sim_pool, announce_virtual=False, google_account=OWNER, input_latency_ms=0)
    env = DeviceEnv(phone.serial, client=adb_host.client(), journal_dir=str(tmp_path_factory.mktemp("j")))
    env.start()
    made: dict[str, Any] = {}
    from device.readers import URI_CALENDARS, content_query

    cal = {r["_id"]: r for r in content_query(env.shell, URI_CALENDARS, ("_id", "account_name", "account_type"))}
    stock_calendar = cal.get(env.writer.calendar_id or "")
    try:
        for kind, task in TASKS.items():
            inst, rec = _episode(env, task, 0)
            made[kind] = {"inst": inst, "rec": rec, "during": _made(inst, kind, phone)}
    finally:
        env.close()
    yield {"host": adb_host, "phone": phone, "env": env, "made": made, "pool": sim_pool,
           "stock_calendar": stock_calendar, "tmp": tmp_path_factory}


def test_the_person_phone_is_not_taken_for_a_virtual_or_dedicated_one(person: dict[str, Any]) -> None:
    env = person["env"]
    assert env.pf.virtual is False and env.pf.model == "Pixel 7", env.pf
    assert env.options.destructive is False and env.writer.destructive is False
    assert env.writer.existing_files_ok is False
    assert env.root_shell is False  # a stock phone: the shell user, not root


def test_what_the_policy_made_stays_on_a_persons_phone(person: dict[str, Any]) -> None:
    """The contact, the event and the alarm the oracle made through the apps are still on the phone
    after its episode and after close; each episode passed and teardown left nothing of s2r's."""
    phone = person["phone"]
    for kind, m in person["made"].items():
        rec = m["rec"]
        assert rec.error is None and rec.success is True, (kind, rec.error, rec.checks)
        assert rec.left_on_phone == [], (kind, rec.left_on_phone)
        assert len(m["during"]) == 1, (kind, m["during"])
        now = _made(m["inst"], kind, phone)
        assert len(now) == 1, f"the {kind} the policy made is gone from a person's phone: {m['during']}"
        text = json.dumps(now[0].model_dump(mode="json"), ensure_ascii=False)
        assert "\u2063" not in text and "[s2r-" not in text, text  # the user's now: no run tag


def test_the_audit_lists_the_contact_and_the_event_and_calls_the_phone_clean(person: dict[str, Any]) -> None:
    """After close the audit (device.audit) lists the policy's contact and event under ``added``
    (reported, never deleted); nothing of s2r's is left and nothing of the phone's own changed."""
    from device.readers import URI_EVENTS, content_query

    audit = person["env"].audit
    assert audit is not None
    assert audit.leftovers == [] and audit.changed == [], audit.model_dump()
    name = person["made"]["contact"]["inst"].params["p"]["full"]
    title = person["made"]["event"]["inst"].params["title"]
    assert any(line.startswith("contact_data ") and name in line for line in audit.added), audit.added
    assert any(line.startswith("events ") and title in line for line in audit.added), audit.added
    assert any(line.startswith("raw_contacts ") for line in audit.added), audit.added
    # the event is where the Calendar app put it: the owner's synced calendar, not s2r's (gone at close)
    from device.adbshell import Shell

    sh = Shell(person["host"].client(), person["phone"].serial)
    cals = {r["_id"]: r for r in content_query(sh, "content://com.android.calendar/calendars",
                                               ("_id", "account_name", "account_type"))}
    evs = [r for r in content_query(sh, URI_EVENTS, ("_id", "calendar_id", "title", "deleted")) if r["title"] == title]
    assert len(evs) == 1 and evs[0]["deleted"] in (None, "0"), evs
    assert cals[evs[0]["calendar_id"]]["account_name"] == OWNER, (evs, cals)
    assert not [c for c in cals.values() if c["account_name"] == "s2r"], cals


def test_a_dedicated_test_phone_removes_them(person: dict[str, Any]) -> None:
    """The same phone with ``--destructive`` (a dedicated test phone): what the policy makes in an
    episode is removed at its end — and the records the person's-phone run left stay untouched."""
    from device.env import DeviceEnv

    phone = person["phone"]
    earlier = {kind: _made(m["inst"], kind, phone) for kind, m in person["made"].items()}
    assert all(len(v) == 1 for v in earlier.values()), earlier
    env = DeviceEnv(phone.serial, client=person["host"].client(), journal_dir=str(person["tmp"].mktemp("jd")),
                    destructive=True)
    env.start()
    try:
        assert env.writer.destructive is True
        for kind, task in TASKS.items():
            inst, rec = _episode(env, task, 1)
            assert rec.error is None and rec.success is True, (kind, rec.error, rec.checks)
            assert rec.left_on_phone == [], (kind, rec.left_on_phone)
            assert _made(inst, kind, phone) == [], f"the {kind} of a dedicated test phone's episode stayed"
    finally:
        env.close()
    assert {kind: _made(m["inst"], kind, phone) for kind, m in person["made"].items()} == earlier
    assert env.audit is not None and env.audit.leftovers == [] and env.audit.changed == [], env.audit


def test_a_text_to_the_world_is_refused_without_a_test_recipient(person: dict[str, Any]) -> None:
    """Sending a text from a person's phone is refused before anything is written (the virtual phone
    is exempt, which tests/test_device_safety.py shows by flipping ``pf.virtual``; this phone never
    said it was s2r's)."""
    from device.env import DeviceEnv, UnsafeTask
    from transfer.tasks.loader import get_template

    phone = person["phone"]
    inst = get_template("messages.send_test").instantiate(0)
    before = phone.read_state()
    env = DeviceEnv(phone.serial, client=person["host"].client(), journal_dir=str(person["tmp"].mktemp("jr")),
                    grant_appops=True)
    env.start()
    try:
        with pytest.raises(UnsafeTask, match="test recipient"):
            env.reset(inst)
        assert env.journal is None  # refused before setup wrote anything
        assert phone.read_state().messages == before.messages
    finally:
        env.close()


def test_setup_never_overwrites_a_file_already_on_a_persons_phone(person: dict[str, Any]) -> None:
    """A setup file whose path is taken is refused on a person's phone (and the file keeps its
    bytes); s2r's virtual phone, whose synthetic world may already hold it, accepts it as is."""
    from device.env import DeviceEnv
    from device.writers import SetupError

    phone, host = person["phone"], person["host"]
    path = "/sdcard/Download/owner-notes.txt"
    assert host.adb("-s", phone.serial, "shell", f"echo 'my own notes' > {path}").returncode == 0
    read = lambda: host.adb("-s", phone.serial, "shell", f"cat {path}").stdout  # noqa: E731
    mine = read()
    assert mine == b"my own notes\n", mine
    patch = {"add": {"files": [{"path": path, "kind": "file", "size": 64}]}}
    env = DeviceEnv(phone.serial, client=host.client(), journal_dir=str(person["tmp"].mktemp("jf")))
    env.start()
    try:
        with pytest.raises(SetupError, match="never overwrites"):
            env.reset(patch)
        assert read() == mine
    finally:
        env.close()
    # the same on s2r's own virtual phone: "already there", the file untouched
    vphone = _start_phone(host, person["pool"], announce_virtual=True, input_latency_ms=0, animation_ms=0)
    assert host.adb("-s", vphone.serial, "shell", f"echo 'synthetic' > {path}").returncode == 0
    venv = DeviceEnv(vphone.serial, client=host.client(), journal_dir=str(person["tmp"].mktemp("jv")), audit=False)
    venv.start()
    try:
        assert venv.pf.virtual is True and venv.writer.existing_files_ok is True
        venv.reset(patch)
        assert any("already there" in a for a in venv.setup_report.applied), venv.setup_report
        assert host.adb("-s", vphone.serial, "shell", f"cat {path}").stdout == b"synthetic\n"
    finally:
        venv.close()
        host.stop_phone(vphone)


# ============================================================================ (b) a rooted phone
DRAFT = {"address": "+15550001234", "body": "draft on a rooted phone", "box": "draft", "read": True,
         "time": "2027-01-02T09:00:00"}
EVENT = {"title": "Rooted standup", "start": "2027-01-04T09:00:00", "end": "2027-01-04T09:15:00"}


@pytest.fixture(scope="module")
def rooted(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, sim_pool: Any) -> Iterator[dict[str, Any]]:
    """A permissive (rooted-emulator) virtual phone, DeviceEnv with the default options (no
    ``--grant-appops``): the SMS draft setup, what the reader sees, and close."""
    from device.env import DeviceEnv
    from device.readers import URI_CALENDARS, content_query

    phone = adb_host.start_phone(sim_pool, permissive=True, input_latency_ms=0, animation_ms=0)
    ime = lambda: phone.settings.raw("secure", "default_input_method")  # noqa: E731
    appop = lambda: adb_host.adb("-s", phone.serial, "shell",  # noqa: E731
                                 "appops get com.android.shell WRITE_SMS").stdout.decode()
    out: dict[str, Any] = {"phone": phone, "ime_before": ime(), "appop_before": appop()}
    env = DeviceEnv(phone.serial, client=adb_host.client(), journal_dir=str(tmp_path_factory.mktemp("jp")))
    env.start()
    try:
        out["ime_during"] = ime()
        out["appops_session"] = list(env.session.appops)
        out["sms_writable"], out["sms_why"] = env.writer.sms_writable, env.writer.sms_why
        env.reset({"add": {"messages": [DRAFT], "events": [EVENT]}})
        out["tag"] = env.journal.tag
        out["truth_during"] = [m for m in phone.read_state().messages or [] if m.address == DRAFT["address"]]
        out["events_during"] = [e for e in phone.read_state().events or [] if e.title == EVENT["title"]]
        from device.readers import URI_EVENTS, URI_SMS

        out["sms_rows"] = content_query(env.shell, URI_SMS, ("_id", "address", "type", "subject"),
                                        where=f"address='{DRAFT['address']}'")
        out["event_rows"] = [r for r in content_query(env.shell, URI_EVENTS, ("_id", "calendar_id", "title"))
                             if r["title"] == EVENT["title"]]
        out["warnings"] = list(env.warnings)
        ws = env.read_state()
        out["read"] = [m for m in ws.messages or [] if m.address == DRAFT["address"]]
        out["notes"], out["hidden"] = dict(env.reader.notes), ws.hidden
        out["calendar_id"] = env.writer.calendar_id
        out["calendars"] = {r["_id"]: r for r in content_query(env.shell, URI_CALENDARS, ("_id", "account_name"))}
    finally:
        env.close()
    out.update(env=env, ime_after=ime(), appop_after=appop(),
               truth_after=[m for m in phone.read_state().messages or [] if m.address == DRAFT["address"]],
               events_after=[e for e in phone.read_state().events or [] if e.title == EVENT["title"]],
               calendars_after={r["_id"]: r for r in content_query(env.shell, URI_CALENDARS, ("_id", "account_name"))})
    yield out


def test_a_rooted_phone_is_seen_as_root(rooted: dict[str, Any], person: dict[str, Any]) -> None:
    env = rooted["env"]
    assert env.root_shell is True
    assert env.reader.permissive_view is True and env.writer.restricted_sms is False
    # the stock default takes none of these branches
    stock = person["env"]
    assert stock.root_shell is False
    assert stock.reader.permissive_view is False and stock.writer.restricted_sms is True


def test_sms_rows_are_writable_on_a_rooted_phone_without_a_grant(rooted: dict[str, Any],
                                                                  person: dict[str, Any]) -> None:
    assert rooted["sms_writable"] is True and rooted["sms_why"] == ""
    assert rooted["appops_session"] == []  # nothing lifted, so nothing to put back
    assert rooted["appop_after"] == rooted["appop_before"]
    stock = person["env"].writer  # stock, no --grant-appops: SMS setups are unsupported, with the reason
    assert stock.sms_writable is False and "WRITE_SMS" in stock.sms_why and "--grant-appops" in stock.sms_why


def test_a_draft_is_set_up_read_and_removed_on_a_rooted_phone(rooted: dict[str, Any]) -> None:
    """A draft is outside the shell's restricted view on a stock phone (setup unsupported, judge
    blind); the root shell writes it (tagged), the reader sees it, teardown removes it."""
    from device.readers import strip_tag

    during = rooted["truth_during"]
    assert len(during) == 1 and during[0].box == "draft" and during[0].body == DRAFT["body"], during
    rows = rooted["sms_rows"]  # the root shell sees the draft row, its run tag in ``subject``
    assert [r["type"] for r in rows] == ["3"] and strip_tag(rows[0]["subject"] or "")[1] == rooted["tag"], rows
    read = rooted["read"]
    assert len(read) == 1 and read[0].box == "draft" and read[0].body == DRAFT["body"], read
    assert "messages" not in rooted["notes"], rooted["notes"]
    assert "messages.box" not in (rooted["hidden"] or {}), rooted["hidden"]
    assert rooted["truth_after"] == [], rooted["truth_after"]


def test_a_draft_setup_is_unsupported_on_the_stock_default(person: dict[str, Any]) -> None:
    from device.env import DeviceEnv
    from device.writers import SetupError

    phone = person["phone"]
    env = DeviceEnv(phone.serial, client=person["host"].client(), journal_dir=str(person["tmp"].mktemp("js")),
                    grant_appops=True, audit=False)
    env.start()
    try:
        assert env.root_shell is False and env.writer.sms_writable is True  # granted, yet still restricted
        with pytest.raises(SetupError, match="restricted view") as e:
            env.reset({"add": {"messages": [DRAFT]}})
        assert e.value.unsupported is True
        assert not [m for m in phone.read_state().messages or [] if m.address == DRAFT["address"]]
        ws = env.read_state()
        assert "messages" in env.reader.notes and "messages.box" in (ws.hidden or {}), (env.reader.notes, ws.hidden)
    finally:
        env.close()


def test_the_audit_vouches_for_every_sms_box_on_a_rooted_phone(rooted: dict[str, Any],
                                                               person: dict[str, Any]) -> None:
    audit = rooted["env"].audit
    assert audit is not None and audit.leftovers == [] and audit.changed == [], audit.model_dump()
    assert not [u for u in audit.unreadable if "SMS" in u], audit.unreadable
    assert [u for u in person["env"].audit.unreadable if "restricted view" in u], person["env"].audit.unreadable


def test_the_adb_keyboard_is_current_while_driving_and_put_back(rooted: dict[str, Any],
                                                                person: dict[str, Any]) -> None:
    from device.virtual.knobs import ADB_KEYBOARD_IME, DEFAULT_IME

    assert rooted["ime_before"] == DEFAULT_IME
    assert rooted["ime_during"] == ADB_KEYBOARD_IME
    assert rooted["ime_after"] == DEFAULT_IME
    env = rooted["env"]
    assert env.pf.adb_ime == ADB_KEYBOARD_IME and env.pf.capabilities.text.adb_ime == ADB_KEYBOARD_IME
    stock = person["env"]
    assert stock.pf.adb_ime is None and stock.session.ime_switched_to is None


def test_a_rooted_phone_whose_provider_takes_no_calendar_uses_its_own_local_one(
        rooted: dict[str, Any], person: dict[str, Any]) -> None:
    """The rooted branch of the calendar choice: the permissive phone's provider refuses a new
    calendar (as a rooted emulator's may), so setup's events go into the emulator's own LOCAL
    calendar (``_id`` 1, synced to no one), tagged and removed at teardown; that calendar stays.
    The stock default makes s2r's own LOCAL calendar instead (and removes it at close)."""
    cals, cid = rooted["calendars"], rooted["calendar_id"]
    assert cid == "1" and cals["1"]["account_name"] == "Phone", (cid, cals)
    assert "s2r" not in {c["account_name"] for c in cals.values()}, cals
    assert any("using the emulator's own LOCAL calendar 1" in w for w in rooted["warnings"]), rooted["warnings"]
    assert [r["calendar_id"] for r in rooted["event_rows"]] == ["1"], rooted["event_rows"]
    assert len(rooted["events_during"]) == 1 and rooted["events_after"] == [], rooted["events_after"]
    assert rooted["calendars_after"] == cals  # the emulator's calendar is not s2r's to remove
    stock = person["stock_calendar"]
    assert stock["account_name"] == "s2r" and stock["account_type"] == "LOCAL", stock
