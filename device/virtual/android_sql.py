"""A small SQLite-flavoured ``WHERE``/``ORDER BY`` evaluator for the virtual content providers.

Why: ``content query --where "type=1 AND read=0"`` passes a SQL fragment to the provider,
which hands it to SQLite. The virtual phone's providers are Python views over the sim's
world, so this module evaluates the same fragments over row dicts, with SQLite's rules
where they matter to scripts: ``=``/``==``, ``!=``/``<>``, ``<``/``<=``/``>``/``>=``,
``LIKE`` (case-insensitive for ASCII, ``%`` and ``_``), ``IS [NOT] NULL``, ``[NOT] IN (...)``,
``BETWEEN``, ``AND``/``OR``/``NOT``, parentheses, ``'string'`` literals with ``''``,
numbers, and numeric comparison when one side is a number. An unknown column raises
:class:`SqlError` with SQLite's ``no such column`` text; nothing is ever executed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["SqlError", "compile_where", "sort_rows"]

Row = Mapping[str, Any]


class SqlError(ValueError):
    """Raised for SQL the provider's SQLite would reject (message in SQLite's words)."""


_TOKEN = re.compile(r"""\s*(?:
    (?P<num>\d+\.\d*|\.\d+|\d+)
  | (?P<str>'(?:[^']|'')*')
  | (?P<qid>"(?:[^"]|"")*"|`[^`]*`|\[[^\]]*\])
  | (?P<op><=|>=|==|!=|<>|=|<|>|\(|\)|,|\?)
  | (?P<id>[A-Za-z_][A-Za-z0-9_.]*)
)""", re.X)


@dataclass
class _Tok:
    kind: str
    text: str


def _tokens(sql: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    sql = sql.rstrip()
    while pos < len(sql):
        m = _TOKEN.match(sql, pos)
        if not m or m.end() == pos:
            near = sql[pos:].strip()[:20]
            raise SqlError(f'near "{near}": syntax error (code 1 SQLITE_ERROR)')
        kind = m.lastgroup or ""
        text = m.group(kind)
        if kind == "qid":
            kind, text = "id", text[1:-1].replace('""', '"')
        elif kind == "id" and text.upper() in ("AND", "OR", "NOT", "LIKE", "IS", "NULL", "IN", "BETWEEN", "GLOB"):
            kind, text = "kw", text.upper()
        out.append(_Tok(kind, text))
        pos = m.end()
    return out


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(v.strip())
        except ValueError:
            return None
    return None


def _cmp(a: Any, b: Any) -> int | None:
    """SQLite-like comparison: NULL → None; numbers numerically when either side is one."""
    if a is None or b is None:
        return None
    if isinstance(a, (int, float)) or isinstance(b, (int, float)):
        na, nb = _num(a), _num(b)
        if na is not None and nb is not None:
            return (na > nb) - (na < nb)
        # a number sorts before text in SQLite
        return -1 if isinstance(a, (int, float)) else 1
    sa, sb = str(a), str(b)
    return (sa > sb) - (sa < sb)


def _like(value: Any, pattern: Any) -> bool | None:
    if value is None or pattern is None:
        return None
    rx = "".join(".*" if ch == "%" else "." if ch == "_" else re.escape(ch) for ch in str(pattern))
    return re.fullmatch(rx, str(value), re.S | re.I) is not None


class _Parser:
    def __init__(self, toks: list[_Tok], columns: set[str], args: Sequence[Any]) -> None:
        self.t = toks
        self.i = 0
        self.columns = columns
        self.args = list(args)

    def peek(self, text: str | None = None, kind: str | None = None) -> bool:
        if self.i >= len(self.t):
            return False
        tok = self.t[self.i]
        return (text is None or tok.text == text) and (kind is None or tok.kind == kind)

    def take(self) -> _Tok:
        if self.i >= len(self.t):
            raise SqlError("incomplete input (code 1 SQLITE_ERROR)")
        tok = self.t[self.i]
        self.i += 1
        return tok

    def expect(self, text: str) -> None:
        tok = self.take()
        if tok.text != text:
            raise SqlError(f'near "{tok.text}": syntax error (code 1 SQLITE_ERROR)')

    # grammar
    def expr(self) -> Callable[[Row], Any]:
        left = self.and_expr()
        while self.peek("OR", "kw"):
            self.take()
            right = self.and_expr()
            left = (lambda l, r: lambda row: _or(l(row), r(row)))(left, right)
        return left

    def and_expr(self) -> Callable[[Row], Any]:
        left = self.not_expr()
        while self.peek("AND", "kw"):
            self.take()
            right = self.not_expr()
            left = (lambda l, r: lambda row: _and(l(row), r(row)))(left, right)
        return left

    def not_expr(self) -> Callable[[Row], Any]:
        if self.peek("NOT", "kw"):
            self.take()
            inner = self.not_expr()
            return lambda row: None if (v := _truth(inner(row))) is None else not v
        return self.predicate()

    def predicate(self) -> Callable[[Row], Any]:
        left = self.operand()
        if self.i >= len(self.t):
            return left
        tok = self.t[self.i]
        if tok.kind == "op" and tok.text in ("=", "==", "!=", "<>", "<", "<=", ">", ">="):
            self.take()
            right = self.operand()
            op = tok.text
            return lambda row: _compare(op, left(row), right(row))
        negate = False
        if tok.kind == "kw" and tok.text == "NOT":
            self.take()
            negate = True
            tok = self.take()
            self.i -= 1
        if self.peek("LIKE", "kw") or self.peek("GLOB", "kw"):
            kw = self.take().text
            right = self.operand()
            if kw == "LIKE":
                fn = lambda row: _like(left(row), right(row))  # noqa: E731
            else:
                fn = lambda row: _glob(left(row), right(row))  # noqa: E731
            return _maybe_not(fn, negate)
        if self.peek("IN", "kw"):
            self.take()
            self.expect("(")
            items = [self.operand()]
            while self.peek(","):
                self.take()
                items.append(self.operand())
            self.expect(")")
            fn = lambda row: _in(left(row), [f(row) for f in items])  # noqa: E731
            return _maybe_not(fn, negate)
        if self.peek("BETWEEN", "kw"):
            self.take()
            lo = self.operand()
            if not self.peek("AND", "kw"):
                raise SqlError("near BETWEEN: syntax error (code 1 SQLITE_ERROR)")
            self.take()
            hi = self.operand()
            fn = lambda row: _and(_compare(">=", left(row), lo(row)), _compare("<=", left(row), hi(row)))  # noqa: E731
            return _maybe_not(fn, negate)
        if negate:
            raise SqlError('near "NOT": syntax error (code 1 SQLITE_ERROR)')
        if self.peek("IS", "kw"):
            self.take()
            neg = False
            if self.peek("NOT", "kw"):
                self.take()
                neg = True
            right = self.operand()
            return lambda row: (left(row) == right(row) if right(row) is not None else (left(row) is None)) != neg
        return left

    def operand(self) -> Callable[[Row], Any]:
        tok = self.take()
        if tok.kind == "op" and tok.text == "(":
            inner = self.expr()
            self.expect(")")
            return inner
        if tok.kind == "op" and tok.text == "?":
            if not self.args:
                raise SqlError("bind or column index out of range")
            value = self.args.pop(0)
            return lambda row: value
        if tok.kind == "num":
            v: Any = float(tok.text) if "." in tok.text else int(tok.text)
            return lambda row: v
        if tok.kind == "str":
            s = tok.text[1:-1].replace("''", "'")
            return lambda row: s
        if tok.kind == "kw" and tok.text == "NULL":
            return lambda row: None
        if tok.kind == "id":
            name = tok.text.rsplit(".", 1)[-1]
            if name not in self.columns:
                raise SqlError(f"no such column: {tok.text} (code 1 SQLITE_ERROR)")
            return lambda row: row.get(name)
        raise SqlError(f'near "{tok.text}": syntax error (code 1 SQLITE_ERROR)')


def _truth(v: Any) -> bool | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return v
    n = _num(v)
    return bool(n) if n is not None else False


def _and(a: Any, b: Any) -> bool | None:
    ta, tb = _truth(a), _truth(b)
    if ta is False or tb is False:
        return False
    if ta is None or tb is None:
        return None
    return True


def _or(a: Any, b: Any) -> bool | None:
    ta, tb = _truth(a), _truth(b)
    if ta or tb:
        return True
    if ta is None or tb is None:
        return None
    return False


def _compare(op: str, a: Any, b: Any) -> bool | None:
    c = _cmp(a, b)
    if c is None:
        return None
    return {"=": c == 0, "==": c == 0, "!=": c != 0, "<>": c != 0, "<": c < 0, "<=": c <= 0,
            ">": c > 0, ">=": c >= 0}[op]


def _in(v: Any, items: list[Any]) -> bool | None:
    if v is None:
        return None
    return any(_cmp(v, x) == 0 for x in items if x is not None)


def _glob(v: Any, pattern: Any) -> bool | None:
    import fnmatch

    if v is None or pattern is None:
        return None
    return fnmatch.fnmatchcase(str(v), str(pattern))


def _maybe_not(fn: Callable[[Row], Any], negate: bool) -> Callable[[Row], Any]:
    if not negate:
        return fn
    return lambda row: None if (v := fn(row)) is None else not v


def compile_where(where: str | None, columns: Sequence[str], args: Sequence[Any] = ()) -> Callable[[Row], bool]:
    """A predicate over row dicts for a ``WHERE`` fragment (None/empty = every row)."""
    if where is None or not where.strip():
        return lambda row: True
    p = _Parser(_tokens(where), set(columns), args)
    fn = p.expr()
    if p.i != len(p.t):
        raise SqlError(f'near "{p.t[p.i].text}": syntax error (code 1 SQLITE_ERROR)')
    return lambda row: _truth(fn(row)) is True


def sort_rows(rows: list[dict[str, Any]], order: str | None, columns: Sequence[str]) -> list[dict[str, Any]]:
    """Sort by an ``ORDER BY`` fragment (``date DESC, _id``); unknown columns raise SqlError."""
    if order is None or not order.strip():
        return rows
    keys: list[tuple[str, bool]] = []
    for part in order.split(","):
        words = part.strip().split()
        if not words:
            raise SqlError('near ",": syntax error (code 1 SQLITE_ERROR)')
        col = words[0].strip('"`')
        if col not in columns:
            raise SqlError(f"no such column: {col} (code 1 SQLITE_ERROR)")
        desc = len(words) > 1 and words[1].upper() == "DESC"
        if len(words) > 1 and words[1].upper() not in ("ASC", "DESC", "COLLATE"):
            raise SqlError(f'near "{words[1]}": syntax error (code 1 SQLITE_ERROR)')
        keys.append((col, desc))
    out = list(rows)
    import functools

    def compare(a: dict[str, Any], b: dict[str, Any]) -> int:
        for col, desc in keys:
            va, vb = a.get(col), b.get(col)
            if va is None and vb is None:
                continue
            if va is None:
                c = -1
            elif vb is None:
                c = 1
            else:
                c = _cmp(va, vb) or 0
            if c:
                return -c if desc else c
        return 0

    out.sort(key=functools.cmp_to_key(compare))
    return out
