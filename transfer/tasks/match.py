"""Typed comparison of state values against goal values.

Goals are written once as data and must hold on two backends that store the same fact in
different spellings: a contact's number is ``+14155550134`` in the sim and ``(415) 555-0134``
in a phone's provider; ``/sdcard`` is ``/storage/emulated/0``; a title typed on a phone
keyboard may come back with a capital letter. So text compares after Unicode NFKC, case
folding and whitespace collapsing; phone numbers by digits; paths by normalized form; times
and dates as typed values.
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date, datetime
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel

Semantic = Literal["auto", "text", "phone", "address", "path", "exact"]
Op = Literal["eq", "ne", "contains", "not_contains", "startswith", "endswith", "approx", "gt", "ge", "lt", "le",
             "in", "date", "nonempty", "empty"]
OPS: tuple[str, ...] = Op.__args__  # type: ignore[attr-defined]

# (record kind, field) → how values of that field compare. Field checks use dotted paths.
FIELD_SEMANTICS: dict[tuple[str, str], Semantic] = {
    ("contacts", "phones"): "phone",
    ("calls", "number"): "phone",
    ("messages", "address"): "address",
    ("files", "path"): "path",
    ("files", "dir"): "path",
    ("files", "name"): "path",
    ("", "dialer_number"): "phone",
}


@lru_cache(maxsize=4096)
def norm_text(s: str) -> str:
    """NFKC, case-folded, whitespace collapsed — how a person would say two strings match."""
    return " ".join(unicodedata.normalize("NFKC", s).casefold().split())


@lru_cache(maxsize=4096)
def digits(s: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKC", s) if c.isdigit())


@lru_cache(maxsize=8192)
def phone_eq(a: str, b: str) -> bool:
    """Same number: equal digits, or equal up to a country code (as Android's loose compare)."""
    da, db = digits(str(a)), digits(str(b))
    if not da or not db:
        return False
    if da == db:
        return True
    short, long_ = sorted((da, db), key=len)
    return len(short) >= 7 and long_.endswith(short) and len(long_) - len(short) <= 3


_STORAGE = re.compile(r"^/(?:storage/emulated/0|storage/self/primary|mnt/sdcard|sdcard)(?=/|$)")


@lru_cache(maxsize=4096)
def norm_path(p: str) -> str:
    """Shared storage paths compare case-insensitively (Android's /sdcard is), aliases unified."""
    s = unicodedata.normalize("NFKC", str(p)).strip()
    s = re.sub(r"/+", "/", s)
    s = _STORAGE.sub("/sdcard", s)
    if len(s) > 1:
        s = s.rstrip("/")
    return s.casefold()


def to_datetime(v: Any) -> datetime | date | None:
    """A datetime (or a date, for a date-only value) from a value or ISO text; None if not one."""
    if isinstance(v, datetime):
        return v
    if isinstance(v, date):
        return v
    if isinstance(v, str):
        s = v.strip()
        try:
            if len(s) == 10:
                return date.fromisoformat(s)
            return datetime.fromisoformat(s.replace("Z", "+00:00")).replace(tzinfo=None)
        except ValueError:
            return None
    return None


def _scalar_eq(actual: Any, expected: Any, sem: Semantic) -> bool:
    if actual is None or expected is None:
        return actual is None and expected is None
    if sem == "phone":
        return phone_eq(str(actual), str(expected))
    if sem == "address":
        if len(digits(str(expected))) >= 3:
            return phone_eq(str(actual), str(expected))
        return norm_text(str(actual)) == norm_text(str(expected))
    if sem == "path":
        return norm_path(str(actual)) == norm_path(str(expected))
    if sem == "exact":
        return actual == expected
    if isinstance(expected, bool) or isinstance(actual, bool):
        return isinstance(actual, bool) and isinstance(expected, bool) and actual == expected
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(actual, (datetime, date)) or isinstance(expected, (datetime, date)):
        a, e = to_datetime(actual), to_datetime(expected)
        if a is None or e is None:
            return False
        if type(e) is date and isinstance(a, datetime):
            return a.date() == e
        if type(a) is date and isinstance(e, datetime):
            return e.date() == a
        return a == e
    if isinstance(actual, str) and isinstance(expected, str):
        return norm_text(actual) == norm_text(expected)
    if isinstance(actual, str) and isinstance(expected, (int, float)):
        try:
            return math.isclose(float(actual), float(expected), rel_tol=1e-9, abs_tol=1e-9)
        except ValueError:
            return False
    return actual == expected


def _multiset_eq(actual: list[Any], expected: list[Any], sem: Semantic) -> bool:
    if len(actual) != len(expected):
        return False
    left = list(actual)
    for e in expected:
        for i, a in enumerate(left):
            if _scalar_eq(a, e, sem):
                del left[i]
                break
        else:
            return False
    return True


def values_equal(actual: Any, expected: Any, sem: Semantic = "auto") -> bool:
    """Typed equality; a list field equals a scalar when it holds exactly that one value."""
    if isinstance(actual, (list, tuple)):
        exp = list(expected) if isinstance(expected, (list, tuple)) else [expected]
        return _multiset_eq(list(actual), exp, sem)
    if isinstance(expected, (list, tuple)):
        return False
    return _scalar_eq(actual, expected, sem)


def _num(v: Any) -> float | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    if isinstance(v, str):
        try:
            return float(unicodedata.normalize("NFKC", v).replace(",", "").strip())
        except ValueError:
            return None
    return None


def _contains(actual: Any, expected: Any, sem: Semantic) -> bool:
    if isinstance(actual, (list, tuple)):
        return any(_scalar_eq(a, expected, sem) for a in actual)
    if actual is None:
        return False
    if sem in ("phone",):
        return digits(str(expected)) in digits(str(actual))
    if sem == "path":
        return norm_path(str(expected)) in norm_path(str(actual))
    return norm_text(str(expected)) in norm_text(str(actual))


def compare(op: str, actual: Any, expected: Any, sem: Semantic = "auto", tol: float | None = None,
            rel_tol: float | None = None) -> bool:
    """Apply one goal operator. Unknown state (``None``) is handled by the caller, not here."""
    if op == "eq":
        return values_equal(actual, expected, sem)
    if op == "ne":
        return not values_equal(actual, expected, sem)
    if op == "contains":
        return _contains(actual, expected, sem)
    if op == "not_contains":
        return not _contains(actual, expected, sem)
    if op in ("startswith", "endswith"):
        if actual is None:
            return False
        f = norm_path if sem == "path" else norm_text
        a, e = f(str(actual)), f(str(expected))
        return a.startswith(e) if op == "startswith" else a.endswith(e)
    if op == "in":
        options = expected if isinstance(expected, (list, tuple)) else [expected]
        return any(values_equal(actual, o, sem) for o in options)
    if op == "date":
        a, e = to_datetime(actual), to_datetime(expected)
        if a is None or e is None:
            return False
        return (a.date() if isinstance(a, datetime) else a) == (e.date() if isinstance(e, datetime) else e)
    if op == "nonempty":
        return bool(actual)
    if op == "empty":
        return not actual
    a, e = _num(actual), _num(expected)
    if a is None or e is None:
        if op in ("gt", "ge", "lt", "le"):
            da, de = to_datetime(actual), to_datetime(expected)
            if da is not None and de is not None and type(da) is type(de):
                return {"gt": da > de, "ge": da >= de, "lt": da < de, "le": da <= de}[op]  # type: ignore[operator]
        return False
    if op == "approx":
        bound = max(tol or 0.0, (rel_tol or 0.0) * abs(e))
        return abs(a - e) <= bound + 1e-9
    return {"gt": a > e, "ge": a >= e, "lt": a < e, "le": a <= e}[op]


# --------------------------------------------------------------------------------------- records
def record_get(rec: Any, kind: str, field: str) -> Any:
    """Read a record field, including a few virtual ones (a file's ``name`` and ``dir``)."""
    if kind == "world_clocks":
        return rec if field in ("city", "name") else None
    if kind == "files" and field in ("name", "dir"):
        path = record_get(rec, kind, "path") or ""
        head, _, tail = str(path).rstrip("/").rpartition("/")
        return tail if field == "name" else (head or "/")
    if kind == "events" and field == "date":
        start = record_get(rec, kind, "start")
        return start.date() if isinstance(start, datetime) else to_datetime(start)
    v = getattr(rec, field, None) if isinstance(rec, BaseModel) else (rec.get(field) if isinstance(rec, dict) else None)
    if kind == "contacts" and field == "phones" and isinstance(v, list):
        return [p.number if isinstance(p, BaseModel) else (p.get("number") if isinstance(p, dict) else p) for p in v]
    if kind == "events" and field in ("start", "end") and isinstance(v, str):
        return to_datetime(v)
    return v


def semantic_for(kind: str, field: str, override: str | None = None) -> Semantic:
    if override:
        return override  # type: ignore[return-value]
    return FIELD_SEMANTICS.get((kind, field), "auto")
