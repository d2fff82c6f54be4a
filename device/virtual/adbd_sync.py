"""adbd's ``sync:`` service — the file transfer sub-protocol (push, pull, stat, list) on a VirtualFS.

Why its own module: ``file_sync_protocol.h``/``file_sync_service.cpp`` in AOSP
``packages/modules/adb`` define a protocol of its own inside one stream; this implements it.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import stat as _stat
import struct

from .adbd_wire import SYNC_DATA_MAX, adb_command
from .fs import VirtualFS

__all__ = ["SyncService"]

log = logging.getLogger("device.virtual.adbd")


# ============================================================================ sync service
_ID = {name: adb_command(name.encode()) for name in (
    "STAT", "STA2", "LST2", "LIST", "LIS2", "DENT", "DNT2", "RECV", "RCV2", "SEND", "SND2",
    "DATA", "DONE", "OKAY", "FAIL", "QUIT")}
_SYNC_REQ = struct.Struct("<II")
_STAT_V1 = struct.Struct("<IIII")  # id mode size mtime
_STAT_V2 = struct.Struct("<IIQQIIIIQqqq")  # id error dev ino mode nlink uid gid size atime mtime ctime
_DENT_V1 = struct.Struct("<IIIII")  # id mode size mtime namelen
_DENT_V2 = struct.Struct("<IIQQIIIIQqqqI")
_SEND_V2 = struct.Struct("<III")  # id mode flags
_RECV_V2 = struct.Struct("<II")  # id flags
_SYNC_FLAG_DRY_RUN = 0x80000000
_SYNC_PATH_MAX = 1024


class _SyncFail(Exception):
    pass


class SyncService:
    """``sync:`` — the file transfer sub-protocol, backed by a VirtualFS.

    Requests are ``id(4) + length(4) + path``; see AOSP ``file_sync_protocol.h``.
    STAT(v1) is an lstat (as in adbd); STA2 follows links, LST2 does not.  Listings
    include ``.`` and ``..`` like the device's readdir, and the host filters them.
    """

    def __init__(self, fs: VirtualFS, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.fs = fs
        self.r = reader
        self.w = writer

    async def run(self) -> None:
        while True:
            try:
                header = await self.r.readexactly(8)
            except asyncio.IncompleteReadError:
                return
            cmd, length = _SYNC_REQ.unpack(header)
            if cmd == _ID["QUIT"]:
                return
            if length > _SYNC_PATH_MAX:
                await self._fail("path too long")
                return
            path = (await self.r.readexactly(length)).decode("utf-8", "surrogateescape")
            if cmd == _ID["STAT"]:
                self._stat_v1(path)
            elif cmd in (_ID["STA2"], _ID["LST2"]):
                self._stat_v2(cmd, path)
            elif cmd == _ID["LIST"]:
                self._list(path, v2=False)
            elif cmd == _ID["LIS2"]:
                self._list(path, v2=True)
            elif cmd == _ID["RECV"]:
                await self._recv(path)
            elif cmd == _ID["RCV2"]:
                _id, flags = _RECV_V2.unpack(await self.r.readexactly(_RECV_V2.size))
                if flags & ~_SYNC_FLAG_DRY_RUN:
                    await self._fail("compression is not supported")
                    return
                await self._recv(path)
            elif cmd == _ID["SEND"]:
                spec, comma, mode_s = path.rpartition(",")
                if not comma:
                    await self._fail("missing , in ID_SEND")
                    return
                try:
                    mode = int(mode_s)
                except ValueError:
                    await self._fail(f"bad mode {mode_s!r}")
                    return
                if not await self._send(spec, mode, dry_run=False):
                    return
            elif cmd == _ID["SND2"]:
                _id, mode, flags = _SEND_V2.unpack(await self.r.readexactly(_SEND_V2.size))
                if flags & ~_SYNC_FLAG_DRY_RUN:
                    await self._fail("compression is not supported")
                    return
                if not await self._send(path, mode, dry_run=bool(flags & _SYNC_FLAG_DRY_RUN)):
                    return
            else:
                await self._fail(f"unknown command {header[:4]!r}")
                return
            await self.w.drain()

    async def _fail(self, message: str) -> None:
        msg = message.encode("utf-8", "replace")
        self.w.write(_SYNC_REQ.pack(_ID["FAIL"], len(msg)) + msg)
        await self.w.drain()

    def _stat_v1(self, path: str) -> None:
        try:
            st = self.fs.lstat(path)
            mode, size, mtime = st.st_mode, st.st_size & 0xFFFFFFFF, int(st.st_mtime) & 0xFFFFFFFF
        except OSError:
            mode = size = mtime = 0
        self.w.write(_STAT_V1.pack(_ID["STAT"], mode, size, mtime))

    def _stat_v2(self, cmd: int, path: str) -> None:
        try:
            st = self.fs.stat(path) if cmd == _ID["STA2"] else self.fs.lstat(path)
        except OSError as exc:
            self.w.write(_STAT_V2.pack(cmd, exc.errno or errno.EIO, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            return
        self.w.write(_STAT_V2.pack(cmd, 0, st.st_dev, st.st_ino, st.st_mode, st.st_nlink, st.st_uid,
                                   st.st_gid, st.st_size, int(st.st_atime), int(st.st_mtime),
                                   int(st.st_ctime)))

    def _list(self, path: str, v2: bool) -> None:
        out = bytearray()
        try:
            entries = [(".", self.fs.stat(path)), ("..", self.fs.stat(path.rstrip("/") + "/.."))]
            entries += [(e.name, e.stat) for e in self.fs.scandir(path)]
        except OSError:
            entries = []
        for name, st in entries:
            raw = name.encode("utf-8", "surrogateescape")
            if v2:
                out += _DENT_V2.pack(_ID["DNT2"], 0, st.st_dev, st.st_ino, st.st_mode, st.st_nlink,
                                     st.st_uid, st.st_gid, st.st_size, int(st.st_atime),
                                     int(st.st_mtime), int(st.st_ctime), len(raw)) + raw
            else:
                out += _DENT_V1.pack(_ID["DENT"], st.st_mode, st.st_size & 0xFFFFFFFF,
                                     int(st.st_mtime) & 0xFFFFFFFF, len(raw)) + raw
        if v2:
            out += _DENT_V2.pack(_ID["DONE"], 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        else:
            out += _DENT_V1.pack(_ID["DONE"], 0, 0, 0, 0)
        self.w.write(out)

    async def _recv(self, path: str) -> None:
        try:
            chunks = self.fs.read_chunks(path, SYNC_DATA_MAX)
        except OSError as exc:
            msg = f"open failed: {exc.strerror}".encode()
            self.w.write(_SYNC_REQ.pack(_ID["FAIL"], len(msg)) + msg)
            return
        for chunk in chunks:
            self.w.write(_SYNC_REQ.pack(_ID["DATA"], len(chunk)) + chunk)
            await self.w.drain()  # back-pressure: a slow host must not make us buffer the file
        self.w.write(_SYNC_REQ.pack(_ID["DONE"], 0))

    async def _send(self, path: str, mode: int, dry_run: bool) -> bool:
        """Receive DATA...DONE and store the file; returns False if the stream must end."""
        data = bytearray()
        failure: str | None = None
        while True:
            header = await self.r.readexactly(8)
            cmd, length = _SYNC_REQ.unpack(header)
            if cmd == _ID["DATA"]:
                if length > SYNC_DATA_MAX:
                    await self._fail("oversize data message")
                    return False
                chunk = await self.r.readexactly(length)
                if failure is None:
                    data += chunk
            elif cmd == _ID["DONE"]:
                mtime = length
                break
            else:
                await self._fail(f"invalid data message {header[:4]!r}")
                return False
        if not dry_run:
            try:
                if _stat.S_ISLNK(mode):
                    if self.fs.lexists(path) and not self.fs.isdir(path):
                        self.fs.remove(path)
                    parent = path.rstrip("/").rpartition("/")[0]
                    if parent:
                        self.fs.makedirs(parent, exist_ok=True)
                    self.fs.symlink(data.decode("utf-8", "surrogateescape").rstrip("\0"), path)
                    with contextlib.suppress(OSError):
                        self.fs.utime(path, mtime)
                else:
                    self.fs.write_bytes(path, data, mode=mode & 0o7777, mtime=mtime, parents=True)
            except OSError as exc:
                failure = f"couldn't create file: {exc.strerror}"
        if failure is not None:
            await self._fail(failure)
            return False
        self.w.write(_SYNC_REQ.pack(_ID["OKAY"], 0))
        return True


# ============================================================================ threaded wrapper
