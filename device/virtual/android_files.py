"""Shared storage of the virtual phone: the VirtualFS ⇄ ``WorldState.files`` mirror, and the
file commands (``ls``, ``stat``, ``mkdir``, ``mv``, ``cp``, ``rm``, ``find``, ``md5sum`` ...).

Why a mirror: the simulator's Files app and the task judges see shared storage as
``WorldState.files`` records; adb sees bytes in a filesystem (``adb push``/``pull``, ``ls``).
A real phone has one storage, so both views must agree both ways: a push creates a
``FileEntry``; a rename in the sim's Files app is visible to ``ls``. :class:`StorageMirror`
keeps a *three-way* record (what each side looked like at the last sync), so it can tell
which side changed a path and carry the change over — a sim rename moves the pushed bytes
instead of regenerating them. Files only the world knows about get deterministic filler
bytes of the recorded size.

Output formats follow toybox (Android's ``ls``, ``stat``, ``find``, ``md5sum``), including
its error messages, so scripts that parse them behave as on a phone.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import itertools
import re
import stat as _stat
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING, Any, Callable

from .fs import EVERYBODY_GID, MEDIA_RW_GID, ROOT_UID, SHELL_UID, SYSTEM_UID, VirtualFS, join
from .shline import CommandContext, CommandHandler

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["PhoneFS", "StorageMirror", "filler_bytes", "file_commands", "SDCARD", "STORAGE_ROOT"]

SDCARD = "/sdcard"
STORAGE_ROOT = "/storage/emulated/0"
#: App-private external storage: not shown by the Files app, not part of ``WorldState.files``.
_EXCLUDED_TOP = {"Android"}

_USERS = {ROOT_UID: "root", SYSTEM_UID: "system", SHELL_UID: "shell", MEDIA_RW_GID: "media_rw",
          EVERYBODY_GID: "everybody", 1015: "sdcard_rw", 1028: "sdcard_r"}


def _uname(uid: int) -> str:
    if uid in _USERS:
        return _USERS[uid]
    if uid >= 10000:
        return f"u0_a{uid - 10000}"
    return str(uid)


# ============================================================================ filesystem
class PhoneFS(VirtualFS):
    """A :class:`VirtualFS` that counts its mutations.

    Why: ``adb push`` writes through the sync service straight into the filesystem, with no
    hook into the phone. A generation number lets the phone notice, cheaply and lazily, that
    shared storage changed and must be mirrored into ``WorldState.files``.
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._gen_counter = itertools.count(1)
        self.generation = 0

    def _changed(self) -> None:
        self.generation = next(self._gen_counter)  # atomic under the GIL

    def write_bytes(self, path: str, data: bytes | bytearray | memoryview, **kw: Any) -> None:  # type: ignore[override]
        super().write_bytes(path, data, **kw)
        self._changed()

    def truncate(self, path: str, size: int = 0) -> None:
        super().truncate(path, size)
        self._changed()

    def mkdir(self, path: str, mode: int = 0o771, **kw: Any) -> None:  # type: ignore[override]
        super().mkdir(path, mode, **kw)
        self._changed()

    def remove(self, path: str) -> None:
        super().remove(path)
        self._changed()

    unlink = remove

    def rmdir(self, path: str) -> None:
        super().rmdir(path)
        self._changed()

    def rmtree(self, path: str) -> None:
        super().rmtree(path)
        self._changed()

    def rename(self, src: str, dst: str) -> None:
        super().rename(src, dst)
        self._changed()

    def symlink(self, target: str, linkpath: str) -> None:
        super().symlink(target, linkpath)
        self._changed()

    def utime(self, path: str, mtime: float | None = None, atime: float | None = None) -> None:
        super().utime(path, mtime, atime)
        self._changed()


def filler_bytes(path: str, size: int) -> bytes:
    """Deterministic stand-in content of ``size`` bytes for a file only the world knows.

    Text-like files get readable text; others a pattern derived from the path, so two
    different files never have the same bytes (md5sum tells them apart).
    """
    if size <= 0:
        return b""
    name = path.rsplit("/", 1)[-1]
    if name.lower().endswith((".txt", ".md", ".csv", ".log", ".json")):
        line = f"{name}: s2r virtual phone placeholder text\n".encode()
        return (line * (size // len(line) + 1))[:size]
    seed = hashlib.sha256(path.encode("utf-8", "surrogateescape")).digest()
    block = b"".join(hashlib.sha256(seed + i.to_bytes(2, "little")).digest() for i in range(128))  # 4 KiB
    return (block * (size // len(block) + 1))[:size]


# ============================================================================ mirror
@dataclass(frozen=True)
class _Sig:
    kind: str
    size: int = 0
    mtime: str | None = None  # ISO seconds (world) or epoch seconds as str (fs)


def _alias(path: str) -> str | None:
    """``/storage/emulated/0/x`` or ``/sdcard/x`` → ``/sdcard/x``; None outside shared storage."""
    p = path.rstrip("/") or "/"
    for prefix in (STORAGE_ROOT, "/storage/self/primary", SDCARD):
        if p == prefix:
            return SDCARD
        if p.startswith(prefix + "/"):
            return SDCARD + p[len(prefix):]
    return None


def _excluded(alias: str) -> bool:
    rel = alias[len(SDCARD) + 1:]
    return not rel or rel.split("/", 1)[0] in _EXCLUDED_TOP


def _iso_to_epoch(iso: str | None, zone: tzinfo = timezone.utc) -> float | None:
    """A local wall time of ``zone`` (a file's ``mtime`` in the world) → epoch seconds."""
    if not iso:
        return None
    try:
        dt = datetime.fromisoformat(iso)
        return (dt if dt.tzinfo else dt.replace(tzinfo=zone)).timestamp()
    except ValueError:
        return None


def _epoch_to_iso(ts: float, zone: tzinfo = timezone.utc) -> str:
    return datetime.fromtimestamp(int(ts), tz=zone).replace(tzinfo=None).isoformat(timespec="seconds")


class StorageMirror:
    """Keeps ``/sdcard`` of a :class:`PhoneFS` and a world's ``files`` records in agreement.

    Call :meth:`reconcile` with the world's ``files`` list (JSON dicts, as in the sim state);
    it updates the filesystem for changes the world made, and returns the new list when
    changes made on the filesystem must go into the world (else None). ``FileEntry.mtime``
    (naive local) is a wall time of :attr:`zone`, the phone's zone (the phone sets it).
    """

    def __init__(self, fs: PhoneFS, zone: tzinfo = timezone.utc) -> None:
        self.fs = fs
        self.zone = zone
        self._base_world: dict[str, _Sig] | None = None
        self._base_fs: dict[str, _Sig] = {}
        self._fs_gen = -1

    # --- views
    def scan_fs(self) -> dict[str, tuple[_Sig, float]]:
        """Alias path → (signature, mtime) for everything under shared storage."""
        out: dict[str, tuple[_Sig, float]] = {}
        if not self.fs.isdir(STORAGE_ROOT):
            return out
        todo = [STORAGE_ROOT]
        while todo:
            d = todo.pop()
            try:
                entries = self.fs.scandir(d)
            except OSError:
                continue
            for e in entries:
                alias = _alias(e.path)
                if alias is None or _excluded(alias):
                    continue
                st = e.stat
                if st.is_dir:
                    out[alias] = (_Sig("dir"), st.st_mtime)
                    todo.append(e.path)
                else:
                    out[alias] = (_Sig("file", st.st_size, str(int(st.st_mtime))), st.st_mtime)
        return out

    @staticmethod
    def world_view(files: list[dict[str, Any]]) -> dict[str, _Sig]:
        out: dict[str, _Sig] = {}
        for rec in files:
            alias = _alias(str(rec.get("path", "")))
            if alias is None or _excluded(alias):
                continue
            if rec.get("kind") == "dir":
                out[alias] = _Sig("dir")
            else:
                out[alias] = _Sig("file", int(rec.get("size") or 0), rec.get("mtime"))
        return out

    def needs_sync(self, files: list[dict[str, Any]] | None) -> bool:
        if self._base_world is None or self.fs.generation != self._fs_gen:
            return True
        return self.world_view(files or []) != self._base_world

    # --- the merge
    def reconcile(self, files: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
        scanned = self.scan_fs()
        fs_now = {p: s for p, (s, _) in scanned.items()}
        if self._base_world is None:  # first sync: the world is the truth (unless it has no files)
            if files is None:
                new = [self._record(p, s, scanned[p][1]) for p, s in sorted(fs_now.items())]
                self._remember(self.world_view(new))
                return new
            world_now = self.world_view(files)
            self._apply_world_changes({}, world_now, fs_now, files, initial=True)
            self._remember(world_now)
            return None
        files = list(files or [])
        world_now = self.world_view(files)
        base_w, base_f = self._base_world, self._base_fs
        w_changed = {p for p in set(world_now) | set(base_w) if world_now.get(p) != base_w.get(p)}
        f_changed = {p for p in set(fs_now) | set(base_f) if fs_now.get(p) != base_f.get(p)}
        # world-side changes the filesystem has not also changed: carry them to the filesystem
        w_only = {p for p in w_changed if p not in f_changed}
        if w_only:
            self._apply_world_changes({p: base_w[p] for p in w_only if p in base_w},
                                      {p: world_now[p] for p in w_only if p in world_now}, fs_now, files)
            scanned = self.scan_fs()
            fs_now = {p: s for p, (s, _) in scanned.items()}
        new_files: list[dict[str, Any]] | None = None
        if f_changed:
            by_alias = {_alias(str(r.get("path", ""))): i for i, r in enumerate(files)}
            out = list(files)
            drop: set[int] = set()
            for p in sorted(f_changed):
                now = fs_now.get(p)
                i = by_alias.get(p)
                if now is None:
                    if i is not None:
                        drop.add(i)
                    continue
                rec = self._record(p, now, scanned[p][1])
                if i is not None:
                    old = out[i]
                    if now.kind == "dir" and old.get("kind") == "dir":
                        continue
                    rec["path"] = old.get("path", p)
                    out[i] = rec
                else:
                    out.append(rec)
            new_files = [r for i, r in enumerate(out) if i not in drop]
            world_now = self.world_view(new_files)
        self._remember(world_now)
        return new_files

    def _remember(self, world_now: dict[str, _Sig]) -> None:
        self._base_world = dict(world_now)
        self._base_fs = {p: s for p, (s, _) in self.scan_fs().items()}
        self._fs_gen = self.fs.generation

    def _record(self, alias: str, sig: _Sig, mtime: float) -> dict[str, Any]:
        if sig.kind == "dir":
            return {"path": alias, "kind": "dir", "size": 0, "mtime": _epoch_to_iso(mtime, self.zone)}
        return {"path": alias, "kind": "file", "size": sig.size, "mtime": _epoch_to_iso(mtime, self.zone)}

    def _real(self, alias: str) -> str:
        return STORAGE_ROOT + alias[len(SDCARD):]

    def _apply_world_changes(self, before: dict[str, _Sig], after: dict[str, _Sig], fs_now: dict[str, _Sig],
                             files: list[dict[str, Any]], initial: bool = False) -> None:
        """Make the filesystem show ``after`` where it showed ``before`` (paths the world changed)."""
        fs = self.fs
        # ``after`` lists every path the world changed or added: making each exist is idempotent
        removed = sorted(p for p in (fs_now if initial else before) if p not in after)
        added = sorted(after)
        # renames/moves made in the sim: pair a removed path with an added one of the same content
        removed_set, added_set = set(removed), set(added)
        for r in sorted((p for p in removed if before.get(p, _Sig("file")).kind == "dir"), key=len):
            if r not in removed_set or not fs.isdir(self._real(r)):
                continue
            kids_r = {q[len(r):] for q in removed_set if q.startswith(r + "/")}
            for a in sorted((p for p in added_set if after[p].kind == "dir"), key=len):
                kids_a = {q[len(a):] for q in added_set if q.startswith(a + "/")}
                if kids_r == kids_a and not fs.lexists(self._real(a)):
                    self._move(r, a)
                    removed_set -= {r} | {r + k for k in kids_r}
                    added_set -= {a} | {a + k for k in kids_a}
                    break
        for r in sorted(p for p in removed_set if before.get(p, _Sig("dir")).kind == "file"):
            sig = before[r]
            match = next((a for a in sorted(added_set) if after[a] == sig or (
                after[a].kind == "file" and after[a].size == sig.size and after[a].mtime == sig.mtime)), None)
            if match is not None and fs.lexists(self._real(r)) and not fs.lexists(self._real(match)):
                self._move(r, match)
                removed_set.discard(r)
                added_set.discard(match)
        for r in sorted(removed_set, key=len, reverse=True):
            real = self._real(r)
            try:
                if fs.isdir(real) and not fs.islink(real):
                    fs.rmtree(real)
                elif fs.lexists(real):
                    fs.remove(real)
            except OSError:
                pass
        mtimes = {_alias(str(rec.get("path", ""))): rec.get("mtime") for rec in files}
        for a in sorted(added_set, key=len):
            sig = after[a]
            real = self._real(a)
            try:
                if sig.kind == "dir":
                    if not fs.isdir(real):
                        if fs.lexists(real):
                            fs.remove(real)
                        fs.makedirs(real, 0o770, exist_ok=True)
                    continue
                if fs.isdir(real):
                    fs.rmtree(real)
                exists = fs.isfile(real)
                if not exists or fs.stat(real).st_size != sig.size:
                    fs.write_bytes(real, filler_bytes(a, sig.size), mode=0o660, parents=True)
                ts = _iso_to_epoch(mtimes.get(a), self.zone)
                if ts is not None:
                    fs.utime(real, ts)
            except OSError:
                continue

    def _move(self, src: str, dst: str) -> None:
        real_dst = self._real(dst)
        parent = real_dst.rsplit("/", 1)[0]
        try:
            self.fs.makedirs(parent, 0o770, exist_ok=True)
            self.fs.rename(self._real(src), real_dst)
        except OSError:
            pass


# ============================================================================ commands
def _mode_str(mode: int) -> str:
    return _stat.filemode(mode)


def _fmt_time(ts: float, fmt: str = "%Y-%m-%d %H:%M", zone: tzinfo = timezone.utc) -> str:
    """``ls -l``/``stat`` times: toybox prints local time (``localtime``), ``%z`` its offset."""
    return datetime.fromtimestamp(ts, tz=zone).strftime(fmt)


def _human(n: int) -> str:
    for unit in ("", "K", "M", "G", "T"):
        if n < 1024 or unit == "T":
            return f"{n}{unit}" if unit == "" else (f"{n:.1f}{unit}" if n < 10 else f"{n:.0f}{unit}")
        n = n / 1024  # type: ignore[assignment]
    return str(n)


def _split_flags(args: list[str], allowed: str, with_value: str = "") -> tuple[set[str], dict[str, str], list[str], str | None]:
    """toybox-style option parsing: combined short flags, ``--`` ends options.

    Returns (flags, values, operands, bad_flag)."""
    flags: set[str] = set()
    values: dict[str, str] = {}
    operands: list[str] = []
    i = 0
    only_operands = False
    while i < len(args):
        a = args[i]
        if only_operands or not a.startswith("-") or a == "-":
            operands.append(a)
            i += 1
            continue
        if a == "--":
            only_operands = True
            i += 1
            continue
        if a.startswith("--"):
            return flags, values, operands, a
        for j, ch in enumerate(a[1:]):
            if ch in with_value:
                rest = a[j + 2:]
                if rest:
                    values[ch] = rest
                else:
                    i += 1
                    if i >= len(args):
                        return flags, values, operands, ch
                    values[ch] = args[i]
                break
            if ch not in allowed:
                return flags, values, operands, ch
            flags.add(ch)
        i += 1
    return flags, values, operands, None


class FileCommands:
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
        flags, values, operands, bad = _split_flags(ctx.args, "Lft", with_value="c")
        if bad:
            await ctx.err(f"stat: Unknown option '{bad}' (see \"stat --help\")\n")
            return 1
        if not operands:
            await ctx.err("stat: Needs 1 argument (see \"stat --help\")\n")
            return 1
        fmt = values.get("c")
        status = 0
        for name in operands:
            path = ctx.path(name)
            try:
                st = self.fs.stat(path) if "L" in flags else self.fs.lstat(path)
            except OSError as exc:
                await ctx.err(f"stat: '{name}': {exc.strerror}\n")
                status = 1
                continue
            if fmt is None:
                text = ("  File: %N\n  Size: %s\t Blocks: %b\t IO Blocks: %B\t%F\n"
                        "Device: %Dh/%dd\t Inode: %i\t Links: %h\t Device type: %t,%T\n"
                        "Access: (0%a/%A)\tUid: (%5u/%8U)\tGid: (%5g/%8G)\n"
                        "Access: %x\nModify: %y\nChange: %z")
            else:
                text = fmt
            await ctx.out(self._stat_format(text, name, path, st) + "\n")
        return status

    def _stat_format(self, fmt: str, name: str, path: str, st: Any) -> str:
        def ftype() -> str:
            if st.is_dir:
                return "directory"
            if st.is_symlink:
                return "symbolic link"
            return "regular empty file" if st.st_size == 0 else "regular file"

        def when(ts: float) -> str:
            return _fmt_time(ts, "%Y-%m-%d %H:%M:%S.000000000 %z", getattr(self.phone, "zone", timezone.utc))

        def quoted() -> str:
            if st.is_symlink:
                try:
                    return f"'{name}' -> '{self.fs.readlink(path)}'"
                except OSError:
                    pass
            return f"'{name}'"

        out: list[str] = []
        i = 0
        while i < len(fmt):
            c = fmt[i]
            if c != "%" or i + 1 >= len(fmt):
                out.append(c)
                i += 1
                continue
            m = re.match(r"%(-?\d*)([a-zA-Z%])", fmt[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            width, key = m.group(1), m.group(2)
            i += len(m.group(0))
            val: str
            if key == "%":
                val = "%"
            elif key == "n":
                val = name
            elif key == "N":
                val = quoted()
            elif key == "s":
                val = str(st.st_size)
            elif key == "b":
                val = str((st.st_size + 511) // 512 if not st.is_dir else 8)
            elif key == "B":
                val = "512"
            elif key == "F":
                val = ftype()
            elif key == "a":
                val = f"{_stat.S_IMODE(st.st_mode):o}"
            elif key == "A":
                val = _mode_str(st.st_mode)
            elif key == "u":
                val = str(st.st_uid)
            elif key == "U":
                val = _uname(st.st_uid)
            elif key == "g":
                val = str(st.st_gid)
            elif key == "G":
                val = _uname(st.st_gid)
            elif key == "i":
                val = str(st.st_ino)
            elif key == "h":
                val = str(st.st_nlink)
            elif key == "d":
                val = str(st.st_dev)
            elif key == "D":
                val = f"{st.st_dev:x}"
            elif key in ("t", "T"):
                val = "0"
            elif key == "x":
                val = when(st.st_atime)
            elif key == "X":
                val = str(int(st.st_atime))
            elif key == "y":
                val = when(st.st_mtime)
            elif key == "Y":
                val = str(int(st.st_mtime))
            elif key == "z":
                val = when(st.st_ctime)
            elif key == "Z":
                val = str(int(st.st_ctime))
            elif key == "f":
                val = f"{st.st_mode:x}"
            elif key == "o":
                val = "4096"
            else:
                val = "?"
            if width:
                w = int(width)
                val = val.ljust(-w) if w < 0 else val.rjust(w)
            out.append(val)
        return "".join(out)

    # --- mkdir / rmdir / touch / chmod / ln
    async def mkdir(self, ctx: CommandContext) -> int:
        flags, values, operands, bad = _split_flags(ctx.args, "pv", with_value="m")
        if bad:
            await ctx.err(f"mkdir: Unknown option '{bad}' (see \"mkdir --help\")\n")
            return 1
        if not operands:
            await ctx.err("mkdir: Needs 1 argument (see \"mkdir --help\")\n")
            return 1
        try:
            mode = int(values.get("m", "771"), 8)
        except ValueError:
            await ctx.err(f"mkdir: bad mode '{values.get('m')}'\n")
            return 1
        status = 0
        for name in operands:
            path = ctx.path(name)
            try:
                if "p" in flags:
                    self.fs.makedirs(path, mode, exist_ok=True)
                else:
                    self.fs.mkdir(path, mode)
                if "v" in flags:
                    await ctx.out(f"mkdir: created directory '{name}'\n")
            except OSError as exc:
                await ctx.err(f"mkdir: '{name}': {exc.strerror}\n")
                status = 1
        return status

    async def rmdir(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "p")
        if bad or not operands:
            await ctx.err("rmdir: Needs 1 argument (see \"rmdir --help\")\n")
            return 1
        status = 0
        for name in operands:
            try:
                self.fs.rmdir(ctx.path(name))
            except OSError as exc:
                await ctx.err(f"rmdir: '{name}': {exc.strerror}\n")
                status = 1
        return status

    async def touch(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "acm")
        if bad or not operands:
            await ctx.err("touch: Needs 1 argument (see \"touch --help\")\n")
            return 1
        status = 0
        for name in operands:
            try:
                self.fs.touch(ctx.path(name), self.phone.now_epoch())
            except OSError as exc:
                await ctx.err(f"touch: '{name}': {exc.strerror}\n")
                status = 1
        return status

    async def chmod(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "Rfv")
        if bad or len(operands) < 2:
            await ctx.err("chmod: Needs 2 arguments (see \"chmod --help\")\n")
            return 1
        mode_s, names = operands[0], operands[1:]
        status = 0
        for name in names:
            path = ctx.path(name)
            try:
                cur = _stat.S_IMODE(self.fs.stat(path).st_mode)
                new = _parse_mode(mode_s, cur)
                if new is None:
                    await ctx.err(f"chmod: bad mode '{mode_s}'\n")
                    return 1
                self.fs.chmod(path, new)
            except OSError as exc:
                await ctx.err(f"chmod: '{name}': {exc.strerror}\n")
                status = 1
        return status

    async def ln(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "sfnv")
        if bad or len(operands) != 2 or "s" not in flags:
            await ctx.err("ln: only 'ln -s TARGET LINK' is supported here\n" if not bad else
                          f"ln: Unknown option '{bad}'\n")
            return 1
        target, link = operands
        path = ctx.path(link)
        try:
            if "f" in flags and self.fs.lexists(path):
                self.fs.remove(path)
            self.fs.symlink(target, path)
        except OSError as exc:
            await ctx.err(f"ln: cannot create symbolic link from '{target}' to '{link}': {exc.strerror}\n")
            return 1
        return 0

    async def readlink(self, ctx: CommandContext) -> int:
        flags, _, operands, _bad = _split_flags(ctx.args, "fenqmv")
        if not operands:
            return 1
        path = ctx.path(operands[0])
        try:
            await ctx.out((self.fs.realpath(path) if flags & {"f", "e", "m"} else self.fs.readlink(path)) + "\n")
        except OSError:
            return 1
        return 0

    async def realpath(self, ctx: CommandContext) -> int:
        status = 0
        for name in ctx.args or ["."]:
            try:
                await ctx.out(self.fs.realpath(ctx.path(name)) + "\n")
            except OSError as exc:
                await ctx.err(f"realpath: {name}: {exc.strerror}\n")
                status = 1
        return status

    async def basename(self, ctx: CommandContext) -> int:
        if not ctx.args:
            await ctx.err("basename: Needs 1 argument (see \"basename --help\")\n")
            return 1
        name = ctx.args[0].rstrip("/").rsplit("/", 1)[-1] or "/"
        if len(ctx.args) > 1 and name.endswith(ctx.args[1]) and name != ctx.args[1]:
            name = name[: -len(ctx.args[1])]
        await ctx.out(name + "\n")
        return 0

    async def dirname(self, ctx: CommandContext) -> int:
        if not ctx.args:
            await ctx.err("dirname: Needs 1 argument (see \"dirname --help\")\n")
            return 1
        p = ctx.args[0].rstrip("/")
        await ctx.out((p.rsplit("/", 1)[0] if "/" in p else ".") or "/")
        await ctx.out("\n")
        return 0

    # --- mv / cp / rm
    async def mv(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "fivnT")
        if bad:
            await ctx.err(f"mv: Unknown option '{bad}' (see \"mv --help\")\n")
            return 1
        if len(operands) < 2:
            await ctx.err("mv: Needs 2 arguments (see \"mv --help\")\n")
            return 1
        *srcs, dst = operands
        dpath = ctx.path(dst)
        into = self.fs.isdir(dpath)
        if len(srcs) > 1 and not into:
            await ctx.err(f"mv: '{dst}' not directory\n")
            return 1
        status = 0
        for s in srcs:
            spath = ctx.path(s)
            target = join(dpath, s.rstrip("/").rsplit("/", 1)[-1]) if into else dpath
            try:
                if not self.fs.lexists(spath):
                    raise OSError(errno.ENOENT, "No such file or directory", spath)
                if "n" in flags and self.fs.lexists(target):
                    continue
                if self.fs.isdir(target) and not self.fs.isdir(spath):
                    raise OSError(errno.EISDIR, "Is a directory", target)
                self.fs.rename(spath, target)
            except OSError as exc:
                await ctx.err(f"mv: bad '{s}': {exc.strerror}\n")
                status = 1
        return status

    async def cp(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "rRfpainvdPL")
        if bad:
            await ctx.err(f"cp: Unknown option '{bad}' (see \"cp --help\")\n")
            return 1
        if len(operands) < 2:
            await ctx.err("cp: Needs 2 arguments (see \"cp --help\")\n")
            return 1
        *srcs, dst = operands
        dpath = ctx.path(dst)
        into = self.fs.isdir(dpath)
        status = 0
        for s in srcs:
            spath = ctx.path(s)
            target = join(dpath, s.rstrip("/").rsplit("/", 1)[-1]) if into else dpath
            try:
                if self.fs.isdir(spath):
                    if not flags & {"r", "R", "a"}:
                        await ctx.err(f"cp: Skipped dir '{s}'\n")
                        status = 1
                        continue
                    self._copytree(spath, target)
                else:
                    if "n" in flags and self.fs.exists(target):
                        continue
                    self.fs.copyfile(spath, target)
            except OSError as exc:
                await ctx.err(f"cp: bad '{s}': {exc.strerror}\n")
                status = 1
        return status

    def _copytree(self, src: str, dst: str) -> None:
        self.fs.makedirs(dst, 0o771, exist_ok=True)
        for e in self.fs.scandir(src):
            target = join(dst, e.name)
            if e.stat.is_dir:
                self._copytree(e.path, target)
            elif e.stat.is_symlink:
                self.fs.symlink(self.fs.readlink(e.path), target)
            else:
                self.fs.copyfile(e.path, target)

    async def rm(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "rRfidv")
        if bad:
            await ctx.err(f"rm: Unknown option '{bad}' (see \"rm --help\")\n")
            return 1
        if not operands:
            if "f" in flags:
                return 0
            await ctx.err("rm: Needs 1 argument (see \"rm --help\")\n")
            return 1
        status = 0
        for name in operands:
            path = ctx.path(name)
            try:
                st = self.fs.lstat(path)
            except OSError as exc:
                if "f" not in flags:
                    await ctx.err(f"rm: {name}: {exc.strerror}\n")
                    status = 1
                continue
            try:
                if st.is_dir:
                    if flags & {"r", "R"}:
                        self.fs.rmtree(path)
                    elif "d" in flags:
                        self.fs.rmdir(path)
                    else:
                        await ctx.err(f"rm: {name}: Is a directory\n")
                        status = 1
                        continue
                else:
                    self.fs.remove(path)
                if "v" in flags:
                    await ctx.out(f"rm '{name}'\n")
            except OSError as exc:
                await ctx.err(f"rm: {name}: {exc.strerror}\n")
                status = 1
        return status

    # --- find / du
    async def find(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        roots: list[str] = []
        while args and not args[0].startswith("-") and args[0] not in ("!", "("):
            roots.append(args.pop(0))
        roots = roots or ["."]
        tests: list[Callable[[str, Any, int], bool]] = []
        maxdepth, mindepth = 10 ** 6, 0
        i = 0
        negate = False
        while i < len(args):
            a = args[i]
            val = args[i + 1] if i + 1 < len(args) else None
            if a == "!" or a == "-not":
                negate = True
                i += 1
                continue
            if a in ("-print", "-print0"):
                i += 1
                continue
            if a in ("-name", "-iname", "-type", "-maxdepth", "-mindepth", "-size", "-path") and val is None:
                await ctx.err(f"find: '{a}' needs 1 arg\n")
                return 1
            test: Callable[[str, Any, int], bool] | None = None
            if a == "-name":
                pat = val
                test = lambda p, st, d, pat=pat: fnmatch.fnmatchcase(p.rstrip("/").rsplit("/", 1)[-1], pat)  # type: ignore[misc]
            elif a == "-iname":
                pat = (val or "").lower()
                test = lambda p, st, d, pat=pat: fnmatch.fnmatchcase(p.rstrip("/").rsplit("/", 1)[-1].lower(), pat)  # type: ignore[misc]
            elif a == "-path":
                pat = val
                test = lambda p, st, d, pat=pat: fnmatch.fnmatchcase(p, pat)  # type: ignore[misc]
            elif a == "-type":
                kind = val
                test = lambda p, st, d, kind=kind: (kind == "d" and st.is_dir) or (kind == "f" and st.is_file) or (  # type: ignore[misc]
                    kind == "l" and st.is_symlink)
            elif a == "-maxdepth":
                maxdepth = int(val or 0)
            elif a == "-mindepth":
                mindepth = int(val or 0)
            elif a == "-size":
                m = re.fullmatch(r"([+-]?)(\d+)([ckMG]?)", val or "")
                if not m:
                    await ctx.err(f"find: bad -size '{val}'\n")
                    return 1
                mult = {"": 512, "c": 1, "k": 1024, "M": 1 << 20, "G": 1 << 30}[m.group(3)]
                n = int(m.group(2)) * mult
                sign = m.group(1)
                test = lambda p, st, d, n=n, sign=sign: (st.st_size > n if sign == "+" else st.st_size < n  # type: ignore[misc]
                                                        if sign == "-" else st.st_size == n)
            else:
                await ctx.err(f"find: Unknown option '{a}'\n")
                return 1
            if test is not None:
                if negate:
                    test = lambda p, st, d, t=test: not t(p, st, d)  # type: ignore[misc]
                tests.append(test)
            negate = False
            i += 2
        status = 0
        lines: list[str] = []
        for root in roots:
            path = ctx.path(root)
            try:
                st = self.fs.stat(path)
            except OSError as exc:
                await ctx.err(f"find: '{root}': {exc.strerror}\n")
                status = 1
                continue
            stack: list[tuple[str, str, Any, int]] = [(root, path, st, 0)]
            while stack:
                shown, real, st, depth = stack.pop()
                if depth >= mindepth and all(t(shown, st, depth) for t in tests):
                    lines.append(shown)
                if st.is_dir and depth < maxdepth:
                    try:
                        kids = self.fs.scandir(real)
                    except OSError:
                        continue
                    for e in reversed(kids):
                        stack.append((f"{shown.rstrip('/')}/{e.name}" if shown != "/" else f"/{e.name}",
                                      e.path, e.stat, depth + 1))
        if lines:
            await ctx.out("\n".join(lines) + "\n")
        return status

    async def du(self, ctx: CommandContext) -> int:
        flags, _, operands, _bad = _split_flags(ctx.args, "sakhmcx")
        status = 0
        for name in operands or ["."]:
            path = ctx.path(name)
            try:
                total = self.fs.total_size(path) if self.fs.isdir(path) else self.fs.stat(path).st_size
            except OSError as exc:
                await ctx.err(f"du: {name}: {exc.strerror}\n")
                status = 1
                continue
            size = _human(total) if "h" in flags else str((total + 1023) // 1024)
            await ctx.out(f"{size}\t{name}\n")
        return status

    # --- checksums
    async def _digest(self, ctx: CommandContext, algo: str) -> int:
        _flags, _, operands, _bad = _split_flags(ctx.args, "bcs")
        status = 0
        if not operands:
            data = await ctx.read_all()
            await ctx.out(f"{hashlib.new(algo, data).hexdigest()}  -\n")
            return 0
        for name in operands:
            try:
                data = self.fs.read_bytes(ctx.path(name))
            except OSError as exc:
                await ctx.err(f"{algo}sum: {name}: {exc.strerror}\n")
                status = 1
                continue
            await ctx.out(f"{hashlib.new(algo, data).hexdigest()}  {name}\n")
        return status

    async def md5sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "md5")

    async def sha1sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "sha1")

    async def sha256sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "sha256")


def _parse_mode(text: str, current: int) -> int | None:
    """Octal (``644``) or symbolic (``u+x``, ``a-w``, ``go=r``) chmod modes."""
    if re.fullmatch(r"[0-7]{1,4}", text):
        return int(text, 8)
    mode = current
    for clause in text.split(","):
        m = re.fullmatch(r"([ugoa]*)([+\-=])([rwxX]*)", clause)
        if not m:
            return None
        who = m.group(1) or "a"
        bits = 0
        for ch in m.group(3):
            bits |= {"r": 4, "w": 2, "x": 1, "X": 1}[ch]
        mask = 0
        for w in who:
            for shift in {"u": (6,), "g": (3,), "o": (0,), "a": (6, 3, 0)}[w]:
                mask |= bits << shift
        if m.group(2) == "+":
            mode |= mask
        elif m.group(2) == "-":
            mode &= ~mask
        else:
            clear = 0
            for w in who:
                for shift in {"u": (6,), "g": (3,), "o": (0,), "a": (6, 3, 0)}[w]:
                    clear |= 7 << shift
            mode = (mode & ~clear) | mask
    return mode


def file_commands(phone: "VirtualPhone") -> dict[str, CommandHandler]:
    return FileCommands(phone).table()
