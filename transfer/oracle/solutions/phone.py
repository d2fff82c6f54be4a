"""Oracle solutions for Phone (dialer) templates: dial pad entry and call-log queries.

Numbers are entered exactly as the instruction writes them (``skills.phone.dial_number``
keeps digits, ``*``, ``#`` and a leading ``+``). Call-log answers are read from the Recents
list and the call-details screen.
"""

from __future__ import annotations

from typing import Any

from actionmap.actions import LongPress, Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, answer, complete
from ..skills import contacts as K
from ..skills import phone as P
from ..skills.common import retrying
from .registry import solution


def _row_texts(ctx: Ctx, row: UIElement) -> list[str]:
    """What a row shows and says: the texts inside it, and its own description (a card whose texts are
    hidden — Google Dialer's — is told apart from the same caller's other calls only by that)."""
    b = row.bounds
    inner = [e.text for e in sorted(ctx.obs.elements, key=lambda e: (e.bounds.top, e.bounds.left))
             if e.index != row.index and e.text and b.contains(*e.bounds.center)]
    return [row.content_desc, *inner] if row.content_desc else inner


def _row_title(ctx: Ctx, row: UIElement) -> str:
    """The name (or number) a call-log row shows (its ``call_log_name``, else its first text)."""
    return P.row_name(ctx, row)


def call_log_rows(ctx: Ctx) -> Skill:
    """Every row of the open call log as (title, texts, kind), top to bottom, scrolling the list.

    Pages overlap after a scroll; what lies past the longest overlap is appended (rows of the
    same caller differ by their time, so a page's rows are told apart by all their texts)."""
    def page() -> list[tuple[str, tuple[str, ...], str | None]]:
        lst = ctx.role(P.APP, "call_list")
        out = []
        for r in sorted(ctx.roles(P.APP, "call_log_row"), key=lambda e: e.bounds.top):
            if lst is not None and (r.bounds.top < lst.bounds.top or r.bounds.bottom > lst.bounds.bottom):
                continue  # partly hidden: read it on the next page
            out.append((_row_title(ctx, r), tuple(_row_texts(ctx, r)), P._row_kind(ctx, r)))
        return out

    seen = page()
    for _ in range(ctx.max_scrolls):
        before = [(e.text, e.bounds) for e in ctx.obs.elements]
        lst = ctx.role(P.APP, "call_list")
        if lst is None:
            break
        yield from act(ctx, Scroll(direction="down", target=lst.index))
        if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
            break
        new = page()
        k = next((k for k in range(min(len(seen), len(new)), 0, -1) if seen[-k:] == new[:k]), 0)
        seen.extend(new[k:])
    return seen


def _clear_dialpad(ctx: Ctx) -> Skill:
    for _ in range(3):
        if not P._digits(ctx):
            return True
        yield from act(ctx, LongPress(target=P._key(ctx, "delete").index))
    return not P._digits(ctx)


def dial_number(ctx: Ctx, number: str, attempts: int = 3) -> Skill:
    """Enter ``number`` on the dial pad, checking the display after every key.

    The dial pad's digits field is an editable text field: typing the number into it takes one
    step. Where it is not (or typing did not take), the keys are tapped:
    ``skills.phone.dial_number`` checks only at the end; here a key the phone misreads (a tap held
    too long on 0 enters '+') is caught at once; the pad is then cleared and the number
    entered again, as a person would, up to ``attempts`` times."""
    want = P.dial_string(number)
    if not any(ch.isdigit() for ch in want):
        raise OracleError(f"nothing to dial in {number!r}")
    yield from P.open_dialpad(ctx)
    field = next((e for e in ctx.roles(P.APP, "digits") if e.editable), None)
    if field is not None:  # the digits field takes typed text (adb/uiautomator2 type into it too)
        yield from act(ctx, TypeText(text=want, clear=True, target=None if field.focused else field.index))
        if P._digits(ctx) == want:
            return ctx.obs
    for _attempt in range(attempts):
        if not (yield from _clear_dialpad(ctx)):
            continue
        for i, ch in enumerate(want):
            if ch == "+":
                yield from act(ctx, LongPress(target=P._key(ctx, P.KEY_IDS["0"]).index))
            else:
                yield from act(ctx, Tap(target=P._key(ctx, P.KEY_IDS[ch]).index))
            if P._digits(ctx) != want[: i + 1]:
                break
        if P._digits(ctx) == want:
            return ctx.obs
    raise OracleError(f"the dial pad shows {P._digits(ctx)!r}, wanted {want!r}")


def open_call_details(ctx: Ctx, who: str) -> Skill:
    """Open the details of the newest call with ``who`` (the name or number its row shows)."""
    yield from P.open_recents(ctx)
    row = yield from P.find_row(ctx, who)
    return (yield from P.open_row_details(ctx, row))


# --- dialing -------------------------------------------------------------------------------------

# template → the spelling of the number its instruction writes
_DIAL_SPELLING = {"phone.dial": "text", "train.phone.dial_national": "national"}


@solution(*_DIAL_SPELLING)
def solve_dial(ctx: Ctx, inst: Any) -> Skill:
    yield from dial_number(ctx, inst.params["ph"][_DIAL_SPELLING[inst.template_id]])
    yield from complete(ctx)


@solution("train.phone.dial_contact")
def solve_dial_contact(ctx: Ctx, inst: Any) -> Skill:
    number = yield from retrying(ctx, lambda: K.read_contact_field(ctx, inst.params["p"]["full"], "phone"), tries=3)
    if not number:
        raise OracleError(f"{inst.params['p']['full']!r} shows no phone number")
    yield from dial_number(ctx, number)
    yield from complete(ctx)


# --- call-log queries -------------------------------------------------------------------------------

def last_call(ctx: Ctx, kind: str) -> Skill:
    """The newest ``kind`` (missed, incoming, outgoing) call in the log, read up to three times;
    OracleError when the log has none."""
    call = yield from retrying(ctx, lambda: P.read_last_call(ctx, kind), tries=3)
    if not call:
        raise OracleError(f"no {kind} call in the log")
    return call


# template → (the kind of call it asks about, what the answer gives: the number, or the name)
_LAST_CALL_QUERIES = {
    "phone.query_last_missed": ("missed", "number"),
    "train.phone.query_last_incoming": ("incoming", "number"),
    "train.phone.query_last_called": ("outgoing", "name"),
}


@solution(*_LAST_CALL_QUERIES)
def solve_last_call(ctx: Ctx, inst: Any) -> Skill:
    kind, field = _LAST_CALL_QUERIES[inst.template_id]
    call = yield from last_call(ctx, kind)
    yield from answer(ctx, **{field: call["number"] if field == "number" else call["name"] or call["number"]})


@solution("train.phone.query_missed_count")
def solve_missed_count(ctx: Ctx, inst: Any) -> Skill:
    yield from P.open_recents(ctx, missed=True)
    rows = yield from call_log_rows(ctx)
    yield from answer(ctx, count=sum(1 for _t, _x, kind in rows if kind == "missed"))


@solution("train.phone.query_call_duration")
def solve_call_duration(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: open_call_details(ctx, inst.params["p"]["full"]), tries=3)
    el = ctx.role(P.APP, "details_duration")
    if el is None or not el.text:
        raise OracleError("the call details show no duration")
    yield from answer(ctx, duration=el.text)
