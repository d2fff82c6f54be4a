"""The virtual phone's shell: processes and their I/O — pids, background jobs, the stream
types a command reads and writes, and the :class:`CommandContext` every command handler gets.

Why its own module: the parser (:mod:`.sh_parse`) knows none of this and the interpreter
(:mod:`.sh_interp`) and the hundreds of Android command handlers (``android_*``) share it; a
handler imports only this.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Protocol

if TYPE_CHECKING:  # imported only for annotations: the shell must not depend on fs at run time
    from .fs import VirtualFS
    from .sh_interp import ShellInterpreter

__all__ = [
    "Job", "find_job", "next_pid", "InputStream", "OutputStream", "BytesInput", "BufferOutput", "NullOutput",
    "Pipe", "CommandContext", "CommandHandler", "ShellExit", "DEFAULT_ENV", "SHELL_NAME", "BIN_DIRS",
]

log = logging.getLogger("device.virtual.sh")

SHELL_NAME = "/system/bin/sh"

#: Environment of an ``adb shell`` session on a stock Android 13 device (the parts that matter).
DEFAULT_ENV: dict[str, str] = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:"
            "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    "HOME": "/",
    "SHELL": "/bin/sh",
    "USER": "shell",
    "LOGNAME": "shell",
    "TMPDIR": "/data/local/tmp",
    "ANDROID_DATA": "/data",
    "ANDROID_ROOT": "/system",
    "EXTERNAL_STORAGE": "/sdcard",
    "HOSTNAME": "localhost",
}

#: Directories whose prefix is stripped before looking a command up in ``commands``,
#: so ``/system/bin/getprop`` finds the ``getprop`` handler.
BIN_DIRS = ("/system/bin/", "/system/xbin/", "/vendor/bin/", "/product/bin/", "/bin/",
            "/system_ext/bin/", "/apex/com.android.runtime/bin/")

_pids = itertools.count(4242)


def next_pid() -> int:
    """A fresh process id (every command the shell forks gets one)."""
    return next(_pids)


class Job:
    """A background job (``cmd &``): its pid (``$!``), its task and the signals it received.

    A command that handles a signal registers it with :meth:`catch` and waits on
    :attr:`signalled`; :meth:`kill` with any other signal cancels the job's task, whose status is
    then 128 + the signal (mksh ``waitfor``).

    ``simple``: the job is one simple command, which the forked shell execs (``$!`` is that
    command's pid); otherwise the job is a subshell (``sh``) that runs its commands in turn.
    ``process``: the phone's process-table entry for it, once a command of the phone ran in it."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.task: "asyncio.Task[int] | None" = None
        self.status: int | None = None
        self.signal: int = 0  # the signal that ended it
        self.caught: set[int] = set()
        self.received: list[int] = []
        self.signalled = asyncio.Event()
        self.simple = True
        self.process: object | None = None

    def catch(self, *signums: int) -> None:
        self.caught.update(signums)

    @property
    def done(self) -> bool:
        return self.task is None or self.task.done()

    def kill(self, signum: int) -> bool:
        """Deliver ``signum`` (0 only checks the job exists); False when it has ended."""
        if self.done:
            return False
        if signum == 0:
            return True
        if signum in self.caught:
            self.received.append(signum)
            self.signalled.set()
            return True
        if signum in (18, 28, 17, 23):  # SIGCONT, SIGWINCH, SIGCHLD, SIGURG: ignored by default
            return True
        self.signal = signum
        assert self.task is not None
        self.task.cancel()
        return True


_JOBS: dict[int, Job] = {}
_CURRENT_JOB: "contextvars.ContextVar[Job | None]" = contextvars.ContextVar("sh_job", default=None)


def find_job(pid: int) -> Job | None:
    """The live background job with this pid (in any shell of the process), if any."""
    job = _JOBS.get(pid)
    if job is not None and job.done:
        _JOBS.pop(pid, None)
        return None
    return job


# ============================================================================ streams
class InputStream(Protocol):
    """Where a command reads its stdin from."""

    async def read(self, n: int = -1) -> bytes:
        """Next available bytes (at most ``n`` if ``n > 0``); ``b""`` means end of input."""
        ...


class OutputStream(Protocol):
    """Where a command writes stdout/stderr.  ``write`` raises ``BrokenPipeError`` once the
    reader is gone (the host closed the adb stream, or ``head`` stopped reading)."""

    async def write(self, data: bytes) -> None: ...


class BytesInput:
    """Stdin from a fixed byte string (``< file``, ``$(...)``, background jobs)."""

    def __init__(self, data: bytes = b"") -> None:
        self._data = data

    async def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = 64 * 1024
        chunk, self._data = self._data[:n], self._data[n:]
        return chunk


class BufferOutput:
    """Collects output in memory (``$(...)`` capture, tests)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    async def write(self, data: bytes) -> None:
        self.buffer += data

    def getvalue(self) -> bytes:
        return bytes(self.buffer)


class NullOutput:
    """``/dev/null``."""

    async def write(self, data: bytes) -> None:
        return None


class _FileOutput:
    """Redirection to a VirtualFS file: every write appends, so a long-running command
    (``logcat > f &``) is visible while it runs."""

    def __init__(self, fs: "VirtualFS", path: str) -> None:
        self._fs, self._path = fs, path

    async def write(self, data: bytes) -> None:
        self._fs.append_bytes(self._path, data)


class Pipe:
    """A bounded in-process pipe between two pipeline stages.

    ``write`` blocks while more than ``limit`` bytes are unread (back-pressure, so
    ``yes | head -1`` terminates) and raises ``BrokenPipeError`` after the reading side
    closed; ``read`` returns ``b""`` after the writing side closed and the buffer drained.
    """

    def __init__(self, limit: int = 64 * 1024) -> None:
        self._buf = bytearray()
        self._limit = limit
        self._wclosed = False
        self._rclosed = False
        self._cond = asyncio.Condition()

    async def write(self, data: bytes) -> None:
        async with self._cond:
            if self._rclosed:
                raise BrokenPipeError("pipe reader closed")
            self._buf += data
            self._cond.notify_all()
            while len(self._buf) > self._limit and not self._rclosed:
                await self._cond.wait()

    async def read(self, n: int = -1) -> bytes:
        async with self._cond:
            while not self._buf and not self._wclosed:
                await self._cond.wait()
            if n is None or n < 0:
                n = len(self._buf)
            chunk = bytes(self._buf[:n])
            del self._buf[:n]
            self._cond.notify_all()
            return chunk

    async def close_write(self) -> None:
        async with self._cond:
            self._wclosed = True
            self._cond.notify_all()

    async def close_read(self) -> None:
        async with self._cond:
            self._rclosed = True
            self._buf.clear()
            self._cond.notify_all()


class _SessionInput:
    """Adapts an adbd ``ShellSession`` (``read_stdin() -> bytes | None``) to InputStream."""

    def __init__(self, session: "_SessionLike") -> None:
        self._session = session
        self._pending = b""

    async def read(self, n: int = -1) -> bytes:
        if not self._pending:
            data = await self._session.read_stdin()
            if not data:
                return b""
            self._pending = data
        if n is None or n < 0:
            n = len(self._pending)
        chunk, self._pending = self._pending[:n], self._pending[n:]
        return chunk


class _FuncOutput:
    def __init__(self, func: Callable[[bytes], Awaitable[None]]) -> None:
        self._func = func

    async def write(self, data: bytes) -> None:
        await self._func(data)


class _SessionLike(Protocol):
    async def write_stdout(self, data: bytes) -> None: ...
    async def write_stderr(self, data: bytes) -> None: ...
    async def read_stdin(self) -> bytes | None: ...


# ============================================================================ context
@dataclass
class CommandContext:
    """Everything a command handler gets.

    ``argv[0]`` is the name as typed (``/system/bin/ls`` or ``ls``).  ``env`` holds the
    exported variables plus ``NAME=value`` prefixes of this command.  Use :meth:`out` /
    :meth:`err` to write (str is UTF-8 encoded), :meth:`read_all` to slurp stdin, and
    :meth:`path` to turn an argument into an absolute path against the shell's cwd.
    """

    argv: list[str]
    env: dict[str, str]
    stdin: InputStream
    stdout: OutputStream
    stderr: OutputStream
    shell: "ShellInterpreter"
    #: the background job this command runs in (``cmd &``), None in the foreground
    job: Job | None = field(default_factory=lambda: _CURRENT_JOB.get())

    @property
    def name(self) -> str:
        return os.path.basename(self.argv[0])

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def fs(self) -> "VirtualFS | None":
        return self.shell.fs

    def path(self, p: str) -> str:
        from .fs import join  # local: keep the shell importable without fs

        return join(self.shell.cwd, p)

    async def out(self, data: str | bytes) -> None:
        await self.stdout.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)

    async def err(self, data: str | bytes) -> None:
        await self.stderr.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)

    async def read_all(self) -> bytes:
        chunks: list[bytes] = []
        while True:
            chunk = await self.stdin.read(-1)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


#: A command implementation: gets the context, returns the exit status (0..255).
CommandHandler = Callable[[CommandContext], Awaitable[int]]


class ShellExit(Exception):
    """Raised by ``exit``: stops the rest of the line."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code

