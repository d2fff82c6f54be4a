"""Oracle solutions for Calendar templates.

Events are created, renamed, moved and deleted with ``skills.calendar``; a day's events are
read from the month view's day list (sim) or the Day view (aosp), whose entries say
"Title, HH:MM". Dates and times come from the instruction's parameters, never from state.
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import datetime
from typing import Any

from actionmap.actions import Scroll

from ..base import Ctx, OracleError, Skill, act, answer, complete, norm, tap_role
from ..skills import calendar as Cal
from ..solutions import solution


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
    """(title, time text) of every event ``day`` shows ('All day' events included)."""
    yield from Cal.go_to_date(ctx, day)
    return (yield from _read_shown_day(ctx))


def show_month(ctx: Ctx, day: Date) -> Skill:
    """The month view, paged to ``day``'s month (without opening the day)."""
    yield from Cal.open_month_view(ctx)
    for _ in range(40):
        y, m = Cal._shown_month(ctx)
        diff = (day.year - y) * 12 + (day.month - m)
        if diff == 0:
            return ctx.obs
        yield from tap_role(ctx, Cal.APP, "next_month" if diff > 0 else "prev_month")
    raise OracleError(f"could not page to {day:%Y-%m}")


_COUNT = re.compile(r",\s*(\d+)\s+events?\b", re.I)


def event_counts(ctx: Ctx, days: list[Date]) -> Skill:
    """How many events each day has, read from the month grid's day cells, whose description
    says so ("Tuesday, September 14, 2027, 2 events"; no count means none)."""
    out: dict[Date, int] = {}
    for day in sorted(days):
        if day in out:
            continue
        yield from show_month(ctx, day)
        want = norm(Cal.long_date(day))
        cell = next((e for e in ctx.roles(Cal.APP, "month_day") if norm(e.content_desc) == want
                     or norm(e.content_desc).startswith(want + ",")), None)
        if cell is None:
            raise OracleError(f"no day cell for {Cal.long_date(day)}")
        m = _COUNT.search(cell.content_desc)
        out[day] = int(m.group(1)) if m else 0
    return out


def edit_event(ctx: Ctx, title: str, day: Date, *, location: str | None = None, new_day: Date | None = None) -> Skill:
    """Open the event's edit form and change its location and/or its start date (keeping the time)."""
    yield from Cal.open_event(ctx, title, day)
    yield from Cal._edit(ctx)
    if new_day is not None:
        yield from Cal._set_date(ctx, "start", new_day)
    if location is not None:
        yield from Cal._type(ctx, "location_field", location)
    return (yield from Cal._save(ctx))


_DATE_LINE = re.compile(r"(?:[A-Za-z]+,\s*)?([A-Za-z]+)\s+(\d{1,2}),\s*(\d{4})")


def parse_date_line(text: str) -> Date:
    """'Thu, Jul 15, 2027' / 'Thursday, July 15, 2027, 10:00 –' → date."""
    m = _DATE_LINE.search(text or "")
    if not m:
        raise OracleError(f"no date in {text!r}")
    mon = m.group(1)[:3].capitalize()
    months = [x[:3] for x in Cal.MONTHS]
    if mon not in months:
        raise OracleError(f"no month in {text!r}")
    return Date(int(m.group(3)), months.index(mon) + 1, int(m.group(2)))


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
    yield from answer(ctx, date=parse_date_line(ev["date"]).isoformat())


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
        m = re.match(r"\s*(\d{1,2}):(\d{2})\s*([AP]M)?", s or "", re.I)
        if not m:
            return None
        h = int(m.group(1)) % 12 + (12 if (m.group(3) or "").upper() == "PM" else 0) if m.group(3) else int(m.group(1))
        return h * 60 + int(m.group(2))

    hits = [title for title, when in events if minutes(when) == want]
    if len(hits) != 1:
        raise OracleError(f"{len(hits)} events at {t['text']} on {inst.params['d']['text']}: {hits} (all: {events})")
    yield from answer(ctx, title=hits[0])


__all__ = ["day_events", "edit_event", "event_counts", "parse_date_line", "show_month"]
