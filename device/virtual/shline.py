"""A small, reusable interpreter for one shell *command line* (Android ``/system/bin/sh`` flavour).

Why it exists: ``adb shell CMD`` hands the device one string that ``mksh`` parses.  The
virtual phone must never run it on the host, so something has to split it into simple
commands and dispatch them to Python handlers.  This module does only the *shell* part
(lexing, quoting, variables, ``;``/``&&``/``||``/``|``/``&``, redirections, ``$?``) and knows
no Android command: callers pass a ``commands: dict[name, handler]``.  The adbd test
backend uses it with a handful of commands; the full Android shell emulation plugs in
hundreds more on top of the same :class:`ShellInterpreter`.

Supported syntax (enough for what adb clients send: adbutils appends ``; echo X4EXIT:$?``,
adb 29 sends ``screencap '-p'``, uiautomator2 sends ``CLASSPATH=... app_process ...``):

* quoting: ``'single'``, ``"double"`` (with ``\\$ \\" \\\\ \\` `` escapes), backslash,
  line continuation, ``#`` comments;
* expansions, evaluated when each simple command runs (so ``false; echo $?`` prints 1):
  ``$?``, ``$$``, ``$#``, ``$0``..``$9``, ``$NAME``, ``${NAME}``, ``${NAME:-w}``,
  ``${NAME-w}``, ``${NAME:+w}``, ``${NAME+w}``, ``${#NAME}``, ``$(cmd)`` and `` `cmd` ``;
  unquoted results are split into fields; wildcards expand only if a ``glob`` callback is
  given (the VirtualFS has one);
* ``NAME=value`` prefixes (per command environment) and bare assignments;
* operators ``;`` newline ``&&`` ``||`` ``|`` ``&`` and a leading ``!``;
* redirections ``>`` ``>>`` ``<`` ``>|`` ``&>`` ``N>`` ``N>>`` ``N>&M`` ``N<&M`` (``/dev/null``
  always works; other paths need a VirtualFS);
* special builtins (they change interpreter state, so they are not overridable):
  ``exit``, ``cd``, ``export``, ``unset``, ``:``, ``true``, ``false``;
  regular builtins ``echo`` (mksh semantics: escapes on by default, ``-n``, ``-e``, ``-E``),
  ``pwd``, ``read``, ``wait`` and ``type`` (mksh's ``whence -v``), which a ``commands`` entry of
  the same name replaces;
* background jobs (``cmd &``, ``$!``): each is a :class:`Job` with its own pid that ``kill``
  (a command handler, see :func:`find_job`) can signal and ``wait`` can collect — a signal the
  command catches (``ctx.job.catch(SIGINT)``, as screenrecord does) is delivered to it, any
  other ends it with status 128 + the signal, as the kernel does.

Not supported (a ``ShellSyntaxError`` is reported the way mksh reports syntax errors, exit
status 1): ``if/for/while/case`` and other compound commands, functions, subshells
``( )``, here-documents, arithmetic ``$(( ))``.

Errors look like the device's: an unknown command prints
``/system/bin/sh: NAME: inaccessible or not found`` on stderr and sets status 127.
"""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import logging
import os
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Awaitable, Callable, Literal, Mapping, Protocol, Sequence

if TYPE_CHECKING:  # imported only for annotations: shline must not depend on fs at run time
    from .fs import VirtualFS

__all__ = [
    "Job",
    "find_job",
    "InputStream",
    "OutputStream",
    "CommandContext",
    "CommandHandler",
    "ShellInterpreter",
    "ShellSyntaxError",
    "ShellExit",
    "BytesInput",
    "BufferOutput",
    "NullOutput",
    "Pipe",
    "parse",
    "cmd_cat",
    "cmd_sleep",
    "DEFAULT_ENV",
    "SHELL_NAME",
]

log = logging.getLogger(__name__)

SHELL_NAME = "/system/bin/sh"

#: Environment of an ``adb shell`` session on a stock Android 13 device (the parts that matter).
DEFAULT_ENV: dict[str, str] = {
    "PATH": "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:"
            "/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    "HOME": "/",
    "SHELL": "/bin/sh",
    "USER": "shell",
    "LOGNAME": "shell",
    "TMPDIR": "/data/local/tmp",
    "ANDROID_DATA": "/data",
    "ANDROID_ROOT": "/system",
    "EXTERNAL_STORAGE": "/sdcard",
    "HOSTNAME": "localhost",
}

#: Directories whose prefix is stripped before looking a command up in ``commands``,
#: so ``/system/bin/getprop`` finds the ``getprop`` handler.
BIN_DIRS = ("/system/bin/", "/system/xbin/", "/vendor/bin/", "/product/bin/", "/bin/",
            "/system_ext/bin/", "/apex/com.android.runtime/bin/")

_pids = itertools.count(4242)


def next_pid() -> int:
    """A fresh process id (every command the shell forks gets one)."""
    return next(_pids)


class Job:
    """A background job (``cmd &``): its pid (``$!``), its task and the signals it received.

    A command that handles a signal registers it with :meth:`catch` and waits on
    :attr:`signalled`; :meth:`kill` with any other signal cancels the job's task, whose status is
    then 128 + the signal (mksh ``waitfor``)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.task: "asyncio.Task[int] | None" = None
        self.status: int | None = None
        self.signal: int = 0  # the signal that ended it
        self.caught: set[int] = set()
        self.received: list[int] = []
        self.signalled = asyncio.Event()

    def catch(self, *signums: int) -> None:
        self.caught.update(signums)

    @property
    def done(self) -> bool:
        return self.task is None or self.task.done()

    def kill(self, signum: int) -> bool:
        """Deliver ``signum`` (0 only checks the job exists); False when it has ended."""
        if self.done:
            return False
        if signum == 0:
            return True
        if signum in self.caught:
            self.received.append(signum)
            self.signalled.set()
            return True
        if signum in (18, 28, 17, 23):  # SIGCONT, SIGWINCH, SIGCHLD, SIGURG: ignored by default
            return True
        self.signal = signum
        assert self.task is not None
        self.task.cancel()
        return True


_JOBS: dict[int, Job] = {}
_CURRENT_JOB: "contextvars.ContextVar[Job | None]" = contextvars.ContextVar("shline_job", default=None)


def find_job(pid: int) -> Job | None:
    """The live background job with this pid (in any shell of the process), if any."""
    job = _JOBS.get(pid)
    if job is not None and job.done:
        _JOBS.pop(pid, None)
        return None
    return job


# ============================================================================ streams
class InputStream(Protocol):
    """Where a command reads its stdin from."""

    async def read(self, n: int = -1) -> bytes:
        """Next available bytes (at most ``n`` if ``n > 0``); ``b""`` means end of input."""
        ...


class OutputStream(Protocol):
    """Where a command writes stdout/stderr.  ``write`` raises ``BrokenPipeError`` once the
    reader is gone (the host closed the adb stream, or ``head`` stopped reading)."""

    async def write(self, data: bytes) -> None: ...


class BytesInput:
    """Stdin from a fixed byte string (``< file``, ``$(...)``, background jobs)."""

    def __init__(self, data: bytes = b"") -> None:
        self._data = data

    async def read(self, n: int = -1) -> bytes:
        if n is None or n < 0:
            n = 64 * 1024
        chunk, self._data = self._data[:n], self._data[n:]
        return chunk


class BufferOutput:
    """Collects output in memory (``$(...)`` capture, tests)."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    async def write(self, data: bytes) -> None:
        self.buffer += data

    def getvalue(self) -> bytes:
        return bytes(self.buffer)


class NullOutput:
    """``/dev/null``."""

    async def write(self, data: bytes) -> None:
        return None


class _FileOutput:
    """Redirection to a VirtualFS file: every write appends, so a long-running command
    (``logcat > f &``) is visible while it runs."""

    def __init__(self, fs: "VirtualFS", path: str) -> None:
        self._fs, self._path = fs, path

    async def write(self, data: bytes) -> None:
        self._fs.append_bytes(self._path, data)


class Pipe:
    """A bounded in-process pipe between two pipeline stages.

    ``write`` blocks while more than ``limit`` bytes are unread (back-pressure, so
    ``yes | head -1`` terminates) and raises ``BrokenPipeError`` after the reading side
    closed; ``read`` returns ``b""`` after the writing side closed and the buffer drained.
    """

    def __init__(self, limit: int = 64 * 1024) -> None:
        self._buf = bytearray()
        self._limit = limit
        self._wclosed = False
        self._rclosed = False
        self._cond = asyncio.Condition()

    async def write(self, data: bytes) -> None:
        async with self._cond:
            if self._rclosed:
                raise BrokenPipeError("pipe reader closed")
            self._buf += data
            self._cond.notify_all()
            while len(self._buf) > self._limit and not self._rclosed:
                await self._cond.wait()

    async def read(self, n: int = -1) -> bytes:
        async with self._cond:
            while not self._buf and not self._wclosed:
                await self._cond.wait()
            if n is None or n < 0:
                n = len(self._buf)
            chunk = bytes(self._buf[:n])
            del self._buf[:n]
            self._cond.notify_all()
            return chunk

    async def close_write(self) -> None:
        async with self._cond:
            self._wclosed = True
            self._cond.notify_all()

    async def close_read(self) -> None:
        async with self._cond:
            self._rclosed = True
            self._buf.clear()
            self._cond.notify_all()


class _SessionInput:
    """Adapts an adbd ``ShellSession`` (``read_stdin() -> bytes | None``) to InputStream."""

    def __init__(self, session: "_SessionLike") -> None:
        self._session = session
        self._pending = b""

    async def read(self, n: int = -1) -> bytes:
        if not self._pending:
            data = await self._session.read_stdin()
            if not data:
                return b""
            self._pending = data
        if n is None or n < 0:
            n = len(self._pending)
        chunk, self._pending = self._pending[:n], self._pending[n:]
        return chunk


class _FuncOutput:
    def __init__(self, func: Callable[[bytes], Awaitable[None]]) -> None:
        self._func = func

    async def write(self, data: bytes) -> None:
        await self._func(data)


class _SessionLike(Protocol):
    async def write_stdout(self, data: bytes) -> None: ...
    async def write_stderr(self, data: bytes) -> None: ...
    async def read_stdin(self) -> bytes | None: ...


# ============================================================================ context
@dataclass
class CommandContext:
    """Everything a command handler gets.

    ``argv[0]`` is the name as typed (``/system/bin/ls`` or ``ls``).  ``env`` holds the
    exported variables plus ``NAME=value`` prefixes of this command.  Use :meth:`out` /
    :meth:`err` to write (str is UTF-8 encoded), :meth:`read_all` to slurp stdin, and
    :meth:`path` to turn an argument into an absolute path against the shell's cwd.
    """

    argv: list[str]
    env: dict[str, str]
    stdin: InputStream
    stdout: OutputStream
    stderr: OutputStream
    shell: "ShellInterpreter"
    #: the background job this command runs in (``cmd &``), None in the foreground
    job: Job | None = field(default_factory=lambda: _CURRENT_JOB.get())

    @property
    def name(self) -> str:
        return os.path.basename(self.argv[0])

    @property
    def args(self) -> list[str]:
        return self.argv[1:]

    @property
    def cwd(self) -> str:
        return self.shell.cwd

    @property
    def fs(self) -> "VirtualFS | None":
        return self.shell.fs

    def path(self, p: str) -> str:
        from .fs import join  # local: keep shline importable without fs

        return join(self.shell.cwd, p)

    async def out(self, data: str | bytes) -> None:
        await self.stdout.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)

    async def err(self, data: str | bytes) -> None:
        await self.stderr.write(data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data)

    async def read_all(self) -> bytes:
        chunks: list[bytes] = []
        while True:
            chunk = await self.stdin.read(-1)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)


#: A command implementation: gets the context, returns the exit status (0..255).
CommandHandler = Callable[[CommandContext], Awaitable[int]]


class ShellSyntaxError(Exception):
    """The line cannot be parsed (or uses syntax this interpreter does not support)."""


class ShellExit(Exception):
    """Raised by ``exit``: stops the rest of the line."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


# ============================================================================ lexer
@dataclass(frozen=True)
class Part:
    """A piece of a word: literal text, a parameter (``var``) or a command substitution."""

    kind: Literal["lit", "var", "cmd"]
    text: str
    quoted: bool


@dataclass
class Word:
    parts: list[Part] = field(default_factory=list)

    def literal(self) -> str | None:
        """The text if the word has no expansion at all (quotes allowed), else None."""
        if all(p.kind == "lit" for p in self.parts):
            return "".join(p.text for p in self.parts)
        return None

    def bare(self) -> str | None:
        """The text if the word is entirely unquoted literal text (keywords, fds)."""
        if all(p.kind == "lit" and not p.quoted for p in self.parts):
            return "".join(p.text for p in self.parts)
        return None


@dataclass
class _Tok:
    kind: Literal["word", "op"]
    word: Word | None = None
    op: str = ""
    fd: int | None = None  # io-number before a redirection operator


_OPS = ("&&", "||", ";;", ">>", ">&", "<&", ">|", "<<", "<>", "&>", ";", "&", "|", "<", ">", "(", ")", "\n")
_REDIR_OPS = {">", ">>", "<", ">&", "<&", ">|", "&>", "<>"}
_OP_START = set("&|;<>()\n")
_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KEYWORDS = {"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
             "esac", "function", "select", "{", "}", "[[", "]]", "time"}


def _lex(src: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(src)
    last_word_end = -1
    while i < n:
        c = src[i]
        if c in " \t\r":
            i += 1
            continue
        if c == "\\" and i + 1 < n and src[i + 1] == "\n":
            i += 2
            continue
        if c == "#":
            while i < n and src[i] != "\n":
                i += 1
            continue
        if c in _OP_START:
            op = next(o for o in _OPS if src.startswith(o, i))
            fd: int | None = None
            if op in _REDIR_OPS and toks and last_word_end == i and toks[-1].kind == "word":
                bare = toks[-1].word.bare() if toks[-1].word else None
                if bare is not None and bare.isdigit():
                    fd = int(bare)
                    toks.pop()
            if op == "<<":
                raise ShellSyntaxError("here-documents are not supported")
            if op in ("(", ")"):
                raise ShellSyntaxError(f"unexpected '{op}' (subshells are not supported)")
            if op == ";;":
                raise ShellSyntaxError("unexpected ';;'")
            toks.append(_Tok("op", op=op, fd=fd))
            i += len(op)
            continue
        word, i = _lex_word(src, i)
        toks.append(_Tok("word", word=word))
        last_word_end = i
    return toks


def _lex_word(src: str, i: int) -> tuple[Word, int]:
    parts: list[Part] = []
    buf: list[str] = []
    buf_quoted = False
    n = len(src)

    def flush() -> None:
        nonlocal buf
        if buf:
            parts.append(Part("lit", "".join(buf), buf_quoted))
            buf = []

    def add_lit(text: str, quoted: bool) -> None:
        nonlocal buf_quoted
        if buf and buf_quoted != quoted:
            flush()
        buf_quoted = quoted
        buf.append(text)

    while i < n:
        c = src[i]
        if c in " \t\r" or c in _OP_START:
            break
        if c == "\\":
            if i + 1 < n:
                if src[i + 1] == "\n":
                    i += 2
                    continue
                add_lit(src[i + 1], True)
                i += 2
            else:
                add_lit("\\", False)
                i += 1
            continue
        if c == "'":
            j = src.find("'", i + 1)
            if j < 0:
                raise ShellSyntaxError("unterminated quoted string")
            add_lit(src[i + 1:j], True)
            if j == i + 1:  # '' must still make an (empty) argument
                add_lit("", True)
            i = j + 1
            continue
        if c == '"':
            i += 1
            add_lit("", True)  # "" is an empty argument
            while True:
                if i >= n:
                    raise ShellSyntaxError("unterminated quoted string")
                c = src[i]
                if c == '"':
                    i += 1
                    break
                if c == "\\" and i + 1 < n and src[i + 1] in '$`"\\\n':
                    if src[i + 1] != "\n":
                        add_lit(src[i + 1], True)
                    i += 2
                    continue
                if c == "$" or c == "`":
                    part, i = _lex_dollar(src, i, quoted=True)
                    if part is None:
                        add_lit("$", True)
                        continue
                    flush()
                    parts.append(part)
                    continue
                add_lit(c, True)
                i += 1
            continue
        if c == "$" or c == "`":
            part, i = _lex_dollar(src, i, quoted=False)
            if part is None:
                add_lit("$", False)
                continue
            flush()
            parts.append(part)
            continue
        add_lit(c, False)
        i += 1
    flush()
    return Word(parts), i


def _find_closing(src: str, i: int, close: str) -> int:
    """Index of the ``close`` char matching an opener just before ``i`` (quote-aware)."""
    depth = 1
    n = len(src)
    while i < n:
        c = src[i]
        if c == "\\":
            i += 2
            continue
        if c == "'" and close != "`":
            j = src.find("'", i + 1)
            if j < 0:
                break
            i = j + 1
            continue
        if c == '"' and close != "`":
            i += 1
            while i < n and src[i] != '"':
                i += 2 if src[i] == "\\" else 1
            i += 1
            continue
        if close == ")" and c == "(":
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ShellSyntaxError(f"no closing '{close}'")


def _lex_dollar(src: str, i: int, quoted: bool) -> tuple[Part | None, int]:
    """Lex an expansion starting at ``src[i]`` (``$`` or backquote). None = literal ``$``."""
    n = len(src)
    if src[i] == "`":
        j = _find_closing(src, i + 1, "`")
        return Part("cmd", src[i + 1:j].replace("\\`", "`"), quoted), j + 1
    if i + 1 >= n:
        return None, i + 1
    c = src[i + 1]
    if c == "(":
        if src.startswith("((", i + 1):
            raise ShellSyntaxError("arithmetic expansion $(( )) is not supported")
        j = _find_closing(src, i + 2, ")")
        return Part("cmd", src[i + 2:j], quoted), j + 1
    if c == "{":
        j = src.find("}", i + 2)
        if j < 0:
            raise ShellSyntaxError("missing '}'")
        return Part("var", src[i + 2:j], quoted), j + 1
    if c in "?$#!-@*" or c.isdigit():
        return Part("var", c, quoted), i + 2
    m = _NAME_RE.match(src, i + 1)
    if m:
        return Part("var", m.group(0), quoted), m.end()
    return None, i + 1


# ============================================================================ parser
@dataclass
class Redir:
    fd: int
    op: str
    target: Word


@dataclass
class SimpleCommand:
    assigns: list[tuple[str, Word]] = field(default_factory=list)
    words: list[Word] = field(default_factory=list)
    redirs: list[Redir] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.assigns or self.words or self.redirs)


@dataclass
class Pipeline:
    commands: list[SimpleCommand]
    negate: bool = False


@dataclass
class AndOr:
    #: (connector, pipeline); the first connector is "".
    items: list[tuple[str, Pipeline]]
    background: bool = False


def parse(src: str) -> list[AndOr]:
    """Parse a command line into and-or lists (raises :class:`ShellSyntaxError`)."""
    toks = _lex(src)
    result: list[AndOr] = []
    andor: list[tuple[str, Pipeline]] = []
    connector = ""
    pipe_cmds: list[SimpleCommand] = []
    negate = False
    cmd = SimpleCommand()
    i = 0

    def finish_cmd(op: str) -> None:
        nonlocal cmd
        if cmd.empty():
            raise ShellSyntaxError(f"unexpected '{op.strip() or 'newline'}'")
        pipe_cmds.append(cmd)
        cmd = SimpleCommand()

    def finish_pipeline(op: str) -> None:
        nonlocal pipe_cmds, negate, connector
        finish_cmd(op)
        andor.append((connector, Pipeline(pipe_cmds, negate)))
        pipe_cmds, negate = [], False

    while i < len(toks):
        tok = toks[i]
        if tok.kind == "word":
            assert tok.word is not None
            bare = tok.word.bare()
            if not cmd.words and not pipe_cmds and not cmd.assigns and bare == "!" and not negate:
                negate = True
            elif not cmd.words and bare is not None and bare in _KEYWORDS:
                raise ShellSyntaxError(f"'{bare}' is not supported by this shell")
            elif not cmd.words and _assignment(tok.word) is not None:
                cmd.assigns.append(_assignment(tok.word))  # type: ignore[arg-type]
            else:
                cmd.words.append(tok.word)
            i += 1
            continue
        op = tok.op
        if op in _REDIR_OPS:
            if i + 1 >= len(toks) or toks[i + 1].kind != "word":
                raise ShellSyntaxError(f"missing target after '{op}'")
            target = toks[i + 1].word
            assert target is not None
            fd = tok.fd if tok.fd is not None else (0 if op in ("<", "<&", "<>") else 1)
            cmd.redirs.append(Redir(fd, op, target))
            i += 2
            continue
        if op == "|":
            finish_cmd(op)
        elif op in ("&&", "||"):
            finish_pipeline(op)
            connector = op
        elif op in (";", "&", "\n"):
            if cmd.empty() and not pipe_cmds and not andor:
                if op == "\n":
                    i += 1
                    continue
                raise ShellSyntaxError(f"unexpected '{op}'")
            finish_pipeline(op)
            result.append(AndOr(andor, background=(op == "&")))
            andor, connector = [], ""
        i += 1
    if not cmd.empty() or pipe_cmds or andor:
        finish_pipeline("newline")
        result.append(AndOr(andor))
    return result


def _assignment(word: Word) -> tuple[str, Word] | None:
    if not word.parts or word.parts[0].kind != "lit" or word.parts[0].quoted:
        return None
    first = word.parts[0].text
    m = re.match(r"([A-Za-z_][A-Za-z0-9_]*)=", first)
    if not m:
        return None
    rest = [Part("lit", first[m.end():], False)] + word.parts[1:]
    return m.group(1), Word(rest)


# ============================================================================ interpreter
class ShellInterpreter:
    """Runs command lines; one instance per shell session (it keeps ``$?``, cwd, variables).

    Args:
        commands: name -> handler.  Looked up by the typed name, then by its basename if
            the name starts with a standard bin directory (``/system/bin/ls`` -> ``ls``).
        fs: filesystem for redirections to files and ``cd`` checks (optional).
        cwd: initial working directory (``/`` for ``adb shell``).
        env: initial (exported) variables; default :data:`DEFAULT_ENV`.
        glob: ``glob(pattern, cwd) -> list[str]`` for wildcard expansion (e.g.
            ``VirtualFS.glob``); without it ``*`` stays literal.
        shell_name: prefix of the shell's own error messages.
    """

    def __init__(self, commands: Mapping[str, CommandHandler] | None = None, *,
                 fs: "VirtualFS | None" = None, cwd: str = "/",
                 env: Mapping[str, str] | None = None,
                 glob: Callable[[str, str], list[str]] | None = None,
                 shell_name: str = SHELL_NAME, args: Sequence[str] = ()) -> None:
        self.commands: dict[str, CommandHandler] = dict(commands or {})
        self.fs = fs
        self.cwd = cwd
        self.vars: dict[str, str] = dict(DEFAULT_ENV if env is None else env)
        self.exported: set[str] = set(self.vars)
        self.glob = glob
        self.shell_name = shell_name
        self.args = list(args)
        self.last_status = 0
        self.pid = next(_pids)
        self.last_bg_pid = 0
        self.background: set[asyncio.Task[int]] = set()
        self.jobs: dict[int, Job] = {}
        self._stderr: OutputStream = NullOutput()  # where $(...) errors go
        self._stdin: InputStream = BytesInput()  # the stdin of the builtin running now (``read``)

    # ------------------------------------------------------------------ entry points
    async def run(self, line: str, *, stdin: InputStream | None = None,
                  stdout: OutputStream | None = None, stderr: OutputStream | None = None) -> int:
        """Run one command line; returns its exit status (also kept as ``$?``)."""
        stdin = stdin or BytesInput()
        stdout = stdout or NullOutput()
        stderr = stderr or NullOutput()
        try:
            script = parse(line)
        except ShellSyntaxError as exc:
            await _safe_write(stderr, f"{self.shell_name}: syntax error: {exc}\n".encode())
            self.last_status = 1
            return 1
        try:
            for andor in script:
                if andor.background:
                    self._spawn_background(andor, stdout, stderr)
                    self.last_status = 0
                else:
                    await self._run_andor(andor, stdin, stdout, stderr)
        except ShellExit as exc:
            self.last_status = exc.code & 0xFF
        return self.last_status

    async def run_in_session(self, line: str, session: _SessionLike) -> int:
        """Run ``line`` with stdin/stdout/stderr bound to an adbd ``ShellSession``."""
        return await self.run(line, stdin=_SessionInput(session),
                              stdout=_FuncOutput(session.write_stdout),
                              stderr=_FuncOutput(session.write_stderr))

    async def capture(self, line: str, stdin: InputStream | None = None) -> tuple[int, bytes]:
        """Run ``line`` in a copy of this shell (a subshell) and return (status, stdout)."""
        sub = ShellInterpreter(self.commands, fs=self.fs, cwd=self.cwd, env=dict(self.vars),
                               glob=self.glob, shell_name=self.shell_name, args=self.args)
        sub.exported = set(self.exported)
        sub.last_status = self.last_status
        out = BufferOutput()
        status = await sub.run(line, stdin=stdin, stdout=out, stderr=self._stderr)
        return status, out.getvalue()

    # ------------------------------------------------------------------ execution
    def new_pid(self) -> int:
        """A fresh pid for a process this shell starts (``log``, ``am``'s ``cmd`` …)."""
        return next_pid()

    def _spawn_background(self, andor: AndOr, stdout: OutputStream, stderr: OutputStream) -> None:
        record = Job(next_pid())

        async def job() -> int:
            _CURRENT_JOB.set(record)
            status = 0
            try:
                for connector, pipeline in andor.items:  # the job's own $? (not the shell's)
                    if connector == "&&" and status != 0 or connector == "||" and status == 0:
                        continue
                    status = await self._run_pipeline(pipeline, BytesInput(), stdout, stderr)
            except ShellExit as exc:
                status = exc.code & 0xFF
            except (BrokenPipeError, ConnectionError):
                status = 141
            except asyncio.CancelledError:
                if not record.signal:
                    raise
                status = 128 + record.signal
            record.status = status
            return status

        task = asyncio.get_running_loop().create_task(job())
        record.task = task
        self.last_bg_pid = record.pid
        self.jobs[record.pid] = record
        _JOBS[record.pid] = record
        self.background.add(task)

        def ended(t: "asyncio.Task[int]") -> None:
            self.background.discard(t)
            if _JOBS.get(record.pid) is record:
                _JOBS.pop(record.pid, None)
        task.add_done_callback(ended)

    async def _run_andor(self, andor: AndOr, stdin: InputStream, stdout: OutputStream,
                         stderr: OutputStream) -> None:
        for connector, pipeline in andor.items:
            if connector == "&&" and self.last_status != 0:
                continue
            if connector == "||" and self.last_status == 0:
                continue
            self.last_status = await self._run_pipeline(pipeline, stdin, stdout, stderr)

    async def _run_pipeline(self, p: Pipeline, stdin: InputStream, stdout: OutputStream,
                            stderr: OutputStream) -> int:
        if len(p.commands) == 1:
            status = await self._run_simple(p.commands[0], stdin, stdout, stderr)
        else:
            pipes = [Pipe() for _ in p.commands[:-1]]

            async def stage(idx: int, cmd: SimpleCommand) -> int:
                sin: InputStream = stdin if idx == 0 else pipes[idx - 1]
                sout: OutputStream = stdout if idx == len(p.commands) - 1 else pipes[idx]
                try:
                    return await self._run_simple(cmd, sin, sout, stderr)
                except ShellExit as exc:  # exit in a pipeline only ends that stage
                    return exc.code & 0xFF
                except BrokenPipeError:
                    if idx == len(p.commands) - 1:
                        raise
                    return 141  # 128 + SIGPIPE
                finally:
                    if idx > 0:
                        await pipes[idx - 1].close_read()
                    if idx < len(pipes):
                        await pipes[idx].close_write()

            statuses = await asyncio.gather(*(stage(i, c) for i, c in enumerate(p.commands)))
            status = statuses[-1]
        if p.negate:
            status = 0 if status else 1
        return status

    async def _run_simple(self, cmd: SimpleCommand, stdin: InputStream, stdout: OutputStream,
                          stderr: OutputStream) -> int:
        self._stderr = stderr
        argv: list[str] = []
        for w in cmd.words:
            argv.extend(await self._expand(w))
        assigns = [(name, await self._expand_joined(w)) for name, w in cmd.assigns]
        fds: dict[int, object] = {0: stdin, 1: stdout, 2: stderr}
        for r in cmd.redirs:
            err = await self._apply_redir(r, fds)
            if err is not None:
                await _safe_write(stderr, f"{self.shell_name}: {err}\n".encode())
                return 1
        sin: InputStream = fds[0]  # type: ignore[assignment]
        sout: OutputStream = fds[1]  # type: ignore[assignment]
        serr: OutputStream = fds[2]  # type: ignore[assignment]
        if not argv:
            for name, value in assigns:
                self.vars[name] = value
            return 0
        env = {k: v for k, v in self.vars.items() if k in self.exported}
        env.update(assigns)
        name = argv[0]
        special = self._special_builtin(name)
        if special is not None:
            return await special(argv, sout, serr)
        handler = self.lookup(name)
        if handler is None:
            regular = self._regular_builtin(name)
            if regular is None:
                await serr.write(f"{self.shell_name}: {name}: inaccessible or not found\n".encode())
                return 127
            self._stdin = sin
            return await regular(argv, sout, serr)
        ctx = CommandContext(argv=argv, env=env, stdin=sin, stdout=sout, stderr=serr, shell=self)
        try:
            status = await handler(ctx)
        except (ShellExit, BrokenPipeError, ConnectionError, asyncio.CancelledError):
            raise
        except Exception as exc:  # a buggy handler must not kill the shell
            log.exception("shell command %r failed", name)
            await _safe_write(serr, f"{name}: internal error: {exc}\n".encode())
            return 1
        return int(status or 0) & 0xFF

    def lookup(self, name: str) -> CommandHandler | None:
        """The handler that ``name`` would run, or None (builtins are not included)."""
        handler = self.commands.get(name)
        if handler is None and "/" in name:
            for d in BIN_DIRS:
                if name.startswith(d) and "/" not in name[len(d):]:
                    return self.commands.get(name[len(d):])
        return handler

    async def _apply_redir(self, r: Redir, fds: dict[int, object]) -> str | None:
        target = await self._expand_joined(r.target)
        if r.op in (">&", "<&"):
            if target.isdigit():
                src = int(target)
                if src not in fds:
                    return f"{target}: bad file descriptor"
                fds[r.fd] = fds[src]
                return None
            if target == "-":
                fds[r.fd] = NullOutput() if r.op == ">&" else BytesInput()
                return None
            if r.op == "<&":
                return f"{target}: bad file descriptor"
            # bash-style ">& file": both stdout and stderr
            out = self._open_output(target, truncate=True)
            if isinstance(out, str):
                return out
            fds[1] = fds[2] = out
            return None
        if r.op in ("<", "<>"):
            if target == "/dev/null":
                fds[r.fd] = BytesInput()
                return None
            if self.fs is None:
                return f"can't open {target}: No such file or directory"
            try:
                fds[r.fd] = BytesInput(self.fs.read_bytes(_join(self.cwd, target)))
            except OSError as exc:
                return f"can't open {target}: {exc.strerror}"
            return None
        out = self._open_output(target, truncate=r.op in (">", ">|", "&>"))
        if isinstance(out, str):
            return out
        if r.op == "&>":
            fds[1] = fds[2] = out
        else:
            fds[r.fd] = out
        return None

    def _open_output(self, target: str, truncate: bool) -> OutputStream | str:
        if target == "/dev/null":
            return NullOutput()
        if self.fs is None:
            return f"can't create {target}: Read-only file system"
        path = _join(self.cwd, target)
        try:
            if truncate:
                self.fs.write_bytes(path, b"")
            else:
                self.fs.append_bytes(path, b"")
        except OSError as exc:
            return f"can't create {target}: {exc.strerror}"
        return _FileOutput(self.fs, path)

    # ------------------------------------------------------------------ expansion
    async def _param(self, expr: str) -> str | None:
        """Value of a parameter expression (text between ``${`` and ``}``); None = unset."""
        if expr == "?":
            return str(self.last_status)
        if expr == "$":
            return str(self.pid)
        if expr == "!":
            return str(self.last_bg_pid) if self.last_bg_pid else ""
        if expr == "#":
            return str(len(self.args))
        if expr in ("@", "*"):
            return " ".join(self.args)
        if expr == "-":
            return ""
        if expr.isdigit():
            idx = int(expr)
            if idx == 0:
                return self.shell_name
            return self.args[idx - 1] if idx <= len(self.args) else None
        if expr.startswith("#") and len(expr) > 1:
            return str(len(await self._param(expr[1:]) or ""))
        m = re.fullmatch(r"([A-Za-z_][A-Za-z0-9_]*|[0-9?#$!])(:?[-+=?])(.*)", expr, re.S)
        if m:
            name, op, word = m.groups()
            value = await self._param(name)
            unset = value is None or (op.startswith(":") and value == "")
            if op.endswith("-"):
                return word if unset else value
            if op.endswith("+"):
                return "" if unset else word
            if op.endswith("="):
                if unset:
                    self.vars[name] = word
                    return word
                return value
            if op.endswith("?"):
                if unset:
                    raise ShellSyntaxError(f"{name}: {word or 'parameter not set'}")
                return value
        if not _NAME_RE.fullmatch(expr):
            raise ShellSyntaxError(f"{expr}: bad substitution")
        return self.vars.get(expr)

    async def _part_value(self, part: Part) -> str:
        if part.kind == "lit":
            return part.text
        if part.kind == "var":
            return await self._param(part.text) or ""
        status, out = await self.capture(part.text)
        self.last_status = status
        return out.decode("utf-8", "surrogateescape").rstrip("\n")

    async def _expand_joined(self, word: Word) -> str:
        """Expand without field splitting or globbing (assignments, redirection targets)."""
        return "".join([await self._part_value(p) for p in word.parts])

    async def _expand(self, word: Word) -> list[str]:
        """Expand one word into zero or more fields (POSIX field splitting on IFS spaces)."""
        fields: list[str] = []
        cur: list[str] = []
        have = False  # the current field exists even if empty ("" or '')
        globbable = False
        for part in word.parts:
            value = await self._part_value(part)
            if part.kind == "lit" or part.quoted:
                cur.append(value)
                have = have or part.quoted or bool(value)
                if part.kind == "lit" and not part.quoted and any(ch in value for ch in "*?["):
                    globbable = True
                continue
            if not value:
                continue
            # unquoted expansion: split; a leading/trailing blank ends the current field
            for k, piece in enumerate(re.split(r"[ \t\n]+", value)):
                if k > 0 and (cur or have):
                    fields.append("".join(cur))
                    cur, have = [], False
                if piece:
                    cur.append(piece)
                    have = True
        if cur or have:
            fields.append("".join(cur))
        if globbable and self.glob is not None:
            expanded: list[str] = []
            for f in fields:
                matches = self.glob(f, self.cwd) if any(ch in f for ch in "*?[") else []
                expanded.extend(matches or [f])
            return expanded
        return fields

    # ------------------------------------------------------------------ builtins
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
            text, stop = _echo_escapes(text)
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


def _echo_escapes(text: str) -> tuple[str, bool]:
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


def _quote(s: str) -> str:
    if s and re.fullmatch(r"[A-Za-z0-9_@%+=:,./-]+", s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def _join(cwd: str, path: str) -> str:
    from .fs import join

    return join(cwd, path)


async def _safe_write(stream: OutputStream, data: bytes) -> None:
    try:
        await stream.write(data)
    except (BrokenPipeError, ConnectionError):
        pass


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
