"""Oracle solutions for Calendar templates.

Events are created, renamed, moved and deleted with ``skills.calendar``; a day's events are
read from the month view's day list (sim, whose entries say "Title, HH:MM"), from the rows under
the day's header (Etar's agenda, Google Calendar's day view), and a day's count from the month
view's cells where they count (sim, Google) or the agenda (Etar). Dates and times come from the
instruction's parameters, never from state.
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime
from typing import Any

from actionmap.actions import Scroll

from ..base import Ctx, OracleError, Skill, act, answer, complete, norm
from ..skills import calendar as Cal
from ..skills.calendar import events as CalEv
from ..skills.calendar import navigate as CalNav
from .registry import solution


def _d(inst: Any, key: str = "d") -> Date:
    return Date.fromisoformat(inst.params[key]["iso"])


def _at(inst: Any, dkey: str = "d", tkey: str = "t") -> datetime:
    d, t = _d(inst, dkey), inst.params[tkey]
    return datetime(d.year, d.month, d.day, int(t["hour"]), int(t["minute"]))


def _collect_day(ctx: Ctx, seen: dict[str, tuple[str, str]]) -> None:
    for e in ctx.roles(Cal.APP, "event"):
        if e.content_desc:
            title, _, when = e.content_desc.rpartition(", ")
            seen.setdefault(e.content_desc, (title or when, when if title else ""))


def _read_shown_day(ctx: Ctx) -> Skill:
    """Events of the day on screen: sim lists them under the month grid (scroll down for more);
    a Day view starts at 08:00, so it is scrolled up for earlier events, then down."""
    seen: dict[str, tuple[str, str]] = {}
    _collect_day(ctx, seen)
    day_view = ctx.role(Cal.APP, "day_label") is not None
    for direction in (("up", "down") if day_view else ("down",)):
        for _ in range(ctx.max_scrolls):
            before = [(e.text, e.bounds) for e in ctx.obs.elements]
            yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
            _collect_day(ctx, seen)
            if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
                break
    return list(seen.values())


def day_events(ctx: Ctx, day: Date) -> Skill:
    """(title, time text) of every event ``day`` shows ('All day' events included): the rows under
    its header where the app lists days (Etar's agenda, Google's day view), else the day's list."""
    yield from Cal.go_to_date(ctx, day)
    if CalNav._defines(ctx, "day_header"):
        rows = yield from Cal.day_rows(ctx, day)
        return [(r["title"], r["time"]) for r in rows]
    return (yield from _read_shown_day(ctx))


def show_month(ctx: Ctx, day: Date) -> Skill:
    """The month view, paged to ``day``'s month (without opening the day)."""
    return (yield from Cal.show_month(ctx, day))


def event_counts(ctx: Ctx, days: list[Date]) -> Skill:
    """How many events each day has: read from the month view's cells where they count them
    ("Tuesday, September 14, 2027, 2 events"; Google's "September 14: 2 items"; no count means
    none), else from the agenda sent to the first day (Etar), counting the rows under each header."""
    from device.apps.calendar import cell_count

    out: dict[Date, int] = {}
    if not (CalNav._defines(ctx, "month_day") or CalNav._defines(ctx, "month_cell")):
        ordered = sorted(set(days))
        yield from CalNav._agenda_at(ctx, ordered[0])
        for day in ordered:
            rows = yield from Cal.day_rows(ctx, day)
            out[day] = len(rows)
        return out
    role = "month_day" if CalNav._defines(ctx, "month_day") else "month_cell"
    for day in sorted(days):
        if day in out:
            continue
        yield from show_month(ctx, day)
        if role == "month_day":
            want = norm(Cal.long_date(day))
            cell = next((e for e in ctx.roles(Cal.APP, role) if norm(e.content_desc) == want
                         or norm(e.content_desc).startswith(want + ",")), None)
        else:
            cell = next((e for e in ctx.roles(Cal.APP, role) if CalNav._same_day(e.content_desc, day, ctx)), None)
        if cell is None:
            raise OracleError(f"no day cell for {Cal.long_date(day)}")
        out[day] = cell_count(cell.content_desc)
    return out


def edit_event(ctx: Ctx, title: str, day: Date, *, location: str | None = None, new_day: Date | None = None) -> Skill:
    """Open the event's edit form and change its location and/or its start date (keeping the time)."""
    yield from Cal.open_event(ctx, title, day)
    yield from CalEv._edit(ctx)
    if new_day is not None:
        yield from CalEv._set_date(ctx, "start", new_day)
    if location is not None:
        yield from CalNav._type(ctx, "location_field", location)
    return (yield from CalEv._save(ctx))


def parse_date_line(text: str, year: int | None = None) -> Date:
    """'Thu, Jul 15, 2027' / 'Thursday, July 15, 2027, 10:00 –' / 'July 15' (with ``year``) → date."""
    from device.apps.calendar import parse_day

    p = parse_day(text or "")
    if not p or not (p[0] or year):
        raise OracleError(f"no date in {text!r}")
    return Date(p[0] or year, p[1], p[2])  # type: ignore[arg-type]


# --- create ------------------------------------------------------------------------------------

@solution("calendar.create_event", "train.calendar.create_long_date")
def solve_create_event(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.create_event(ctx, inst.params["title"], _at(inst))
    yield from complete(ctx)


@solution("calendar.create_with_location")
def solve_create_with_location(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.create_event(ctx, inst.params["title"], _at(inst), location=inst.params["loc"])
    yield from complete(ctx)


@solution("train.calendar.create_with_end")
def solve_create_with_end(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.create_event(ctx, inst.params["title"], _at(inst), end=_at(inst, "d", "t2"))
    yield from complete(ctx)


@solution("calendar.create_all_day")
def solve_create_all_day(ctx: Ctx, inst: Any) -> Skill:
    d = _d(inst)
    yield from Cal.create_event(ctx, inst.params["title"], datetime(d.year, d.month, d.day), all_day=True)
    yield from complete(ctx)


@solution("train.calendar.create_all_day_location")
def solve_create_all_day_location(ctx: Ctx, inst: Any) -> Skill:
    d = _d(inst)
    yield from Cal.create_event(ctx, inst.params["title"], datetime(d.year, d.month, d.day), all_day=True,
                                location=inst.params["loc"])
    yield from complete(ctx)


# --- edit ----------------------------------------------------------------------------------------

@solution("calendar.edit_title")
def solve_edit_title(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.rename_event(ctx, inst.params["old"], _d(inst), inst.params["new"])
    yield from complete(ctx)


@solution("calendar.move_time")
def solve_move_time(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.move_event(ctx, inst.params["title"], _d(inst), _at(inst, "d", "t2"))
    yield from complete(ctx)


@solution("train.calendar.rename_and_move")
def solve_rename_and_move(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.rename_event(ctx, inst.params["old"], _d(inst), inst.params["new"])
    yield from Cal.move_event(ctx, inst.params["new"], _d(inst), _at(inst, "d", "t2"))
    yield from complete(ctx)


@solution("train.calendar.change_date")
def solve_change_date(ctx: Ctx, inst: Any) -> Skill:
    yield from edit_event(ctx, inst.params["title"], _d(inst), new_day=_d(inst, "d2"))
    yield from complete(ctx)


@solution("train.calendar.add_location")
def solve_add_location(ctx: Ctx, inst: Any) -> Skill:
    yield from edit_event(ctx, inst.params["title"], _d(inst), location=inst.params["loc"])
    yield from complete(ctx)


@solution("calendar.delete")
def solve_delete(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.delete_event(ctx, inst.params["title"], _d(inst))
    yield from complete(ctx)


@solution("train.calendar.delete_two")
def solve_delete_two(ctx: Ctx, inst: Any) -> Skill:
    yield from Cal.delete_event(ctx, inst.params["a"], _d(inst))
    yield from Cal.delete_event(ctx, inst.params["b"], _d(inst))
    yield from complete(ctx)


# --- queries -------------------------------------------------------------------------------------

@solution("calendar.query_time_location")
def solve_query_time_location(ctx: Ctx, inst: Any) -> Skill:
    ev = yield from Cal.read_event(ctx, inst.params["title"], _d(inst))
    yield from answer(ctx, time=ev["start_time"], location=ev["location"])


@solution("train.calendar.query_date")
def solve_query_date(ctx: Ctx, inst: Any) -> Skill:
    ev = yield from Cal.read_event(ctx, inst.params["title"])
    # the day it is listed under (Etar's search results: "July 15", this year's), else its details
    line = ev["day"] if ev["day"] and parse_day_or_none(ev["day"]) else ev["date"]
    yield from answer(ctx, date=parse_date_line(line, CalNav._memo(ctx).get("year")).isoformat())


@solution("train.calendar.query_count_day")
def solve_query_count_day(ctx: Ctx, inst: Any) -> Skill:
    counts = yield from event_counts(ctx, [_d(inst)])
    yield from answer(ctx, count=counts[_d(inst)])


@solution("train.calendar.query_title_at")
def solve_query_title_at(ctx: Ctx, inst: Any) -> Skill:
    t = inst.params["t"]
    want = int(t["hour"]) * 60 + int(t["minute"])
    events = yield from day_events(ctx, _d(inst))

    def minutes(s: str) -> int | None:
        hm = Cal.parse_time(s)
        return hm[0] * 60 + hm[1] if hm else None

    hits = [title for title, when in events if minutes(when) == want]
    if len(hits) != 1:
        raise OracleError(f"{len(hits)} events at {t['text']} on {inst.params['d']['text']}: {hits} (all: {events})")
    yield from answer(ctx, title=hits[0])


def parse_day_or_none(text: str) -> Any:
    from device.apps.calendar import parse_day

    return parse_day(text)


__all__ = ["day_events", "edit_event", "event_counts", "parse_date_line", "show_month"]
