"""Oracle solutions for the multi-app ``test`` templates: read in one app, act in another.

Each reads what it needs from the screen of the first app (a calendar event's time, the last
missed call's number, a number in a text message, a calculator result) and then uses the
per-app skills.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ..base import Ctx, OracleError, Skill, answer, complete
from ..skills import calculator as Calc
from ..skills import calendar as Cal
from ..skills import contacts as K
from ..skills import messages as M
from ..skills import phone as P
from ..skills.common import dial_form, retrying
from . import calendar as cal_solutions
from . import clock as clock_solutions
from . import contacts as contact_solutions
from . import messages as msg_solutions
from . import phone as phone_solutions
from .registry import solution

_NUMBER = re.compile(r"\+?\d[\d\s().\-]{5,}\d")
_PLAN = re.compile(r"(?:[A-Za-z]+,\s*)?([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})\s+at\s+(\d{1,2}):(\d{2})\s*([AP]M)?", re.I)


def _minutes(text: str) -> int:
    m = re.match(r"\s*(\d{1,2}):(\d{2})\s*([AP]M)?", text or "", re.I)
    if not m:
        raise OracleError(f"not a time: {text!r}")
    h = int(m.group(1))
    if m.group(3):
        h = h % 12 + (12 if m.group(3).upper() == "PM" else 0)
    return h * 60 + int(m.group(2))


@solution("test.clock.alarm_before_event")
def solve_alarm_before_event(ctx: Ctx, inst: Any) -> Skill:
    ev = yield from Cal.read_event(ctx, inst.params["title"], inst.params["d"]["iso"])
    wake = (_minutes(ev["start_time"]) - 60) % 1440
    yield from clock_solutions.create_alarm(ctx, *divmod(wake, 60))
    yield from complete(ctx)


@solution("test.contacts.from_missed_call")
def solve_contact_from_missed_call(ctx: Ctx, inst: Any) -> Skill:
    call = yield from phone_solutions.last_call(ctx, "missed")
    yield from K.create_contact(ctx, inst.params["p"]["full"], phone=call["number"])
    yield from complete(ctx)


@solution("test.contacts.favorite_last_caller")
def solve_favorite_last_caller(ctx: Ctx, inst: Any) -> Skill:
    call = yield from retrying(ctx, lambda: P.read_last_call(ctx, "incoming"), tries=3)
    if not call or not call.get("name"):
        raise OracleError(f"the last caller has no contact name: {call}")
    yield from retrying(ctx, lambda: K.set_starred(ctx, call["name"], True), tries=3)
    yield from complete(ctx)


@solution("test.contacts.from_message")
def solve_contact_from_message(ctx: Ctx, inst: Any) -> Skill:
    """The thread whose text introduces ``first`` is from an unknown number: its title is the number."""
    first = inst.params["p"]["first"]
    rows = yield from msg_solutions.conversation_rows(ctx)
    hits = [t for t, sub, _u in rows if first.casefold() in sub.casefold() and _NUMBER.fullmatch(t.strip())]
    if len(hits) != 1:
        raise OracleError(f"{len(hits)} conversations from a number mention {first!r}")
    yield from K.create_contact(ctx, inst.params["p"]["full"], phone=hits[0])
    yield from complete(ctx)


@solution("test.contacts.update_from_message")
def solve_update_from_message(ctx: Ctx, inst: Any) -> Skill:
    name = inst.params["p"]["full"]
    yield from msg_solutions.open_thread(ctx, name)
    incoming = [t for out, t in msg_solutions.visible_bubbles(ctx) if not out]
    numbers = [m.group(0) for t in incoming for m in _NUMBER.finditer(t)]
    if not numbers:
        raise OracleError("no number in their messages")
    yield from retrying(ctx, lambda: K.edit_contact_phone(ctx, name, numbers[-1]), tries=3)
    yield from complete(ctx)


@solution("test.messages.share_number")
def solve_share_number(ctx: Ctx, inst: Any) -> Skill:
    name = inst.params["q"]["full"]
    number = yield from retrying(ctx, lambda: K.read_contact_field(ctx, name, "phone"), tries=3)
    if not number:
        raise OracleError(f"{name!r} shows no number")
    to = dial_form(msg_solutions.recipient_from(inst))
    yield from M.send_message(ctx, to, f"{inst.params['q']['first']}: {number}")
    yield from complete(ctx)


@solution("test.calendar.from_message")
def solve_calendar_from_message(ctx: Ctx, inst: Any) -> Skill:
    p = inst.params["p"]
    yield from msg_solutions.open_thread(ctx, p["full"])
    plan = next((m for _o, t in msg_solutions.visible_bubbles(ctx) for m in [_PLAN.search(t)] if m), None)
    if plan is None:
        raise OracleError("no date and time in their message")
    mon = [x[:3] for x in Cal.MONTHS].index(plan.group(1)[:3].capitalize()) + 1
    h = int(plan.group(4))
    if plan.group(6):
        h = h % 12 + (12 if plan.group(6).upper() == "PM" else 0)
    start = datetime(int(plan.group(3)), mon, int(plan.group(2)), h, int(plan.group(5)))
    yield from Cal.create_event(ctx, f"{inst.params['title']} with {p['first']}", start)
    yield from complete(ctx)


@solution("test.calculator.result_to_message")
def solve_result_to_message(ctx: Ctx, inst: Any) -> Skill:
    shown = yield from Calc.compute(ctx, f"{inst.params['a']}×{inst.params['b']}")
    digits = "".join(ch for ch in shown if ch.isdigit())
    if not digits:
        raise OracleError(f"no number in the result {shown!r}")
    yield from M.send_message(ctx, dial_form(msg_solutions.recipient_from(inst)), digits)
    yield from complete(ctx)


@solution("test.query.events_in_range")
def solve_events_in_range(ctx: Ctx, inst: Any) -> Skill:
    days = [datetime(2027, 9, d).date() for d in (14, 15, 16)]
    counts = yield from cal_solutions.event_counts(ctx, days)
    yield from answer(ctx, count=sum(counts.values()))


@solution("test.phone.dial_company_contact")
def solve_dial_company_contact(ctx: Ctx, inst: Any) -> Skill:
    names = yield from contact_solutions.contacts_with_company(ctx, inst.params["company"])
    if len(names) != 1:
        raise OracleError(f"{len(names)} contacts work at {inst.params['company']!r}")
    number = yield from retrying(ctx, lambda: K.read_contact_field(ctx, names[0], "phone"), tries=3)
    yield from phone_solutions.dial_number(ctx, number)
    yield from complete(ctx)


@solution("test.query.unread_conversations")
def solve_unread_conversations(ctx: Ctx, inst: Any) -> Skill:
    n = yield from M.count_unread_threads(ctx)
    yield from answer(ctx, count=n)
