"""The virtual phone's shell: the interpreter that runs command lines (Android ``/system/bin/sh``, i.e. mksh).

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

Its parts: :mod:`.sh_parse` (lexer, parser), :mod:`.sh_io` (processes, streams, the command
context), :mod:`.sh_builtins` (builtins, ``cat``/``sleep``); this module runs parsed lines —
pipelines, ``&&``/``||``, background jobs, redirections, expansions.
"""

from __future__ import annotations

import asyncio
import re
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from .sh_builtins import ShellBuiltins, _join
from .sh_io import (_CURRENT_JOB, _JOBS, DEFAULT_ENV, SHELL_NAME, BIN_DIRS, BytesInput, BufferOutput, CommandContext,
                    CommandHandler, InputStream, Job, NullOutput, OutputStream, Pipe, ShellExit, _FileOutput,
                    _FuncOutput, _SessionInput, _SessionLike, next_pid, _pids, log)
from .sh_parse import _NAME_RE, AndOr, Part, Pipeline, Redir, ShellSyntaxError, SimpleCommand, Word, parse

if TYPE_CHECKING:  # imported only for annotations: the shell must not depend on fs at run time
    from .fs import VirtualFS

__all__ = ["ShellInterpreter"]


# ============================================================================ interpreter
class ShellInterpreter(ShellBuiltins):
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
        record.simple = len(andor.items) == 1 and len(andor.items[0][1].commands) == 1

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


async def _safe_write(stream: OutputStream, data: bytes) -> None:
    try:
        await stream.write(data)
    except (BrokenPipeError, ConnectionError):
        pass

