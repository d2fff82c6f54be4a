"""The ``shell:``/``shell,v2:``/``exec:`` services' I/O, and the one interactive shell loop.

Why its own module: every backend's shell runs against :class:`ShellSession` (shell protocol v2
packets — stdin, stdout, stderr, exit, close-stdin, window size — or v1's single merged byte
stream, with a pty's ``\n`` → ``\r\n``), and ``adb shell`` without a command is one loop,
:func:`interactive_shell`, whatever the backend.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import struct
from typing import Any

__all__ = ["ShellSession", "interactive_shell", "CaptureSession"]

log = logging.getLogger("device.virtual.adbd")

_ID_STDIN, _ID_STDOUT, _ID_STDERR, _ID_EXIT, _ID_CLOSE_STDIN, _ID_WINDOW = 0, 1, 2, 3, 4, 5
_SHELL_PACKET_MAX = 64 * 1024


class ShellSession:
    """What ``backend.run_shell`` gets: the I/O of one ``shell:``/``shell,v2:``/``exec:`` stream.

    Attributes:
        command: the command text (after the service's ``:``).
        kind: ``"shell_v1"``, ``"shell_v2"`` or ``"exec"``.
        pty: the host asked for a terminal (``adb shell -t`` or interactive); output
            ``\\n`` is then sent as ``\\r\\n`` and stderr is merged into stdout, as a pty does.
        term: the ``TERM=`` value the host sent (v2), else None.
        window_size: ``(rows, cols, xpixels, ypixels)`` from the last v2 window packet.
        closed: set when the host closed the stream (user hit Ctrl-C, uiautomator2 stops
            its server, adbutils finished reading) or the connection dropped.

    Writes raise ``BrokenPipeError`` once ``closed`` is set, so endless producers stop.
    In v1/exec stderr goes into the single output stream (real adbd does the same).
    """

    def __init__(self, *, command: str, kind: str, pty: bool, term: str | None,
                 reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.command = command
        self.kind = kind
        self.pty = pty
        self.term = term
        self.window_size: tuple[int, int, int, int] | None = None
        self.closed = asyncio.Event()
        self._reader = reader
        self._writer = writer
        self._v2 = kind == "shell_v2"
        self._stdin: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=16)
        self._stdin_eof = False
        self._pump_done = False

    @property
    def v2(self) -> bool:
        return self._v2

    async def write_stdout(self, data: bytes | str) -> None:
        """Send bytes to the host's stdout (str is UTF-8 encoded)."""
        await self._emit(_ID_STDOUT, data)

    async def write_stderr(self, data: bytes | str) -> None:
        """Send bytes to the host's stderr (v2 without pty); elsewhere merged into stdout."""
        await self._emit(_ID_STDERR if self._v2 and not self.pty else _ID_STDOUT, data)

    async def read_stdin(self) -> bytes | None:
        """Next chunk of the host's stdin; None at end of input (v2 close_stdin, or the
        stream closed for v1/exec, which have no separate end-of-input signal)."""
        if self._stdin_eof:
            return None
        if self._v2:
            if self._pump_done and self._stdin.empty():
                item = None  # the pump ended while the queue was full: no None was queued
            else:
                item = await self._stdin.get()
        else:
            try:
                item = await self._reader.read(64 * 1024) or None
            except (ConnectionError, asyncio.IncompleteReadError):
                item = None
        if item is None:
            self._stdin_eof = True
        return item

    async def _emit(self, packet_id: int, data: bytes | str) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8", "surrogateescape")
        if self.closed.is_set() or self._writer.is_closing():
            raise BrokenPipeError("adb stream closed by host")
        if not data:
            return
        if self.pty:
            data = data.replace(b"\n", b"\r\n")
        if self._v2:
            view = memoryview(data)
            for off in range(0, len(view), _SHELL_PACKET_MAX):
                chunk = view[off:off + _SHELL_PACKET_MAX]
                self._writer.write(struct.pack("<BI", packet_id, len(chunk)) + chunk)
        else:
            self._writer.write(data)
        try:
            await self._writer.drain()
        except ConnectionError as exc:
            raise BrokenPipeError(str(exc)) from exc

    async def _send_exit(self, code: int) -> None:
        if self._v2 and not self._writer.is_closing():
            self._writer.write(struct.pack("<BIB", _ID_EXIT, 1, code & 0xFF))
            with contextlib.suppress(ConnectionError):
                await self._writer.drain()

    async def _pump_stdin(self) -> None:
        """v2 only: demultiplex host packets (stdin data, close_stdin, window size)."""
        try:
            while True:
                header = await self._reader.readexactly(5)
                pid, length = struct.unpack("<BI", header)
                data = await self._reader.readexactly(length) if length else b""
                if pid == _ID_STDIN:
                    if data and not self._stdin_eof:
                        await self._stdin.put(data)
                elif pid == _ID_CLOSE_STDIN:
                    await self._stdin.put(None)
                elif pid == _ID_WINDOW:
                    self._set_window(data)
                else:
                    log.debug("shell v2: ignoring packet id %d", pid)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            self._pump_done = True
            with contextlib.suppress(asyncio.QueueFull):
                self._stdin.put_nowait(None)

    def _set_window(self, data: bytes) -> None:
        try:
            rc, px = data.rstrip(b"\0").decode().split(",")
            rows, cols = (int(x) for x in rc.split("x"))
            xp, yp = (int(x) for x in px.split("x"))
            self.window_size = (rows, cols, xp, yp)
        except ValueError:
            log.debug("bad window size packet %r", data)


async def interactive_shell(backend: Any, session: ShellSession) -> int:
    """``adb shell`` with no command: one persistent ``sh`` for the whole session.

    What a real phone does (adbd's ``shell_service.cpp`` starts ``/system/bin/sh`` — mksh —
    once, with a pty unless ``raw``): ``cd`` and variables stick from line to line, and the
    prompt is ``/system/etc/mkshrc``'s ``PS1``, ``${HOSTNAME}:${PWD} $ `` with ``HOSTNAME`` from
    ``getprop ro.product.device`` (``android`` when empty). ``exit [N]`` ends the session with
    ``N & 0xFF`` (a process's exit status is one byte), or the last status. With a pty the
    input is echoed, as the terminal would.

    The backend provides ``new_shell()`` (a :class:`~device.virtual.sh_interp.ShellInterpreter`)
    and may provide ``run_line(sh, line, session)`` to wrap each line (logging, timing); a
    backend without an interpreter gets each line through ``run_shell``.
    """
    new_shell = getattr(backend, "new_shell", None)
    sh = new_shell() if new_shell is not None else None
    run_line = getattr(backend, "run_line", None)
    device = backend.properties().get("ro.product.device") or "android"

    def prompt() -> str:
        return f"{device}:{sh.cwd if sh is not None else '/'} $ "

    status = 0
    buf = b""
    await session.write_stdout(prompt())
    while True:
        data = await session.read_stdin()
        if data is None:
            return status
        if session.pty:
            await session.write_stdout(data.replace(b"\r", b"\n"))
        buf += data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip()
            if line == "exit" or line.startswith("exit "):
                parts = line.split()
                return int(parts[1]) & 0xFF if len(parts) > 1 and parts[1].isdigit() else status
            if line:
                if sh is None:
                    status = await backend.run_shell(line, session)
                elif run_line is not None:
                    status = await run_line(sh, line, session)
                else:
                    status = await sh.run_in_session(line, session)
            await session.write_stdout(prompt())


class CaptureSession:
    """A shell session whose output is kept (what ``framebuffer_service`` reads from the
    ``screencap`` child through a pipe)."""

    def __init__(self) -> None:
        self.command = "screencap"
        self.kind = "exec"
        self.pty = False
        self.term: str | None = None
        self.window_size = None
        self.closed = asyncio.Event()
        self.v2 = False
        self.out = bytearray()

    async def write_stdout(self, data: bytes | str) -> None:
        self.out += data.encode() if isinstance(data, str) else data

    async def write_stderr(self, data: bytes | str) -> None:
        pass  # screencap's stderr is not part of the pipe

    async def read_stdin(self) -> bytes | None:
        return None


