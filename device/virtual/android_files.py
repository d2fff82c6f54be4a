"""The virtual phone's listing commands, ``ls`` and ``stat``, and the formatting the file
commands share (modes, owners, times), in toybox's formats and with its error messages, so
scripts that parse them behave as on a phone.

Why its own module: :class:`FileCommands` is the one table of file commands the shell gets; the
commands that change or walk the tree are :mod:`.android_files_ops`; the filesystem they act on
and its mirror of the sim world's files (``WorldState.files``) are :mod:`.android_storage`.
"""

from __future__ import annotations

import re
import stat as _stat
from datetime import timezone
from typing import TYPE_CHECKING, Any

from .fs import EVERYBODY_GID, MEDIA_RW_GID, ROOT_UID, SHELL_UID, SYSTEM_UID, join
from .sh_io import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_files_ops import FileOps, _each, _fmt_time, _human, _mode_str, _options, _split_flags
from .android_storage import SDCARD, STORAGE_ROOT, PhoneFS, StorageMirror, filler_bytes

__all__ = ["PhoneFS", "StorageMirror", "filler_bytes", "file_commands", "SDCARD", "STORAGE_ROOT"]


#: ``stat`` with no ``-c``: toybox's default format.
_STAT_DEFAULT = ("  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t%F\n"
                 "Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n"
                 "Access: (0%a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
                 "Access: %x\nModify: %y\nChange: %z")
#: ``stat -c`` fields that print a number of the stat record as it is.
_STAT_NUMBERS = {"s": "st_size", "u": "st_uid", "g": "st_gid", "i": "st_ino", "h": "st_nlink", "d": "st_dev"}
#: ``stat -c`` time fields (lower case: the local time; upper case: epoch seconds).
_STAT_TIMES = {"x": "st_atime", "y": "st_mtime", "z": "st_ctime"}

_USERS = {ROOT_UID: "root", SYSTEM_UID: "system", SHELL_UID: "shell", MEDIA_RW_GID: "media_rw",
          EVERYBODY_GID: "everybody", 1015: "sdcard_rw", 1028: "sdcard_r"}


def _uname(uid: int) -> str:
    if uid in _USERS:
        return _USERS[uid]
    if uid >= 10000:
        return f"u0_a{uid - 10000}"
    return str(uid)


class FileCommands(FileOps):
    """The file-related shell commands, bound to one phone's filesystem."""

    def __init__(self, phone: "VirtualPhone") -> None:
        self.phone = phone
        self.fs: PhoneFS = phone.fs

    def table(self) -> dict[str, CommandHandler]:
        return {"ls": self.ls, "stat": self.stat, "mkdir": self.mkdir, "mv": self.mv, "cp": self.cp,
                "rm": self.rm, "rmdir": self.rmdir, "find": self.find, "md5sum": self.md5sum,
                "sha1sum": self.sha1sum, "sha256sum": self.sha256sum, "touch": self.touch, "chmod": self.chmod,
                "du": self.du, "ln": self.ln, "readlink": self.readlink, "realpath": self.realpath,
                "basename": self.basename, "dirname": self.dirname}

    # --- ls
    async def ls(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "laAd1RtSrhnFi")
        if bad:
            await ctx.err(f"ls: Unknown option '{bad}' (see \"ls --help\")\n")
            return 1
        targets = operands or ["."]
        status = 0
        files: list[tuple[str, str]] = []
        dirs: list[tuple[str, str]] = []
        for t in targets:
            path = ctx.path(t)
            try:
                st = self.fs.lstat(path)
                follow = (st.is_symlink and ("l" not in flags or t.endswith("/")) and "d" not in flags)
                if follow:
                    st = self.fs.stat(path)
            except OSError as exc:
                await ctx.err(f"ls: {t}: {exc.strerror}\n")
                status = 1
                continue
            if st.is_dir and "d" not in flags:
                dirs.append((t, path))
            else:
                files.append((t, path))
        out: list[str] = []
        if files:
            out.extend(self._ls_lines([(t, p, self.fs.lstat(p)) for t, p in files], flags, total=False))
        multi = len(files) + len(dirs) > 1 or "R" in flags
        queue = list(dirs)
        first = not files
        while queue:
            t, path = queue.pop(0)
            try:
                entries = self.fs.scandir(path)
            except OSError as exc:
                await ctx.err(f"ls: {t}: {exc.strerror}\n")
                status = 1
                continue
            items = [(e.name, e.path, e.stat) for e in entries
                     if "a" in flags or "A" in flags or not e.name.startswith(".")]
            if "a" in flags:
                items = [(".", path, self.fs.stat(path)), ("..", path + "/..", self.fs.stat(join(path, "..")))] + items
            if not first or multi:
                if not first:
                    out.append("")
                out.append(f"{t}:")
            first = False
            out.extend(self._ls_lines(items, flags, total=True))
            if "R" in flags:
                sub = [(f"{t.rstrip('/')}/{n}", p) for n, p, s in items if s.is_dir and n not in (".", "..")]
                queue[0:0] = sub
        if out:
            await ctx.out("\n".join(out) + "\n")
        return status

    def _ls_lines(self, items: list[tuple[str, str, Any]], flags: set[str], total: bool) -> list[str]:
        if "t" in flags:
            items = sorted(items, key=lambda x: (-x[2].st_mtime, x[0]))
        elif "S" in flags:
            items = sorted(items, key=lambda x: (-x[2].st_size, x[0]))
        if "r" in flags:
            items = list(reversed(items))
        if "l" not in flags and "n" not in flags:
            names = []
            for name, _p, st in items:
                suffix = "/" if "F" in flags and st.is_dir else ""
                names.append((f"{st.st_ino} " if "i" in flags else "") + name + suffix)
            return names
        rows = []
        for name, path, st in items:
            user = str(st.st_uid) if "n" in flags else _uname(st.st_uid)
            group = str(st.st_gid) if "n" in flags else _uname(st.st_gid)
            size = _human(st.st_size) if "h" in flags else str(st.st_size)
            shown = name
            if st.is_symlink:
                try:
                    shown = f"{name} -> {self.fs.readlink(path)}"
                except OSError:
                    pass
            rows.append([_mode_str(st.st_mode), str(st.st_nlink), user, group, size,
                         _fmt_time(st.st_mtime, zone=getattr(self.phone, "zone", timezone.utc)), shown])
        widths = [max((len(r[i]) for r in rows), default=0) for i in range(5)]
        lines = [f"total {sum((st.st_size + 4095) // 4096 * 4 for _, _, st in items)}"] if total else []
        for r in rows:
            lines.append(f"{r[0]} {r[1]:>{widths[1]}} {r[2]:<{widths[2]}} {r[3]:<{widths[3]}} "
                         f"{r[4]:>{widths[4]}} {r[5]} {r[6]}")
        return lines

    # --- stat
    async def stat(self, ctx: CommandContext) -> int:
        parsed = await _options(ctx, "stat", "Lft", with_value="c")
        if parsed is None:
            return 1
        flags, values, operands = parsed
        text = values.get("c", _STAT_DEFAULT)

        def show(name: str) -> str:
            path = ctx.path(name)
            st = self.fs.stat(path) if "L" in flags else self.fs.lstat(path)
            return self._stat_format(text, name, path, st) + "\n"

        return await _each(ctx, operands, show, "stat: '{}': {}\n")

    def _stat_format(self, fmt: str, name: str, path: str, st: Any) -> str:
        """toybox ``stat -c``: each ``%[-WIDTH]X`` of ``fmt`` replaced by field ``X`` of ``st``."""
        def ftype() -> str:
            if st.is_dir:
                return "directory"
            if st.is_symlink:
                return "symbolic link"
            return "regular empty file" if st.st_size == 0 else "regular file"

        def quoted() -> str:
            if st.is_symlink:
                try:
                    return f"'{name}' -> '{self.fs.readlink(path)}'"
                except OSError:
                    pass
            return f"'{name}'"

        def field(key: str) -> str:
            if key in _STAT_NUMBERS:
                return str(getattr(st, _STAT_NUMBERS[key]))
            if key.lower() in _STAT_TIMES:  # %x %y %z the time, %X %Y %Z its epoch seconds
                ts = getattr(st, _STAT_TIMES[key.lower()])
                zone = getattr(self.phone, "zone", timezone.utc)
                return _fmt_time(ts, "%Y-%m-%d %H:%M:%S.000000000 %z", zone) if key.islower() else str(int(ts))
            if key in ("U", "G"):
                return _uname(st.st_uid if key == "U" else st.st_gid)
            if key == "N":
                return quoted()
            if key == "F":
                return ftype()
            if key == "b":
                return str((st.st_size + 511) // 512 if not st.is_dir else 8)
            if key == "a":
                return f"{_stat.S_IMODE(st.st_mode):o}"
            if key == "A":
                return _mode_str(st.st_mode)
            if key == "D":
                return f"{st.st_dev:x}"
            if key == "f":
                return f"{st.st_mode:x}"
            return {"%": "%", "n": name, "B": "512", "t": "0", "T": "0", "o": "4096"}.get(key, "?")

        def replace(m: re.Match[str]) -> str:
            width, val = m.group(1), field(m.group(2))
            if width:
                w = int(width)
                val = val.ljust(-w) if w < 0 else val.rjust(w)
            return val

        return re.sub(r"%(-?\d*)([a-zA-Z%])", replace, fmt)


def file_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return FileCommands(phone).table()
