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
  keeps its own status, stdout and stderr. Learning which reads a piece of code issues and
  answering them ahead from one batch is :class:`device.readahead.ReadAhead`, a wrapper a
  caller opts into: a plain :class:`Shell` runs each command when asked.
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
import time
from collections.abc import Sequence
from typing import Any

import adbutils
from pydantic import BaseModel

__all__ = ["Shell", "ShellResult", "DeviceLost", "DeviceCommandError", "RefusedCommand", "quote_argv", "row_of"]


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
        return self._run(quote_argv(argv), timeout)

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
                parts = list(ex.map(lambda g: self._batch_line([argvs[i] for i in g], timeout), groups))
            out: list[ShellResult | None] = [None] * len(argvs)
            for g, res in zip(groups, parts):
                for i, r in zip(g, res):
                    out[i] = r
            return [r for r in out if r is not None]
        return self._batch_line(argvs, timeout)

    def _batch_line(self, argvs: list[list[str]], timeout: float | None) -> list[ShellResult]:
        """Several commands in one shell line, each followed by the nonce markers."""
        if len(argvs) == 1:
            return [self._run(quote_argv(argvs[0]), timeout)]
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

    def raw(self, line: str, *, timeout: float | None = None) -> ShellResult:
        """Run a constant command line written in this package (never interpolate data into it).
        (:class:`~device.readahead.ReadAhead` counts it as a write: nothing knows what the line does.)"""
        return self._run(line, timeout)

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


def __getattr__(name: str) -> Any:
    """The read-ahead's names where they were before it became a wrapper (:mod:`device.readahead`)."""
    if name in ("read_only", "resource", "ReadAhead"):
        from device import readahead

        return getattr(readahead, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
