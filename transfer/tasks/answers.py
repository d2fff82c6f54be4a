"""AnswerSheet: the typed fields a query task's ``Answer`` action must fill, and their matchers.

A policy answers in free text ("7:30 PM", "19:30", "１,２３４ km", "Ada Lovelace "). Judging
answers by string equality would fail correct answers and by VLM would misjudge some; each
field here declares a type, and the matcher parses the answer into that type and compares
values (with tolerances where the UI is imprecise). Parsers are strict by default — the text
must *be* the value, optionally with a declared unit — and ``loose: true`` lets a field accept
one value embedded in a sentence ("It's set for 7:30 AM").
"""

from __future__ import annotations

import math
import re
import unicodedata
from datetime import date
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .match import norm_text, phone_eq
from .params import MONTHS
from .results import CheckResult

if TYPE_CHECKING:
    from actionmap.worldstate import WorldState

FieldType = Literal["text", "number", "choice", "date", "time", "duration", "phone"]

# --------------------------------------------------------------------------------------- text
_EDGE_PUNCT = "".join(chr(c) for c in range(0x2000, 0x2070)) + "\"'`.,;:!?()[]{}<>«»“”‘’„‚‹›*_~-–—…¡¿、。，！？"


def _nfkc(s: str) -> str:
    return unicodedata.normalize("NFKC", s)


def clean_text(s: str) -> str:
    """NFKC + casefold + collapsed whitespace, with surrounding punctuation/quotes stripped."""
    t = norm_text(str(s))
    while t and (t[0] in _EDGE_PUNCT or t[-1] in _EDGE_PUNCT):
        t = t.strip(_EDGE_PUNCT).strip()
    return t


def text_matches(actual: str, expected: str, strip_words: list[str] | None = None) -> bool:
    a, e = clean_text(actual), clean_text(expected)
    if strip_words:
        drop = {clean_text(w) for w in strip_words}
        a = " ".join(w for w in a.split() if w not in drop)
        e = " ".join(w for w in e.split() if w not in drop)
    return a == e


# --------------------------------------------------------------------------------------- numbers
_NUM = re.compile(r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|[-+−]?\.\d+")


def parse_number(raw: Any, units: list[str] | None = None, loose: bool = False) -> float | None:
    """A number from ``42``, ``"42.0"``, ``"４２"``, ``"1,234"``, ``"42 km"`` (when km is a unit).

    Returns None when the text is not exactly one number (plus a declared unit), or, with
    ``loose``, when it holds no number or several different ones.
    """
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if math.isfinite(raw) else None
    s = _nfkc(str(raw)).strip()
    found = list(_NUM.finditer(s))
    if not found:
        return None
    values = {float(m.group(0).replace(",", "").replace("−", "-")) for m in found}
    if len(values) != 1:
        return None
    if not loose:
        if len(found) != 1:
            return None
        m = found[0]
        rest = clean_text((s[: m.start()] + " " + s[m.end():]).strip())
        if rest:
            allowed = {clean_text(u) for u in (units or [])}
            if rest not in allowed:
                return None
    return values.pop()


def number_matches(actual: Any, expected: Any, tol: float = 0.0, rel_tol: float = 0.0,
                   units: list[str] | None = None, loose: bool = False) -> bool:
    a = parse_number(actual, units, loose)
    e = parse_number(expected, units, True)
    if a is None or e is None:
        return False
    return abs(a - e) <= max(tol, rel_tol * abs(e)) + 1e-9


# --------------------------------------------------------------------------------------- times
_AMPM = r"(a\.?\s?m\.?|p\.?\s?m\.?)"
_TIME_FULL = re.compile(rf"^(\d{{1,2}})(?:\s*[:h.]\s*(\d{{2}})(?::(\d{{2}}))?)?\s*{_AMPM}?$")
_TIME_COMPACT = re.compile(rf"^(\d{{3,4}})\s*{_AMPM}?$")
_TIME_SEARCH = re.compile(rf"(?<![\d:.])(\d{{1,2}}(?:\s*[:h.]\s*\d{{2}}(?::\d{{2}})?)?\s*{_AMPM}?|\d{{3,4}}\s*{_AMPM})"
                          rf"(?![\d:])", re.I)


def parse_time(raw: Any, strict_ampm: bool = False, loose: bool = False) -> set[tuple[int, int]]:
    """Candidate (hour, minute) readings of a time answer; empty when it is not a time.

    ``7:30 PM``, ``7.30pm``, ``19:30``, ``1930``, ``730pm``, ``7 pm``, ``19h30``, ``noon``.
    Without AM/PM a 12-hour reading is ambiguous, so ``7:30`` yields both 07:30 and 19:30
    unless ``strict_ampm``. A bare ``7`` (no minutes, no AM/PM) is not a time.
    """
    if isinstance(raw, dict) and "hour" in raw:
        return {(int(raw["hour"]), int(raw.get("minute", 0)))}
    if raw is None or isinstance(raw, (bool, int, float)):
        return set()
    s = clean_text(str(raw)).replace("o'clock", "").replace("o’clock", "").strip()
    if s in ("noon", "midday", "12 noon"):
        return {(12, 0)}
    if s == "midnight":
        return {(0, 0)}
    out = _time_candidates(s, strict_ampm)
    if out or not loose:
        return out
    hits = [m.group(1) for m in _TIME_SEARCH.finditer(s)]
    readings = [_time_candidates(h.strip(), strict_ampm) for h in hits]
    readings = [r for r in readings if r]
    return readings[0] if len(readings) == 1 else set()


def _time_candidates(s: str, strict_ampm: bool) -> set[tuple[int, int]]:
    m = _TIME_FULL.match(s)
    if m:
        h, mi, ap = int(m.group(1)), int(m.group(2) or 0), m.group(4)
        if m.group(2) is None and ap is None:
            return set()
    else:
        m = _TIME_COMPACT.match(s)
        if not m:
            return set()
        d, ap = m.group(1), m.group(2)
        h, mi = int(d[:-2]), int(d[-2:])
    if mi > 59 or h > 23:
        return set()
    if ap:
        if not 1 <= h <= 12:
            return set()
        pm = ap.startswith("p")
        return {((h % 12) + (12 if pm else 0), mi)}
    if h > 12 or h == 0 or strict_ampm:
        return {(h, mi)}
    return {(h, mi), ((h + 12) % 24, mi)} if h != 12 else {(12, mi), (0, mi)}


def time_matches(actual: Any, expected: Any, minutes_tol: int = 0, strict_ampm: bool = False,
                 loose: bool = False) -> bool:
    exp = parse_time(expected, strict_ampm=True, loose=True)
    if len(exp) != 1:
        return False
    eh, em = next(iter(exp))
    for h, m in parse_time(actual, strict_ampm, loose):
        delta = abs((h * 60 + m) - (eh * 60 + em)) % 1440
        if min(delta, 1440 - delta) <= minutes_tol:
            return True
    return False


# --------------------------------------------------------------------------------------- dates
_MONTH_KEYS = {name.lower(): i + 1 for i, name in enumerate(MONTHS)}
_MONTH_KEYS.update({name[:3].lower(): i + 1 for i, name in enumerate(MONTHS)})
_MONTH_KEYS["sept"] = 9
_WEEKDAY_RE = r"(?:(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|urday)?\.?,?\s+)?"
_MON = r"([a-z]{3,9})\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_DATE_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})$"), "ymd"),
    (re.compile(r"^(\d{1,2})[-/.](\d{1,2})[-/.](\d{2}|\d{4})$"), "numeric"),
    (re.compile(rf"^{_WEEKDAY_RE}{_MON}\s+{_DAY}(?:,?\s+(\d{{4}}))?$"), "mdy_named"),
    (re.compile(rf"^{_WEEKDAY_RE}(?:the\s+)?{_DAY}(?:\s+of)?\s+{_MON},?(?:\s+(\d{{4}}))?$"), "dmy_named"),
]
_DATE_SEARCH = re.compile(
    r"(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{2,4}|"
    r"[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{1,2}(?:st|nd|rd|th)?(?:\s+of)?\s+[a-z]{3,9},?(?:\s+\d{4})?)"
)


def _ymd(y: int | None, m: int, d: int) -> tuple[int | None, int, int] | None:
    try:
        date(y or 2000, m, d)  # 2000 is a leap year, so Feb 29 without a year is allowed
    except ValueError:
        return None
    return (y, m, d)


def parse_date(raw: Any, order: str = "auto", loose: bool = False) -> set[tuple[int | None, int, int]]:
    """Readings (year or None, month, day) of a date answer; empty when it is not one.

    ISO ``2027-03-14``; ``March 14, 2027``; ``14 March 2027``; ``Sunday, March 14``;
    numeric ``14/03/2027`` read in the declared ``order`` (``dmy``/``mdy``; ``auto`` only
    when one part is over 12, so an ambiguous ``03/04/2027`` matches nothing).
    """
    if isinstance(raw, date):
        return {(raw.year, raw.month, raw.day)}
    if isinstance(raw, dict) and "iso" in raw:
        raw = raw["iso"]
    if raw is None or isinstance(raw, (bool, int, float)):
        return set()
    s = clean_text(str(raw))
    out = _date_candidates(s, order)
    if out or not loose:
        return out
    readings = [r for r in (_date_candidates(clean_text(m.group(1)), order) for m in _DATE_SEARCH.finditer(s)) if r]
    return readings[0] if len(readings) == 1 else set()


def _date_candidates(s: str, order: str) -> set[tuple[int | None, int, int]]:
    for pat, kind in _DATE_PATTERNS:
        m = pat.match(s)
        if not m:
            continue
        if kind == "ymd":
            r = _ymd(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            return {r} if r else set()
        if kind == "numeric":
            a, b, y = int(m.group(1)), int(m.group(2)), int(m.group(3))
            y = y + 2000 if y < 100 else y
            if order == "dmy" or (order == "auto" and a > 12 >= b):
                r = _ymd(y, b, a)
            elif order == "mdy" or (order == "auto" and b > 12 >= a):
                r = _ymd(y, a, b)
            elif order == "auto" and a == b:
                r = _ymd(y, a, b)
            else:
                r = None
            return {r} if r else set()
        if kind == "mdy_named":
            mon, day, year = m.group(1), m.group(2), m.group(3)
        else:
            day, mon, year = m.group(1), m.group(2), m.group(3)
        mi = _MONTH_KEYS.get(mon.lower().rstrip("."))
        if mi is None:
            continue
        r = _ymd(int(year) if year else None, mi, int(day))
        return {r} if r else set()
    return set()


def date_matches(actual: Any, expected: Any, order: str = "auto", year_optional: bool = True,
                 loose: bool = False) -> bool:
    exp = parse_date(expected, "auto")
    if len(exp) != 1:
        return False
    ey, em, ed = next(iter(exp))
    for y, m, d in parse_date(actual, order, loose):
        if (m, d) == (em, ed) and (y == ey or (y is None and year_optional)):
            return True
    return False


# --------------------------------------------------------------------------------------- durations
_DUR_UNITS = {
    "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
    "m": 60, "min": 60, "mins": 60, "minute": 60, "minutes": 60,
    "s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1,
}
_DUR_PART = re.compile(r"(\d+(?:\.\d+)?|an?|half an?)\s*(hours|hour|hrs|hr|h|minutes|minute|mins|min|m|seconds|second|secs|sec|s)\b")
_DUR_CLOCK = re.compile(r"^(\d{1,3}):(\d{2})(?::(\d{2}))?$")


def parse_duration(raw: Any, clock: str = "hm", bare_unit: str | None = None) -> float | None:
    """Seconds from ``1h 30m``, ``90 min``, ``01:30:00``, ``1 hour and 30 minutes``, ``half an hour``.

    ``1:30`` is read by ``clock``: ``hm`` (1 h 30 min) or ``ms`` (1 min 30 s). A bare number is
    read in ``bare_unit`` (``s``/``min``/``h``) when the field declares one, else rejected.
    """
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, (int, float)):
        return float(raw) * _DUR_UNITS[bare_unit] if bare_unit and math.isfinite(raw) else None
    s = clean_text(str(raw))
    m = _DUR_CLOCK.match(s)
    if m:
        a, b, c = int(m.group(1)), int(m.group(2)), m.group(3)
        if c is not None:
            return a * 3600 + b * 60 + int(c)
        return a * 3600 + b * 60 if clock == "hm" else a * 60 + b
    if bare_unit:
        try:
            return float(s.replace(",", "")) * _DUR_UNITS[bare_unit]
        except ValueError:
            pass
    total, pos, seen = 0.0, 0, False
    rest = s
    for pm in _DUR_PART.finditer(s):
        gap = s[pos:pm.start()].strip(" ,")
        if gap not in ("", "and"):
            return None
        qty = pm.group(1)
        n = 0.5 if qty.startswith("half") else (1.0 if qty in ("a", "an") else float(qty))
        total += n * _DUR_UNITS[pm.group(2)]
        pos, seen = pm.end(), True
    rest = s[pos:].strip(" ,")
    if not seen or rest:
        return None
    return total


def duration_matches(actual: Any, expected: Any, seconds_tol: float = 0.0, clock: str = "hm",
                     bare_unit: str | None = None) -> bool:
    a = parse_duration(actual, clock, bare_unit)
    e = parse_duration(expected, clock, "s" if isinstance(expected, (int, float)) else bare_unit)
    if a is None or e is None:
        return False
    return abs(a - e) <= seconds_tol + 1e-9


# --------------------------------------------------------------------------------------- repeated
_SPLIT = re.compile(r"\s*(?:;|\n|&|\band\b|,(?!\d{3}(?!\d))(?!\s*\d{4}(?!\d)))\s*", re.I)


def split_items(raw: Any) -> list[Any]:
    """A list answer from a list, or from ``"a, b and c"`` / ``"a; b"`` / lines."""
    if isinstance(raw, (list, tuple)):
        return list(raw)
    if raw is None:
        return []
    parts = [p.strip() for p in _SPLIT.split(_nfkc(str(raw)))]
    return [p for p in parts if p and clean_text(p) not in ("", "and")]


_YES_NO = {"yes": ["y", "yes", "on", "enabled", "true", "turned on", "it is on", "yes it is"],
           "no": ["n", "no", "off", "disabled", "false", "turned off", "it is off", "no it is not", "no it isn't"]}


class AnswerField(BaseModel):
    """One typed field of a query task's answer."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1)
    type: FieldType
    description: str = ""
    expected: Any = Field(None, description="The right value (after parameters are bound).")
    from_state: str | None = Field(None, description="Read the right value from this path of the before-state.")
    hook: str | None = Field(None, description="Compute the right value from the before-state (hooks.ANSWER_HOOKS).")
    args: dict[str, Any] = Field(default_factory=dict)
    repeated: Literal["set", "sequence"] | None = None
    loose: bool = Field(False, description="Accept one value embedded in a sentence.")
    # number
    tol: float = Field(0.0, ge=0)
    rel_tol: float = Field(0.0, ge=0)
    unit: str | None = None
    unit_aliases: list[str] = Field(default_factory=list)
    # time
    minutes_tol: int = Field(0, ge=0)
    strict_ampm: bool = False
    # date
    date_order: Literal["auto", "dmy", "mdy"] = "auto"
    year_optional: bool = True
    # duration
    seconds_tol: float = Field(0.0, ge=0)
    clock: Literal["hm", "ms"] = "hm"
    bare_unit: Literal["s", "min", "h"] | None = None
    # choice
    options: list[str] = Field(default_factory=list)
    aliases: dict[str, list[str]] = Field(default_factory=dict)
    # text
    strip_words: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _source(self) -> "AnswerField":
        n = sum(x is not None for x in (self.expected, self.from_state, self.hook))
        if n > 1:
            raise ValueError(f"answer field {self.name!r}: give only one of expected, from_state, hook")
        if self.type == "choice" and not self.options:
            raise ValueError(f"choice field {self.name!r} needs options")
        unknown = set(self.aliases) - set(self.options)
        if unknown:
            raise ValueError(f"choice field {self.name!r}: aliases for unknown options {sorted(unknown)}")
        return self

    @property
    def units(self) -> list[str]:
        return ([self.unit] if self.unit else []) + list(self.unit_aliases)

    def choice_of(self, raw: Any) -> str | None:
        """The canonical option an answer names, or None."""
        t = clean_text(str(raw))
        for opt in self.options:
            names = [opt] + self.aliases.get(opt, []) + (_YES_NO.get(opt, []) if opt in _YES_NO and
                                                          not self.aliases.get(opt) else [])
            if any(t == clean_text(n) for n in names):
                return opt
        return None

    def one_matches(self, actual: Any, expected: Any) -> bool:
        """Does one answer value match one expected value?"""
        if actual is None:
            return False
        t = self.type
        if t == "text":
            return text_matches(str(actual), str(expected), self.strip_words)
        if t == "number":
            return number_matches(actual, expected, self.tol, self.rel_tol, self.units, self.loose)
        if t == "time":
            return time_matches(actual, expected, self.minutes_tol, self.strict_ampm, self.loose)
        if t == "date":
            return date_matches(actual, expected, self.date_order, self.year_optional, self.loose)
        if t == "duration":
            return duration_matches(actual, expected, self.seconds_tol, self.clock, self.bare_unit)
        if t == "choice":
            got = self.choice_of(actual)
            return got is not None and got == self.choice_of(expected)
        if t == "phone":
            return phone_eq(str(actual), str(expected))
        return False

    def matches(self, actual: Any, expected: Any) -> bool:
        if self.repeated is None:
            if isinstance(actual, list):
                return len(actual) == 1 and self.one_matches(actual[0], expected)
            return self.one_matches(actual, expected)
        got = split_items(actual)
        want = expected if isinstance(expected, list) else split_items(expected)
        if len(got) != len(want):
            return False
        if self.repeated == "sequence":
            return all(self.one_matches(a, e) for a, e in zip(got, want))
        left = list(got)
        for e in want:
            for i, a in enumerate(left):
                if self.one_matches(a, e):
                    del left[i]
                    break
            else:
                return False
        return True

    def needs(self) -> list[str]:
        if self.from_state:
            return [self.from_state]
        if self.hook:
            from .hooks import ANSWER_HOOKS

            h = ANSWER_HOOKS.get(self.hook)
            return list(h.needs) if h else []
        return []


class AnswerSheet(BaseModel):
    """The fields a query task's answer must fill (``Answer(fields={name: value})``)."""

    model_config = ConfigDict(extra="forbid")
    fields: list[AnswerField] = Field(min_length=1)

    @model_validator(mode="after")
    def _unique(self) -> "AnswerSheet":
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate answer field names: {names}")
        return self

    def format_hint(self) -> str:
        """A one-line description a policy prompt can append ("answer with fields ...")."""
        parts = []
        for f in self.fields:
            kind = f.type + (f" list ({f.repeated})" if f.repeated else "")
            if f.type == "choice":
                kind += " of " + "/".join(f.options)
            parts.append(f'"{f.name}": <{kind}>')
        return "{" + ", ".join(parts) + "}"

    def expected_value(self, f: AnswerField, before: "WorldState | None") -> tuple[Any, str]:
        """The right answer for a field, and a reason when it cannot be known on this backend."""
        if f.from_state:
            v = before.get_path(f.from_state) if before is not None else None
            return (v, "") if v is not None else (None, f"{f.from_state} is unknown on this backend")
        if f.hook:
            from .hooks import ANSWER_HOOKS

            h = ANSWER_HOOKS.get(f.hook)
            if h is None:
                return None, f"unknown answer hook {f.hook!r}"
            if before is None:
                return None, "no before-state to compute the answer from"
            v = h.fn(f.args, before)
            return (v, "") if v is not None else (None, f"{', '.join(h.needs) or 'state'} unknown on this backend")
        return f.expected, ""

    def score(self, answer: dict[str, Any] | None, before: "WorldState | None" = None) -> list[CheckResult]:
        """One CheckResult per field. A missing answer or field fails; an unknowable expected
        value is undetermined. A one-field sheet accepts a one-field answer under any name."""
        given = dict(answer or {})
        folded = {clean_text(k): v for k, v in given.items()}
        out: list[CheckResult] = []
        for f in self.fields:
            exp, why = self.expected_value(f, before)
            name = f"answer.{f.name}"
            if exp is None:
                unknown = f.from_state or ",".join(f.needs()) or name
                out.append(CheckResult(name=name, field=unknown, expected=None, actual=given.get(f.name),
                                       undetermined=True, detail=why or "no expected value"))
                continue
            if f.name in given:
                actual = given[f.name]
            elif clean_text(f.name) in folded:
                actual = folded[clean_text(f.name)]
            elif len(self.fields) == 1 and len(given) == 1:
                actual = next(iter(given.values()))
            else:
                actual = None
            ok = actual is not None and self.matches_field(f, actual, exp)
            detail = "" if ok else ("no answer given" if actual is None else "answer does not match")
            out.append(CheckResult(name=name, field=name, expected=exp, actual=actual, passed=ok, detail=detail))
        return out

    @staticmethod
    def matches_field(f: AnswerField, actual: Any, expected: Any) -> bool:
        try:
            return f.matches(actual, expected)
        except (ValueError, TypeError, OverflowError):
            return False

    def oracle_answer(self, before: "WorldState | None" = None) -> dict[str, Any]:
        """A correct answer rendered as a policy would write it (used by oracle/tests)."""
        out: dict[str, Any] = {}
        for f in self.fields:
            exp, _ = self.expected_value(f, before)
            out[f.name] = _render_answer(f, exp)
        return out


def _render_answer(f: AnswerField, v: Any) -> Any:
    if isinstance(v, list):
        return [_render_answer(f, x) for x in v]
    if f.type == "time" and isinstance(v, dict):
        return v.get("text12") or f"{v['hour']:02d}:{v['minute']:02d}"
    if f.type == "date" and isinstance(v, dict):
        return v.get("text") or v.get("iso")
    if f.type == "duration" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return format_duration(float(v))
    if isinstance(v, (dict,)) and "text" in v:
        return v["text"]
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return v if isinstance(v, str) else str(v)


def format_duration(seconds: float) -> str:
    """``5430`` → ``"1 h 30 min 30 s"`` (what a person would write)."""
    total = round(seconds)
    h, rem = divmod(total, 3600)
    m, sec = divmod(rem, 60)
    parts = [f"{h} h" if h else "", f"{m} min" if m else "", f"{sec} s" if sec or not total else ""]
    return " ".join(p for p in parts if p)
