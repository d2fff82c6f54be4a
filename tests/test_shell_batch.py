"""Reads that travel together: ``Shell.batch`` gives each command its own status, stdout and
stderr, exactly as running it alone would, and ``ReadAhead.prefetched`` answers a reading code's
commands from one batch — never a write's, and never a read that a write has made stale.

Through a private real adb server and adbutils against a stock virtual phone.
"""

from __future__ import annotations

from typing import Any, Iterator

import pytest

from device.adbshell import Shell
from device.readahead import ReadAhead, read_only

pytestmark = pytest.mark.timeout(240)


@pytest.fixture(scope="module")
def shell(adb_host: Any, stock_phone: Any) -> Shell:
    return ReadAhead(Shell(adb_host.client(), stock_phone.serial))


CMDS = [
    ["settings", "get", "global", "airplane_mode_on"],
    ["content", "query", "--uri", "content://sms", "--projection", "_id:address:body"],
    ["ls", "/sdcard/no-such-dir"],                      # fails: status and stderr of its own
    ["content", "query", "--uri", "content://com.android.calendar/calendars"],
    ["echo", "__s2r000000000000:0:0__ not a boundary"],  # output that looks like a marker
    ["printf", "no newline at the end"],
    ["cmd", "uimode", "night"],
    ["dumpsys", "window"],
]


def test_batch_gives_each_command_what_it_gives_alone(shell: Shell) -> None:
    alone = [shell.run(c) for c in CMDS]
    calls = shell.calls
    together = shell.batch(CMDS, lanes=1)
    assert shell.calls == calls + 1  # one shell stream for all of them
    calls = shell.calls
    spread = shell.batch(CMDS)  # the default: a few lines at once, the content queries spread over them
    assert shell.calls == calls + 6
    assert [(r.rc, r.out, r.err) for r in spread][:3] == [(r.rc, r.out, r.err) for r in together][:3]
    assert len(together) == len(spread) == len(CMDS)
    for c, a, b in [*zip(CMDS, alone, together), *zip(CMDS, alone, spread)]:
        if c[0] == "dumpsys":  # the focus line carries a clock; compare its structure
            assert b.rc == a.rc == 0 and b.out.splitlines()[0] == a.out.splitlines()[0]
            continue
        assert (b.rc, b.out, b.err) == (a.rc, a.out, a.err), c
    assert together[2].rc != 0 and "No such file" in together[2].err
    assert together[4].out.startswith("__s2r000000000000:0:0__")
    assert together[5].out == "no newline at the end"


def test_prefetched_answers_a_learnt_read_from_one_batch(shell: Shell) -> None:
    from device.readers import StateReader

    reader = StateReader(shell)
    with shell.prefetched("test-read"):  # first time: learns the plan, runs as usual
        first = reader.read()
    calls = shell.calls
    with shell.prefetched("test-read"):
        again = reader.read()
    used = shell.calls - calls
    assert used <= 7, f"{used} shell streams for a learnt read"  # the batch's lanes (+ at most a miss)
    skip = {"time", "foreground"}
    assert again.model_dump(exclude=skip) == first.model_dump(exclude=skip)


def test_a_write_inside_the_block_drops_what_was_read_ahead(shell: Shell) -> None:
    key = ["settings", "get", "system", "screen_off_timeout"]
    old = shell.out(key).strip()
    try:
        with shell.prefetched("test-write"):
            shell.out(key)
        with shell.prefetched("test-write"):
            assert shell.out(key).strip() == old           # answered from the batch
            shell.run(["settings", "put", "system", "screen_off_timeout", "123456"])
            assert shell.out(key).strip() == "123456"      # read again after the write
    finally:
        shell.run(["settings", "put", "system", "screen_off_timeout", old])
    assert shell.out(key).strip() == old


@pytest.mark.parametrize("argv,want", [
    (["content", "query", "--uri", "content://sms"], True),
    (["content", "insert", "--uri", "content://sms", "--bind", "body:s:x"], False),
    (["content", "delete", "--uri", "content://sms"], False),
    (["settings", "get", "global", "wifi_on"], True),
    (["settings", "put", "global", "wifi_on", "1"], False),
    (["cmd", "wifi", "status"], True),
    (["cmd", "wifi", "set-wifi-enabled", "disabled"], False),
    (["cmd", "uimode", "night"], True),
    (["cmd", "uimode", "night", "yes"], False),
    (["cmd", "connectivity", "airplane-mode", "enable"], False),
    (["input", "tap", "1", "2"], False),
    (["date", "+%s"], True),
    (["date", "010203042026.00"], False),
    (["wm", "size"], True),
    (["wm", "size", "720x1280"], False),
    (["am", "start", "-n", "x/.y"], False),
    (["pm", "list", "packages"], True),
    (["pm", "grant", "x", "android.permission.CAMERA"], False),
    (["pm", "clear", "x"], False),
    (["cmd", "package", "resolve-activity", "--brief", "x"], True),
    (["cmd", "package", "install-existing", "x"], False),
    (["rm", "-f", "/sdcard/x"], False),
    ([], False),
])
def test_only_known_reads_are_read_ahead(argv: list[str], want: bool) -> None:
    assert read_only(argv) is want


def test_a_provider_write_drops_only_that_providers_reads(shell: Shell) -> None:
    """A delete in the SMS provider makes the SMS rows read ahead stale, not the calendar's; the SMS
    read after the delete asks the phone and is not learnt (no batch could answer it)."""
    from device.readers import URI_SMS

    sms = ["content", "query", "--uri", URI_SMS, "--projection", "_id"]
    cal = ["content", "query", "--uri", "content://com.android.calendar/calendars", "--projection", "_id"]
    nothing = ["content", "delete", "--uri", URI_SMS, "--where", "_id=-1"]  # a real write that matches no row
    with shell.prefetched("test-scoped"):
        shell.run(sms), shell.run(cal)
    with shell.prefetched("test-scoped"):
        calls = shell.calls
        shell.run(nothing)
        shell.run(cal)                      # still answered from the batch
        assert shell.calls == calls + 1
        shell.run(sms)                      # asked again after the SMS write
        assert shell.calls == calls + 2
    assert shell._plans["test-scoped"] == [tuple(cal)]  # the read after the write is not learnt
