"""Oracle skills for Calendar (com.android.calendar).

Events are reached the way a user reaches them: month view → the day (by the day cell's
content description, e.g. "Thursday, March 18, 2027") → the event, or through the app's
search when no date is given. Dates are typed through the date picker's text mode and times
through the time picker's keyboard mode, so no skill depends on coordinates. Works in both
flavors: ``sim`` (view tabs, Month/Day/Year fields) and ``aosp`` (navigation drawer, Material
date picker with "Switch to text input mode").
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import datetime
from typing import Any

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to, set_switch, tap

MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December"]


def _as_date(d: Date | datetime | str) -> Date:
    if isinstance(d, datetime):
        return d.date()
    if isinstance(d, Date):
        return d
    try:
        return datetime.fromisoformat(str(d)).date()
    except ValueError as e:
        raise OracleError(f"not a date: {d!r}") from e


def long_date(d: Date) -> str:
    """How the app names a day: 'Thursday, March 18, 2027'."""
    return f"{d:%A}, {MONTHS[d.month - 1]} {d.day}, {d.year}"


def short_date(d: Date) -> str:
    """How the event form shows a date: 'Thu, Mar 18, 2027'."""
    return f"{d:%a}, {MONTHS[d.month - 1][:3]} {d.day}, {d.year}"


def _type(ctx: Ctx, text: str, **kw: Any) -> Skill:
    """Tap the field matching ``kw`` (unless focused) and replace its text, in one action."""
    el = yield from scroll_to(ctx, None, **kw)
    return (yield from act(ctx, TypeText(text=text, clear=True, target=None if el.focused else el.index)))


def _toast(ctx: Ctx) -> str:
    t = ctx.find(cls="Toast")
    return t.text if t else ""


def open_calendar(ctx: Ctx) -> Skill:
    """Open Calendar on one of its views (leaving an event, a form, a dialog or search)."""
    yield from open_app(ctx, "calendar")
    if ctx.find(rid="permission_allow_button") is not None:
        yield from tap(ctx, rid="permission_allow_button", scroll=False)
    for _ in range(8):
        if ctx.has(desc="Create new event"):
            return ctx.obs
        if ctx.find("Discard", cls="Button") is not None:
            yield from tap(ctx, "Discard", cls="Button", scroll=False)
        else:
            yield from back(ctx)
            if ctx.obs.foreground.app not in (None, "calendar"):
                yield from open_app(ctx, "calendar")
    raise OracleError("could not reach a Calendar view")


def open_month_view(ctx: Ctx) -> Skill:
    yield from open_calendar(ctx)
    if ctx.has(desc="Previous month"):
        return ctx.obs
    if ctx.flavor == "aosp":
        yield from tap(ctx, desc="Open navigation drawer", scroll=False)
        yield from tap(ctx, "Month", scroll=False)
    else:
        yield from tap(ctx, "Month", rid="tab_month", scroll=False)
    if not ctx.has(desc="Previous month"):
        raise OracleError("month view did not open")
    return ctx.obs


def _shown_month(ctx: Ctx) -> tuple[int, int]:
    el = ctx.find(rid="month_label")
    m = re.fullmatch(r"\s*([A-Za-z]+)\s+(\d{4})\s*", el.text if el else "")
    if not m or m.group(1).capitalize() not in MONTHS:
        raise OracleError(f"cannot read the month shown: {el.text if el else None!r}")
    return int(m.group(2)), MONTHS.index(m.group(1).capitalize()) + 1


def go_to_date(ctx: Ctx, date: Date | datetime | str) -> Skill:
    """Show ``date``'s events: month view, page to its month, tap the day.

    sim: the month view then lists that day's events under the grid; aosp: the Day view opens.
    """
    d = _as_date(date)
    yield from open_month_view(ctx)
    for _ in range(40):
        y, m = _shown_month(ctx)
        diff = (d.year - y) * 12 + (d.month - m)
        if diff == 0:
            break
        yield from tap(ctx, desc="Next month" if diff > 0 else "Previous month", scroll=False)
    else:
        raise OracleError(f"could not page to {d:%Y-%m}")
    want = norm(long_date(d))
    yield from tap(ctx, rid="month_day", pred=lambda e: norm(e.content_desc) == want
                   or norm(e.content_desc).startswith(want + ","))
    return ctx.obs


def _event_pred(title: str):
    t = norm(title)

    def pred(e: UIElement) -> bool:
        if e.resource_id.endswith("/event_chip"):
            return norm(e.text) == t
        if e.resource_id.endswith("/event_item"):
            return norm(e.content_desc).startswith(t + ",")
        return False
    return pred


def open_event(ctx: Ctx, title: str, date: Date | datetime | str | None = None) -> Skill:
    """Open an event's details: by its day when ``date`` is given, else through search."""
    if date is not None:
        yield from go_to_date(ctx, date)
        el = yield from scroll_to(ctx, pred=_event_pred(title))
        fab = ctx.find(desc="Create new event")
        if fab is not None and fab.bounds.contains(*el.bounds.center):
            # the event's centre is under the floating button: bring it up first
            yield from act(ctx, Scroll(direction="down"))
            el = yield from scroll_to(ctx, pred=_event_pred(title))
        yield from act(ctx, Tap(target=el.index))
    else:
        yield from open_calendar(ctx)
        yield from tap(ctx, desc="Search", scroll=False)
        yield from act(ctx, TypeText(text=title, clear=True))
        yield from tap(ctx, pred=_event_pred(title))
    el = ctx.find(rid="event_title")
    if el is None or norm(el.text) != norm(title):
        raise OracleError(f"event {title!r} did not open")
    return ctx.obs


def _set_date(ctx: Ctx, which: str, d: Date) -> Skill:
    yield from tap(ctx, rid=f"{which}_date")
    if ctx.flavor == "aosp" or ctx.has(desc="Switch to text input mode"):
        if ctx.has(desc="Switch to text input mode"):
            yield from tap(ctx, desc="Switch to text input mode", scroll=False)
        yield from _type(ctx, f"{d.month:02d}/{d.day:02d}/{d.year}", rid="mtrl_picker_text_input_date")
    else:
        yield from _type(ctx, str(d.month), rid="date_month")
        yield from _type(ctx, str(d.day), rid="date_day")
        yield from _type(ctx, str(d.year), rid="date_year")
    yield from tap(ctx, "OK", cls="Button", scroll=False)
    el = ctx.find(rid=f"{which}_date")
    if el is None or norm(el.text) != norm(short_date(d)):
        raise OracleError(f"{which} date did not become {short_date(d)} ({_toast(ctx) or (el.text if el else 'no field')})")
    return ctx.obs


def _set_time(ctx: Ctx, which: str, hour: int, minute: int) -> Skill:
    yield from tap(ctx, rid=f"{which}_time")
    twelve = ctx.has(rid="am_label")
    h = (hour % 12 or 12) if twelve else hour
    yield from _type(ctx, str(h), rid="input_hour")
    yield from _type(ctx, f"{minute:02d}", rid="input_minute")
    if twelve:
        yield from tap(ctx, "PM" if hour >= 12 else "AM", cls="RadioButton", scroll=False)
    yield from tap(ctx, "OK", cls="Button", scroll=False)
    if ctx.find(rid=f"{which}_time") is None:
        raise OracleError(f"{which} time was not accepted ({_toast(ctx)})")
    return ctx.obs


def _save(ctx: Ctx) -> Skill:
    yield from tap(ctx, "Save", cls="Button")
    if ctx.has(rid="is_all_day"):
        raise OracleError(f"the event was not saved: {_toast(ctx) or 'form still open'}")
    return ctx.obs


def create_event(ctx: Ctx, title: str, start: datetime, end: datetime | None = None, all_day: bool = False,
                 location: str = "", description: str = "") -> Skill:
    """Create an event. Without ``end`` it lasts an hour (one day if all-day).

    For all-day events ``end`` names the last day (inclusive), as the form shows it.
    """
    if not title.strip():
        raise OracleError("an event needs a title")
    yield from open_calendar(ctx)
    yield from tap(ctx, desc="Create new event", scroll=False)
    yield from _type(ctx, title, rid="title", cls="EditText")
    if all_day:
        yield from set_switch(ctx, ctx.t("All day", "All-day"), True)
    yield from _set_date(ctx, "start", start.date())
    if not all_day:
        yield from _set_time(ctx, "start", start.hour, start.minute)
    if end is not None:
        yield from _set_date(ctx, "end", end.date())
        if not all_day:
            yield from _set_time(ctx, "end", end.hour, end.minute)
    if location:
        yield from _type(ctx, location, rid="location", cls="EditText")
    if description:
        yield from _type(ctx, description, rid="description", cls="EditText")
    return (yield from _save(ctx))


def delete_event(ctx: Ctx, title: str, date: Date | datetime | str) -> Skill:
    """Delete the event ``title`` on ``date`` (details → Delete → confirm)."""
    yield from open_event(ctx, title, date)
    if ctx.has(desc="Delete"):
        yield from tap(ctx, desc="Delete", scroll=False)
    else:
        yield from tap(ctx, desc="More options", scroll=False)
        yield from tap(ctx, "Delete", scroll=False)
    yield from tap(ctx, "Delete", cls="Button", scroll=False)
    if ctx.has(rid="event_title"):
        raise OracleError(f"event {title!r} was not deleted")
    return ctx.obs


def _edit(ctx: Ctx) -> Skill:
    yield from tap(ctx, desc=ctx.t("Edit", "Edit event"), scroll=False)
    if not ctx.has(rid="is_all_day"):
        raise OracleError("the edit form did not open")
    return ctx.obs


def rename_event(ctx: Ctx, title: str, date: Date | datetime | str, new_title: str) -> Skill:
    """Give the event ``title`` on ``date`` a new title."""
    yield from open_event(ctx, title, date)
    yield from _edit(ctx)
    yield from _type(ctx, new_title, rid="title", cls="EditText")
    yield from _save(ctx)
    el = ctx.find(rid="event_title")
    if el is None or norm(el.text) != norm(new_title):
        raise OracleError(f"event was not renamed to {new_title!r}")
    return ctx.obs


def move_event(ctx: Ctx, title: str, date: Date | datetime | str, new_start: datetime) -> Skill:
    """Move the event to start at ``new_start``, keeping its duration."""
    yield from open_event(ctx, title, date)
    yield from _edit(ctx)
    yield from _set_date(ctx, "start", new_start.date())
    if ctx.has(rid="start_time"):
        yield from _set_time(ctx, "start", new_start.hour, new_start.minute)
    return (yield from _save(ctx))


def read_event(ctx: Ctx, title: str, date: Date | datetime | str | None = None) -> Skill:
    """Open an event and return what its details show.

    Keys: title, date (date line), time (time line), start_time ("10:00" or "All day"),
    all_day, location, description.
    """
    yield from open_event(ctx, title, date)

    def text(rid: str) -> str:
        el = ctx.find(rid=rid)
        return el.text if el else ""

    def row(rid: str, prefix: str) -> str:
        el = ctx.find(rid=rid)
        if el is None:
            return ""
        desc = el.content_desc
        return desc[len(prefix):] if desc.startswith(prefix) else desc

    date_line, time_line = text("event_date"), text("event_time")
    all_day = norm(time_line) == "all day"
    if all_day:
        start_time = "All day"
    elif date_line.rstrip().endswith("–"):  # multi-day: "Mon, Mar 15, 2027, 10:00 –"
        start_time = date_line.rstrip(" –").rsplit(", ", 1)[-1]
    else:
        start_time = time_line.split(" – ")[0]
    return {"title": text("event_title"), "date": date_line, "time": time_line, "start_time": start_time,
            "all_day": all_day, "location": row("event_location", "Location: "),
            "description": row("event_description", "Description: ")}


def list_events(ctx: Ctx, date: Date | datetime | str) -> Skill:
    """Titles of the events ``date`` shows, in the app's order (all-day first, then by time)."""
    yield from go_to_date(ctx, date)
    seen: dict[str, str] = {}

    def collect() -> None:
        for e in ctx.obs.elements:
            if e.resource_id.endswith("/event_chip"):
                seen.setdefault(e.content_desc, e.text)
            elif e.resource_id.endswith("/event_item"):
                inner = [x for x in ctx.obs.elements if x.resource_id.endswith("/title") and e.bounds.contains(*x.bounds.center)]
                if inner:
                    seen.setdefault(e.content_desc, inner[0].text)

    for direction in ("up", "down"):
        for _ in range(ctx.max_scrolls):
            if direction == "down":
                collect()
            before = [(e.text, e.bounds) for e in ctx.obs.elements]
            yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
            if [(e.text, e.bounds) for e in ctx.obs.elements] == before:
                break
    collect()
    return list(seen.values())
