"""One phone's shell over the adb host protocol: argv in, (status, stdout, stderr) out.

Why a wrapper around ``adbutils.AdbDevice.shell2``:

* **Quoting is not optional.** Every command is an argv list joined with ``shlex.quote``,
  so a value (a contact name, a file name, policy text) is one word for the phone's ``sh``
  whatever it contains. A raw string is accepted only for constant command lines written
  in this package (``Shell.raw``), never for data.
* **A lost phone is not a failed command.** A socket error, a timeout or an ``AdbError``
  is checked against the adb server: if the device is gone (absent, offline,
  unauthorized) it becomes :class:`DeviceLost` — an infrastructure error the runner
  retries on another phone — otherwise :class:`DeviceCommandError`.
* Shell v2 (exit status and stderr apart) is used when the device advertises it; old
  devices get v1 with adbutils' ``echo X4EXIT:$?`` trick.
* **Reads travel together.** A state read is a few dozen small read-only commands (``content
  query``, ``settings list``, ``dumpsys``…); each one alone pays an adb stream, a fresh ``sh``
  and the USB round trips. :meth:`Shell.batch` runs many in one shell line with a per-batch
  nonce marker after each (status on stdout, a second marker on stderr), so every command
  keeps its own status, stdout and stderr. :meth:`Shell.prefetched` learns which read-only
  commands a piece of reading code issues and, the next time, runs them all in one batch
  before that code asks for them one by one.
* **A row is deleted by its URI only if s2r made it.** ``content delete --uri
  content://AUTHORITY/TABLE/ID`` removes that one row whatever its ``--where``; the shell sends
  it only for a row registered with :meth:`Shell.own_row` (a row s2r created and journalled, or
  proved its own), and refuses any other with :class:`RefusedCommand` before anything reaches
  the phone. Deletes of s2r's rows by table URI name them in ``--where`` (ids, run tags).
"""

from __future__ import annotations

import re
import secrets
import shlex
import socket
import threading
import time
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import adbutils
from pydantic import BaseModel

__all__ = ["Shell", "ShellResult", "DeviceLost", "DeviceCommandError", "RefusedCommand", "quote_argv", "read_only",
           "row_of"]


class DeviceLost(RuntimeError):
    """The phone disappeared (unplugged, adbd died, TCP link dropped): an infrastructure error."""


class DeviceCommandError(RuntimeError):
    """A command could not be run although the phone is still attached."""


class RefusedCommand(DeviceCommandError):
    """A command s2r will not send to a phone (refused before anything reaches it)."""


#: A row URI: ``content://AUTHORITY[/PATH…]/ID`` (a query after it changes nothing about the row).
_ROW_URI = re.compile(r"^(content://[^/?#\s]+(?:/[^/?#\s]+)*/\d+)(?:\?[^#\s]*)?$")


def row_of(uri: str) -> str | None:
    """The row a row URI names (``content://sms/12?x=y`` → ``content://sms/12``); None for a
    table or directory URI (``content://sms``, ``content://sms/inbox``)."""
    m = _ROW_URI.match(uri.strip())
    return m.group(1) if m else None


def _row_deletes(line: str) -> list[str]:
    """The row URIs that ``content delete`` commands in a shell line name."""
    if "content" not in line or "delete" not in line:
        return []
    try:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|()")
        lex.whitespace_split = True
        words = list(lex)
    except ValueError:  # unbalanced quotes: not a line this package writes; look at the bare words
        words = line.split()
    out = []
    for i, w in enumerate(words):
        if w != line and " " in w:  # a quoted line run by another shell (`sh -c '…'`)
            out += _row_deletes(w)
        if w == "content" and words[i + 1:i + 2] == ["delete"]:
            j = i + 2
            while j < len(words) and not set(words[j]) <= set(";&|()"):
                if words[j] == "--uri" and j + 1 < len(words) and (row := row_of(words[j + 1])) is not None:
                    out.append(row)
                j += 1
    return out


class ShellResult(BaseModel):
    rc: int | None = None
    out: str = ""
    err: str = ""

    @property
    def ok(self) -> bool:
        return self.rc == 0

    @property
    def text(self) -> str:
        """stdout and stderr together (v1 merges them anyway)."""
        return self.out + (("\n" + self.err) if self.err and self.out else self.err)


def quote_argv(argv: Sequence[str]) -> str:
    """argv → one ``sh`` command line; each element is exactly one word on the phone."""
    if isinstance(argv, str):
        raise TypeError("pass an argv list, not a string (use Shell.raw for constant command lines)")
    return " ".join(shlex.quote(str(a)) for a in argv)


#: ``cmd SERVICE ARGS…`` forms that only read (the same argv with a value would write).
_READ_ONLY_CMD = {("wifi", "status"), ("connectivity", "airplane-mode"), ("uimode", "night"),
                  ("location", "is-location-enabled"), ("bluetooth_manager", "enable-state"),
                  ("media_session", "volume", "--stream", "3", "--get"), ("notification", "list"),
                  ("appops", "get")}


def read_only(argv: Sequence[str]) -> bool:
    """Whether ``argv`` only reads the phone, so running it a moment early changes nothing.
    Deliberately narrow: anything not known to be a read is not batched ahead of time."""
    a = [str(x) for x in argv]
    if not a:
        return False
    prog, rest = a[0], a[1:]
    if prog in ("getprop", "dumpsys", "find", "ls", "stat", "cat", "id", "wm"):
        return prog != "wm" or rest[:1] in (["size"], ["density"]) and len(rest) == 1
    if prog == "date":
        return rest == ["+%s"]
    if prog == "content":
        return rest[:1] == ["query"]
    if prog == "settings":
        return rest[:1] in (["get"], ["list"])
    if prog == "appops":
        return rest[:1] == ["get"]
    if prog == "pm":
        return rest[:1] in (["list"], ["path"])
    if prog == "cmd":
        return tuple(rest) in _READ_ONLY_CMD or tuple(rest[:2]) in (("appops", "get"), ("package", "resolve-activity"))
    return False


#: Providers whose rows a ``content`` write changes and nothing else (a write elsewhere clears all).
_ISOLATED_AUTHORITIES = {"sms", "mms", "mms-sms", "call_log", "com.android.calendar", "com.android.contacts", "contacts"}


def resource(argv: Sequence[str]) -> str | None:
    """What a command reads or writes, as far as read-ahead cares: ``content:AUTHORITY`` for a
    provider that only ``content`` commands touch, else None (anything)."""
    a = [str(x) for x in argv]
    if a[:1] == ["content"] and "--uri" in a[:-1]:
        uri = a[a.index("--uri") + 1]
        if uri.startswith("content://"):
            auth = uri[len("content://"):].split("/", 1)[0].split("?", 1)[0]
            if auth in _ISOLATED_AUTHORITIES:
                return "content:" + auth
    return None


def _weight(argv: Sequence[str]) -> int:
    """Rough cost of a command on a phone: a Java tool started through app_process is dear."""
    return 10 if argv and str(argv[0]) in ("content", "uiautomator") else 1


_LOST_STATES = {None, "offline", "unauthorized", "absent", "no permissions", "connecting", "authorizing"}


class Shell:
    """Commands on one phone. Thread-safe: every call opens its own adb stream."""

    def __init__(self, client: adbutils.AdbClient, serial: str, *, timeout: float = 30.0):
        self.client = client
        self.serial = serial
        self.timeout = timeout
        self.device = client.device(serial)
        self._v2: bool | None = None
        self.calls = 0
        #: commands run that are not known reads (:func:`read_only`): a state read taken earlier is
        #: still the phone's only while this has not moved (see ``DeviceEnv.read_state``)
        self.writes = 0
        self._writes_lock = threading.Lock()
        self._tl = threading.local()  # this thread's prefetched results and what it records
        self._plans: dict[str, list[tuple[str, ...]]] = {}
        self._plans_lock = threading.Lock()
        #: rows (:func:`row_of`) s2r made on this phone: the only ones a row-URI delete may name
        self.own_rows: set[str] = set()

    def own_row(self, uri: str) -> None:
        """Register the row ``uri`` names as s2r's own (created by s2r and journalled, or proved
        s2r's, e.g. by an account only s2r uses): a ``content delete`` of its row URI is sent from
        now on. A row URI that was never registered is refused (:class:`RefusedCommand`)."""
        row = row_of(uri)
        if row is None:
            raise ValueError(f"not a row URI: {uri!r}")
        self.own_rows.add(row)

    # ------------------------------------------------------------------ state
    def state(self) -> str | None:
        """The adb server's view of this serial: ``device``, ``offline``, ... or None (absent)."""
        try:
            for info in self.client.list():
                if info.serial == self.serial:
                    return info.state
            return None
        except Exception:  # noqa: BLE001 - the adb server itself is unreachable
            return None

    def alive(self) -> bool:
        return self.state() == "device"

    def _classify(self, e: BaseException, what: str) -> Exception:
        st = self.state()
        if st in _LOST_STATES or st != "device":
            return DeviceLost(f"{self.serial} is {st or 'absent'} ({what}: {type(e).__name__}: {e})"[:500])
        return DeviceCommandError(f"{what}: {type(e).__name__}: {e}"[:500])

    def _use_v2(self) -> bool:
        if self._v2 is None:
            try:
                self._v2 = "shell_v2" in set(self.device.get_features().split(","))
            except Exception as e:  # noqa: BLE001
                raise self._classify(e, "features") from e
        return self._v2

    # ------------------------------------------------------------------ running
    def run(self, argv: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        """Run an argv (quoted word by word) and return status, stdout and stderr."""
        line = quote_argv(argv)
        reads = read_only(argv)
        if not reads:
            self._wrote()
        memo: dict[str, deque[ShellResult]] | None = getattr(self._tl, "memo", None)
        if memo is None:
            return self._run(line, timeout)
        res = resource(argv)
        dirty: set[str | None] = self._tl.dirty
        if not reads:
            # a write: what was read ahead of what it touches may no longer be true, and a read
            # of it after this point is not one a batch at the block's start can answer
            if res is None:
                memo.clear()
                dirty.add(None)
            else:
                for k in [k for k in memo if self._tl.res_of.get(k) == res]:
                    del memo[k]
                dirty.add(res)
            return self._run(line, timeout)
        if None not in dirty and res not in dirty:
            self._tl.recording.append(tuple(str(a) for a in argv))
            if memo.get(line):
                return memo[line].popleft()
        return self._run(line, timeout)

    def batch(self, argvs: Sequence[Sequence[str]], *, timeout: float | None = None,
              lanes: int = 6) -> list[ShellResult]:
        """Run several commands in a few shell lines; one :class:`ShellResult` each, as if each had
        run alone (its own status, stdout and stderr), in order. Needs shell v2 (stdout and stderr
        apart); without it the commands run one by one. A marker with a fresh nonce follows each
        command on both streams, so no command's output can be taken for a boundary.

        ``lanes``: the commands are spread over this many shell lines run at the same time (adb
        multiplexes streams; a phone has cores to spare). The costly ones — Java tools such as
        ``content``, each of which starts a runtime through ``app_process`` — are spread first, so
        a state read pays about one runtime start per lane instead of one per query."""
        argvs = [list(a) for a in argvs]
        if not argvs:
            return []
        if not all(read_only(a) for a in argvs):
            self._wrote()
        if len(argvs) == 1 or not self._use_v2():
            return [self._run(quote_argv(a), timeout) for a in argvs]
        lanes = max(1, min(lanes, len(argvs)))
        if lanes > 1:
            load = [0] * lanes
            lane_of: list[int] = [0] * len(argvs)
            order = sorted(range(len(argvs)), key=lambda i: -_weight(argvs[i]))
            for i in order:
                k = min(range(lanes), key=lambda j: load[j])
                lane_of[i] = k
                load[k] += _weight(argvs[i])
            groups = [[i for i in range(len(argvs)) if lane_of[i] == k] for k in range(lanes)]
            groups = [g for g in groups if g]
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=len(groups), thread_name_prefix="batch") as ex:
                parts = list(ex.map(lambda g: self.batch([argvs[i] for i in g], timeout=timeout, lanes=1), groups))
            out: list[ShellResult | None] = [None] * len(argvs)
            for g, res in zip(groups, parts):
                for i, r in zip(g, res):
                    out[i] = r
            return [r for r in out if r is not None]
        nonce = secrets.token_hex(6)
        parts = []
        for i, a in enumerate(argvs):
            parts.append(f"{quote_argv(a)}; echo __s2r{nonce}:{i}:$?__; echo __s2r{nonce}:{i}__ 1>&2")
        r = self._run("; ".join(parts), timeout or self.timeout * 2)
        outs = re.split(rf"__s2r{nonce}:(\d+):(\d+)__\n?", r.out)
        errs = re.split(rf"__s2r{nonce}:\d+__\n?", r.err)
        res: list[ShellResult] = []
        # outs: [out0, i0, rc0, out1, i1, rc1, ..., tail]
        for i in range(len(argvs)):
            k = 3 * i
            if k + 2 >= len(outs):  # the line was cut short (a lost phone raises before this)
                res.append(self._run(quote_argv(argvs[i]), timeout))
                continue
            res.append(ShellResult(rc=int(outs[k + 2]), out=outs[k], err=errs[i] if i < len(errs) else ""))
        return res

    @contextmanager
    def prefetched(self, plan: str) -> Iterator[None]:
        """Within this block (this thread only), the read-only commands that ``plan`` issued last
        time are answered from one :meth:`batch` run at the block's start; anything else runs as
        usual and is learnt for next time.
        A write drops what was read ahead of what it touches — a provider's rows for ``content``
        (its authority), everything for any other write — and reads of that after the write are
        neither answered ahead nor learnt, so a delete's verification always asks the phone.
        Only the reads a batch at the block's start can answer are learnt."""
        if getattr(self._tl, "recording", None) is not None:  # nested: the outer block learns
            yield
            return
        with self._plans_lock:
            known = list(self._plans.get(plan, []))
        memo: dict[str, deque[ShellResult]] = {}
        res_of: dict[str, str | None] = {}
        if known:
            for argv, r in zip(known, self.batch(known)):
                line = quote_argv(argv)
                memo.setdefault(line, deque()).append(r)
                res_of[line] = resource(argv)
        self._tl.memo, self._tl.recording, self._tl.res_of, self._tl.dirty = memo, [], res_of, set()
        try:
            yield
            seen = list(dict.fromkeys(self._tl.recording))  # first use order, no repeats
            with self._plans_lock:
                self._plans[plan] = seen
        finally:
            self._tl.memo = self._tl.recording = self._tl.res_of = self._tl.dirty = None

    def raw(self, line: str, *, timeout: float | None = None) -> ShellResult:
        """Run a constant command line written in this package (never interpolate data into it).
        Counted as a write: nothing here knows what the line does."""
        self._wrote()
        return self._run(line, timeout)

    def _wrote(self) -> None:
        with self._writes_lock:
            self.writes += 1

    def _run(self, line: str, timeout: float | None) -> ShellResult:
        foreign = [r for r in _row_deletes(line) if r not in self.own_rows]
        if foreign:  # every command goes through here: run, batch and raw alike
            raise RefusedCommand(f"refused to delete {', '.join(foreign)} on {self.serial}: s2r did not create "
                                 f"that row (a row URI is deleted only for rows s2r made)")
        self.calls += 1
        try:
            r = self.device.shell2(line, timeout=timeout or self.timeout, v2=self._use_v2())
        except (adbutils.AdbError, OSError, socket.timeout, EOFError) as e:
            raise self._classify(e, line[:80]) from e
        return ShellResult(rc=r.returncode, out=r.stdout if self._v2 else r.output, err=r.stderr if self._v2 else "")

    def out(self, argv: Sequence[str], *, timeout: float | None = None) -> str:
        """stdout of a command (status ignored: many Android tools exit 0 on error anyway)."""
        return self.run(argv, timeout=timeout).out

    def exec_out(self, argv: Sequence[str], *, timeout: float | None = None) -> bytes:
        """Binary-clean stdout (``exec:``, no PTY, no CRLF translation) — for screencap."""
        self.calls += 1
        try:
            conn = self.device.open_transport(timeout=timeout or self.timeout)
            try:
                conn.send_command("exec:" + quote_argv(argv))
                conn.check_okay()
                data = conn.read_until_close(encoding=None)
            finally:
                conn.close()
        except (adbutils.AdbError, OSError, socket.timeout, EOFError) as e:
            raise self._classify(e, "exec-out") from e
        assert isinstance(data, bytes)
        return data

    def getprop(self, key: str) -> str:
        return self.out(["getprop", key]).strip()

    def wait_state(self, want: str = "device", timeout: float = 10.0) -> bool:
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if self.state() == want:
                return True
            time.sleep(0.2)
        return False
