"""Typed parameter spaces for task templates, and the placeholder language that uses them.

A template's parameters are sampled in declaration order from a ``random.Random`` seeded by
(template id, seed), so an instance is the same in every process. Values are plain JSON
(ints, strings, lists, and small dicts for compound values such as a time), because a
``TaskInstance`` must survive a round trip through ``episodes.jsonl``.

Dates are always explicit calendar dates (``2027-03-14``), never "tomorrow": a real phone's
clock cannot be set, so "tomorrow" would mean a different day on every run.

Placeholders: ``{name}``, ``{name.field}``, ``{name:02d}``; ``{{``/``}}`` are literal braces.
A string that is *exactly* one placeholder is replaced by the typed value (an int stays an
int); anywhere else the value is rendered as text. In a list, ``"{*name}"`` splices a list.
"""

from __future__ import annotations

import ast
import calendar
import operator
import random
import re
import unicodedata
from datetime import date, timedelta
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, model_validator

# --------------------------------------------------------------------------------------- pools
# Fictional people; a minority carry non-ASCII letters so that typing and matching of
# Unicode names is exercised on both backends.
FIRST_NAMES: tuple[str, ...] = (
    "Ada", "Alan", "Grace", "Linus", "Maya", "Omar", "Priya", "Noah", "Elena", "Hiro", "Fatima", "Lucas",
    "Amara", "Daniel", "Sofia", "Tomás", "Zoë", "José", "Chloé", "Björn", "Łukasz", "Søren", "Renée", "Siobhán",
    "Mei", "Ravi", "Ines", "Kwame", "Hannah", "Mateo", "Yuki", "Leila",
)
LAST_NAMES: tuple[str, ...] = (
    "Lovelace", "Turing", "Hopper", "Carter", "Nguyen", "Patel", "Okafor", "Schmidt", "Rossi", "Tanaka",
    "Kim", "Silva", "Novak", "Haddad", "Larsen", "Murphy", "Dubois", "Müller", "García", "Fernández",
    "Ødegaard", "Kowalski", "Åberg", "Nakamura", "Mendes", "Walsh", "Ibrahim", "Chen", "Brooks", "Reyes",
)
POOLS: dict[str, tuple[str, ...]] = {
    "first_names": FIRST_NAMES,
    "last_names": LAST_NAMES,
    "companies": ("Acme Corp", "Globex", "Initech", "Umbrella Labs", "Stark Industries", "Wayne Enterprises",
                  "Hooli", "Vandelay Imports", "Soylent Foods", "Cyberdyne", "Café Lumière", "Müller & Söhne"),
    "alarm_labels": ("Gym", "Bedtime", "Medication", "Yoga", "School run", "Standup", "Take out trash",
                     "Water plants", "Call mom", "Café run"),
    "event_titles": ("Dentist appointment", "Team lunch", "Project review", "Piano lesson", "Book club",
                     "Parent-teacher meeting", "Haircut", "Flight to Lisbon", "Soccer practice", "Car service",
                     "Dinner with Zoë", "Yoga class", "Budget meeting", "Vet visit"),
    "locations": ("Room 204", "Blue Bottle Café", "City Library", "Main Street Clinic", "Central Park",
                  "Office HQ", "Gate B12", "Town Hall", "Café Rouge", "Pier 39"),
    "message_bodies": ("Running 10 minutes late", "See you at the station", "Can you call me back?",
                       "Dinner is at 7", "Thanks for today!", "Meeting moved to Friday", "Don't forget the keys",
                       "Happy birthday!", "On my way", "Let's meet at the café", "Bring the charger please",
                       "Tickets are booked"),
    "reply_bodies": ("Sounds good", "See you soon", "Thanks!", "I'll be there", "Got it", "Perfect, merci !",
                     "No problem", "Call you later"),
    "cities": ("Tokyo", "Lagos", "Paris", "Nairobi", "Sydney", "Berlin", "Dubai", "Singapore", "Toronto",
               "Mumbai", "Mexico City", "São Paulo", "Seoul", "Cairo", "Reykjavík"),
    "folder_names": ("Receipts", "Taxes 2027", "Travel", "Recipes", "Invoices", "Scans", "Résumés", "Contracts",
                     "Manuals", "Tickets"),
    "file_names": ("invoice_0317.pdf", "boarding_pass.pdf", "IMG_2041.jpg", "notes.txt", "résumé.pdf",
                   "lease_agreement.pdf", "holiday_photo.png", "budget_2027.xlsx", "recipe_paella.txt",
                   "meeting_notes.docx", "scan_0042.pdf", "map_lisbon.png"),
    "new_file_stems": ("final_report", "tax_return", "trip_itinerary", "warranty", "payslip_march",
                       "photo_beach", "contract_signed", "shopping_list"),
    "device_names": ("Ada's Phone", "Kitchen Pixel", "Work phone", "Travel phone", "Zoë's Android"),
}

MONTHS = tuple(calendar.month_name[i] for i in range(1, 13))
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
DAY_CODES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class ParamError(ValueError):
    """A parameter space or placeholder that cannot produce a value."""


# --------------------------------------------------------------------------------------- values
def time_value(hour: int, minute: int, render: str = "12h") -> dict[str, Any]:
    """A time of day as every template might need to say or check it."""
    h12 = hour % 12 or 12
    ampm = "AM" if hour < 12 else "PM"
    text12 = f"{h12}:{minute:02d} {ampm}"
    text24 = f"{hour:02d}:{minute:02d}"
    return {"hour": hour, "minute": minute, "h12": h12, "ampm": ampm, "text12": text12, "text24": text24,
            "h24": text24, "text": text12 if render == "12h" else text24}


def date_value(d: date) -> dict[str, Any]:
    return {"iso": d.isoformat(), "year": d.year, "month": d.month, "day": d.day,
            "month_name": MONTHS[d.month - 1], "weekday": WEEKDAYS[d.weekday()],
            "text": f"{MONTHS[d.month - 1]} {d.day}, {d.year}",
            "long": f"{WEEKDAYS[d.weekday()]}, {MONTHS[d.month - 1]} {d.day}, {d.year}"}


def name_value(first: str, last: str) -> dict[str, Any]:
    full = f"{first} {last}"
    return {"first": first, "last": last, "full": full, "text": full}


def ascii_fold(s: str) -> str:
    """Fold to ASCII for identifiers such as e-mail local parts (``Łukasz Åberg`` → ``lukasz.aberg``)."""
    s = s.replace("ł", "l").replace("Ł", "L").replace("ø", "o").replace("Ø", "O").replace("ß", "ss")
    s = unicodedata.normalize("NFKD", s)
    return "".join(c for c in s if not unicodedata.combining(c) and ord(c) < 128)


def phone_value(area: int, line: int, style: int) -> dict[str, Any]:
    """A fictional North-American number (555-01xx is reserved for fiction)."""
    digits = f"{area}5550{line:03d}"[:10]
    e164 = "+1" + digits
    styles = (f"+1 {area} 555 0{line:03d}", f"({area}) 555-0{line:03d}", f"{area}-555-0{line:03d}")
    return {"e164": e164, "digits": digits, "national": styles[1], "text": styles[style % len(styles)]}


def render_value(v: Any) -> str:
    """How a value reads inside an instruction: compound values by their ``text``."""
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, dict):
        if "text" in v:
            return str(v["text"])
        raise ParamError(f"compound value {sorted(v)} has no 'text'; name a field, e.g. {{x.{next(iter(v))}}}")
    if isinstance(v, (list, tuple)):
        parts = [render_value(x) for x in v]
        if len(parts) <= 1:
            return "".join(parts)
        return ", ".join(parts[:-1]) + " and " + parts[-1]
    return str(v)


# --------------------------------------------------------------------------------------- specs
class _Param(BaseModel):
    model_config = ConfigDict(extra="forbid")
    distinct_from: list[str] = Field(default_factory=list,
                                     description="Resample until the value differs from these earlier params.")
    k: int | None = Field(None, ge=1, description="Sample k distinct values (a list) instead of one.")

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def sample(self, rng: random.Random, env: dict[str, Any]) -> Any:
        avoid = [env[n] for n in self.distinct_from]
        for _ in range(200):
            if self.k is None:
                v = self.sample_one(rng, env)
                if not any(_same(v, a) for a in avoid):
                    return v
            else:
                out: list[Any] = []
                for _ in range(200):
                    v = self.sample_one(rng, env)
                    if not any(_same(v, a) for a in avoid + out):
                        out.append(v)
                    if len(out) == self.k:
                        return out
        raise ParamError(f"could not sample a value distinct from {self.distinct_from} (space too small?)")


def _key_of(v: Any) -> Any:
    if isinstance(v, dict):
        for k in ("value", "e164", "iso", "full", "text"):
            if k in v:
                return v[k] if not isinstance(v[k], str) else v[k].casefold()
        if "hour" in v and "minute" in v:
            return (v["hour"], v["minute"])
        return tuple(sorted(v.items()))
    if isinstance(v, list):
        return tuple(_key_of(x) for x in v)
    return v.casefold() if isinstance(v, str) else v


def _same(a: Any, b: Any) -> bool:
    """Equality for ``distinct_from``: a list of values is 'the same' as any of its members."""
    if isinstance(b, list) and not isinstance(a, list):
        return any(_same(a, x) for x in b)
    if isinstance(a, list) and not isinstance(b, list):
        return any(_same(x, b) for x in a)
    if isinstance(a, dict) and isinstance(b, dict) and "hour" in a and "hour" in b:
        return (a["hour"], a["minute"]) == (b["hour"], b["minute"])
    if isinstance(a, dict) and isinstance(b, dict) and "full" in a and "full" in b:
        return a["first"] == b["first"] or a["last"] == b["last"]  # avoid near-duplicate people
    return _key_of(a) == _key_of(b)


class ChoiceParam(_Param):
    """One of a list of values; a value may be a dict (e.g. ``{value: 0.85, text: Small}``)."""

    type: Literal["choice", "enum"]
    values: list[Any] = Field(min_length=1)
    weights: list[float] | None = None

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        if self.weights:
            return rng.choices(self.values, weights=self.weights, k=1)[0]
        return rng.choice(self.values)


class IntParam(_Param):
    type: Literal["int"]
    min: int
    max: int
    step: int = Field(1, ge=1)

    @model_validator(mode="after")
    def _range(self) -> "IntParam":
        if self.max < self.min:
            raise ValueError(f"int range max {self.max} < min {self.min}")
        return self

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        return rng.randrange(self.min, self.max + 1, self.step)


class TimeParam(_Param):
    """A time of day; ``render`` picks how ``{t}`` reads: 12-hour, 24-hour, or either by seed."""

    type: Literal["time"]
    hours: tuple[int, int] = (0, 23)
    minute_step: int = Field(5, ge=1, le=60)
    minutes: list[int] | None = None
    render: Literal["12h", "24h", "mixed"] = "mixed"

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        lo, hi = self.hours
        if not (0 <= lo <= hi <= 23):
            raise ParamError(f"hours {self.hours} must satisfy 0 <= lo <= hi <= 23")
        hour = rng.randint(lo, hi)
        minute = rng.choice(self.minutes) if self.minutes else rng.randrange(0, 60, self.minute_step)
        render = self.render if self.render != "mixed" else rng.choice(("12h", "24h"))
        return time_value(hour, minute, render)


class DateParam(_Param):
    """An explicit calendar date: from ``dates``, or uniformly within [start, end]."""

    type: Literal["date"]
    dates: list[date] | None = None
    start: date | None = None
    end: date | None = None
    weekdays_only: bool = False

    @model_validator(mode="after")
    def _src(self) -> "DateParam":
        if not self.dates and not (self.start and self.end):
            raise ValueError("a date param needs 'dates' or both 'start' and 'end'")
        if self.start and self.end and self.end < self.start:
            raise ValueError("date param: end before start")
        return self

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        if self.dates:
            d = rng.choice(self.dates)
        else:
            assert self.start and self.end
            for _ in range(100):
                d = self.start + timedelta(days=rng.randint(0, (self.end - self.start).days))
                if not self.weekdays_only or d.weekday() < 5:
                    break
        return date_value(d)


class NameParam(_Param):
    """A person's name from the built-in pools (some non-ASCII)."""

    type: Literal["name"]
    part: Literal["full", "first", "last"] = "full"

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        v = name_value(rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES))
        return v if self.part == "full" else v[self.part]


class StringParam(_Param):
    """A string from a named pool (see ``POOLS``) or an inline list."""

    type: Literal["string"]
    pool: str | None = None
    values: list[str] | None = None

    @model_validator(mode="after")
    def _src(self) -> "StringParam":
        if (self.pool is None) == (self.values is None):
            raise ValueError("a string param needs exactly one of 'pool' or 'values'")
        if self.pool is not None and self.pool not in POOLS:
            raise ValueError(f"unknown pool {self.pool!r}; known: {sorted(POOLS)}")
        return self

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        return rng.choice(self.values if self.values is not None else POOLS[self.pool or ""])


class PhoneParam(_Param):
    """A fictional phone number (``+1 AAA 555 01xx``), rendered in one of three common styles."""

    type: Literal["phone"]
    style: Literal["mixed", "intl", "national", "dashed"] = "mixed"

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        area = rng.choice((206, 212, 303, 312, 415, 503, 617, 702))
        line = rng.randint(100, 199)
        style = {"intl": 0, "national": 1, "dashed": 2}.get(self.style, rng.randrange(3))
        return phone_value(area, line, style)


class DerivedParam(_Param):
    """A value computed from earlier ones: a safe expression, or a Python hook (``hooks.py``)."""

    type: Literal["derived"]
    expr: str | None = None
    hook: str | None = None
    args: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _src(self) -> "DerivedParam":
        if (self.expr is None) == (self.hook is None):
            raise ValueError("a derived param needs exactly one of 'expr' or 'hook'")
        if self.expr is not None:
            compile_expr(self.expr)
        return self

    def sample_one(self, rng: random.Random, env: dict[str, Any]) -> Any:
        if self.expr is not None:
            return eval_expr(self.expr, env)
        from .hooks import PARAM_HOOKS

        fn = PARAM_HOOKS.get(self.hook or "")
        if fn is None:
            raise ParamError(f"unknown param hook {self.hook!r}; known: {sorted(PARAM_HOOKS)}")
        return fn(rng, env, resolve(self.args, env))


ParamSpec = Annotated[
    Union[ChoiceParam, IntParam, TimeParam, DateParam, NameParam, StringParam, PhoneParam, DerivedParam],
    Field(discriminator="type"),
]


def sample_params(specs: dict[str, Any], rng: random.Random, context: dict[str, Any] | None = None) -> dict[str, Any]:
    """Sample every parameter in declaration order; later ones may use earlier ones."""
    env: dict[str, Any] = dict(context or {})
    out: dict[str, Any] = {}
    for name, spec in specs.items():
        for dep in spec.distinct_from:
            if dep not in env:
                raise ParamError(f"param {name!r}: distinct_from names {dep!r}, which is not defined before it")
        v = spec.sample(rng, env)
        env[name] = v
        out[name] = v
    return out


# --------------------------------------------------------------------------------------- safe expressions
_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
        ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_CMP = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
        ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}


def _fmt_num(x: float | int) -> str:
    """A number as a calculator shows it: no trailing ``.0``, no float noise."""
    if isinstance(x, float) and x.is_integer():
        x = int(x)
    return str(round(x, 10)) if isinstance(x, float) else str(x)


_FUNCS: dict[str, Callable[..., Any]] = {
    "min": min, "max": max, "abs": abs, "round": round, "int": int, "float": float, "str": str, "len": len,
    "sorted": sorted, "sum": sum, "num": _fmt_num, "ascii": ascii_fold, "lower": lambda s: str(s).lower(),
    "pct255": lambda p: round(p * 255 / 100),
    "ext": lambda name: ("." + str(name).rpartition(".")[2]) if "." in str(name) else "",
    "basename": lambda path: str(path).rstrip("/").rpartition("/")[2],
    "stem": lambda name: str(name).rpartition(".")[0] if "." in str(name) else str(name), "time": time_value, "date": lambda s: date_value(date.fromisoformat(s)),
    "add_minutes": lambda t, m: time_value(((t["hour"] * 60 + t["minute"] + m) // 60) % 24,
                                           (t["hour"] * 60 + t["minute"] + m) % 60,
                                           "12h" if t.get("text") == t.get("text12") else "24h"),
}


class _Compiled:
    __slots__ = ("tree", "src")

    def __init__(self, src: str) -> None:
        self.src = src
        try:
            self.tree = ast.parse(src, mode="eval").body
        except SyntaxError as e:
            raise ParamError(f"bad expression {src!r}: {e.msg}") from None
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in _FUNCS):
                raise ParamError(f"expression {src!r}: only these functions may be called: {sorted(_FUNCS)}")
            if isinstance(node, (ast.Lambda, ast.NamedExpr, ast.Starred, ast.Pow, ast.Await, ast.Yield)):
                raise ParamError(f"expression {src!r}: {type(node).__name__} is not allowed")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise ParamError(f"expression {src!r}: private attribute {node.attr!r}")


_EXPR_CACHE: dict[str, _Compiled] = {}


def compile_expr(src: str) -> _Compiled:
    c = _EXPR_CACHE.get(src)
    if c is None:
        c = _EXPR_CACHE[src] = _Compiled(src)
    return c


def eval_expr(src: str, env: dict[str, Any]) -> Any:
    """Evaluate a small arithmetic/format expression over parameter values (no builtins, no I/O)."""
    return _eval(compile_expr(src).tree, env, src)


def _eval(n: ast.AST, env: dict[str, Any], src: str) -> Any:
    ev = lambda x: _eval(x, env, src)  # noqa: E731
    if isinstance(n, ast.Constant):
        return n.value
    if isinstance(n, ast.Name):
        if n.id in env:
            return env[n.id]
        if n.id in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[n.id]
        raise ParamError(f"expression {src!r}: unknown name {n.id!r}")
    if isinstance(n, ast.Attribute):
        base = ev(n.value)
        if isinstance(base, dict) and n.attr in base:
            return base[n.attr]
        raise ParamError(f"expression {src!r}: value has no field {n.attr!r}")
    if isinstance(n, ast.Subscript):
        return ev(n.value)[ev(n.slice)]
    if isinstance(n, ast.BinOp) and type(n.op) in _BIN:
        return _BIN[type(n.op)](ev(n.left), ev(n.right))
    if isinstance(n, ast.UnaryOp):
        v = ev(n.operand)
        if isinstance(n.op, ast.USub):
            return -v
        if isinstance(n.op, ast.Not):
            return not v
        if isinstance(n.op, ast.UAdd):
            return +v
    if isinstance(n, ast.Compare):
        left = ev(n.left)
        for op, right in zip(n.ops, n.comparators):
            r = ev(right)
            if not _CMP[type(op)](left, r):
                return False
            left = r
        return True
    if isinstance(n, ast.BoolOp):
        vals = [ev(v) for v in n.values]
        return all(vals) if isinstance(n.op, ast.And) else next((v for v in vals if v), vals[-1])
    if isinstance(n, ast.IfExp):
        return ev(n.body) if ev(n.test) else ev(n.orelse)
    if isinstance(n, ast.Call):
        fn = _FUNCS[n.func.id]  # type: ignore[attr-defined]
        return fn(*[ev(a) for a in n.args])
    if isinstance(n, (ast.List, ast.Tuple)):
        return [ev(e) for e in n.elts]
    if isinstance(n, ast.Dict):
        return {ev(k): ev(v) for k, v in zip(n.keys, n.values) if k is not None}
    if isinstance(n, ast.JoinedStr):
        return "".join(ev(v) if not isinstance(v, ast.FormattedValue) else _fmtv(v, env, src) for v in n.values)
    if isinstance(n, ast.ListComp) or isinstance(n, ast.GeneratorExp):
        raise ParamError(f"expression {src!r}: comprehensions are not supported; use a hook")
    raise ParamError(f"expression {src!r}: {type(n).__name__} is not supported")


def _fmtv(v: ast.FormattedValue, env: dict[str, Any], src: str) -> str:
    val = _eval(v.value, env, src)
    spec = _eval(v.format_spec, env, src) if v.format_spec is not None else ""
    return format(val, spec) if spec else render_value(val)


# --------------------------------------------------------------------------------------- placeholders
_PH = re.compile(r"\{\{|\}\}|\{(\*?)([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)(?::([^{}]*))?\}")


def _lookup(path: str, env: dict[str, Any]) -> Any:
    head, *rest = path.split(".")
    if head not in env:
        raise ParamError(f"placeholder {{{path}}}: no parameter {head!r} (have {sorted(env)})")
    v = env[head]
    for part in rest:
        if isinstance(v, dict) and part in v:
            v = v[part]
        elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
            v = v[int(part)]
        else:
            raise ParamError(f"placeholder {{{path}}}: value has no field {part!r}")
    return v


def render(template: str, env: dict[str, Any]) -> str:
    """Fill a text template: ``{p.full}``, ``{minute:02d}``; ``{{`` for a literal brace."""

    def sub(m: re.Match[str]) -> str:
        tok = m.group(0)
        if tok == "{{":
            return "{"
        if tok == "}}":
            return "}"
        if m.group(1):
            raise ParamError(f"splice {tok} is only allowed as a whole list element")
        v = _lookup(m.group(2), env)
        return format(v, m.group(3)) if m.group(3) else render_value(v)

    return _PH.sub(sub, template)


def placeholders(obj: Any) -> set[str]:
    """Every parameter name a template object refers to."""
    out: set[str] = set()
    if isinstance(obj, str):
        for m in _PH.finditer(obj):
            if m.group(2):
                out.add(m.group(2).split(".")[0])
    elif isinstance(obj, dict):
        for v in obj.values():
            out |= placeholders(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out |= placeholders(v)
    return out


def resolve(obj: Any, env: dict[str, Any]) -> Any:
    """Substitute placeholders through a nested dict/list; exact placeholders keep their type."""
    if isinstance(obj, str):
        m = _PH.fullmatch(obj)
        if m and m.group(2) and not m.group(1):
            v = _lookup(m.group(2), env)
            return format(v, m.group(3)) if m.group(3) else v
        return render(obj, env)
    if isinstance(obj, dict):
        return {k: resolve(v, env) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        out: list[Any] = []
        for v in obj:
            m = _PH.fullmatch(v) if isinstance(v, str) else None
            if m and m.group(1):
                spliced = _lookup(m.group(2), env)
                if not isinstance(spliced, list):
                    raise ParamError(f"splice {v} needs a list value, got {type(spliced).__name__}")
                out.extend(spliced)
            else:
                out.append(resolve(v, env))
        return out
    return obj
