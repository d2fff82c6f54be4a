"""The virtual phone's shell: its builtins (``exit``, ``cd``, ``export``, ``echo``, ``read``,
``wait``, ``type`` …) and the two basic commands every shell session has (``cat``, ``sleep``).

Why its own module: the builtins change the interpreter's state and follow mksh's semantics
(``echo``'s escapes, ``whence -v``'s wording); they are a mixin of
:class:`~device.virtual.sh_interp.ShellInterpreter`, kept apart from how lines are run.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Awaitable, Callable

from .sh_io import CommandContext, InputStream, OutputStream, ShellExit
from .sh_parse import _NAME_RE

if TYPE_CHECKING:
    from .sh_io import Job

__all__ = ["ShellBuiltins", "cmd_cat", "cmd_sleep", "echo_escapes"]


class ShellBuiltins:
    """The builtins of :class:`~device.virtual.sh_interp.ShellInterpreter` (state lives there)."""

    shell_name: str
    last_status: int
    cwd: str
    vars: dict[str, str]
    exported: set[str]
    jobs: "dict[int, Job]"
    _stdin: InputStream

    def _special_builtin(self, name: str) -> Callable[[list[str], OutputStream, OutputStream], Awaitable[int]] | None:
        return {
            "exit": self._b_exit, "cd": self._b_cd, "export": self._b_export,
            "unset": self._b_unset, ":": self._b_true, "true": self._b_true,
            "false": self._b_false,
        }.get(name)

    def _regular_builtin(self, name: str) -> Callable[[list[str], OutputStream, OutputStream], Awaitable[int]] | None:
        return {"echo": self._b_echo, "pwd": self._b_pwd, "read": self._b_read, "wait": self._b_wait,
                "type": self._b_type, "whence": self._b_whence}.get(name)

    async def _b_read(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        """mksh ``c_read``: one line from stdin (byte by byte, so nothing after it is consumed),
        split on IFS whitespace into the names (the last takes the rest; ``REPLY`` without names);
        without ``-r`` a backslash quotes the next character and joins continued lines. Status 1 at
        end of input."""
        args = argv[1:]
        raw = False
        while args and args[0].startswith("-") and len(args[0]) > 1:
            raw = raw or "r" in args[0]
            args = args[1:]
        names = args or ["REPLY"]
        buf = bytearray()
        eof = False
        while True:
            b = await self._stdin.read(1)
            if not b:
                eof = True
                break
            if b == b"\n":
                if not raw and buf.endswith(b"\\"):
                    del buf[-1]
                    continue
                break
            buf += b
        text = buf.decode("utf-8", "surrogateescape")
        if not raw:
            text = re.sub(r"\\(.)", r"\1", text)
        fields = text.strip(" \t").split(None, len(names) - 1) if names != ["REPLY"] else [text]
        for i, name in enumerate(names):
            self.vars[name] = fields[i] if i < len(fields) else ""
        return 1 if eof and not buf else 0

    async def _b_wait(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        """mksh ``c_wait``: without operands, every job of this shell, status 0; with pids, the
        status of the last one (128 + signal for a killed job), 127 for one that is not a job."""
        pids = argv[1:]
        if not pids:
            for job in list(self.jobs.values()):
                if job.task is not None:
                    await asyncio.gather(job.task, return_exceptions=True)
            return 0
        rv = 0
        for p in pids:
            job = self.jobs.get(int(p)) if p.isdigit() else None
            if job is None or job.task is None:
                rv = 127
                continue
            await asyncio.gather(job.task, return_exceptions=True)
            rv = job.status if job.status is not None else 128 + (job.signal or 9)
        return rv

    async def _b_type(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        """``type`` — mksh's predefined alias ``type='\\builtin whence -v'``."""
        return await self._b_whence(["whence", "-v", *argv[1:]], out, err)

    async def _b_whence(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        """mksh ``c_whence`` (funcs.c): ``-v`` says what each name is — ``NAME is a reserved word``,
        ``NAME is an alias for …``, ``NAME is a [special ]shell builtin`` (the ``mkshbuiltins``
        table; ``*`` marks POSIX special builtins), ``NAME is a tracked alias for /system/bin/NAME``
        (a command found on PATH is hashed at once), ``NAME not found`` (status 1)."""
        args = argv[1:]
        verbose = False
        while args and args[0].startswith("-") and len(args[0]) > 1:
            verbose = verbose or "v" in args[0]
            args = args[1:]
        rv = 0
        lines: list[str] = []
        for name in args:
            if name in _MKSH_KEYWORDS:
                lines.append(f"{name} is a reserved word" if verbose else name)
            elif name in _MKSH_ALIASES:
                lines.append(f"{name} is an alias for {_MKSH_ALIASES[name]}" if verbose
                             else _MKSH_ALIASES[name])
            elif name in _MKSH_SPECIAL or name in _MKSH_BUILTINS:
                kind = "special shell builtin" if name in _MKSH_SPECIAL else "shell builtin"
                lines.append(f"{name} is a {kind}" if verbose else name)
            elif self.lookup(name) is not None:
                path = name if "/" in name else f"/system/bin/{name}"
                lines.append((f"{name} is {path}" if "/" in name else f"{name} is a tracked alias for {path}")
                             if verbose else path)
            else:
                if verbose:
                    lines.append(f"{name} not found")
                rv = 1
                if not verbose:
                    break
        await out.write("".join(line + "\n" for line in lines).encode("utf-8", "surrogateescape"))
        return rv

    async def _b_true(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        return 0

    async def _b_false(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        return 1

    async def _b_exit(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        code = self.last_status
        if len(argv) > 1:
            try:
                code = int(argv[1])
            except ValueError:
                await err.write(f"{self.shell_name}: exit: {argv[1]}: bad number\n".encode())
                code = 1
        raise ShellExit(code & 0xFF)

    async def _b_cd(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        target = argv[1] if len(argv) > 1 else self.vars.get("HOME", "/")
        if target == "-":
            target = self.vars.get("OLDPWD", self.cwd)
        new = _join(self.cwd, target)
        if self.fs is not None and not self.fs.isdir(new):
            reason = "No such file or directory" if not self.fs.exists(new) else "Not a directory"
            await err.write(f"{self.shell_name}: cd: {new}: {reason}\n".encode())
            return 2
        self.vars["OLDPWD"] = self.cwd
        self.cwd = new
        self.vars["PWD"] = new
        return 0

    async def _b_export(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        if len(argv) == 1 or argv[1] == "-p":
            for k in sorted(self.exported):
                if k in self.vars:
                    await out.write(f"export {k}={_quote(self.vars[k])}\n".encode())
            return 0
        for arg in argv[1:]:
            name, eq, value = arg.partition("=")
            if not _NAME_RE.fullmatch(name):
                await err.write(f"{self.shell_name}: export: {arg}: is not an identifier\n".encode())
                return 1
            if eq:
                self.vars[name] = value
            self.exported.add(name)
        return 0

    async def _b_unset(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        for name in argv[1:]:
            if name in ("-v", "-f"):
                continue
            self.vars.pop(name, None)
            self.exported.discard(name)
        return 0

    async def _b_pwd(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        await out.write(f"{self.cwd}\n".encode())
        return 0

    async def _b_echo(self, argv: list[str], out: OutputStream, err: OutputStream) -> int:
        args = argv[1:]
        newline, escapes = True, True  # mksh: escapes are interpreted by default
        while args and re.fullmatch(r"-[neE]+", args[0]):
            for ch in args[0][1:]:
                if ch == "n":
                    newline = False
                elif ch == "e":
                    escapes = True
                else:
                    escapes = False
            args = args[1:]
        text = " ".join(args)
        if escapes:
            text, stop = echo_escapes(text)
            if stop:
                newline = False
        await out.write((text + ("\n" if newline else "")).encode("utf-8", "surrogateescape"))
        return 0


#: mksh's ``mkshbuiltins`` (funcs.c): ``*`` entries are POSIX special builtins.

_MKSH_SPECIAL = frozenset({".", ":", "break", "continue", "eval", "exec", "exit", "export", "readonly", "return",
                           "set", "shift", "times", "trap", "unset"})
_MKSH_BUILTINS = frozenset({"[", "alias", "builtin", "cat", "cd", "chdir", "command", "echo", "false", "fc",
                            "getopts", "global", "jobs", "kill", "let", "print", "pwd", "read", "realpath",
                            "rename", "source", "suspend", "test", "true", "typeset", "ulimit", "umask", "unalias",
                            "wait", "whence", "bg", "fg", "bind", "mknod", "sleep"})
_MKSH_KEYWORDS = frozenset({"case", "do", "done", "elif", "else", "esac", "fi", "for", "function", "if", "in",
                            "select", "then", "time", "until", "while", "{", "}", "[[", "]]", "!"})
#: mksh's predefined aliases (as ``print_value_quoted`` shows them).
_MKSH_ALIASES = {"type": "'\\builtin whence -v'", "hash": "'\\builtin alias -t'",
                 "history": "'\\builtin fc -l'", "integer": "'\\typeset -i'", "local": "'\\typeset'",
                 "nohup": "'nohup '", "r": "'\\builtin fc -e -'"}


def echo_escapes(text: str) -> tuple[str, bool]:
    """Interpret echo's backslash escapes; returns (text, stop) where stop = ``\\c`` seen."""
    simple = {"a": "\a", "b": "\b", "e": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
              "v": "\v", "\\": "\\"}
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 >= len(text):
            out.append(c)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt in simple:
            out.append(simple[nxt])
            i += 2
        elif nxt == "c":
            return "".join(out), True
        elif nxt == "0":
            m = re.match(r"[0-7]{0,3}", text[i + 2:])
            digits = m.group(0) if m else ""
            out.append(chr(int(digits or "0", 8)))
            i += 2 + len(digits)
        else:
            out.append(c)
            i += 1
    return "".join(out), False


def _join(cwd: str, path: str) -> str:
    from .fs import join

    return join(cwd, path)


def _quote(s: str) -> str:
    if s and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"



# ============================================================================ basic commands
async def cmd_cat(ctx: CommandContext) -> int:
    """toybox ``cat [FILE...]`` (``-`` or no operand = stdin), reading the VirtualFS."""
    status = 0
    files = [a for a in ctx.args if a != "-u"] or ["-"]
    for name in files:
        if name == "-":
            while True:
                chunk = await ctx.stdin.read(-1)
                if not chunk:
                    break
                await ctx.stdout.write(chunk)
            continue
        if ctx.fs is None:
            await ctx.err(f"cat: {name}: No such file or directory\n")
            status = 1
            continue
        try:
            chunks = ctx.fs.read_chunks(ctx.path(name))
        except OSError as exc:
            await ctx.err(f"cat: {name}: {exc.strerror}\n")
            status = 1
            continue
        for chunk in chunks:
            await ctx.stdout.write(chunk)
    return status


async def cmd_sleep(ctx: CommandContext) -> int:
    """toybox ``sleep SECONDS`` (fractions and s/m/h/d suffixes)."""
    if not ctx.args:
        await ctx.err("sleep: Needs 1 argument\n")
        return 1
    total = 0.0
    for arg in ctx.args:
        m = re.fullmatch(r"(\d+(?:\.\d*)?|\.\d+)([smhd]?)", arg)
        if not m:
            await ctx.err(f"sleep: invalid number '{arg}'\n")
            return 1
        total += float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]
    await asyncio.sleep(total)
    return 0
