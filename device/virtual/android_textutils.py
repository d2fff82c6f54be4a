"""The toybox text filters of the virtual phone: ``grep``/``egrep``/``fgrep``, ``head``, ``tail``,
``wc``, ``cut``, ``sort``, ``uniq``, ``tr``, ``seq``, ``printf`` — toybox's options, output and
error messages on Android 14.

Why its own module: scripts pipe the phone's dumps through these (``dumpsys window | grep
mCurrentFocus``); they read stdin or files and know nothing of the phone. A mixin of
:class:`~device.virtual.android_toolbox.Toolbox`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from .sh_io import CommandContext

if TYPE_CHECKING:
    from .phone import VirtualPhone

__all__ = ["TextFilters"]

def _bre_to_re(p: str) -> str:
    """POSIX basic regex → Python: ``\\(`` ``\\)`` ``\\{`` ``\\}`` ``\\+`` ``\\?`` ``\\|`` are the operators."""
    def swap(m: re.Match[str]) -> str:
        if m.group(1) is not None:  # \X: an operator when X is one, else the escape stays
            return m.group(1) if m.group(1) in "(){}+?|" else m.group(0)
        return "\\" + m.group(0)  # a bare operator character is a literal

    return re.sub(r"\\(.)|[(){}+?|]", swap, p, flags=re.S)


class TextFilters:
    """The text-filter commands (state set up by ``Toolbox``)."""

    phone: "VirtualPhone"

    async def _input_lines(self, ctx: CommandContext, files: list[str]) -> list[tuple[str, list[str]]] | None:
        out: list[tuple[str, list[str]]] = []
        if not files:
            data = await ctx.read_all()
            return [("(standard input)", data.decode("utf-8", "surrogateescape").splitlines())]
        for f in files:
            if f == "-":
                data = await ctx.read_all()
            else:
                try:
                    data = self.phone.fs.read_bytes(ctx.path(f))
                except OSError as exc:
                    await ctx.err(f"{ctx.name}: {f}: {exc.strerror}\n")
                    return None
            out.append((f, data.decode("utf-8", "surrogateescape").splitlines()))
        return out

    async def egrep(self, ctx: CommandContext) -> int:
        ctx.argv = [ctx.argv[0], "-E", *ctx.args]
        return await self.grep(ctx)

    async def fgrep(self, ctx: CommandContext) -> int:
        ctx.argv = [ctx.argv[0], "-F", *ctx.args]
        return await self.grep(ctx)

    async def grep(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        flags: set[str] = set()
        patterns: list[str] = []
        files: list[str] = []
        max_count: int | None = None
        before = after = 0
        i = 0
        while i < len(args):
            a = args[i]
            if a == "--":
                files.extend(args[i + 1:])
                break
            if a in ("-e",) and i + 1 < len(args):
                patterns.append(args[i + 1])
                i += 2
                continue
            if a == "-m" and i + 1 < len(args):
                max_count = int(args[i + 1])
                i += 2
                continue
            m = re.fullmatch(r"-([ABC])(\d*)", a)
            if m and (m.group(2) or i + 1 < len(args)):
                n = int(m.group(2) or args[i + 1])
                if m.group(1) in "AC":
                    after = n
                if m.group(1) in "BC":
                    before = n
                i += 1 if m.group(2) else 2
                continue
            if re.fullmatch(r"-[A-Za-z]+", a):
                flags.update(a[1:])
                i += 1
                continue
            if not patterns and "e" not in flags:
                patterns.append(a)
            else:
                files.append(a)
            i += 1
        if not patterns:
            await ctx.err("grep: no pattern (see \"grep --help\")\n")
            return 2
        re_flags = re.I if "i" in flags else 0
        compiled = []
        for p in patterns:
            if "F" in flags:
                src = re.escape(p)
            elif "E" in flags:
                src = p
            else:
                src = _bre_to_re(p)
            if "w" in flags:
                src = rf"\b(?:{src})\b"
            if "x" in flags:
                src = rf"^(?:{src})$"
            try:
                compiled.append(re.compile(src, re_flags))
            except re.error as e:
                await ctx.err(f"grep: bad regex '{p}': {e}\n")
                return 2
        sources = await self._input_lines(ctx, files)
        if sources is None:
            return 2
        multi = len(sources) > 1
        matched_any = False
        out: list[str] = []
        for name, lines in sources:
            count = 0
            last_printed = 0  # 1-based number of the last line printed (for -A/-B/-C context)
            pending_after = 0
            for n, line in enumerate(lines, 1):
                hits = [m for rx in compiled for m in rx.finditer(line)]
                ok = bool(hits) != ("v" in flags)
                if not ok:
                    if pending_after and not flags & {"c", "l", "q", "o"}:
                        out.append(line + "\n")
                        last_printed = n
                        pending_after -= 1
                    continue
                if (before or after) and not flags & {"c", "l", "q", "o"}:
                    first = max(last_printed + 1, n - before)
                    if last_printed and first > last_printed + 1:
                        out.append("--\n")
                    out.extend(ln + "\n" for ln in lines[first - 1:n - 1])
                    last_printed = n
                    pending_after = after
                count += 1
                matched_any = True
                if "q" in flags:
                    return 0
                if "c" in flags or "l" in flags:
                    if max_count is not None and count >= max_count:
                        break
                    continue
                prefix = (f"{name}:" if multi and "h" not in flags else "") + (f"{n}:" if "n" in flags else "")
                if "o" in flags and "v" not in flags:
                    out.extend(prefix + m.group(0) + "\n" for m in hits if m.group(0))
                else:
                    out.append(prefix + line + "\n")
                if max_count is not None and count >= max_count:
                    break
            if "c" in flags:
                out.append((f"{name}:" if multi else "") + f"{count}\n")
            elif "l" in flags and count:
                out.append(name + "\n")
        if out:
            await ctx.out("".join(out))
        return 0 if matched_any else 1

    def _count_arg(self, args: list[str], default: int = 10) -> tuple[int, list[str]]:
        n, rest = default, []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-n" and i + 1 < len(args):
                n = int(args[i + 1].lstrip("+")) if args[i + 1].lstrip("+-").isdigit() else n
                i += 2
                continue
            if re.fullmatch(r"-n?\d+", a):
                n = int(a.lstrip("-n"))
            elif a.startswith("-") and a != "-":
                pass
            else:
                rest.append(a)
            i += 1
        return n, rest

    async def _bytes(self, ctx: CommandContext, tail: bool) -> int | None:
        """``head -c N`` / ``tail -c N``: bytes instead of lines (None if not asked for)."""
        args = list(ctx.args)
        if "-c" not in args and not any(re.fullmatch(r"-c\d+", a) for a in args):
            return None
        n, files = 0, []
        i = 0
        while i < len(args):
            a = args[i]
            if a == "-c" and i + 1 < len(args):
                n = int(args[i + 1].lstrip("+"))
                i += 2
                continue
            if re.fullmatch(r"-c\d+", a):
                n = int(a[2:])
            elif not a.startswith("-"):
                files.append(a)
            i += 1
        data = b""
        if not files:
            data = await ctx.read_all()
        for f in files:
            try:
                data += self.phone.fs.read_bytes(ctx.path(f))
            except OSError as exc:
                await ctx.err(f"{ctx.name}: {f}: {exc.strerror}\n")
                return 1
        await ctx.out(data[-n:] if tail and n else b"" if tail else data[:n])
        return 0

    async def head(self, ctx: CommandContext) -> int:
        return await self._ends(ctx, tail=False)

    async def tail(self, ctx: CommandContext) -> int:
        return await self._ends(ctx, tail=True)

    async def _ends(self, ctx: CommandContext, tail: bool) -> int:
        """``head``/``tail``: the first or last N lines (``-c``: bytes) of each input."""
        rc = await self._bytes(ctx, tail=tail)
        if rc is not None:
            return rc
        n, files = self._count_arg(ctx.args)
        sources = await self._input_lines(ctx, files)
        if sources is None:
            return 1
        for _name, lines in sources:
            part = (lines[-n:] if n else []) if tail else lines[:n]
            if part:
                await ctx.out("\n".join(part) + "\n")
        return 0

    async def wc(self, ctx: CommandContext) -> int:
        flags = "".join(a.lstrip("-") for a in ctx.args if a.startswith("-") and a != "-")
        files = [a for a in ctx.args if not a.startswith("-") or a == "-"]
        datas: list[tuple[str, bytes]] = []
        if not files:
            datas.append(("", await ctx.read_all()))
        for f in files:
            try:
                datas.append((f, self.phone.fs.read_bytes(ctx.path(f))))
            except OSError as exc:
                await ctx.err(f"wc: {f}: {exc.strerror}\n")
                return 1
        for name, data in datas:
            counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
            shown = [counts[k] for k in "lwc" if k in flags] or [counts["l"], counts["w"], counts["c"]]
            width = 1 if len(shown) == 1 and not name else 7
            await ctx.out(" ".join(f"{v:>{width}}" for v in shown) + (f" {name}" if name else "") + "\n")
        return 0

    async def cut(self, ctx: CommandContext) -> int:
        args = list(ctx.args)
        delim, fields, files = "\t", "", []
        i = 0
        while i < len(args):
            a = args[i]
            if a.startswith("-d"):
                delim = a[2:] or args[i + 1]
                i += 1 if a[2:] else 2
                continue
            if a.startswith("-f"):
                fields = a[2:] or args[i + 1]
                i += 1 if a[2:] else 2
                continue
            files.append(a)
            i += 1
        wanted: set[int] = set()
        for part in fields.split(","):
            if "-" in part:
                lo, _, hi = part.partition("-")
                wanted.update(range(int(lo or 1), int(hi or 999) + 1))
            elif part.isdigit():
                wanted.add(int(part))
        sources = await self._input_lines(ctx, files)
        if sources is None:
            return 1
        out = []
        for _name, lines in sources:
            for line in lines:
                cols = line.split(delim)
                out.append(delim.join(c for k, c in enumerate(cols, 1) if k in wanted) if len(cols) > 1 else line)
        if out:
            await ctx.out("\n".join(out) + "\n")
        return 0

    async def sort(self, ctx: CommandContext) -> int:
        flags = "".join(a.lstrip("-") for a in ctx.args if a.startswith("-"))
        sources = await self._input_lines(ctx, [a for a in ctx.args if not a.startswith("-")])
        if sources is None:
            return 1
        lines = [line for _n, ls in sources for line in ls]

        def key(s: str) -> Any:
            if "n" in flags:
                m = re.match(r"\s*(-?\d+(?:\.\d+)?)", s)
                return (float(m.group(1)) if m else 0.0, s)
            return s
        lines.sort(key=key, reverse="r" in flags)
        if "u" in flags:
            lines = list(dict.fromkeys(lines))
        if lines:
            await ctx.out("\n".join(lines) + "\n")
        return 0

    async def uniq(self, ctx: CommandContext) -> int:
        sources = await self._input_lines(ctx, [a for a in ctx.args if not a.startswith("-")])
        if sources is None:
            return 1
        out: list[str] = []
        for _n, lines in sources:
            for line in lines:
                if not out or out[-1] != line:
                    out.append(line)
        if out:
            await ctx.out("\n".join(out) + "\n")
        return 0

    async def tr(self, ctx: CommandContext) -> int:
        args = [a for a in ctx.args if not a.startswith("-")]
        delete = "-d" in ctx.args
        data = (await ctx.read_all()).decode("utf-8", "surrogateescape")
        if delete and args:
            data = "".join(c for c in data if c not in args[0])
        elif len(args) >= 2:
            a, b = args[0], args[1]
            table = {ord(x): (b[i] if i < len(b) else b[-1:] or None) for i, x in enumerate(a)}
            data = data.translate(table)
        await ctx.out(data)
        return 0

    async def seq(self, ctx: CommandContext) -> int:
        nums = [int(a) for a in ctx.args if re.fullmatch(r"-?\d+", a)]
        if not nums:
            await ctx.err("seq: Needs 1 argument (see \"seq --help\")\n")
            return 1
        lo, step, hi = (1, 1, nums[0]) if len(nums) == 1 else (nums[0], 1, nums[1]) if len(nums) == 2 else tuple(nums[:3])
        if step == 0:
            return 1
        await ctx.out("".join(f"{v}\n" for v in range(lo, hi + (1 if step > 0 else -1), step)))
        return 0

    async def printf(self, ctx: CommandContext) -> int:
        if not ctx.args:
            await ctx.err("printf: Needs 1 argument (see \"printf --help\")\n")
            return 1
        fmt, values = ctx.args[0], list(ctx.args[1:])
        from .sh_builtins import echo_escapes

        def one(vals: list[str]) -> str:
            def sub(m: re.Match[str]) -> str:
                spec = m.group(0)
                if spec == "%%":
                    return "%"
                v = vals.pop(0) if vals else ""
                conv = spec[-1]
                try:
                    if conv in "di":
                        return (spec[:-1] + "d") % int(v or 0)
                    if conv in "xXo":
                        return spec % int(v or 0)
                    if conv in "feg":
                        return spec % float(v or 0)
                    if conv == "b":
                        return echo_escapes(v)[0]
                    return (spec[:-1] + "s") % v
                except (ValueError, TypeError):
                    return v
            return re.sub(r"%[-+ #0]*\d*(?:\.\d+)?[diouxXfegscb%]", sub, fmt)

        text = one(values)
        while values and values != []:
            before = len(values)
            text += one(values)
            if len(values) == before:
                break
        await ctx.out(echo_escapes(text)[0])
        return 0
