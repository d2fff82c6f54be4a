"""An in-memory filesystem for the virtual Android phone.

Why it exists: the virtual phone must answer ``adb push``/``adb pull``/``adb shell ls``
exactly like a real one, without ever touching the host's disk.  Both the adbd sync
service (``device/virtual/adbd.py``) and the Android shell emulation (``ls``, ``stat``,
``mkdir``, ``mv``, ``rm``, ``cat`` ...) use one :class:`VirtualFS` instance, so a file
pushed with adb is visible to ``ls`` and vice versa.

Design rules (so that shell commands can be written like Python code using ``os``):

* Paths are POSIX strings.  Absolute paths are resolved from ``/``; a relative path is
  resolved from ``/`` too, because the filesystem has no working directory: a shell
  keeps its own ``cwd`` and calls :func:`join` / :meth:`VirtualFS.abspath` first.
* Errors are the ``OSError`` subclasses ``os`` raises, with ``errno`` and ``filename``
  set: ``FileNotFoundError``, ``NotADirectoryError``, ``IsADirectoryError``,
  ``FileExistsError``, ``OSError(ENOTEMPTY)``, ``OSError(ELOOP)``, ``OSError(EINVAL)``.
  So ``str(exc)`` or ``exc.strerror`` give the same text a device would print.
* :meth:`VirtualFS.stat` returns :class:`FileStat`, whose attribute names match
  ``os.stat_result`` (``st_mode`` with the file-type bits, ``st_size``, ``st_mtime`` as
  float seconds ...), so ``stat.S_ISDIR(st.st_mode)`` works.
* Symbolic links are supported (``/sdcard -> /storage/emulated/0`` as on a phone);
  ``stat`` follows them, ``lstat`` does not, intermediate components always follow.
* Permission bits are stored and reported but never enforced: the virtual phone's
  shell user may write anywhere.  Owners are stored (uid/gid) for ``ls -l``.
* Thread safety: every public method takes one re-entrant lock, so the filesystem may
  be used from the adbd event-loop thread and from synchronous test code at once.
  No method blocks or awaits, so calling it from a coroutine is fine.
* Data returned is always a copy (``bytes``); callers can never alias internal buffers.
"""

from __future__ import annotations

import errno
import fnmatch
import itertools
import os
import posixpath
import stat as _stat
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable, Iterator

__all__ = [
    "FileStat",
    "DirEntry",
    "VirtualFS",
    "join",
    "normpath",
    "ROOT_UID",
    "SYSTEM_UID",
    "SHELL_UID",
    "MEDIA_RW_GID",
    "EVERYBODY_GID",
]

#: Android ids, used for ``ls -l`` output and the sync protocol's stat answers.
ROOT_UID = 0
SYSTEM_UID = 1000
SHELL_UID = 2000
MEDIA_RW_GID = 1023
EVERYBODY_GID = 9997

_MAX_SYMLINK_HOPS = 40  # Linux's MAXSYMLINKS


def _err(code: int, path: str, cls: type[OSError] = OSError) -> OSError:
    """Build the exception ``os`` would raise (``cls`` only matters for readability:
    ``OSError(errno.ENOENT, ...)`` is already turned into FileNotFoundError by Python)."""
    return cls(code, os.strerror(code), path)


def normpath(path: str) -> str:
    """Lexically normalise ``path`` (collapse ``//``, ``.``, ``..``), always absolute.

    This is *lexical*: ``a/link/..`` becomes ``a`` even if ``link`` is a symlink, which
    is what shells do for ``cd`` and what users expect when joining paths.
    """
    parts: list[str] = []
    for comp in path.split("/"):
        if comp in ("", "."):
            continue
        if comp == "..":
            if parts:
                parts.pop()
            continue
        parts.append(comp)
    return "/" + "/".join(parts)


def join(cwd: str, path: str) -> str:
    """Resolve ``path`` against a shell working directory ``cwd`` (lexically)."""
    if path.startswith("/"):
        return normpath(path)
    return normpath(cwd.rstrip("/") + "/" + path)


@dataclass(frozen=True)
class FileStat:
    """Result of :meth:`VirtualFS.stat` / :meth:`VirtualFS.lstat` (``os.stat_result`` names)."""

    st_mode: int
    st_ino: int
    st_dev: int
    st_nlink: int
    st_uid: int
    st_gid: int
    st_size: int
    st_atime: float
    st_mtime: float
    st_ctime: float

    @property
    def is_dir(self) -> bool:
        return _stat.S_ISDIR(self.st_mode)

    @property
    def is_file(self) -> bool:
        return _stat.S_ISREG(self.st_mode)

    @property
    def is_symlink(self) -> bool:
        return _stat.S_ISLNK(self.st_mode)

    @property
    def permissions(self) -> int:
        """Only the permission bits (``0o7777``), as ``chmod`` takes them."""
        return _stat.S_IMODE(self.st_mode)


@dataclass(frozen=True)
class DirEntry:
    """One entry of :meth:`VirtualFS.scandir`: its name and its ``lstat``."""

    name: str
    path: str
    stat: FileStat


class _Node:
    __slots__ = ("mode", "uid", "gid", "atime", "mtime", "ctime", "ino")

    def __init__(self, mode: int, uid: int, gid: int, now: float, ino: int) -> None:
        self.mode = mode
        self.uid = uid
        self.gid = gid
        self.atime = self.mtime = self.ctime = now
        self.ino = ino

    def size(self) -> int:
        return 0


class _File(_Node):
    __slots__ = ("data",)

    def __init__(self, perm: int, uid: int, gid: int, now: float, ino: int) -> None:
        super().__init__(_stat.S_IFREG | (perm & 0o7777), uid, gid, now, ino)
        self.data = bytearray()

    def size(self) -> int:
        return len(self.data)


class _Dir(_Node):
    __slots__ = ("children",)

    def __init__(self, perm: int, uid: int, gid: int, now: float, ino: int) -> None:
        super().__init__(_stat.S_IFDIR | (perm & 0o7777), uid, gid, now, ino)
        self.children: dict[str, _Node] = {}

    def size(self) -> int:
        return 4096  # what ext4/f2fs report for a small directory


class _Link(_Node):
    __slots__ = ("target",)

    def __init__(self, target: str, uid: int, gid: int, now: float, ino: int) -> None:
        super().__init__(_stat.S_IFLNK | 0o777, uid, gid, now, ino)
        self.target = target

    def size(self) -> int:
        return len(self.target.encode("utf-8", "surrogateescape"))


def _components(path: str) -> list[str]:
    return [c for c in path.split("/") if c]


class VirtualFS:
    """A thread-safe in-memory POSIX-like filesystem.

    Args:
        clock: source of timestamps (``time.time`` by default; inject a fake one for
            deterministic tests).
        uid, gid: owner given to files and directories created through this API
            (defaults to Android's ``shell`` user, who owns what ``adb push`` creates).

    Use :meth:`android` for a filesystem pre-populated with the directories a phone has.
    """

    def __init__(self, *, clock: Callable[[], float] = time.time, uid: int = SHELL_UID,
                 gid: int = SHELL_UID) -> None:
        self._lock = threading.RLock()
        self._clock = clock
        self._ino = itertools.count(2)
        self.default_uid = uid
        self.default_gid = gid
        self._root = _Dir(0o755, ROOT_UID, ROOT_UID, clock(), 1)

    # ------------------------------------------------------------------ factories
    @classmethod
    def android(cls, *, clock: Callable[[], float] = time.time) -> "VirtualFS":
        """A filesystem laid out like a stock Android 11+ phone (the parts adb users see).

        ``/sdcard`` is a symlink to ``/storage/emulated/0`` as on real devices, so
        ``adb push x /sdcard/`` and ``ls -l /sdcard`` behave like on hardware.
        """
        fs = cls(clock=clock)
        layout: list[tuple[str, int, int, int]] = [
            ("/data", 0o771, SYSTEM_UID, SYSTEM_UID),
            ("/data/local", 0o751, ROOT_UID, ROOT_UID),
            ("/data/local/tmp", 0o771, SHELL_UID, SHELL_UID),
            ("/storage", 0o755, ROOT_UID, ROOT_UID),
            ("/storage/emulated", 0o711, ROOT_UID, ROOT_UID),
            ("/storage/emulated/0", 0o770, ROOT_UID, EVERYBODY_GID),
            ("/system", 0o755, ROOT_UID, ROOT_UID),
            ("/system/bin", 0o755, ROOT_UID, ROOT_UID),
            ("/system/xbin", 0o755, ROOT_UID, ROOT_UID),
            ("/vendor", 0o755, ROOT_UID, ROOT_UID),
            ("/proc", 0o555, ROOT_UID, ROOT_UID),
            ("/dev", 0o755, ROOT_UID, ROOT_UID),
            ("/mnt", 0o755, ROOT_UID, SYSTEM_UID),
            ("/etc", 0o755, ROOT_UID, ROOT_UID),
            ("/product", 0o755, ROOT_UID, ROOT_UID),
            ("/apex", 0o755, ROOT_UID, ROOT_UID),
            ("/cache", 0o770, SYSTEM_UID, SYSTEM_UID),
        ]
        for sub in ("Alarms", "Android", "DCIM", "Documents", "Download", "Movies", "Music",
                    "Notifications", "Pictures", "Podcasts", "Ringtones"):
            layout.append((f"/storage/emulated/0/{sub}", 0o770, ROOT_UID, EVERYBODY_GID))
        for path, perm, uid, gid in layout:
            fs.makedirs(path, perm, exist_ok=True)
            fs.chown(path, uid, gid)
        fs.symlink("/storage/emulated/0", "/sdcard")
        fs.chown("/sdcard", ROOT_UID, ROOT_UID, follow_symlinks=False)
        return fs

    # ------------------------------------------------------------------ internals
    def _now(self) -> float:
        return float(self._clock())

    def _resolve(self, path: str, follow_last: bool = True) -> tuple[_Node, str]:
        """Walk ``path``; return the node and its canonical (symlink-free) path.

        Iterative, so symlink chains cost no recursion; ``..`` is physical (after
        following links) like the kernel does.
        """
        if path.endswith("/"):
            follow_last = True  # POSIX: "link/" names the directory the link points to
        comps: deque[str] = deque(_components(path))
        stack: list[tuple[str, _Dir]] = [("", self._root)]
        hops = 0
        while comps:
            comp = comps.popleft()
            if comp == ".":
                continue
            if comp == "..":
                if len(stack) > 1:
                    stack.pop()
                continue
            node = stack[-1][1].children.get(comp)
            if node is None:
                raise _err(errno.ENOENT, path)
            if isinstance(node, _Link) and (comps or follow_last):
                hops += 1
                if hops > _MAX_SYMLINK_HOPS:
                    raise _err(errno.ELOOP, path)
                if not node.target:
                    raise _err(errno.ENOENT, path)
                if node.target.startswith("/"):
                    del stack[1:]
                comps.extendleft(reversed(_components(node.target)))
                continue
            if comps:
                if not isinstance(node, _Dir):
                    raise _err(errno.ENOTDIR, path)
                stack.append((comp, node))
                continue
            if path.endswith("/") and not isinstance(node, _Dir):
                raise _err(errno.ENOTDIR, path)
            return node, "/" + "/".join([n for n, _ in stack[1:]] + [comp])
        return stack[-1][1], "/" + "/".join(n for n, _ in stack[1:])

    def _parent(self, path: str, dots: int | tuple[int, int] = errno.EINVAL) -> tuple[_Dir, str]:
        """Directory that holds (or will hold) the last component of ``path``, and that
        component's name.

        Like the kernel, the parent is looked up first (ENOENT / ENOTDIR / ELOOP); then a
        last component ``.``/``..``, which cannot be created or removed, raises the
        caller's errno ``dots`` (a pair means ``(for ".", for "..")``).  ``/`` raises EBUSY.
        """
        parent, name = self._parent_raw(path)
        if name in (".", ".."):
            raise _err(dots if isinstance(dots, int) else dots[name == ".."], path)
        return parent, name

    def _parent_raw(self, path: str) -> tuple[_Dir, str]:
        stripped = path.rstrip("/")
        if not stripped:
            raise _err(errno.EBUSY, path)  # the root has no parent entry
        head, _, name = stripped.rpartition("/")
        parent, _ = self._resolve(head or "/")
        if not isinstance(parent, _Dir):
            raise _err(errno.ENOTDIR, path)
        return parent, name

    def _stat_of(self, node: _Node) -> FileStat:
        nlink = 2 + sum(isinstance(c, _Dir) for c in node.children.values()) if isinstance(node, _Dir) else 1
        return FileStat(st_mode=node.mode, st_ino=node.ino, st_dev=0xFD00, st_nlink=nlink,
                        st_uid=node.uid, st_gid=node.gid, st_size=node.size(),
                        st_atime=node.atime, st_mtime=node.mtime, st_ctime=node.ctime)

    def _touch_dir(self, d: _Dir) -> None:
        d.mtime = d.ctime = self._now()

    def _file_for_write(self, path: str, perm: int | None, parents: bool) -> _File:
        """Existing regular file at ``path`` (following links) or a new empty one."""
        try:
            node, _ = self._resolve(path)
        except FileNotFoundError:
            node = None
        if node is not None:
            if isinstance(node, _Dir):
                raise _err(errno.EISDIR, path)
            assert isinstance(node, _File)
            if perm is not None:
                node.mode = _stat.S_IFREG | (perm & 0o7777)
            return node
        hops = 0
        while True:  # a dangling symlink: create its target, like open(O_CREAT) does
            try:
                link, _ = self._resolve(path, follow_last=False)
            except FileNotFoundError:
                break
            if not isinstance(link, _Link):
                break
            hops += 1
            if hops > _MAX_SYMLINK_HOPS:
                raise _err(errno.ELOOP, path)
            head = path.rstrip("/").rpartition("/")[0] or "/"
            # not join(): ".." in a link target is physical, so keep it for _resolve
            path = link.target if link.target.startswith("/") else (
                self._resolve(head)[1].rstrip("/") + "/" + link.target)
        if parents:
            head = path.rstrip("/").rpartition("/")[0]
            if head:
                self.makedirs(head, exist_ok=True)
        parent, name = self._parent(path, errno.EISDIR)
        if path.endswith("/"):
            raise _err(errno.EISDIR, path)
        f = _File(0o644 if perm is None else perm, self.default_uid, self.default_gid,
                  self._now(), next(self._ino))
        parent.children[name] = f
        self._touch_dir(parent)
        return f

    # ------------------------------------------------------------------ queries
    def stat(self, path: str, *, follow_symlinks: bool = True) -> FileStat:
        """Like ``os.stat``; raises FileNotFoundError / NotADirectoryError / OSError(ELOOP)."""
        with self._lock:
            node, _ = self._resolve(path, follow_last=follow_symlinks)
            return self._stat_of(node)

    def lstat(self, path: str) -> FileStat:
        """Like ``os.lstat``: a symlink reports itself."""
        return self.stat(path, follow_symlinks=False)

    def exists(self, path: str) -> bool:
        """True if ``path`` resolves (dangling symlinks do not count, like ``os.path``)."""
        try:
            self.stat(path)
        except OSError:
            return False
        return True

    def lexists(self, path: str) -> bool:
        try:
            self.lstat(path)
        except OSError:
            return False
        return True

    def isdir(self, path: str) -> bool:
        try:
            return self.stat(path).is_dir
        except OSError:
            return False

    def isfile(self, path: str) -> bool:
        try:
            return self.stat(path).is_file
        except OSError:
            return False

    def islink(self, path: str) -> bool:
        try:
            return self.lstat(path).is_symlink
        except OSError:
            return False

    def realpath(self, path: str) -> str:
        """Canonical path with every symlink resolved (the path must exist)."""
        with self._lock:
            return self._resolve(path)[1]

    def abspath(self, path: str, cwd: str = "/") -> str:
        """``path`` joined to ``cwd`` and normalised lexically (no filesystem access)."""
        return join(cwd, path)

    def listdir(self, path: str) -> list[str]:
        """Sorted names in directory ``path`` (without ``.`` and ``..``, like ``os.listdir``)."""
        with self._lock:
            node, _ = self._resolve(path)
            if not isinstance(node, _Dir):
                raise _err(errno.ENOTDIR, path)
            return sorted(node.children)

    def scandir(self, path: str) -> list[DirEntry]:
        """Sorted entries of directory ``path`` with their ``lstat`` (one lock, consistent)."""
        with self._lock:
            node, real = self._resolve(path)
            if not isinstance(node, _Dir):
                raise _err(errno.ENOTDIR, path)
            base = path.rstrip("/") or ""
            return [DirEntry(name, f"{base}/{name}", self._stat_of(child))
                    for name, child in sorted(node.children.items())]

    def walk(self, top: str) -> Iterator[tuple[str, list[str], list[str]]]:
        """Like ``os.walk`` (top-down, symlinks to directories are not descended)."""
        try:
            entries = self.scandir(top)
        except OSError:
            return
        dirs = [e.name for e in entries if e.stat.is_dir]
        files = [e.name for e in entries if not e.stat.is_dir]
        yield top, dirs, files
        for d in dirs:
            yield from self.walk(join(top, d))

    def glob(self, pattern: str, cwd: str = "/") -> list[str]:
        """Expand a shell wildcard pattern (``*``, ``?``, ``[...]``) against the tree.

        Returns sorted matches, spelled relative to ``cwd`` when ``pattern`` was relative
        (as a shell prints them); hidden names match only an explicit leading dot.
        An empty list means "no match" (a shell then keeps the word literally).
        """
        absolute = pattern.startswith("/")
        comps = _components(pattern)
        results: list[str] = [""]
        with self._lock:
            for i, comp in enumerate(comps):
                last = i == len(comps) - 1
                nxt: list[str] = []
                for prefix in results:
                    base = prefix if absolute else join(cwd, prefix) if prefix else cwd
                    if not any(ch in comp for ch in "*?["):
                        cand = f"{prefix}/{comp}" if prefix or absolute else comp
                        full = cand if absolute else join(cwd, cand)
                        if (self.lexists(full) if last else self.isdir(full)):
                            nxt.append(cand)
                        continue
                    try:
                        names = self.listdir(base if base else "/")
                    except OSError:
                        continue
                    for name in names:
                        if name.startswith(".") and not comp.startswith("."):
                            continue
                        if fnmatch.fnmatchcase(name, comp):
                            cand = f"{prefix}/{name}" if prefix or absolute else name
                            full = cand if absolute else join(cwd, cand)
                            if last or self.isdir(full):
                                nxt.append(cand)
                results = nxt
                if not results:
                    return []
        return sorted(results) if comps else []

    def readlink(self, path: str) -> str:
        with self._lock:
            node, _ = self._resolve(path, follow_last=False)
            if not isinstance(node, _Link):
                raise _err(errno.EINVAL, path)
            return node.target

    def read_bytes(self, path: str) -> bytes:
        """Whole content of a regular file (IsADirectoryError for a directory)."""
        with self._lock:
            node, _ = self._resolve(path)
            if isinstance(node, _Dir):
                raise _err(errno.EISDIR, path)
            assert isinstance(node, _File)
            node.atime = self._now()
            return bytes(node.data)

    def read_text(self, path: str, encoding: str = "utf-8", errors: str = "replace") -> str:
        return self.read_bytes(path).decode(encoding, errors)

    def read_chunks(self, path: str, chunk_size: int = 64 * 1024) -> list[bytes]:
        """Content split into ``chunk_size`` pieces, taken under one lock (a consistent
        snapshot even while another thread rewrites the file)."""
        data = self.read_bytes(path)
        return [data[i:i + chunk_size] for i in range(0, len(data), chunk_size)]

    def total_size(self, path: str = "/") -> int:
        """Bytes stored in regular files under ``path`` (for ``df``/``du``-like output)."""
        with self._lock:
            node, _ = self._resolve(path)
            todo = [node]
            total = 0
            while todo:
                n = todo.pop()
                if isinstance(n, _File):
                    total += len(n.data)
                elif isinstance(n, _Dir):
                    todo.extend(n.children.values())
            return total

    # ------------------------------------------------------------------ mutations
    def write_bytes(self, path: str, data: bytes | bytearray | memoryview, *,
                    mode: int | None = None, mtime: float | None = None,
                    append: bool = False, parents: bool = False) -> None:
        """Create or replace (or ``append`` to) a regular file.

        Args:
            mode: permission bits; applied to new files (default ``0o644``) and, when
                given, to an existing one too (``adb push`` sends the host file's mode).
            mtime: modification time to record (``adb push`` sends the host's); default now.
            parents: create missing parent directories (``adb push`` does, on devices
                with the ``fixed_push_mkdir`` feature).
        Writing through a symlink writes its target, like ``open(path, "w")``.
        """
        with self._lock:
            f = self._file_for_write(path, mode, parents)
            if append:
                f.data += data
            else:
                f.data = bytearray(data)
            now = self._now()
            f.mtime = now if mtime is None else float(mtime)
            f.ctime = now

    def append_bytes(self, path: str, data: bytes | bytearray | memoryview) -> None:
        """Append to a file, creating it if needed (shell ``>>``)."""
        self.write_bytes(path, data, append=True)

    def write_text(self, path: str, text: str, encoding: str = "utf-8", **kw: object) -> None:
        self.write_bytes(path, text.encode(encoding), **kw)  # type: ignore[arg-type]

    def truncate(self, path: str, size: int = 0) -> None:
        with self._lock:
            node, _ = self._resolve(path)
            if isinstance(node, _Dir):
                raise _err(errno.EISDIR, path)
            assert isinstance(node, _File)
            if size < len(node.data):
                del node.data[size:]
            else:
                node.data.extend(b"\0" * (size - len(node.data)))
            node.mtime = node.ctime = self._now()

    def touch(self, path: str, mtime: float | None = None) -> None:
        """Create an empty file if missing, else set its mtime (``touch``)."""
        with self._lock:
            if self.exists(path):
                self.utime(path, mtime)
            else:
                self.write_bytes(path, b"", mtime=mtime)

    def mkdir(self, path: str, mode: int = 0o771, *, parents: bool = False,
              exist_ok: bool = False) -> None:
        """Like ``os.mkdir`` (or ``os.makedirs`` when ``parents``).

        FileExistsError if ``path`` exists (unless ``exist_ok`` and it is a directory),
        FileNotFoundError if the parent is missing and ``parents`` is false.
        """
        if parents:
            self.makedirs(path, mode, exist_ok=exist_ok)
            return
        with self._lock:
            if self.lexists(path):
                if exist_ok and self.isdir(path):
                    return
                raise _err(errno.EEXIST, path)
            parent, name = self._parent(path, errno.EEXIST)
            parent.children[name] = _Dir(mode, self.default_uid, self.default_gid,
                                         self._now(), next(self._ino))
            self._touch_dir(parent)

    def makedirs(self, path: str, mode: int = 0o771, exist_ok: bool = False) -> None:
        """Like ``os.makedirs`` (same algorithm, so the same errors in odd cases)."""
        with self._lock:
            head, tail = posixpath.split(path)
            if not tail:
                head, tail = posixpath.split(head)
            if head and tail and not self.exists(head):
                try:
                    self.makedirs(head, mode, exist_ok=exist_ok)
                except FileExistsError:
                    pass  # a concurrent creator in os; here: head exists as non-dir
                if tail == ".":
                    return
            try:
                self.mkdir(path, mode)
            except OSError:
                if not exist_ok or not self.isdir(path):
                    raise

    def remove(self, path: str) -> None:
        """Like ``os.remove``/``os.unlink``: files and symlinks only (IsADirectoryError)."""
        with self._lock:
            parent, name = self._parent(path, errno.EISDIR)
            node = parent.children.get(name)
            if node is None:
                raise _err(errno.ENOENT, path)
            if isinstance(node, _Dir):
                raise _err(errno.EISDIR, path)
            if path.endswith("/"):
                raise _err(errno.ENOTDIR, path)
            del parent.children[name]
            self._touch_dir(parent)

    unlink = remove

    def rmdir(self, path: str) -> None:
        """Like ``os.rmdir``: OSError(ENOTEMPTY) unless empty, NotADirectoryError for files."""
        with self._lock:
            parent, name = self._parent(path, (errno.EINVAL, errno.ENOTEMPTY))
            node = parent.children.get(name)
            if node is None:
                raise _err(errno.ENOENT, path)
            if not isinstance(node, _Dir):
                raise _err(errno.ENOTDIR, path)
            if node.children:
                raise _err(errno.ENOTEMPTY, path)
            del parent.children[name]
            self._touch_dir(parent)

    def rmtree(self, path: str) -> None:
        """Remove a directory tree (``rm -r``); a symlink is removed, not followed."""
        with self._lock:
            parent, name = self._parent(path)
            if name not in parent.children:
                raise _err(errno.ENOENT, path)
            del parent.children[name]
            self._touch_dir(parent)

    def rename(self, src: str, dst: str) -> None:
        """Like ``os.rename``: replaces an existing file, or an *empty* directory by a
        directory; IsADirectoryError / NotADirectoryError on type mismatch,
        OSError(ENOTEMPTY) for a non-empty target dir, OSError(EINVAL) when moving a
        directory into itself.  Symlinks are moved, not followed."""
        with self._lock:
            # like the kernel: both parent directories are looked up before the entries
            sparent, sname = self._parent_raw(src)
            dparent, dname = self._parent_raw(dst)
            if {sname, dname} & {".", ".."}:
                raise _err(errno.EBUSY, src)
            node = sparent.children.get(sname)
            if node is None:
                raise _err(errno.ENOENT, src)
            if isinstance(node, _Dir):
                # refuse to move a directory below itself (it would vanish from the tree)
                real_s = self._resolve(src, follow_last=False)[1]
                real_d = self._resolve(dst.rstrip("/").rpartition("/")[0] or "/")[1]
                if real_d == real_s or real_d.startswith(real_s.rstrip("/") + "/"):
                    raise _err(errno.EINVAL, src)
            existing = dparent.children.get(dname)
            if existing is node:
                return
            if existing is not None:
                if isinstance(node, _Dir):
                    if not isinstance(existing, _Dir):
                        raise _err(errno.ENOTDIR, dst)
                    if existing.children:
                        raise _err(errno.ENOTEMPTY, dst)
                elif isinstance(existing, _Dir):
                    raise _err(errno.EISDIR, dst)
            del sparent.children[sname]
            dparent.children[dname] = node
            node.ctime = self._now()
            self._touch_dir(sparent)
            self._touch_dir(dparent)

    def copyfile(self, src: str, dst: str, *, mode: int | None = None) -> None:
        """Copy a regular file's content (``cp``); ``dst`` must not be a directory."""
        with self._lock:
            data = self.read_bytes(src)
            perm = self.stat(src).permissions if mode is None else mode
            if self.isdir(dst):
                raise _err(errno.EISDIR, dst)
            self.write_bytes(dst, data, mode=perm)

    def symlink(self, target: str, linkpath: str) -> None:
        """Create ``linkpath`` pointing at ``target`` (like ``os.symlink``; target may dangle)."""
        with self._lock:
            if self.lexists(linkpath):
                raise _err(errno.EEXIST, linkpath)
            parent, name = self._parent(linkpath, errno.EEXIST)
            parent.children[name] = _Link(target, self.default_uid, self.default_gid,
                                          self._now(), next(self._ino))
            self._touch_dir(parent)

    def chmod(self, path: str, mode: int, *, follow_symlinks: bool = True) -> None:
        """Set permission bits (the file type is kept)."""
        with self._lock:
            node, _ = self._resolve(path, follow_last=follow_symlinks)
            node.mode = _stat.S_IFMT(node.mode) | (mode & 0o7777)
            node.ctime = self._now()

    def chown(self, path: str, uid: int, gid: int, *, follow_symlinks: bool = True) -> None:
        with self._lock:
            node, _ = self._resolve(path, follow_last=follow_symlinks)
            node.uid, node.gid = uid, gid
            node.ctime = self._now()

    def utime(self, path: str, mtime: float | None = None, atime: float | None = None) -> None:
        """Set access/modification times (default: now), like ``os.utime``."""
        with self._lock:
            node, _ = self._resolve(path)
            now = self._now()
            node.mtime = now if mtime is None else float(mtime)
            node.atime = node.mtime if atime is None else float(atime)
