"""``content query --uri …`` output → rows of ``{column: value | None}``.

The format is ``Row: <n> col1=value1, col2=value2, …`` — values are printed raw, so a
message body ``Meet at 5, room=4B`` contains both ``, `` and ``=``, and a body with a line
break spills onto the next lines (a ``Row: n`` line only starts a row when n is the next
row number). Splitting at every ``, `` (as most scripts do) corrupts
such rows. We split only where ``, <column>=`` starts a *known* column: the ``--projection``
list when the caller has it, otherwise the columns every row agrees on. The literal
``NULL`` is SQL NULL (→ ``None``); an empty value is the empty string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ._common import ParseError, normalize_text

__all__ = ["parse_content_rows", "NO_RESULT"]

NO_RESULT = "No result found."
_ROW = re.compile(r"^Row: (\d+) ", re.M)
_KEY = re.compile(r"(?:^|, )([A-Za-z_][A-Za-z0-9_]*)=")


def _split_rows(text: str) -> list[str]:
    """Row bodies; a ``Row: n`` line only starts a row when n is the next row number."""
    starts: list[tuple[int, int]] = []
    expect: int | None = None
    for m in _ROW.finditer(text):
        n = int(m.group(1))
        if expect is None or n == expect:
            starts.append((m.start(), m.end()))
            expect = n + 1
    bodies = []
    for i, (_s, body_start) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        body = text[body_start:end]
        bodies.append(body[:-1] if body.endswith("\n") else body)
    if bodies:
        bodies[-1] = bodies[-1].rstrip("\n")
    return bodies


def _split_known(body: str, columns: Sequence[str]) -> dict[str, str] | None:
    """Split at ``, col=`` for the columns in order; ``None`` if the row does not fit them.

    Cuts are found from the right (the last column's rightmost ``, col=`` first), so text
    such as ``, type=`` inside a free-text value that precedes the real ``type`` column stays
    in that value. Only a value containing *its own* column's key could be cut wrongly.
    Greedy from the right is complete: if any split exists, this finds one.
    """
    if not columns or not body.startswith(columns[0] + "="):
        return None
    lo = len(columns[0]) + 1
    end = len(body)
    cuts: list[int] = []
    for col in reversed(columns[1:]):
        pos = body.rfind(", " + col + "=", lo, end)
        if pos == -1:
            return None
        cuts.append(pos)
        end = pos
    cuts.reverse()
    starts = [lo] + [c + len(col) + 3 for c, col in zip(cuts, columns[1:])]
    ends = cuts + [len(body)]
    return {col: body[s:e] for col, s, e in zip(columns, starts, ends)}


def _candidate_keys(body: str) -> list[str]:
    return [m.group(1) for m in _KEY.finditer(body)]


def _agreed_columns(bodies: list[str]) -> list[str]:
    """Columns present, in the same order, as ``, key=`` candidates in every row.

    ``content query`` prints every column of every row, so a key that only some rows
    show is text inside a value, not a column.
    """
    cands = [_candidate_keys(b) for b in bodies]
    if not cands:
        return []
    common = set(cands[0])
    for c in cands[1:]:
        common &= set(c)
    seen: set[str] = set()
    cols = []
    for k in cands[0]:
        if k in common and k not in seen:
            seen.add(k)
            cols.append(k)
    return cols


def parse_content_rows(text: str | bytes, columns: Sequence[str] | None = None) -> list[dict[str, str | None]]:
    """Parse ``content query`` output. ``columns`` is the ``--projection`` list if you passed one.

    ``No result found.`` → ``[]``. Text with neither rows nor that line raises ``ParseError``
    (for example ``Error while accessing provider`` or a permission denial).
    With a single row and no ``columns``, a value that itself contains ``, word=`` cannot be
    told apart from a column: pass ``columns`` when you query.
    """
    t = normalize_text(text)
    bodies = _split_rows(t)
    if not bodies:
        if NO_RESULT in t:
            return []
        snippet = t.strip()[:200]
        raise ParseError("no `Row: n …` lines and no 'No result found.': not `content query` output"
                         + (f" ({snippet!r})" if snippet else " (empty)"))
    cols = list(columns) if columns else []
    agreed: list[str] | None = None
    rows: list[dict[str, str | None]] = []
    for body in bodies:
        parsed = _split_known(body, cols) if cols else None
        if parsed is None:
            if agreed is None:
                agreed = _agreed_columns(bodies)
            parsed = _split_known(body, agreed)
        if parsed is None:  # this row disagrees with the others: split at every candidate key
            parsed = _split_known(body, _candidate_keys(body)) or {}
        rows.append({k: (None if v == "NULL" else v) for k, v in parsed.items()})
    return rows
