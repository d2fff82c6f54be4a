"""Read-ahead over a phone's shell: an opt-in wrapper that answers learnt reads from one batch.

Why a wrapper and not part of :class:`~device.adbshell.Shell`: a shell runs what it is asked,
when it is asked. Answering reads *early* is a speculation that only pays where the same block
of reading code runs again and again (a state read, the episode marks, the teardown, the audit),
and it must know which commands only read and which write. So :class:`ReadAhead` wraps a shell
that a caller — ``DeviceEnv`` for its session — chooses to speed up; everything else about the
shell (streams, quoting, the row-delete guard, ``DeviceLost``) is the wrapped shell's.

* :meth:`ReadAhead.prefetched` learns the read-only commands (:func:`read_only`: a narrow
  allow-list) a block issues and, the next time, runs them all in one :meth:`Shell.batch` at the
  block's start, then answers them from it. A write drops what was read ahead of what it touches
  (:func:`resource`: a provider's authority for ``content``, else everything); reads after it ask
  the phone and are not learnt, so a delete's verification always sees the phone.
* :attr:`ReadAhead.writes` counts every command not known to be a read: a state read taken
  earlier is still the phone's only while it has not moved (``DeviceEnv.read_state``).

Code that reads in blocks asks for the read-ahead with :func:`read_ahead`, which is a no-op on
a plain shell: the same code runs with or without it.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import TYPE_CHECKING, Any

from device.adbshell import Shell, ShellResult, quote_argv

__all__ = ["ReadAhead", "read_ahead", "read_only", "resource"]

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


if TYPE_CHECKING:
    _ShellLike = Shell  # to a type checker the wrapper is a shell: it answers every Shell call
else:
    _ShellLike = object

_OWN = frozenset({"shell", "writes", "_writes_lock", "_tl", "_plans", "_plans_lock"})


class ReadAhead(_ShellLike):
    """A :class:`Shell` with read-ahead (see the module docstring). Every attribute it does not
    define itself is the wrapped shell's — read, set and deleted there — so it stands wherever a
    shell is expected. Thread-safe: each thread has its own read-ahead block."""

    def __init__(self, shell: Shell):
        object.__setattr__(self, "shell", shell)
        #: commands run that are not known reads (:func:`read_only`)
        object.__setattr__(self, "writes", 0)
        object.__setattr__(self, "_writes_lock", threading.Lock())
        object.__setattr__(self, "_tl", threading.local())  # this thread's prefetched results and what it records
        object.__setattr__(self, "_plans", {})  # plan → the reads it issued last time
        object.__setattr__(self, "_plans_lock", threading.Lock())

    # --- the wrapped shell's own attributes ------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        return getattr(object.__getattribute__(self, "shell"), name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OWN:
            object.__setattr__(self, name, value)
        else:
            setattr(self.shell, name, value)

    def __delattr__(self, name: str) -> None:
        if name in _OWN:
            object.__delattr__(self, name)
        else:
            delattr(self.shell, name)

    def _wrote(self) -> None:
        with self._writes_lock:
            self.writes += 1

    # --- running -------------------------------------------------------------------------------
    def run(self, argv: Sequence[str], *, timeout: float | None = None) -> ShellResult:
        """:meth:`Shell.run`, answered from the block's batch where it read that ahead."""
        reads = read_only(argv)
        if not reads:
            self._wrote()
        memo: dict[str, deque[ShellResult]] | None = getattr(self._tl, "memo", None)
        if memo is None:
            return self.shell.run(argv, timeout=timeout)
        line = quote_argv(argv)
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
            return self.shell.run(argv, timeout=timeout)
        if None not in dirty and res not in dirty:
            self._tl.recording.append(tuple(str(a) for a in argv))
            if memo.get(line):
                return memo[line].popleft()
        return self.shell.run(argv, timeout=timeout)

    def out(self, argv: Sequence[str], *, timeout: float | None = None) -> str:
        """stdout of a command (status ignored: many Android tools exit 0 on error anyway)."""
        return self.run(argv, timeout=timeout).out

    def getprop(self, key: str) -> str:
        return self.out(["getprop", key]).strip()

    def batch(self, argvs: Sequence[Sequence[str]], *, timeout: float | None = None,
              lanes: int = 6) -> list[ShellResult]:
        """:meth:`Shell.batch`, counted as a write unless every command is a known read."""
        if argvs and not all(read_only(a) for a in argvs):
            self._wrote()
        return self.shell.batch(argvs, timeout=timeout, lanes=lanes)

    def raw(self, line: str, *, timeout: float | None = None) -> ShellResult:
        """:meth:`Shell.raw`: counted as a write (nothing here knows what the line does)."""
        self._wrote()
        return self.shell.raw(line, timeout=timeout)

    @contextmanager
    def prefetched(self, plan: str) -> Iterator[None]:
        """Within this block (this thread only), the read-only commands that ``plan`` issued last
        time are answered from one :meth:`Shell.batch` run at the block's start; anything else runs
        as usual and is learnt for next time.
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
            for argv, r in zip(known, self.shell.batch(known)):
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


def read_ahead(shell: Any, plan: str) -> AbstractContextManager[None]:
    """``shell.prefetched(plan)`` where the shell reads ahead (:class:`ReadAhead`, or any shell
    that offers it), else a block that changes nothing: reading code asks for it either way."""
    fn = getattr(shell, "prefetched", None)
    return fn(plan) if fn is not None else nullcontext()
