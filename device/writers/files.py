"""Files in shared storage: setup's files (tagged in their first bytes) and folders, the episode's
moves and additions (dedicated test phones), and teardown's deletes of only what is provably s2r's.

A file's tag is its first bytes (``s2r-tag:[s2r-…]``); its path is also journalled, and a file
that existed before setup is never written. Teardown removes a file only if it still starts with
the marker and has the size setup wrote, and a folder only if it is empty (never ``rm -r``).
Files are pushed with the ``sync:`` protocol so their mtime is the task's (:func:`sync_push`).
"""

from __future__ import annotations

import re
import struct
import time

from actionmap.worldstate import FileEntry
from device.adbshell import DeviceCommandError, Shell
from device.parsers import ParseError
from device.readers import StateReader, local_to_ms, marker
from device.writers.journal import CreatedFile, Journal, SetupError, TeardownReport
from device.writers.part import WriterPart

__all__ = ["FilesWriter", "FILE_TAG_PREFIX", "sync_push"]

FILE_TAG_PREFIX = b"s2r-tag:"


class FilesWriter(WriterPart):
    """The shared-storage part of one phone's :class:`~device.writers.DeviceWriter`."""

    # --- setup -----------------------------------------------------------------------------------
    def exists(self, path: str) -> bool:
        return self.shell.run(["ls", "-d", path]).rc == 0

    def add(self, f: FileEntry, j: Journal) -> str:
        path = re.sub(r"/+", "/", f.path)
        if not (path.startswith("/sdcard/") or path.startswith("/storage/emulated/0/")) or "/../" in path + "/":
            raise SetupError(f"files: {f.path!r} is outside shared storage", unsupported=True)
        parent = path.rsplit("/", 1)[0]
        self.mkdirs(parent, j)
        if f.kind == "dir":
            self.mkdirs(path, j)
            return f"dir {path}"
        if self.exists(path):
            if self.w.existing_files_ok:  # the virtual phone's synthetic world already has it
                return f"file {path} (already there)"
            raise SetupError(f"files: {path} already exists on the phone; s2r never overwrites a user's file")
        head = (FILE_TAG_PREFIX + marker(j.tag).encode() + b"\n")
        data = (head + b"\0" * max(0, f.size - len(head)))[:f.size]
        mtime = int(local_to_ms(f.mtime, self.tz) / 1000) if f.mtime else int(time.time())
        j.files.append(CreatedFile(path=path, size=f.size, head=data[:len(head)].hex()))
        j.save()
        sync_push(self.shell, data, path, mtime=mtime)
        return f"file {path} ({f.size} B)"

    def mkdirs(self, path: str, j: Journal) -> None:
        parts = path.split("/")
        for i in range(3, len(parts) + 1):
            d = "/".join(parts[:i])
            if d in ("/sdcard", "/storage/emulated/0", "/storage/emulated", "/storage") or self.exists(d):
                continue
            j.dirs.append(d)
            j.save()
            r = self.shell.run(["mkdir", d])
            if r.rc not in (0, None):
                raise SetupError(f"files: mkdir {d} failed: {r.text.strip()[:200]}")

    # --- the episode (dedicated test phones) -------------------------------------------------------
    def now(self) -> list[tuple[str, int]] | None:
        try:
            files = StateReader(self.shell).files(self.tz)
        except (ParseError, DeviceCommandError):
            return None
        return [(f.path, int(f.size or 0)) for f in files if f.kind != "dir"]

    def undo_episode(self, j: Journal, rep: TeardownReport) -> None:
        """Dedicated test phones: files the episode moved or renamed go back (a vanished file and a
        new one of the same size are one move); files it added are removed; a file it deleted
        cannot be brought back and is listed in ``left``."""
        if j.files_at_start is None:
            return
        now = self.now()
        if now is None:
            rep.left.append("files: could not list shared storage to undo the episode's file changes")
            return
        before = dict(j.files_at_start)
        after = dict(now)
        ours = {f.path for f in j.files}
        vanished = [p for p in before if p not in after]
        appeared = [p for p in after if p not in before]
        for old in vanished:
            twin = next((p for p in appeared if after[p] == before[old]
                         and p.rsplit("/", 1)[-1] == old.rsplit("/", 1)[-1]), None) or \
                next((p for p in appeared if after[p] == before[old]), None)
            if twin is None:
                if old not in ours:
                    rep.left.append(f"file {old} was deleted by the episode and cannot be restored")
                continue
            parent = old.rsplit("/", 1)[0]
            self.shell.run(["mkdir", "-p", parent])
            self.shell.run(["mv", twin, old])
            if self.exists(old) and not self.exists(twin):
                appeared.remove(twin)
                rep.removed["episode file moves undone"] = rep.removed.get("episode file moves undone", 0) + 1
            else:
                rep.left.append(f"file {old} moved by the episode to {twin}: could not move it back")
        for p in appeared:
            if p in ours:
                continue
            self.shell.run(["rm", p])
            if self.exists(p):
                rep.left.append(f"file {p} added by the episode could not be removed")
            else:
                rep.removed["episode files"] = rep.removed.get("episode files", 0) + 1

    # --- teardown --------------------------------------------------------------------------------
    def delete_ours(self, j: Journal, rep: TeardownReport) -> None:
        """Only ours (journalled and still starting with our marker), deepest first; then the
        folders setup made, if empty."""
        for f in reversed(j.files):
            if self.is_ours(f):
                r = self.shell.run(["rm", f.path])
                if r.rc in (0, None):
                    rep.removed["files"] = rep.removed.get("files", 0) + 1
                    continue
            if self.exists(f.path):
                rep.left.append(f"file {f.path} changed since setup; left in place")
        for d in sorted(set(j.dirs), key=len, reverse=True):
            if self.exists(d):
                r = self.shell.run(["rmdir", d])  # never rm -r: a non-empty dir holds someone's file
                if r.rc in (0, None):
                    rep.removed["dirs"] = rep.removed.get("dirs", 0) + 1
                else:
                    rep.left.append(f"dir {d} is not empty; left in place")

    def is_ours(self, f: CreatedFile) -> bool:
        head = bytes.fromhex(f.head)
        if not self.exists(f.path):
            return False
        try:
            got = self.shell.device.sync.read_bytes(f.path)[:len(head)] if head else b""
        except Exception:  # noqa: BLE001
            return False
        st = self.shell.run(["stat", "-c", "%s", f.path]).out.strip()
        return got == head and (not st.isdigit() or int(st) == f.size)


# ============================================================================ sync push with mtime
def sync_push(shell: Shell, data: bytes, path: str, *, mode: int = 0o644, mtime: int | None = None) -> None:
    """Push bytes with the ``sync:`` protocol, setting the file's mtime (adbutils always sends "now")."""
    try:
        conn = shell.device.open_transport(timeout=shell.timeout)
        try:
            conn.send_command("sync:")
            conn.check_okay()
            spec = f"{path},{0o100000 | mode}".encode("utf-8")
            conn.conn.sendall(b"SEND" + struct.pack("<I", len(spec)) + spec)
            for i in range(0, len(data), 64 * 1024):
                chunk = data[i:i + 64 * 1024]
                conn.conn.sendall(b"DATA" + struct.pack("<I", len(chunk)) + chunk)
            conn.conn.sendall(b"DONE" + struct.pack("<I", int(mtime if mtime is not None else time.time())))
            status = conn.read(4)
            length = struct.unpack("<I", conn.read(4))[0]
            if status != b"OKAY":
                msg = conn.read(length).decode("utf-8", "replace") if length else ""
                raise SetupError(f"push {path} failed: {msg}")
            conn.conn.sendall(b"QUIT" + struct.pack("<I", 0))
        finally:
            conn.close()
    except SetupError:
        raise
    except Exception as e:  # noqa: BLE001
        raise shell._classify(e, f"push {path}") from e
