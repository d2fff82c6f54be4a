"""adbd's smaller services: device-local sockets, the one-line replies, ``reverse:`` and
``framebuffer:``.

Why its own module: each is a self-contained service body that the connection's service map
(:meth:`device.virtual.adbd.AdbdServer._service_for`) hands a stream to; ``reverse:`` follows
adbd's ``reverse_service``/``handle_forward_request`` and ``framebuffer:`` its
``framebuffer_service.cpp``, cited below.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable

from .adbd_shell import CaptureSession
from .adbd_wire import AdbStream, ConnectionHandler

if TYPE_CHECKING:
    from .adbd import AdbdServer
    from .adbd_conn import HostConnection
    from .adbd_backend import AdbdBackend

__all__ = ["ServiceFn", "ReverseListener", "ReverseService", "wrap_socket_handler", "reply_and_close",
           "serve_framebuffer"]

log = logging.getLogger("device.virtual.adbd")

#: A service body: the stream and its reader/writer pair.
ServiceFn = Callable[[AdbStream, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def wrap_socket_handler(handler: ConnectionHandler) -> ServiceFn:
    async def serve(stream: AdbStream, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await handler(reader, writer)
    return serve


def reply_and_close(text: bytes) -> ServiceFn:
    async def serve(stream: AdbStream, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if text:
            writer.write(text)
            await writer.drain()
    return serve


# ============================================================================ reverse: and framebuffer:
def _protocol_string(text: str) -> bytes:
    """adb's ``SendProtocolString``: 4 hex digits of length, then the bytes."""
    raw = text.encode()
    return f"{len(raw):04x}".encode() + raw


def _fail(message: str) -> bytes:
    """adb's ``SendFail``: ``FAIL`` + protocol string."""
    return b"FAIL" + _protocol_string(message)


@dataclass
class ReverseListener:
    """One ``adb reverse`` rule: device-side ``local`` (``tcp:8081``) -> host-side ``remote``."""

    local: str
    remote: str
    conn: "HostConnection"


class _ReverseBindError(Exception):
    """``INSTALL_STATUS_CANNOT_BIND``: the text after ``cannot bind listener: ``."""


class ReverseService:
    """``reverse:<command>`` — adbd's ``reverse_service`` (daemon/services.cpp), which hands
    the command to ``handle_forward_request`` (adb.cpp) with the device's own listener table.

    Replies on the device side (the adb server adds the first OKAY of its reply to the
    client itself, when the stream opens):

    * ``list-forward`` -> protocol string of ``"<serial> <local> <remote>\\n"`` lines, the
      serial being the transport's (``host-19`` over TCP; adb_listeners.cpp ``format_listeners``)
    * ``forward:[norebind:]LOCAL;REMOTE`` -> ``OKAY`` (+ protocol string of the bound port
      for a newly bound TCP listener, socket_spec.cpp ``socket_spec_listen``), or ``FAIL``:
      ``bad forward: X``, ``cannot rebind existing socket``, ``cannot bind listener: E``
    * ``killforward:LOCAL`` -> ``OKAY`` or ``FAIL listener 'LOCAL' not found``
    * ``killforward-all`` -> ``OKAY``; anything else -> ``FAIL not a reverse forwarding command``
    """

    _LOCAL_KINDS = ("local:", "localreserved:", "localabstract:", "localfilesystem:")

    def __init__(self, server: "AdbdServer", conn: "HostConnection", writer: asyncio.StreamWriter) -> None:
        self.server = server
        self.conn = conn
        self.writer = writer

    async def run(self, command: str) -> None:
        self.writer.write(self._handle(command.rstrip("\0")))
        await self.writer.drain()

    def _handle(self, command: str) -> bytes:
        table = self.server.reverse_listeners
        if command == "list-forward":
            lines = "".join(f"{r.conn.transport_serial} {r.local} {r.remote}\n" for r in table.values())
            return _protocol_string(lines)
        if command == "killforward-all":
            table.clear()
            return b"OKAY"
        if command.startswith("killforward:"):
            local = command[len("killforward:"):]
            if not local or ";" in local:
                return _fail(f"bad killforward: {local}")
            if local not in table:
                return _fail(f"listener '{local}' not found")
            del table[local]
            return b"OKAY"
        if command.startswith("forward:"):
            return self._forward(command[len("forward:"):])
        return _fail("not a reverse forwarding command")

    def _forward(self, spec: str) -> bytes:
        no_rebind = spec.startswith("norebind:")
        if no_rebind:
            spec = spec[len("norebind:"):]
        pieces = spec.split(";")
        if len(pieces) != 2 or not pieces[0] or not pieces[1] or pieces[1].startswith("*"):
            return _fail(f"bad forward: {spec}")
        local, remote = pieces
        table = self.server.reverse_listeners
        if local in table:  # install_listener re-points an existing rule (no port is reported)
            if no_rebind:
                return _fail("cannot rebind existing socket")
            table[local] = ReverseListener(local, remote, self.conn)
            return b"OKAY"
        try:
            local, port = self._bind(local)
        except _ReverseBindError as exc:
            return _fail(f"cannot bind listener: {exc}")
        table[local] = ReverseListener(local, remote, self.conn)
        return b"OKAY" + (_protocol_string(str(port)) if port else b"")

    def _bind(self, local: str) -> tuple[str, int]:
        """``socket_spec_listen`` on the device: the canonical local name and bound TCP port."""
        if local.startswith("tcp:"):
            rest = local[len("tcp:"):]
            try:
                port = int(rest)
            except ValueError:
                # ParseNetAddress accepts "host[:port]"; adbd only listens on any/loopback
                host = rest.rsplit(":", 1)[0] if ":" in rest else rest
                if host not in ("localhost", "::1", "[::1]"):
                    raise _ReverseBindError("listening on specified hostname currently unsupported") from None
                port = int(rest.rsplit(":", 1)[1]) if ":" in rest else 5555
            if port < 0 or port > 65535:
                raise _ReverseBindError(f"bad port number '{port}'")
            if port == 0:
                port = self._free_port()
            if port < 1024 and not _runs_as_root(self.server.backend):
                raise _ReverseBindError("Permission denied")  # the shell uid lacks CAP_NET_BIND_SERVICE
            if self._port_taken(port):
                raise _ReverseBindError("Address already in use")
            return f"tcp:{port}", port
        if local.startswith(self._LOCAL_KINDS):
            return local, 0
        raise _ReverseBindError(f"unknown socket specification:{local}")

    def _port_taken(self, port: int) -> bool:
        """A device service (uiautomator2's 9008 …) or another reverse rule listens there."""
        return (self.server._socket_handler("tcp", str(port)) is not None
                or f"tcp:{port}" in self.server.reverse_listeners)

    def _free_port(self) -> int:
        """``tcp:0``: the kernel's pick of a free ephemeral port."""
        while True:
            port = next(self.server._free_reverse_ports)
            if not self._port_taken(port):
                return port


def _runs_as_root(backend: object) -> bool:
    """A rooted (permissive) phone's adbd runs as root and may bind ports below 1024."""
    phone = getattr(backend, "phone", None)
    return bool(getattr(getattr(phone, "knobs", None), "permissive", False))



#: ``fbinfo`` of framebuffer_service.cpp (DDMS_RAWIMAGE_VERSION 2): version, bpp, colorSpace,
#: size, width, height, then offset/length of red, blue, green, alpha.
_FBINFO = struct.Struct("<14I")
#: screencap's pixel formats -> (bpp, bytes per pixel, r/b/g/a offset+length)
_FB_FORMATS: dict[int, tuple[int, int, tuple[int, ...]]] = {
    1: (32, 4, (0, 8, 16, 8, 8, 8, 24, 8)),   # RGBA_8888
    2: (32, 4, (0, 8, 16, 8, 8, 8, 24, 0)),   # RGBX_8888
    3: (24, 3, (0, 8, 16, 8, 8, 8, 24, 0)),   # RGB_888
    4: (16, 2, (11, 5, 0, 5, 5, 6, 0, 0)),    # RGB_565
    5: (32, 4, (16, 8, 0, 8, 8, 8, 24, 8)),   # BGRA_8888
}


async def serve_framebuffer(backend: AdbdBackend, writer: asyncio.StreamWriter) -> None:
    """``framebuffer:`` — exactly adbd's framebuffer_service.cpp: run ``screencap`` (raw
    output: ``w, h, format, colorSpace`` + pixels), translate its header into the version-2
    ``fbinfo`` header and copy the pixels.  A bad header ends the stream with nothing sent.

    screencap's 4th word is a colour-space code (screencap.cpp ``dataSpaceToInt``:
    0 unknown, 1 sRGB, 2 Display P3); any other value is taken as sRGB, the Pixel default.
    """
    capture = CaptureSession()
    try:
        await backend.run_shell("screencap", capture)  # type: ignore[arg-type]
    except Exception:
        log.exception("framebuffer: screencap failed")
        return
    raw = bytes(capture.out)
    if len(raw) < 16:
        log.error("framebuffer: couldn't read screencap header")
        return
    w, h, fmt, color_space = struct.unpack_from("<4I", raw)
    if fmt not in _FB_FORMATS:
        log.error("framebuffer: bad screencap format: %d", fmt)
        return
    bpp, bytes_pp, layout = _FB_FORMATS[fmt]
    size = w * h * bytes_pp
    header = _FBINFO.pack(2, bpp, color_space if color_space in (0, 1, 2) else 1, size, w, h, *layout)
    writer.write(header + raw[16:16 + size])
    await writer.drain()

