"""The virtual adbd's building blocks without adb: the VirtualFS (its semantics, and a
differential test against the real ``os`` module) and the shell interpreter (basics, quoting).

The protocol against the REAL adb binary is ``test_adbd_protocol.py``.
"""

from __future__ import annotations

import asyncio
import os
import stat
from typing import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from device.virtual.fs import VirtualFS
from device.virtual.sh_builtins import cmd_cat
from device.virtual.sh_interp import ShellInterpreter
from device.virtual.sh_io import BufferOutput

pytestmark = pytest.mark.timeout(120)


def test_virtual_fs_semantics() -> None:
    fs = VirtualFS.android()
    fs.write_bytes("/sdcard/a.txt", b"x")
    assert fs.read_bytes("/storage/emulated/0/a.txt") == b"x"
    assert fs.lstat("/sdcard").is_symlink and fs.stat("/sdcard/").is_dir
    with pytest.raises(FileNotFoundError):
        fs.read_bytes("/nope")
    with pytest.raises(IsADirectoryError):
        fs.read_bytes("/sdcard")
    with pytest.raises(NotADirectoryError):
        fs.listdir("/sdcard/a.txt")
    with pytest.raises(FileExistsError):
        fs.mkdir("/sdcard/a.txt")
    fs.mkdir("/data/local/tmp/d")
    fs.write_bytes("/data/local/tmp/d/f", b"1")
    with pytest.raises(OSError) as exc:
        fs.rmdir("/data/local/tmp/d")
    assert exc.value.errno == 39  # ENOTEMPTY
    fs.rename("/data/local/tmp/d", "/data/local/tmp/e")
    assert fs.listdir("/data/local/tmp/e") == ["f"]
    with pytest.raises(OSError):
        fs.rename("/data/local/tmp/e", "/data/local/tmp/e/inside")
    fs.remove("/data/local/tmp/e/f")
    fs.rmdir("/data/local/tmp/e")
    assert fs.glob("/sdcard/*.txt") == ["/sdcard/a.txt"]


def test_sh_interpreter_basics() -> None:
    async def run(line: str) -> tuple[int, bytes, bytes]:
        sh = ShellInterpreter({"cat": cmd_cat}, fs=VirtualFS.android())
        out, err = BufferOutput(), BufferOutput()
        rc = await sh.run(line, stdout=out, stderr=err)
        return rc, out.getvalue(), err.getvalue()

    assert asyncio.run(run("false; echo $? '$?' \"$?\"")) == (0, b"1 $? 1\n", b"")
    assert asyncio.run(run("echo a | cat && exit 4; echo no")) == (4, b"a\n", b"")
    assert asyncio.run(run("X='a  b'; echo $X \"$X\" $(echo sub)")) == (0, b"a b a  b sub\n", b"")
    assert asyncio.run(run("echo x > /data/local/tmp/r; cat < /data/local/tmp/r")) == (0, b"x\n", b"")
    assert asyncio.run(run("nope 2>&1"))[1] == b"/system/bin/sh: nope: inaccessible or not found\n"
    assert asyncio.run(run("if true; then echo; fi"))[0] == 1


# ============================================================================ VirtualFS == os (differential)
_FS_NAMES = st.sampled_from(["a", "b", "c", "..", "."])
_FS_PATHS = st.lists(_FS_NAMES, min_size=1, max_size=3).map("/".join)
_FS_OPS = st.one_of(
    st.tuples(st.sampled_from(["mkdir", "makedirs", "remove", "rmdir", "listdir", "read",
                               "stat", "lstat", "readlink"]), _FS_PATHS),
    st.tuples(st.sampled_from(["write", "append"]), _FS_PATHS, st.binary(max_size=6)),
    st.tuples(st.just("rename"), _FS_PATHS, _FS_PATHS),
    st.tuples(st.just("symlink"), st.sampled_from(["a", "b", "../a", "a/b", "nowhere", "c/../a"]), _FS_PATHS),
)


def _fs_apply(op: tuple, p: Callable[[str], str], osmod: object) -> object:
    """Run one op against either ``os`` (real tmpdir) or a VirtualFS with os-like names."""
    kind = op[0]
    if kind == "mkdir":
        return osmod.mkdir(p(op[1]))  # type: ignore[attr-defined]
    if kind == "makedirs":
        return osmod.makedirs(p(op[1]), exist_ok=True)  # type: ignore[attr-defined]
    if kind == "remove":
        return osmod.remove(p(op[1]))  # type: ignore[attr-defined]
    if kind == "rmdir":
        return osmod.rmdir(p(op[1]))  # type: ignore[attr-defined]
    if kind == "listdir":
        return sorted(osmod.listdir(p(op[1])))  # type: ignore[attr-defined]
    if kind == "readlink":
        return osmod.readlink(p(op[1]))  # type: ignore[attr-defined]
    if kind in ("stat", "lstat"):
        st_ = getattr(osmod, kind)(p(op[1]))
        fmt = stat.S_IFMT(st_.st_mode)
        return fmt, (st_.st_size if fmt != stat.S_IFDIR else None)
    if kind == "rename":
        return osmod.rename(p(op[1]), p(op[2]))  # type: ignore[attr-defined]
    if kind == "symlink":
        return osmod.symlink(op[1], p(op[2]))  # type: ignore[attr-defined]
    if kind == "read":
        return osmod.read_bytes(p(op[1]))  # type: ignore[attr-defined]
    if kind in ("write", "append"):
        return osmod.write_bytes(p(op[1]), op[2], append=kind == "append")  # type: ignore[attr-defined]
    raise AssertionError(kind)


class _RealOs:
    """``os`` plus the two VirtualFS-style helpers, over a real directory."""

    mkdir, makedirs, remove, rmdir, listdir = os.mkdir, os.makedirs, os.remove, os.rmdir, os.listdir
    readlink, stat, lstat, rename, symlink = os.readlink, os.stat, os.lstat, os.rename, os.symlink

    @staticmethod
    def read_bytes(path: str) -> bytes:
        with open(path, "rb") as f:
            return f.read()

    @staticmethod
    def write_bytes(path: str, data: bytes, append: bool = False) -> None:
        with open(path, "ab" if append else "wb") as f:
            f.write(data)


def _outcome(fn: Callable[[], object]) -> tuple:
    try:
        return ("ok", fn())
    except OSError as exc:
        return ("err", type(exc).__name__, exc.errno)


@settings(max_examples=int(os.environ.get("VFS_EXAMPLES", "150")), deadline=None,
          derandomize=not os.environ.get("VFS_EXAMPLES"),
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_FS_OPS, max_size=25))
def test_virtual_fs_matches_real_os(ops: list[tuple]) -> None:
    """Random operation sequences give the same results and errors as Linux."""
    import tempfile

    # Safety: ".." components and "../a" links can climb at most 3 + 40 (ELOOP) levels,
    # so the real side works 64 empty levels below its TemporaryDirectory and can never
    # touch anything outside it; the VirtualFS mirrors the same nesting under "/".
    nest = "/".join(["d"] * 64) + "/r"
    fs = VirtualFS()
    fs.makedirs("/" + nest)
    shm = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # tmpfs: 10x faster
    with tempfile.TemporaryDirectory(dir=shm) as tmp:
        root = os.path.join(tmp, nest)
        os.makedirs(root)
        for op in ops:
            real = _outcome(lambda op=op: _fs_apply(op, lambda q: os.path.join(root, q), _RealOs))
            virt = _outcome(lambda op=op: _fs_apply(op, lambda q: f"/{nest}/{q}", fs))
            assert virt == real, (op, ops)


def _dq(arg: str) -> str:
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in arg) + '"'


@settings(max_examples=200, deadline=None, derandomize=True)
@given(st.lists(st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\0"),
                        max_size=12), max_size=6), st.booleans())
def test_sh_quoting_round_trips(args: list[str], double: bool) -> None:
    """Whatever shlex.quote (or double quoting) produces reaches argv unchanged."""
    import shlex

    quote = _dq if double else shlex.quote
    line = "echo -E x " + " ".join(quote(a) for a in args)
    out = BufferOutput()
    rc = asyncio.run(ShellInterpreter().run(line, stdout=out))
    assert rc == 0
    assert out.getvalue().decode("utf-8", "surrogateescape") == " ".join(["x", *args]) + "\n"
