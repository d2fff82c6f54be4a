"""One TCP connection from an adb host: the CNXN handshake, its stream table and message dispatch.

Why its own module: the connection is where the wire messages of :mod:`.adbd_wire` become
streams (OPEN → a service from :meth:`device.virtual.adbd.AdbdServer._service_for`, WRTE/OKAY
→ the stream's flow control, CLSE → its end); the server (:mod:`.adbd`) owns the listening
socket, the services and the connections.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from typing import TYPE_CHECKING

from .adbd_services import ServiceFn
from .adbd_wire import (A_AUTH, A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_STLS, A_SYNC, A_VERSION, A_VERSION_MIN,
                        A_VERSION_SKIP_CHECKSUM, A_WRTE, _HEADER, _MAX_ACCEPTED_FRAME, AdbStream)

if TYPE_CHECKING:
    from .adbd import AdbdServer

__all__ = ["HostConnection"]

log = logging.getLogger("device.virtual.adbd")


class HostConnection:
    """One TCP connection from an adb host: CNXN handshake, stream table, dispatch."""

    def __init__(self, server: "AdbdServer", reader: asyncio.StreamReader,
                 writer: asyncio.StreamWriter) -> None:
        self.server = server
        self._reader = reader
        self._writer = writer
        self.peername = writer.get_extra_info("peername")
        self.sockname = writer.get_extra_info("sockname")
        self.version = A_VERSION_MIN
        self.max_payload = 4096  # until CNXN says otherwise
        self.online = False
        self.host_banner = ""
        self.host_features: set[str] = set()
        self.streams: dict[int, AdbStream] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._ids = itertools.count(1)
        self.connected_at: float | None = None
        #: what adbd calls this transport: ``host-FD`` for a TCP host (transport_local.cpp);
        #: ``adb reverse --list`` prints it.  adbd's first client socket is fd 19 or so.
        self.transport_serial = f"host-{server._next_transport_fd()}"

    # --- output
    def send(self, command: int, arg0: int, arg1: int, data: bytes = b"") -> None:
        if self._writer.is_closing():
            return
        checksum = 0
        if (self.version < A_VERSION_SKIP_CHECKSUM or self.server.always_checksum
                or command in (A_CNXN, A_AUTH)):
            checksum = sum(data) & 0xFFFFFFFF
        self._writer.write(_HEADER.pack(command, arg0, arg1, len(data), checksum,
                                        command ^ 0xFFFFFFFF) + data)

    # --- main loop
    async def run(self) -> None:
        try:
            while True:
                header = await self._reader.readexactly(_HEADER.size)
                command, arg0, arg1, length, _check, magic = _HEADER.unpack(header)
                if magic != command ^ 0xFFFFFFFF:
                    log.warning("adbd %s: bad magic, dropping connection", self.peername)
                    return
                if length > _MAX_ACCEPTED_FRAME:
                    log.warning("adbd %s: frame of %d bytes, dropping connection", self.peername, length)
                    return
                data = await self._reader.readexactly(length) if length else b""
                try:
                    self._dispatch(command, arg0, arg1, data)
                except Exception:
                    log.exception("adbd %s: error handling %r", self.peername,
                                  command.to_bytes(4, "little"))
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("adbd %s: connection failed", self.peername)
        finally:
            self.teardown()

    def teardown(self) -> None:
        self.server._drop_reverse_listeners(self)
        for stream in list(self.streams.values()):
            stream._on_connection_lost()
        self.streams.clear()
        for task in list(self._tasks):
            task.cancel()
        if not self._writer.is_closing():
            self._writer.close()

    def _dispatch(self, command: int, arg0: int, arg1: int, data: bytes) -> None:
        if command == A_CNXN:
            self._on_cnxn(arg0, arg1, data)
        elif command == A_AUTH:
            # We never send AUTH(TOKEN), so a host AUTH is unexpected; accept it anyway.
            log.info("adbd %s: AUTH type %d received, accepting", self.peername, arg0)
            self._send_cnxn()
        elif not self.online:
            log.debug("adbd: %r before CNXN ignored", command.to_bytes(4, "little"))
        elif command == A_OPEN:
            self._on_open(arg0, data)
        elif command == A_OKAY:
            stream = self.streams.get(arg1)
            if stream is not None and stream.pending_open is not None and stream.remote_id == 0:
                stream._on_open_okay(arg0)
            elif stream is not None and (stream.remote_id == arg0 or arg0 == 0):
                stream._on_okay()
        elif command == A_WRTE:
            stream = self.streams.get(arg1)
            if stream is None or stream.remote_id != arg0:
                self.send(A_CLSE, 0, arg0)  # tell the host the stream is gone
            else:
                stream._on_write(data)
        elif command == A_CLSE:
            stream = self.streams.get(arg1)
            if stream is not None and (stream.remote_id == arg0 or arg0 == 0):
                stream._on_host_close()
        elif command in (A_SYNC, A_STLS):
            log.debug("adbd: ignoring %r", command.to_bytes(4, "little"))
        else:
            log.warning("adbd %s: unknown command 0x%08x", self.peername, command)

    def _on_cnxn(self, version: int, max_payload: int, data: bytes) -> None:
        if self.online:  # the host restarted its side: forget every stream
            for stream in list(self.streams.values()):
                stream._on_connection_lost()
        self.version = max(A_VERSION_MIN, min(version, A_VERSION))
        self.max_payload = max(256, min(max_payload, self.server.max_payload))
        self.host_banner = data.rstrip(b"\0").decode("utf-8", "replace")
        _, _, rest = self.host_banner.partition("::")
        for prop in rest.split(";"):
            if prop.startswith("features="):
                self.host_features = set(prop[len("features="):].split(","))
        log.debug("adbd %s: CNXN version=0x%08x max_payload=%d banner=%r", self.peername,
                  version, max_payload, self.host_banner)
        self._send_cnxn()

    def _send_cnxn(self) -> None:
        self.send(A_CNXN, self.version, self.max_payload, self.server.banner())
        if not self.online:
            self.online = True
            self.connected_at = time.perf_counter()
            self.server._on_online(self)

    def _on_open(self, remote_id: int, data: bytes) -> None:
        service = data.rstrip(b"\0").decode("utf-8", "surrogateescape")
        log.debug("adbd %s: OPEN %r", self.peername, service)
        if remote_id == 0:
            return
        try:
            fn = self.server._service_for(service)
        except Exception:
            log.exception("adbd: resolving service %r failed", service)
            fn = None
        if fn is None:
            log.debug("adbd: refusing service %r", service)
            self.send(A_CLSE, 0, remote_id)
            return
        local_id = next(self._ids)
        stream = AdbStream(self, local_id, remote_id, service)
        self.streams[local_id] = stream
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader(limit=256 * 1024, loop=loop)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        stream.set_protocol(protocol)
        protocol.connection_made(stream)
        writer = asyncio.StreamWriter(stream, protocol, reader, loop)
        self.send(A_OKAY, local_id, remote_id)
        task = loop.create_task(self._run_service(fn, stream, reader, writer),
                                name=f"adbd:{service[:40]}")
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run_service(self, fn: ServiceFn, stream: AdbStream,
                           reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await fn(stream, reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, BrokenPipeError):
            log.debug("adbd: service %r: peer went away", stream.service)
        except asyncio.CancelledError:
            stream.abort()
            raise
        except Exception:
            log.exception("adbd: service %r failed", stream.service)
        finally:
            stream.close()  # no-op if already closed; otherwise flush then CLSE

    def _stream_done(self, stream: AdbStream) -> None:
        self.streams.pop(stream.local_id, None)
        self.server._record(stream)

    async def open_stream(self, service: str,
                          timeout: float = 10.0) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """Open a stream *towards the host*: ``OPEN(our_id, 0, service)``, as adbd does when a
        device app connects to an ``adb reverse`` port (``connect_to`` is the host-side spec,
        e.g. ``tcp:8080``; the adb server connects it and answers OKAY, or CLSE when nothing
        listens).  Raises ``ConnectionRefusedError`` on CLSE.
        """
        if not self.online:
            raise ConnectionRefusedError("adb host not connected")
        loop = asyncio.get_running_loop()
        local_id = next(self._ids)
        stream = AdbStream(self, local_id, 0, service)
        stream._can_send = False  # nothing may go out before the host's OKAY
        stream.pending_open = loop.create_future()
        self.streams[local_id] = stream
        reader = asyncio.StreamReader(limit=256 * 1024, loop=loop)
        protocol = asyncio.StreamReaderProtocol(reader, loop=loop)
        stream.set_protocol(protocol)
        protocol.connection_made(stream)
        writer = asyncio.StreamWriter(stream, protocol, reader, loop)
        self.send(A_OPEN, local_id, 0, service.encode() + b"\0")
        try:
            await asyncio.wait_for(asyncio.shield(stream.pending_open), timeout)
        except BaseException:
            stream.abort()
            raise
        return reader, writer
