"""What s2r sends to a person's phone: every command the phone receives during oracle and random-policy
episodes, recorded on the phone's side and audited.

A stock virtual phone (``device.virtual``) behind a private real adb server, driven by ``DeviceEnv``
through adbutils and uiautomator2 exactly as ``s2r run --device SERIAL`` drives a USB phone. The phone
records every shell command line it receives (``AndroidBackend.command_log``). The promises checked:

* s2r never runs ``adb kill-server`` (the adb server the user started keeps serving), never sets the
  phone's clock, never runs ``pm clear``, and never deletes what it did not create — a delete of one
  row by its URI names only a row s2r made in the run, and the shell refuses any other;
* a call placed during an episode is undone with the episode; a text that arrives meanwhile is never touched.
"""

from __future__ import annotations

import re
import shlex
import time
from typing import Any, Iterator

import pytest

pytestmark = pytest.mark.timeout(600)

TEST_RECIPIENT = "+12025550100"
"""The number the user owns (``--test-recipient``): the only one a task may text or call."""
ORACLE_TASKS = ["settings.wifi_on", "clock.alarm_off", "contacts.delete", "messages.send_test",
                "messages.read_thread", "calendar.delete", "files.delete", "phone.dial"]
RANDOM_TASKS = ["settings.dnd_on", "contacts.favorite", "files.rename"]

# Each pattern is a command that changes the phone beyond what s2r created (or the host's adb server).
FORBIDDEN: dict[str, str] = {
    "kill-server": r"\bkill-server\b",
    "pm clear": r"(?:^|[\s;&|(])pm\s+clear(?![\w-])",
    "set the clock (date)": r"(?:^|[\s;&|(])(?:toybox\s+)?date\s+(?:-s\b|-u\s+\d|@?\d{6,})",
    "set the clock (alarm service)": r"\bcmd\s+alarm\s+set-time\b|\bservice\s+call\s+alarm\b",
    "automatic time off": r"\bsettings\s+put\s+global\s+auto_time(?:_zone)?\b",
    "time zone": r"\bsetprop\s+persist\.sys\.timezone\b|\bcmd\s+time_zone_detector\b",
    "reboot": r"(?:^|[\s;&|(])(?:reboot|svc\s+power\s+reboot)\b",
    "wipe": r"\bcmd\s+package\s+clear\b|\brecovery\b.*wipe",
}


#: Provider tables whose row ids are noted before the run (what a row-URI delete must never name).
ROW_TABLES = ("content://sms", "content://com.android.calendar/calendars", "content://com.android.calendar/events",
              "content://call_log/calls", "content://com.android.contacts/raw_contacts")


class Audit:
    """The phone, its env, and what the phone received during the run."""

    def __init__(self, host: Any, phone: Any, env: Any, before: Any) -> None:
        self.host, self.phone, self.env, self.before = host, phone, env, before
        self.records: list[Any] = []
        self.call_check: dict[str, Any] = {}
        self.rows_before: dict[str, set[str]] = {}
        self.run_log: list[str] | None = None

    @property
    def log(self) -> list[str]:
        """Every command line the phone received from the run (frozen when the run closed, so
        what a test sends afterwards is not audited as the run's)."""
        return self.run_log if self.run_log is not None else self.phone.backend.command_log


def _row_ids(shell: Any) -> dict[str, set[str]]:
    """The ``_id`` of every row of :data:`ROW_TABLES` the shell can read, by table."""
    from device.parsers import ParseError
    from device.readers import content_query

    out: dict[str, set[str]] = {}
    for uri in ROW_TABLES:
        try:
            out[uri] = {str(r["_id"]) for r in content_query(shell, uri, ("_id",))}
        except ParseError:  # a table this shell may not read
            out[uri] = set()
    return out


def _spec(task_id: str, policy: str, policy_spec: str) -> Any:
    from transfer.runner import EpisodeSpec

    return EpisodeSpec(policy=policy, policy_spec=policy_spec, task_id=task_id, seed=0, backend="device",
                       target="phone", split="real59")


def _episode(audit: Audit, task_id: str, policy_spec: str) -> Any:
    from transfer.policies.registry import make_policy
    from transfer.runner import run_episode
    from transfer.tasks.loader import get_template

    inst = get_template(task_id).instantiate(0)
    spec = _spec(task_id, policy_spec.split(":")[0], policy_spec)
    return run_episode(audit.env, make_policy(policy_spec), inst, spec, backend_info=audit.env.info)  # flavor from the preflight


def _place_a_call_while_a_text_arrives(audit: Audit) -> None:
    """Mid-episode, the policy's call to the test recipient lands in the call log (as the dialer logs an
    outgoing call), and a text arrives from someone else; the next reset (here: close) ends the episode."""
    from transfer.tasks.loader import get_template

    env, phone = audit.env, audit.phone
    env.reset(get_template("phone.dial").instantiate(1))
    calls_before = len(phone.read_state().calls or [])
    now = phone.now().replace(microsecond=0).isoformat()
    phone.patch({"add": {"calls": [{"number": TEST_RECIPIENT, "kind": "outgoing", "time": now, "duration_s": 12}]}})
    placed = [c for c in phone.read_state().calls or [] if c.kind == "outgoing" and c.number == TEST_RECIPIENT]
    arrived = {"address": "+15035550199", "body": "Running late, start without me 🙏", "box": "inbox", "read": False,
               "time": now}
    phone.patch({"add": {"messages": [arrived]}})
    audit.call_check = {"calls_before": calls_before, "placed": placed, "arrived": arrived}


@pytest.fixture(scope="module")
def audit(tmp_path_factory: pytest.TempPathFactory, adb_host: Any, sim_pool: Any) -> Iterator[Audit]:
    from device.adbshell import Shell
    from device.env import DeviceEnv

    host = adb_host
    env = None
    try:
        phone = host.start_phone(sim_pool)  # stopped with the module's adb server
        before = phone.read_state()
        rows_before = _row_ids(Shell(host.client(), phone.serial))
        phone.backend.command_log = []  # from here on, everything the phone receives
        env = DeviceEnv(phone.serial, journal_dir=str(tmp_path_factory.mktemp("journal")),
                        test_recipient=TEST_RECIPIENT, grant_appops=True)  # as with --grant-appops
        a = Audit(host, phone, env, before)
        a.rows_before = rows_before
        a.wall0, a.phone0 = time.time(), phone.now()
        env.start()
        for task in ORACLE_TASKS:
            a.records.append(_episode(a, task, "oracle"))
        for task in RANDOM_TASKS:
            a.records.append(_episode(a, task, "random:7"))
        _place_a_call_while_a_text_arrives(a)
        env.close()
        env = None
        a.run_log = list(phone.backend.command_log)
        a.after = phone.read_state()
        a.wall1, a.phone1 = time.time(), phone.now()
        yield a
    finally:
        if env is not None:
            env.close()


def _argvs(line: str) -> list[list[str]]:
    """The simple commands of one shell line (split at ; && || |), as argv lists."""
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|")
        lex.whitespace_split = True
        words = list(lex)
    except ValueError:
        return [line.split()]
    out, cur = [], []
    for w in words:
        if w and set(w) <= set(";&|"):
            if cur:
                out.append(cur)
            cur = []
        else:
            cur.append(w)
    if cur:
        out.append(cur)
    return out


def test_the_run_really_ran(audit: Audit) -> None:
    """Oracle episodes got verdicts (and passed), random ones got verdicts: the audit covers real episodes."""
    by_task = {(r.task_id, r.policy): r for r in audit.records}
    for task in ORACLE_TASKS:
        r = by_task[task, "oracle"]
        assert r.error is None and r.success is True, (task, r.error, r.checks)
    for task in RANDOM_TASKS:
        r = by_task[task, "random"]
        assert r.error is None and r.success is not None and r.steps >= 1, (task, r.error)
    assert len(audit.log) > 200  # hundreds of commands were sent and recorded


@pytest.mark.parametrize("what", sorted(FORBIDDEN))
def test_no_forbidden_command_reached_the_phone(audit: Audit, what: str) -> None:
    hits = [line for line in audit.log if re.search(FORBIDDEN[what], line)]
    assert hits == [], (what, hits[:5])


def test_the_adb_server_was_never_killed(audit: Audit) -> None:
    """A killed (or restarted) adb server forgets a phone attached with ``adb connect``: it is still there."""
    serials = {d.serial: d for d in audit.host.client().list()}
    assert serials[audit.phone.serial].state == "device"


def test_the_phone_clock_was_never_set(audit: Audit) -> None:
    """The phone's clock advanced with the wall clock over the whole run, give or take a second."""
    dates = [argv for line in audit.log for argv in _argvs(line) if argv[-1:] and argv[0] in ("date", "toybox")
             and "date" in argv[:2]]
    # reading the clock (`date`, `date +%s`) is fine; any other argument would set it
    assert all(all(a.startswith("+") for a in argv[argv.index("date") + 1:]) for argv in dates), dates
    drift = ((audit.phone1 - audit.phone0).total_seconds()) - (audit.wall1 - audit.wall0)
    assert abs(drift) < 2.0, drift


def test_rm_touches_only_what_s2r_created(audit: Audit) -> None:
    """Every ``rm``/``rmdir`` targets a path that was not on the phone before the run."""
    own = {f.path for f in audit.before.files or []}
    targets = [a for line in audit.log for argv in _argvs(line) if argv and argv[0] in ("rm", "rmdir")
               for a in argv[1:] if not a.startswith("-")]
    assert not [t for t in targets if t.rstrip("/") in own or any(p.startswith(t.rstrip("/") + "/") for p in own)]


def _table_of(uri: str) -> str:
    return uri.split("?", 1)[0].rstrip("/")


def test_content_deletes_name_the_rows_s2r_made(audit: Audit) -> None:
    """Every ``content delete`` names rows s2r made: a row URI only a row that was not on the phone
    before the run and that s2r inserted in it; a table URI with a ``--where`` that names rows by
    id or run tag — never a whole table."""
    from device.adbshell import row_of

    argvs = [argv for line in audit.log for argv in _argvs(line)]
    deletes = [(i, argv) for i, argv in enumerate(argvs) if argv[:2] == ["content", "delete"]]
    assert deletes, "the run removed its setups: there were deletes to audit"
    row_deletes = 0
    for i, argv in deletes:
        uri = argv[argv.index("--uri") + 1]
        row = row_of(uri)
        if row is not None:  # a row URI: that one row, whatever else the command says
            table, rid = row.rsplit("/", 1)
            assert rid not in audit.rows_before.get(table, set()), (argv, "a row the phone had before the run")
            inserts = [a for a in argvs[:i] if a[:2] == ["content", "insert"] and "--uri" in a
                       and _table_of(a[a.index("--uri") + 1]) == table]
            assert inserts, (argv, "no row was inserted into that table before it")
            row_deletes += 1
            continue
        assert "--where" in argv, argv
        where = argv[argv.index("--where") + 1]
        assert re.search(r"_id\s*(=|IN)|s2r-(probe-)?[0-9a-f]{8}|\u2063", where, re.I), argv  # ids, run tags, probes
    assert row_deletes, "the run removed s2r's own calendars by their row URIs: there were row deletes to audit"


def test_a_row_uri_delete_is_sent_only_for_a_row_s2r_made(audit: Audit) -> None:
    """The shell refuses a delete of one row by its URI unless s2r made that row (registered when
    s2r creates and journals it): nothing reaches the phone and the row stays. The same delete of
    a row s2r made goes through."""
    from device.adbshell import RefusedCommand, Shell
    from device.localcal import calendar_sync_uri, create_local_calendar, find_s2r_calendars
    from device.readers import URI_CALENDARS, URI_SMS, content_query

    sh = Shell(audit.host.client(), audit.phone.serial)
    victim = sorted(audit.rows_before[URI_SMS], key=int)[0]  # one of the phone's own texts
    log = audit.phone.backend.command_log
    n = len(log)
    refused = rf"^refused to delete {re.escape(URI_SMS)}/{victim} on {re.escape(sh.serial)}: s2r did not create"
    for send in (lambda: sh.run(["content", "delete", "--uri", f"{URI_SMS}/{victim}"]),
                 lambda: sh.run(["content", "delete", "--uri", f"{URI_SMS}/{victim}", "--where", "_id>0"]),
                 lambda: sh.batch([["content", "query", "--uri", URI_SMS, "--projection", "_id"],
                                   ["content", "delete", "--uri", f"{URI_SMS}/{victim}"]], lanes=1),
                 lambda: sh.raw(f"sh -c 'content delete --uri {URI_SMS}/{victim}'")):
        with pytest.raises(RefusedCommand, match=refused):
            send()
    assert log[n:] == []  # refused before anything reached the phone
    assert [r["_id"] for r in content_query(sh, URI_SMS, ("_id",), where=f"_id={victim}")] == [victim]
    # a calendar s2r creates is registered as its own: deleting it by its row URI goes through
    cid, detail = create_local_calendar(sh, "rowguard")
    assert cid is not None, detail
    mark = len(log)
    sh.run(["content", "delete", "--uri", calendar_sync_uri(f"{URI_CALENDARS}/{cid}")])
    assert [line for line in log[mark:] if f"calendars/{cid}?" in line and "content delete" in line], log[mark:]
    assert not [c for c in find_s2r_calendars(sh) if c.get("_id") == cid]
    # while an id s2r did not make, in that same table, stays refused
    with pytest.raises(RefusedCommand, match=rf"^refused to delete {re.escape(URI_CALENDARS)}/{int(cid) + 1} "):
        sh.run(["content", "delete", "--uri", calendar_sync_uri(f"{URI_CALENDARS}/{int(cid) + 1}")])


def test_nothing_the_phone_had_before_is_gone(audit: Audit) -> None:
    """The phone's own contacts, texts, events, alarms and files all survive the run."""
    b, a = audit.before, audit.after
    assert {c.name for c in b.contacts or []} <= {c.name for c in a.contacts or []}
    assert {(m.address, m.body) for m in b.messages or []} <= {(m.address, m.body) for m in a.messages or []}
    assert {(e.title, e.start) for e in b.events or []} <= {(e.title, e.start) for e in a.events or []}
    assert {(x.hour, x.minute, x.label) for x in b.alarms or []} <= {(x.hour, x.minute, x.label) for x in a.alarms or []}
    assert {f.path for f in b.files or []} <= {f.path for f in a.files or []}


def test_a_call_placed_in_an_episode_is_undone_and_an_arriving_text_is_kept(audit: Audit) -> None:
    check = audit.call_check
    assert [c.number for c in check["placed"]][-1:] == [TEST_RECIPIENT], check["placed"]
    assert len(audit.after.calls or []) == check["calls_before"], audit.after.calls  # the call's row is gone
    arrived = check["arrived"]
    kept = [m for m in audit.after.messages or [] if m.address == arrived["address"] and m.body == arrived["body"]]
    assert len(kept) == 1 and kept[0].box == "inbox" and kept[0].read is False, kept
