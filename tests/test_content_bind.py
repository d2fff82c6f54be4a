"""``content --bind`` escaping, ``content``'s failure answers, CallLogProvider's voicemail rule,
and the virtual phone's own row codes — through the real adb server, adbutils and virtual phones.

* From Android 11 ``content`` splits a binding on every unescaped ``:`` and wants exactly three
  parts (frameworks/base cmds/content Content.java ``parseBindValue``/``splitWithEscaping``); a
  bad one prints the usage and ``[ERROR] …`` on stdout and exits 0. DeviceEnv's writer escapes
  by the phone's version, and treats such an answer as a failed setup with the phone's words.
* CallLogProvider refuses a ``type=4`` row without ``?allow_voicemails=true`` (and the shell
  has no WRITE_VOICEMAIL with it).
* The readers' decode tables (:mod:`device.parsers.records`) and the phone's encode tables
  (:mod:`device.virtual.android_codes`) are independent and must agree code by code.
"""

from __future__ import annotations

import re
from typing import Any, Iterator

import pytest

from actionmap.patch import StatePatch

pytestmark = pytest.mark.timeout(900)

FAST = {"input_latency_ms": 0, "animation_ms": 0}
VERSIONS = (11, 14, 15)


@pytest.fixture(scope="module")
def phones(adb_host: Any, sim_pool: Any) -> dict[int, Any]:
    """One stock phone per Android release on the module's private adb server."""
    return {v: adb_host.start_phone(sim_pool, android=v, **FAST) for v in VERSIONS}


@pytest.fixture(scope="module")
def rooted(adb_host: Any, sim_pool: Any) -> Any:
    return adb_host.start_phone(sim_pool, permissive=True, **FAST)


def adb_shell(host: Any, phone: Any, line: str) -> tuple[int, str, str]:
    """``adb -s SERIAL shell LINE`` with the real adb client (shell v2: stdout, stderr, status apart)."""
    r = host.adb("-s", phone.serial, "shell", line)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


@pytest.fixture()
def env_factory(tmp_path: Any) -> Iterator[Any]:
    """DeviceEnvs on the module's phones, each closed (torn down, audited) at the end of the test."""
    from device.env import DeviceEnv

    made: list[Any] = []

    def make(phone: Any, **kw: Any) -> Any:
        env = DeviceEnv(phone.serial, journal_dir=str(tmp_path / f"j{len(made)}"), **kw)
        made.append(env)
        env.start()
        return env

    yield make
    for env in made:
        env.close()
        assert env.audit is not None and env.audit.clean, env.audit


# ============================================================================ code tables
def test_the_readers_and_the_phone_agree_on_every_code() -> None:
    """Two independent tables (the readers' decoders, the phone's encoders from the framework
    contracts): every code one side knows, the other maps the same way."""
    from device.parsers import records as rd
    from device.virtual import android_codes as ph

    assert rd.SMS_BOXES == ph.SMS_BOX_OF_TYPE
    assert {box: t for box, t in ph.SMS_TYPE.items() if box != "queued"} == {
        box: t for t, box in rd.SMS_BOXES.items() if t != ph.MESSAGE_TYPE_QUEUED}
    assert rd.SMS_BOXES[ph.SMS_TYPE["queued"]] == "outbox" and ph.MESSAGE_TYPE_ALL not in rd.SMS_BOXES
    assert rd.CALL_KINDS == ph.CALL_KIND_OF_TYPE
    assert all(rd.CALL_KINDS[t] == kind for kind, t in ph.CALL_TYPE.items())
    assert rd.PHONE_LABELS == ph.PHONE_LABEL_OF_TYPE
    assert all(rd.PHONE_LABELS[t] == label for label, t in ph.PHONE_TYPE.items())
    assert ph.TYPE_CUSTOM not in rd.PHONE_LABELS
    assert (rd.MIME_NAME, rd.MIME_PHONE, rd.MIME_EMAIL, rd.MIME_ORG) == (
        ph.MIME_NAME, ph.MIME_PHONE, ph.MIME_EMAIL, ph.MIME_ORG)
    # the writer's encoders agree too (a third table)
    from device import writers as w

    assert w._SMS_TYPES == {b: t for b, t in ph.SMS_TYPE.items() if b != "queued"}
    assert w._CALL_TYPES == ph.CALL_TYPE and w._PHONE_TYPES == ph.PHONE_TYPE


# ============================================================================ the binding rule
NASTY = ["New number from today: 555", "a\\:b", "C:\\Users\\ada\\", "::", ":", "\\", "x:s:y",
         "it's \"quoted\"", "two\nlines\r\n", "tab\tand 😀", ""]


@pytest.mark.parametrize("sdk", [29, 30, 34, 35])
def test_the_writer_escapes_every_text_so_content_of_that_version_reads_it_back(sdk: int) -> None:
    """The writer's ``_bind`` and the phone's ``parse_binding`` are written apart (one from the
    tool's source, one for the writer): what one writes, the other reads back exactly."""
    from device.virtual.android_content import parse_binding
    from device.writers import _bind

    for text in NASTY:
        for col in ("body", "data1"):
            word = _bind(col, text, sdk)[1]
            assert parse_binding(word, sdk) == (col, text), (sdk, text, word)
    assert parse_binding("n:i:2147483647", sdk) == ("n", 2**31 - 1)
    assert parse_binding("d:l:1805000000000", sdk) == ("d", 1_805_000_000_000)


def test_the_binding_rule_of_each_version() -> None:
    from device.virtual.android_content import ContentUsageError, parse_binding

    assert parse_binding("body:s:a:b", 29) == ("body", "a:b")  # Q: the rest after the second colon
    assert parse_binding("body:s:a\\:b", 29) == ("body", "a\\:b")  # …taken literally
    assert parse_binding("n:i:4294967296", 29) == ("n", 4294967296)  # Q: i is Long.parseLong
    for bad, why in [("body:s:a:b", "Binding not well formed: body:s:a:b"),
                     ("body:s", "Binding not well formed: body:s"), ("body:s:a\\", "Invalid escaping"),
                     ("n:i:4294967296", 'For input string: "4294967296"'), ("n:i:", 'For input string: ""'),
                     ("x:q:1", "Unsupported type: q"), ("x:S:1", "Unsupported type: S"), ("x:f:", "empty String")]:
        with pytest.raises(ContentUsageError) as ei:
            parse_binding(bad, 30)
        assert str(ei.value) == why
    assert parse_binding("b:B:TRUE", 30) == ("b", True) and parse_binding("b:b:yes", 30) == ("b", False)
    assert parse_binding("x:N:", 30) == ("x", None) and parse_binding("x:d: 1.5d ", 30) == ("x", 1.5)


# ============================================================================ raw `content` answers
@pytest.mark.parametrize("android", VERSIONS)
def test_an_unescaped_colon_prints_the_usage_and_error_on_stdout_and_exits_0(adb_host: Any, phones: dict[int, Any],
                                                                           android: int) -> None:
    from device.virtual.android_content import _CONTENT_USAGE

    p = phones[android]
    rc, out, err = adb_shell(adb_host, p, "content insert --uri content://settings/system "
                                          "--bind name:s:s2r_colon --bind value:s:a:b")
    assert (rc, err) == (0, "")
    assert out == _CONTENT_USAGE + "\n[ERROR] Binding not well formed: value:s:a:b\n"
    assert out.startswith("usage: adb shell content [subcommand] [options]\n\nusage: adb shell content insert ")
    assert adb_shell(adb_host, p, "settings get system s2r_colon")[1] == "null\n"  # nothing was run
    # the same binding, escaped, lands with its colon and backslash
    rc, out, err = adb_shell(adb_host, p, "content insert --uri content://settings/system "
                                          "--bind name:s:s2r_colon --bind 'value:s:a\\:b\\\\c'")
    assert (rc, out, err) == (0, "", "")
    assert adb_shell(adb_host, p, "settings get system s2r_colon")[1] == "a:b\\c\n"
    adb_shell(adb_host, p, "settings delete system s2r_colon")
    # other parse errors: the same form
    for line, why in [("content insert --uri content://settings/system --bind 'value:s:x\\'", "Invalid escaping"),
                      ("content insert --uri content://settings/system", "Bindings not specified. Did you specify "
                                                                         "--bind argument(s)?"),
                      ("content query --projection _id", "Content provider URI not specified. Did you specify --uri "
                                                         "argument?"),
                      ("content query --uri --where x", "No value for argument: --uri"),
                      ("content frobnicate", "Unsupported operation: frobnicate"),
                      ("content", "Unsupported operation: null"),
                      ("content query --uri content://sms --bind a:s:b", "Unsupported argument: --bind"),
                      ("content insert --uri content://sms --bind n:i:12x", 'For input string: "12x"')]:
        assert adb_shell(adb_host, p, line) == (0, f"{_CONTENT_USAGE}\n[ERROR] {why}\n", ""), line


@pytest.mark.parametrize("android", (11, 14))
def test_a_provider_exception_goes_to_stderr_and_content_still_exits_0(adb_host: Any, phones: dict[int, Any],
                                                                       android: int) -> None:
    p = phones[android]
    rc, out, err = adb_shell(adb_host, p, "content query --uri content://nope/x")
    assert (rc, out) == (0, "")
    assert err.startswith("Error while accessing provider:nope\n"
                          "java.lang.IllegalStateException: Could not find provider: nope\n"
                          "\tat com.android.commands.content.Content$Command.execute(Content.java:"), err
    rc, out, err = adb_shell(adb_host, p, "content query --uri content://sms --where 'nosuchcol=1'")
    assert (rc, out) == (0, "") and err.startswith("Error while accessing provider:sms\n"
                                                   "android.database.sqlite.SQLiteException: no such column: nosuchcol")
    assert "\n\tat " in err


# ============================================================================ voicemail rows
CALLS = "content://call_log/calls"
VM_REFUSED = ("Error while accessing provider:call_log\njava.lang.IllegalArgumentException: Uri {uri} cannot be used "
              "for voicemail record. Please set 'allow_voicemails=true' in the uri.\n\tat ")


@pytest.mark.parametrize("android", (14, 15))
def test_the_call_log_refuses_voicemail_rows_to_the_shell(adb_host: Any, phones: dict[int, Any],
                                                          android: int) -> None:
    p = phones[android]
    n = len(p.read_state().calls or [])
    rc, out, err = adb_shell(adb_host, p, f"content insert --uri {CALLS} --bind number:s:5550199 --bind type:i:4")
    assert (rc, out) == (0, "") and err.startswith(VM_REFUSED.format(uri=CALLS)), err
    # a string "4" is still type 4 (ContentValues.getAsInteger)
    rc, out, err = adb_shell(adb_host, p, f"content insert --uri {CALLS} --bind number:s:5550199 --bind type:s:4")
    assert err.startswith(VM_REFUSED.format(uri=CALLS)), err
    # with the parameter the provider wants WRITE_VOICEMAIL, which the shell does not hold
    allow = f"{CALLS}?allow_voicemails=true"
    rc, out, err = adb_shell(adb_host, p, f"content insert --uri '{allow}' --bind number:s:5550199 --bind type:i:4")
    assert (rc, out) == (0, "") and err.startswith(
        "Error while accessing provider:call_log\njava.lang.SecurityException: The caller must be the default or "
        "system dialer, or have the system-only android.permission.WRITE_VOICEMAIL permission: \n"), err
    rc, out, err = adb_shell(adb_host, p, f"content query --uri '{allow}' --projection _id")
    assert "android.permission.READ_VOICEMAIL" in err and out == ""
    assert len(p.read_state().calls or []) == n  # nothing was written
    # a row turned into a voicemail by an update: refused the same way
    rc, out, err = adb_shell(adb_host, p, f"content update --uri {CALLS} --bind type:i:4 --where 'type=1'")
    assert err.startswith(VM_REFUSED.format(uri=CALLS)), err
    # other types are fine
    rc, out, err = adb_shell(adb_host, p, f"content insert --uri {CALLS} --bind number:s:5550199 --bind type:i:3")
    assert (rc, out, err) == (0, "", "")
    assert len(p.read_state().calls or []) == n + 1
    adb_shell(adb_host, p, f"content delete --uri {CALLS} --where number=5550199")
    assert len(p.read_state().calls or []) == n


def test_voicemail_rows_need_the_parameter_even_for_root_and_stay_out_of_plain_queries(adb_host: Any,
                                                                                       rooted: Any) -> None:
    p = rooted
    rc, out, err = adb_shell(adb_host, p, f"content insert --uri {CALLS} --bind number:s:5550177 --bind type:i:4")
    assert err.startswith(VM_REFUSED.format(uri=CALLS)), err
    allow = f"{CALLS}?allow_voicemails=true"
    assert adb_shell(adb_host, p, f"content insert --uri '{allow}' --bind number:s:5550177 --bind type:i:4") == (
        0, "", "")
    assert any(c.kind == "voicemail" and c.number == "5550177" for c in p.read_state().calls or [])
    # EXCLUDE_VOICEMAIL_SELECTION: a query without the parameter does not see it
    assert "5550177" not in adb_shell(adb_host, p, f"content query --uri {CALLS} --projection number")[1]
    assert "number=5550177" in adb_shell(adb_host, p, f"content query --uri '{allow}' --projection number")[1]
    adb_shell(adb_host, p, f"content delete --uri {CALLS} --where number=5550177")  # excluded: nothing deleted
    assert any(c.number == "5550177" for c in p.read_state().calls or [])
    adb_shell(adb_host, p, f"content delete --uri '{allow}' --where number=5550177")
    assert not any(c.number == "5550177" for c in p.read_state().calls or [])


def test_a_voicemail_setup_fails_with_the_providers_words(phones: dict[int, Any], env_factory: Any) -> None:
    from device.writers import SetupError

    p = phones[14]
    env = env_factory(p)
    before = len(p.read_state().calls or [])
    with pytest.raises(SetupError) as ei:
        env.reset(StatePatch.model_validate({"add": {"calls": [
            {"number": "5550123", "name": "Box", "kind": "voicemail", "time": "2026-05-01T09:00:00"}]}}))
    assert "cannot be used for voicemail record. Please set 'allow_voicemails=true' in the uri." in str(ei.value)
    assert len(p.read_state().calls or []) == before


# ============================================================================ DeviceEnv setups
COLON_SETUP = {"add": {
    "messages": [{"address": "+15550100", "body": "New number from today: 555", "box": "inbox",
                  "time": "2026-05-01T09:00:00", "read": True}],
    "contacts": [{"name": "Ada: Lovelace", "phones": [{"number": "+1 555 0101", "label": "mobile"},
                                                     {"number": "+1 555 0109", "label": "on call: nights"}],
                  "emails": ["a:b@example.com"], "company": "A:B Corp"}],
    "events": [{"title": "Standup: 10:30", "start": "2026-05-02T10:30:00", "end": "2026-05-02T10:45:00",
                "location": "Room 1:2", "description": "agenda: a\\b"}],
}}
COLON_CALL = {"number": "+15550111", "name": "Dr: Who", "kind": "missed", "time": "2026-05-01T08:00:00"}


def _landed(ws: Any, patch: dict[str, Any]) -> None:
    from device.readers import untagged

    add = patch["add"]
    for m in add.get("messages", []):
        assert any(x.body == m["body"] and x.address == m["address"] for x in ws.messages or []), ws.messages
    for c in add.get("contacts", []):
        got = [x for x in ws.contacts or [] if x.name == c["name"]]
        assert got, ws.contacts
        assert got[0].company == c.get("company", "") and got[0].emails == c.get("emails", [])
        assert [(p.number, p.label) for p in got[0].phones] == [(p["number"], p["label"]) for p in c.get("phones", [])]
    for e in add.get("events", []):
        got = [x for x in ws.events or [] if x.title == e["title"]]
        assert got, ws.events
        assert got[0].location == e.get("location", "")
        assert untagged(got[0].description) == e.get("description", "")  # the phone's world keeps the run tag
    for c in add.get("calls", []):
        assert any(x.name == c["name"] and x.number == c["number"] and x.kind == c["kind"]
                   for x in ws.calls or []), ws.calls


@pytest.mark.parametrize("android", VERSIONS)
def test_text_with_colons_lands_and_reads_back_exactly(phones: dict[int, Any], env_factory: Any,
                                                       android: int) -> None:
    p = phones[android]
    patch = {"add": {**COLON_SETUP["add"], **({"calls": [COLON_CALL]} if android >= 13 else {})}}
    env = env_factory(p, grant_appops=True)
    env.reset(StatePatch.model_validate(patch))
    _landed(env.read_state(), patch)
    _landed(p.read_state(), patch)  # the phone's own world holds the same text


NASTY_FIELDS = ["back\\slash: C:\\x\\", "it's \"quoted\" :)", "two\nlines: here"]


@pytest.mark.parametrize("text", NASTY_FIELDS, ids=["backslash", "quotes", "newline"])
def test_any_text_in_every_field_lands_literally(phones: dict[int, Any], env_factory: Any, text: str) -> None:
    """Colons, backslashes, quotes and newlines in every provider field the writer fills; a text
    the phone refuses would be a setup error with its words (the next test)."""
    p = phones[15]
    patch = {"add": {
        "messages": [{"address": "+15550102", "body": "sms " + text, "box": "inbox", "time": "2026-05-01T09:00:00",
                      "read": True}],
        "contacts": [{"name": "Name " + text, "phones": [{"number": "+1 555 0102", "label": "work"},
                                                         {"number": "+1 555 0104", "label": "Label " + text}],
                      "emails": ["e" + text.replace("\n", "") + "@example.com"], "company": "Co " + text}],
        "events": [{"title": "Ev " + text, "start": "2026-05-03T09:00:00", "end": "2026-05-03T10:00:00",
                    "location": "Loc " + text, "description": "Desc " + text}],
        "calls": [{"number": "+15550103", "name": "Caller " + text, "kind": "outgoing", "time": "2026-05-01T07:00:00"}],
    }}
    env = env_factory(p, grant_appops=True)
    env.reset(StatePatch.model_validate(patch))  # every field is escaped: nothing for the phone to refuse
    _landed(env.read_state(), patch)
    _landed(p.read_state(), patch)


def test_a_binding_the_phone_refuses_is_a_setup_error_with_the_phones_words(phones: dict[int, Any],
                                                                             env_factory: Any) -> None:
    """Bypass the escaping (tell the writer the phone is Android 10): Android 14's ``content`` then
    sees four parts and refuses — the setup fails with its ``[ERROR]`` line, and nothing is left."""
    from device.writers import SetupError

    p = phones[14]
    env = env_factory(p, grant_appops=True)
    env.writer.sdk = 29
    events_before = [e.title for e in p.read_state().events or []]
    with pytest.raises(SetupError) as ei:
        env.reset(StatePatch.model_validate({"add": {"events": COLON_SETUP["add"]["events"]}}))
    msg = str(ei.value)
    assert "[ERROR] Binding not well formed: title:s:Standup: 10:30" in msg, msg
    assert "usage:" not in msg  # the phone's error line, not its usage screen
    assert [e.title for e in p.read_state().events or []] == events_before
    env.writer.sdk = None  # the phone's own level again: the same setup lands
    env.reset(StatePatch.model_validate({"add": {"events": COLON_SETUP["add"]["events"]}}))
    _landed(env.read_state(), {"add": {"events": COLON_SETUP["add"]["events"]}})


def test_content_failure_reads_every_failure_form() -> None:
    """The writer's check of a ``content`` answer, on the exact texts the tool prints."""
    from device.adbshell import ShellResult
    from device.virtual.android_content import _CONTENT_USAGE
    from device.writers import content_failure

    assert content_failure(ShellResult(rc=0, out="", err="")) is None
    usage = ShellResult(rc=0, out=_CONTENT_USAGE + "\n[ERROR] Binding not well formed: a:s:b:c\n")
    assert content_failure(usage) == "[ERROR] Binding not well formed: a:s:b:c"
    prov = ShellResult(rc=0, err="Error while accessing provider:sms\njava.lang.SecurityException: Permission "
                                 "Denial: writing\n\tat android.os.Parcel.createException(Parcel.java:2357)\n")
    assert content_failure(prov) == ("Error while accessing provider:sms java.lang.SecurityException: Permission "
                                     "Denial: writing")
    assert re.search("NullPointerException", content_failure(ShellResult(
        rc=0, out="java.lang.NullPointerException: Attempt to invoke\n")) or "")
    assert content_failure(ShellResult(rc=255, err="")) == "exit status 255"
