"""The file commands that change or walk the tree: ``mkdir``, ``rmdir``, ``touch``, ``chmod``,
``ln``, ``readlink``/``realpath``/``basename``/``dirname``, ``mv``, ``cp``, ``rm``, ``find``, ``du``
and the checksums, in toybox's formats and with its error messages.

Why its own module: a mixin of :class:`~device.virtual.android_files.FileCommands`, which keeps
the listing commands (``ls``, ``stat``) and the shared formatting.
"""

from __future__ import annotations

import errno
import fnmatch
import hashlib
import re
import stat as _stat
from datetime import datetime, timezone, tzinfo
from typing import TYPE_CHECKING, Any, Callable

from .fs import join
from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone
from .android_storage import PhoneFS

__all__ = ["FileOps"]


class FileOps:
    """The changing and walking file commands (state set up by ``FileCommands``)."""

    phone: "VirtualPhone"
    fs: PhoneFS

    # --- mkdir / rmdir / touch / chmod / ln
    async def mkdir(self, ctx: CommandContext) -> int:
        parsed = await _options(ctx, "mkdir", "pv", with_value="m")
        if parsed is None:
            return 1
        flags, values, operands = parsed
        try:
            mode = int(values.get("m", "771"), 8)
        except ValueError:
            await ctx.err(f"mkdir: bad mode '{values.get('m')}'\n")
            return 1

        def make(name: str) -> str | None:
            path = ctx.path(name)
            if "p" in flags:
                self.fs.makedirs(path, mode, exist_ok=True)
            else:
                self.fs.mkdir(path, mode)
            return f"mkdir: created directory '{name}'\n" if "v" in flags else None

        return await _each(ctx, operands, make, "mkdir: '{}': {}\n")

    async def rmdir(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "p")
        if bad or not operands:
            await ctx.err("rmdir: Needs 1 argument (see \"rmdir --help\")\n")
            return 1
        return await _each(ctx, operands, lambda name: self.fs.rmdir(ctx.path(name)), "rmdir: '{}': {}\n")

    async def touch(self, ctx: CommandContext) -> int:
        flags, _, operands, bad = _split_flags(ctx.args, "acm")
        if bad or not operands:
            await ctx.err("touch: Needs 1 argument (see \"touch --help\")\n")
            return 1
        return await _each(ctx, operands, lambda name: self.fs.touch(ctx.path(name), self.phone.now_epoch()),
                           "touch: '{}': {}\n")

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
        return await _each(ctx, ctx.args or ["."], lambda name: self.fs.realpath(ctx.path(name)) + "\n",
                           "realpath: {}: {}\n")

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
        parsed = await self._sources(ctx, "mv", "fivnT")
        if parsed is None:
            return 1
        flags, srcs, dst, into, target_of = parsed
        if len(srcs) > 1 and not into:
            await ctx.err(f"mv: '{dst}' not directory\n")
            return 1

        def move(s: str) -> None:
            spath, target = ctx.path(s), target_of(s)
            if not self.fs.lexists(spath):
                raise OSError(errno.ENOENT, "No such file or directory", spath)
            if "n" in flags and self.fs.lexists(target):
                return
            if self.fs.isdir(target) and not self.fs.isdir(spath):
                raise OSError(errno.EISDIR, "Is a directory", target)
            self.fs.rename(spath, target)

        return await _each(ctx, srcs, move, "mv: bad '{}': {}\n")

    async def cp(self, ctx: CommandContext) -> int:
        parsed = await self._sources(ctx, "cp", "rRfpainvdPL")
        if parsed is None:
            return 1
        flags, srcs, _, _, target_of = parsed
        status = 0
        for s in srcs:
            spath, target = ctx.path(s), target_of(s)
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

    async def _sources(self, ctx: CommandContext, command: str, allowed: str
                       ) -> tuple[set[str], list[str], str, bool, Callable[[str], str]] | None:
        """``mv``/``cp``'s ``SOURCE... DEST``: the flags, the sources, DEST as typed, whether it is a
        directory (the sources go into it), and where each source goes (None: a usage error)."""
        parsed = await _options(ctx, command, allowed, need=2)
        if parsed is None:
            return None
        flags, _, (*srcs, dst) = parsed
        dpath = ctx.path(dst)
        into = self.fs.isdir(dpath)

        def target_of(src: str) -> str:
            return join(dpath, src.rstrip("/").rsplit("/", 1)[-1]) if into else dpath

        return flags, srcs, dst, into, target_of

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
        parsed = await _options(ctx, "rm", "rRfidv", need=0)
        if parsed is None:
            return 1
        flags, _, operands = parsed
        if not operands and "f" not in flags:  # "rm -f" alone succeeds
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

        def usage(name: str) -> str:
            path = ctx.path(name)
            total = self.fs.total_size(path) if self.fs.isdir(path) else self.fs.stat(path).st_size
            size = _human(total) if "h" in flags else str((total + 1023) // 1024)
            return f"{size}\t{name}\n"

        return await _each(ctx, operands or ["."], usage, "du: {}: {}\n")

    # --- checksums
    async def _digest(self, ctx: CommandContext, algo: str) -> int:
        _flags, _, operands, _bad = _split_flags(ctx.args, "bcs")
        if not operands:
            data = await ctx.read_all()
            await ctx.out(f"{hashlib.new(algo, data).hexdigest()}  -\n")
            return 0
        return await _each(ctx, operands,
                           lambda name: f"{hashlib.new(algo, self.fs.read_bytes(ctx.path(name))).hexdigest()}  {name}\n",
                           f"{algo}sum: {{}}: {{}}\n")

    async def md5sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "md5")

    async def sha1sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "sha1")

    async def sha256sum(self, ctx: CommandContext) -> int:
        return await self._digest(ctx, "sha256")


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


async def _options(ctx: CommandContext, command: str, allowed: str, with_value: str = "",
                   need: int = 1) -> tuple[set[str], dict[str, str], list[str]] | None:
    """:func:`_split_flags`, with toybox's usage errors (lib/args.c) for an unknown option or
    fewer than ``need`` operands: printed on stderr, and None (the command exits 1)."""
    flags, values, operands, bad = _split_flags(ctx.args, allowed, with_value)
    if bad:
        await ctx.err(f"{command}: Unknown option '{bad}' (see \"{command} --help\")\n")
        return None
    if len(operands) < need:
        plural = "s" if need > 1 else ""
        await ctx.err(f"{command}: Needs {need} argument{plural} (see \"{command} --help\")\n")
        return None
    return flags, values, operands


async def _each(ctx: CommandContext, names: list[str], act: Callable[[str], str | None], error: str) -> int:
    """Run ``act`` on every operand, as toybox does: what it returns goes to stdout; an
    ``OSError`` prints ``error.format(name, strerror)`` on stderr and the command goes on to the
    next operand, exiting 1 at the end."""
    status = 0
    for name in names:
        try:
            shown = act(name)
        except OSError as exc:
            await ctx.err(error.format(name, exc.strerror))
            status = 1
            continue
        if shown is not None:
            await ctx.out(shown)
    return status


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
