"""The virtual phone's shell: lexer and parser of one command line (``mksh``'s grammar, the
subset adb clients send).

Why its own module: parsing is pure — text in, a list of :class:`AndOr` lists out — and knows
nothing of commands, streams or files; :mod:`.sh_interp` runs what this produces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["ShellSyntaxError", "Part", "Word", "Redir", "SimpleCommand", "Pipeline", "AndOr", "parse"]


class ShellSyntaxError(Exception):
    """The line cannot be parsed (or uses syntax this interpreter does not support)."""



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

    def unit(at: int, quoted: bool) -> int:
        """The character at ``at`` as a literal, or the ``$…`` or backquoted expansion it starts
        as a part (a lone ``$`` is a literal); returns where the word goes on."""
        if src[at] not in "$`":
            add_lit(src[at], quoted)
            return at + 1
        part, end = _lex_dollar(src, at, quoted=quoted)
        if part is None:
            add_lit("$", quoted)
        else:
            flush()
            parts.append(part)
        return end

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
                i = unit(i, True)
            continue
        i = unit(i, False)
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
