"""Small Python hooks that templates reference by name where data alone is not enough.

Four registries, each keyed by the name a YAML template uses:

* ``PARAM_HOOKS`` — derived parameters that need code (distractor records, e-mail addresses).
  ``fn(rng, env, args) -> value``; deterministic given ``rng``.
* ``CHECK_HOOKS`` — goal predicates that need code. ``fn(args, before, after) -> HookOutcome``.
* ``ANSWER_HOOKS`` — right answers read from the *before* state, so a query about the phone's
  own data (the last missed call, files in a folder) is judged against what that phone really
  holds, on either backend. ``fn(args, before) -> value | None`` (None = unknown here).
* ``SOLVE_HOOKS`` — how a hook goal is reached, for the oracle and the judge's self-tests.
  ``fn(args, state_dict) -> None`` (mutates a ``WorldState.model_dump()``).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable

from actionmap.worldstate import WorldState

from .match import compare, norm_path, phone_eq
from .params import (FIRST_NAMES, LAST_NAMES, POOLS, ascii_fold, name_value, phone_value, time_value)


@dataclass(frozen=True)
class HookOutcome:
    """What a check hook saw. ``passed=None`` means the state needed is unknown (undetermined)."""

    expected: Any
    actual: Any
    passed: bool | None
    field: str = ""


@dataclass(frozen=True)
class Hook:
    fn: Callable[..., Any]
    needs: tuple[str, ...] = ()
    changes: tuple[str, ...] = field(default=())


PARAM_HOOKS: dict[str, Callable[[random.Random, dict[str, Any], dict[str, Any]], Any]] = {}
CHECK_HOOKS: dict[str, Hook] = {}
ANSWER_HOOKS: dict[str, Hook] = {}
SOLVE_HOOKS: dict[str, Callable[[dict[str, Any], dict[str, Any]], None]] = {}


def param_hook(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        PARAM_HOOKS[name] = fn
        return fn
    return deco


def check_hook(name: str, needs: tuple[str, ...] = (), changes: tuple[str, ...] = ()) -> Callable[..., Any]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        CHECK_HOOKS[name] = Hook(fn, needs, changes)
        return fn
    return deco


def answer_hook(name: str, needs: tuple[str, ...] = ()) -> Callable[..., Any]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        ANSWER_HOOKS[name] = Hook(fn, needs)
        return fn
    return deco


def solve_hook(name: str) -> Callable[..., Any]:
    def deco(fn: Callable[..., Any]) -> Callable[..., Any]:
        SOLVE_HOOKS[name] = fn
        return fn
    return deco


# --------------------------------------------------------------------------------------- params
def _avoid_list(v: Any) -> list[Any]:
    if v is None:
        return []
    return list(v) if isinstance(v, list) else [v]


@param_hook("other_times")
def other_times(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """``n`` times of day at least 30 minutes away from every time in ``avoid``."""
    avoid = [(t["hour"] * 60 + t["minute"]) for t in _avoid_list(args.get("avoid"))]
    lo, hi = args.get("hours", (5, 22))
    out: list[dict[str, Any]] = []
    while len(out) < int(args.get("n", 2)):
        h, m = rng.randint(lo, hi), rng.randrange(0, 60, 15)
        t = h * 60 + m
        if all(abs(t - a) >= 30 for a in avoid):
            avoid.append(t)
            out.append(time_value(h, m, "12h"))
    return out


@param_hook("distractor_alarms")
def distractor_alarms(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Other alarms (records) so that 'the 7:30 alarm' has to be found among several."""
    times = other_times(rng, env, args)
    enabled = args.get("enabled", "mixed")
    labels = [""] + list(POOLS["alarm_labels"])
    avoid_labels = {str(x).casefold() for x in _avoid_list(args.get("avoid_labels"))}
    out = []
    for t in times:
        label = rng.choice([x for x in labels if x.casefold() not in avoid_labels])
        en = rng.random() < 0.5 if enabled == "mixed" else bool(enabled)
        out.append({"hour": t["hour"], "minute": t["minute"], "enabled": en, "label": label})
    return out


@param_hook("people")
def people(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """``n`` people (name + phone) whose first and last names differ from everyone in ``avoid``."""
    firsts: set[str] = set()
    lasts: set[str] = set()
    used_lines: set[str] = set()
    for a in _avoid_list(args.get("avoid")):
        if not isinstance(a, dict):
            continue
        if "first" in a:
            firsts.add(a["first"]), lasts.add(a["last"])
        elif "name" in a:  # a contact record
            first, _, last = str(a["name"]).partition(" ")
            firsts.add(first), lasts.add(last)
        for ph in [a.get("phone")] + [x.get("number") if isinstance(x, dict) else None for x in a.get("phones", [])]:
            if isinstance(ph, dict):
                used_lines.add(ph.get("digits", ""))
            elif isinstance(ph, str):
                used_lines.add("".join(c for c in ph if c.isdigit())[-10:])
    used_lines |= {a.get("digits") for a in _avoid_list(args.get("avoid_phones")) if isinstance(a, dict)}
    out = []
    while len(out) < int(args.get("n", 2)):
        f, l = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        if f in firsts or l in lasts:
            continue
        ph = phone_value(rng.choice((206, 212, 303, 312, 415, 503, 617, 702)), rng.randint(100, 199), 0)
        if ph["digits"] in used_lines:
            continue
        firsts.add(f), lasts.add(l), used_lines.add(ph["digits"])
        out.append({**name_value(f, l), "phone": ph})
    return out


@param_hook("contact_records")
def contact_records(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Distractor contact records (name, phone, sometimes an e-mail and company)."""
    out = []
    for p in people(rng, env, args):
        rec: dict[str, Any] = {"name": p["full"], "phones": [{"number": p["phone"]["e164"]}]}
        if rng.random() < 0.5:
            rec["emails"] = [email_for(rng, env, {"name": p})]
        avoid_co = {str(c).casefold() for c in _avoid_list(args.get("avoid_company"))}
        if args.get("company", "maybe") is True or (args.get("company", "maybe") == "maybe" and rng.random() < 0.5):
            rec["company"] = rng.choice([c for c in POOLS["companies"] if c.casefold() not in avoid_co])
        if args.get("starred") is not None:
            rec["starred"] = bool(args["starred"])
        out.append(rec)
    return out


@param_hook("email_for")
def email_for(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> str:
    """An address built from a (possibly non-ASCII) name: ``Łukasz Åberg`` → ``lukasz.aberg@…``."""
    n = args["name"]
    first, last = (n["first"], n["last"]) if isinstance(n, dict) else (str(n).split() + [""])[:2]
    local = re.sub(r"[^a-z0-9.]", "", ascii_fold(f"{first}.{last}").lower())
    domain = args.get("domain") or rng.choice(("example.com", "example.org", "mail.example.net"))
    return f"{local}@{domain}"


@param_hook("message_thread")
def message_thread(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    """A conversation with ``address``: ``n`` incoming messages ``step`` minutes apart from
    ``start``, the last ``unread`` of them unread, optionally one sent reply in between."""
    n, unread = int(args.get("n", 3)), int(args.get("unread", 0))
    start = datetime.fromisoformat(str(args.get("start", "2027-02-10T09:00:00")))
    step = int(args.get("step", 37))
    pool = list(POOLS["message_bodies"])
    rng.shuffle(pool)
    avoid = {str(x).casefold() for x in _avoid_list(args.get("avoid_bodies"))}
    bodies = [b for b in pool if b.casefold() not in avoid][:n]
    recs = []
    for i, body in enumerate(bodies):
        recs.append({"address": args["address"], "body": body, "box": "inbox", "read": i < n - unread,
                     "time": (start + timedelta(minutes=step * i)).isoformat()})
    reply = ""
    if args.get("reply"):
        reply = rng.choice(POOLS["reply_bodies"])
        recs.insert(1, {"address": args["address"], "body": reply, "box": "sent",
                        "read": True, "time": (start + timedelta(minutes=step // 2)).isoformat()})
    return {"records": recs, "last_body": bodies[-1], "first_body": bodies[0], "reply_body": reply,
            "unread": unread, "n": n, "last_time": recs[-1]["time"]}


@param_hook("other_threads")
def other_threads(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """Messages from ``n`` other people (for distraction); flat list of records."""
    out: list[dict[str, Any]] = []
    for i, p in enumerate(people(rng, env, args)):
        t = message_thread(rng, env, {"address": p["phone"]["e164"], "n": rng.randint(1, 2),
                                      "unread": int(args.get("unread", 0)), "start": f"2027-02-0{i + 3}T18:00:00",
                                      "avoid_bodies": args.get("avoid_bodies")})
        out.extend(t["records"])
    return out


@param_hook("with_company")
def with_company(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """The contact ``records`` with their company set to ``company``."""
    return [{**r, "company": args["company"]} for r in args["records"]]


@param_hook("events_on")
def events_on(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """``n`` events on ``date`` (distinct hours) and the rest of ``titles`` on the days around it."""
    day = datetime.fromisoformat(str(args["date"]))
    titles = list(args["titles"])
    n = int(args["n"])
    if n > len(titles):
        raise ValueError(f"events_on: n={n} but only {len(titles)} titles")
    hours = rng.sample(range(8, 19), len(titles))
    out = []
    for i, (title, h) in enumerate(zip(titles, hours)):
        when = day if i < n else day + timedelta(days=rng.choice((-2, -1, 1, 2)))
        out.append({"title": title, "start": when.replace(hour=h).isoformat()})
    return out


@param_hook("file_records")
def file_records(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """``n`` files with distinct names in folder ``dir`` (sizes 10 kB–5 MB), none named in ``avoid``."""
    folder = str(args["dir"]).rstrip("/")
    avoid = {str(x).casefold() for x in _avoid_list(args.get("avoid"))}
    names = [x for x in POOLS["file_names"] if x.casefold() not in avoid]
    rng.shuffle(names)
    return [{"path": f"{folder}/{nm}", "kind": "file", "size": rng.randint(10, 5000) * 1024}
            for nm in names[: int(args.get("n", 3))]]


@param_hook("call_log")
def call_log(rng: random.Random, env: dict[str, Any], args: dict[str, Any]) -> list[dict[str, Any]]:
    """A call history of ``n`` calls from other people, oldest first, before ``before``."""
    end = datetime.fromisoformat(str(args.get("before", "2027-02-12T12:00:00")))
    kinds = args.get("kinds", ["incoming", "outgoing", "missed"])
    out = []
    ps = people(rng, env, args)
    for i, p in enumerate(ps):
        k = rng.choice(kinds)
        out.append({"number": p["phone"]["e164"], "name": p["full"], "kind": k,
                    "time": (end - timedelta(hours=5 * (len(ps) - i))).isoformat(),
                    "duration_s": 0 if k == "missed" else rng.randint(20, 900)})
    return out


# --------------------------------------------------------------------------------------- answers
def _latest(records: list[Any]) -> Any:
    dated = [r for r in records if getattr(r, "time", None) is not None]
    return max(dated, key=lambda r: r.time) if dated else (records[-1] if records else None)


@answer_hook("last_call", needs=("calls",))
def last_call(args: dict[str, Any], before: WorldState) -> Any:
    """The number (or name) of the most recent call of ``kind`` (default missed)."""
    if before.calls is None:
        return None
    kind = args.get("kind", "missed")
    rec = _latest([c for c in before.calls if c.kind == kind])
    if rec is None:
        return None
    return getattr(rec, args.get("field", "number"))


@answer_hook("count_calls", needs=("calls",))
def count_calls(args: dict[str, Any], before: WorldState) -> Any:
    if before.calls is None:
        return None
    return sum(1 for c in before.calls if c.kind == args.get("kind", "missed")
               and (not args.get("number") or phone_eq(c.number, args["number"])))


@answer_hook("count_files", needs=("files",))
def count_files(args: dict[str, Any], before: WorldState) -> Any:
    """Files (not folders) directly inside ``dir``."""
    if before.files is None:
        return None
    d = norm_path(args["dir"])
    return sum(1 for f in before.files if f.kind == args.get("kind", "file") and norm_path(f.path).rpartition("/")[0] == d)


@answer_hook("file_size", needs=("files",))
def file_size(args: dict[str, Any], before: WorldState) -> Any:
    """Size of ``path`` in ``unit`` (B, KB = 1024 B, MB = 1024² B), rounded to ``digits``."""
    if before.files is None:
        return None
    p = norm_path(args["path"])
    for f in before.files:
        if norm_path(f.path) == p:
            div = {"B": 1, "KB": 1024, "MB": 1024 * 1024}[args.get("unit", "KB")]
            return round(f.size / div, int(args.get("digits", 1)))
    return None


@answer_hook("largest_file", needs=("files",))
def largest_file(args: dict[str, Any], before: WorldState) -> Any:
    if before.files is None:
        return None
    d = norm_path(args["dir"])
    fs = [f for f in before.files if f.kind == "file" and norm_path(f.path).rpartition("/")[0] == d]
    return max(fs, key=lambda f: f.size).path.rpartition("/")[2] if fs else None


@answer_hook("last_message", needs=("messages",))
def last_message(args: dict[str, Any], before: WorldState) -> Any:
    """Body of the latest message from ``address`` in box ``box`` (default inbox)."""
    if before.messages is None:
        return None
    box = args.get("box", "inbox")
    rec = _latest([m for m in before.messages if m.box == box and phone_eq(m.address, args["address"])])
    return rec.body if rec else None


@answer_hook("unread_senders", needs=("messages", "contacts"))
def unread_senders(args: dict[str, Any], before: WorldState) -> Any:
    """Who sent the unread inbox messages, each once: the contact's name for a saved number,
    else the number itself (what the Messages list shows). Read from the phone, so senders the
    phone already had unread count too."""
    if before.messages is None or before.contacts is None:
        return None
    out: list[str] = []
    for m in before.messages:
        if m.box != "inbox" or m.read:
            continue
        c = next((c for c in before.contacts if any(phone_eq(p.number, m.address) for p in c.phones)), None)
        who = c.name if c else m.address
        if who not in out:
            out.append(who)
    return out


@answer_hook("count_unread_threads", needs=("messages", "contacts"))
def count_unread_threads(args: dict[str, Any], before: WorldState) -> Any:
    """How many conversations hold unread inbox messages (one per sender, as the list shows)."""
    senders = unread_senders(args, before)
    return None if senders is None else len(senders)


@answer_hook("count_records", needs=())
def count_records(args: dict[str, Any], before: WorldState) -> Any:
    """How many ``kind`` records match ``match`` (same matching as record goals)."""
    from .judge import record_matches

    recs = getattr(before, args["kind"], None)
    if recs is None:
        return None
    return sum(1 for r in recs if record_matches(r, args["kind"], args.get("match", {})))


@answer_hook("record_names", needs=())
def record_names(args: dict[str, Any], before: WorldState) -> Any:
    """``field`` of every ``kind`` record matching ``match`` (a set answer, e.g. starred contacts)."""
    from .judge import record_matches
    from .match import record_get

    recs = getattr(before, args["kind"], None)
    if recs is None:
        return None
    return [record_get(r, args["kind"], args.get("field", "name")) for r in recs
            if record_matches(r, args["kind"], args.get("match", {}))]


# --------------------------------------------------------------------------------------- checks
def _display_number(s: str) -> float | None:
    t = s.replace("−", "-").replace(",", "").replace("=", "").replace(" ", "").strip()
    try:
        return float(t)
    except ValueError:
        return None


@check_hook("calculator_shows", needs=("calculator_display",))
def calculator_shows(args: dict[str, Any], before: WorldState, after: WorldState) -> HookOutcome:
    """The calculator's display shows ``value`` (as a number; thousands separators ignored)."""
    disp = after.calculator_display
    if disp is None:
        return HookOutcome(args["value"], None, None, "calculator_display")
    got = _display_number(disp)
    ok = got is not None and compare("approx", got, float(args["value"]), tol=float(args.get("tol", 1e-6)))
    return HookOutcome(args["value"], disp, ok, "calculator_display")


@solve_hook("calculator_shows")
def solve_calculator(args: dict[str, Any], state: dict[str, Any]) -> None:
    v = args["value"]
    state["calculator_display"] = str(int(v)) if float(v).is_integer() else str(v)
