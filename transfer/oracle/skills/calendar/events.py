"""Calendar's event form and the operations on one event: create, delete, rename, move, read, list.

Dates are typed where the picker has a text mode (Material's), picked in the framework's calendar
(its days are named "18 March 2027") or typed into Month/Day/Year fields; times go through the time
picker's keyboard mode.
"""

from __future__ import annotations

from datetime import date as Date
from datetime import datetime

from actionmap.actions import Tap

from ...base import Ctx, OracleError, Skill, act, norm, scroll_to_role, sweep, tap_role
from .dates import _TIME, _as_date, parse_time, short_date
from .navigate import (APP, _defines, _drv, _has, _in_editor, _labels, _memo, _opened, _pick_calendar_day,
                       _role_or_overflow, _toast, _type, day_rows, go_to_date, open_calendar, open_event)

def _set_date(ctx: Ctx, which: str, d: Date) -> Skill:
    yield from tap_role(ctx, APP, f"{which}_date", scroll=True)
    if _has(ctx, "date_text_mode") or _has(ctx, "date_text_field"):
        if not _has(ctx, "date_text_field"):  # a calendar grid: switch it to typing
            yield from tap_role(ctx, APP, "date_text_mode")
        yield from _type(ctx, "date_text_field", f"{d.month:02d}/{d.day:02d}/{d.year}")
    elif _has(ctx, "date_month"):
        yield from _type(ctx, "date_month", str(d.month))
        yield from _type(ctx, "date_day", str(d.day))
        yield from _type(ctx, "date_year", str(d.year))
    elif _has(ctx, "picker_day"):
        yield from _pick_calendar_day(ctx, d)
    else:
        raise OracleError(f"{APP}: the date picker has no typed input nor named days ({ctx.family(APP)} family)")
    yield from tap_role(ctx, APP, "dialog_ok")
    el = ctx.role(APP, f"{which}_date")
    if el is None or norm(el.text) != norm(short_date(d)):
        raise OracleError(f"{which} date did not become {short_date(d)} ({_toast(ctx) or (el.text if el else 'no field')})")
    return ctx.obs


def _set_time(ctx: Ctx, which: str, hour: int, minute: int) -> Skill:
    yield from tap_role(ctx, APP, f"{which}_time", scroll=True)
    twelve = _has(ctx, "am")
    meridiem = "pm" if hour >= 12 else "am"
    if twelve and not _has(ctx, "time_hour_field"):
        yield from tap_role(ctx, APP, meridiem)  # the clock face's AM/PM, kept by its keyboard mode
    if not _has(ctx, "time_hour_field") and _has(ctx, "time_text_mode"):
        yield from tap_role(ctx, APP, "time_text_mode")  # the clock face: switch it to typing
    h = (hour % 12 or 12) if twelve else hour
    yield from _type(ctx, "time_hour_field", str(h))
    yield from _type(ctx, "time_minute_field", f"{minute:02d}")
    if twelve and _has(ctx, meridiem):
        yield from tap_role(ctx, APP, meridiem)
    yield from tap_role(ctx, APP, "dialog_ok")
    el = ctx.role(APP, f"{which}_time")
    if el is None or parse_time(el.text) != (hour, minute):
        raise OracleError(f"{which} time was not accepted ({_toast(ctx) or (el.text if el else 'no field')})")
    return ctx.obs


def _save(ctx: Ctx) -> Skill:
    yield from tap_role(ctx, APP, "save", scroll=True)
    if _in_editor(ctx):
        raise OracleError(f"the event was not saved: {_toast(ctx) or 'form still open'}")
    return ctx.obs


def _set_all_day(ctx: Ctx, on: bool) -> Skill:
    sw = yield from scroll_to_role(ctx, APP, "all_day")
    if sw.checked != on:
        yield from act(ctx, Tap(target=sw.index))
        sw = ctx.role(APP, "all_day")
        if sw is None or sw.checked != on:
            raise OracleError("the all-day switch did not change")
    return ctx.obs


def create_event(ctx: Ctx, title: str, start: datetime, end: datetime | None = None, all_day: bool = False,
                 location: str = "", description: str = "") -> Skill:
    """Create an event. Without ``end`` it lasts an hour (one day if all-day).

    For all-day events ``end`` names the last day (inclusive), as the form shows it.
    """
    if not title.strip():
        raise OracleError("an event needs a title")
    yield from open_calendar(ctx)
    yield from tap_role(ctx, APP, "create_event")
    if _has(ctx, "new_event_option"):  # a speed dial (Event, Task, …)
        yield from tap_role(ctx, APP, "new_event_option")
    yield from _type(ctx, "title_field", title)
    if all_day:
        yield from _set_all_day(ctx, True)
    yield from _set_date(ctx, "start", start.date())
    if not all_day:
        yield from _set_time(ctx, "start", start.hour, start.minute)
    if end is not None:
        yield from _set_date(ctx, "end", end.date())
        if not all_day:
            yield from _set_time(ctx, "end", end.hour, end.minute)
            shown = ctx.role(APP, "end_date")
            if shown is not None and norm(shown.text) != norm(short_date(end.date())):
                # an app that moves an end before the start to the next day (Etar)
                raise OracleError(f"the end became {shown.text}: it is before the start")
    if location:
        yield from _type(ctx, "location_field", location)
    if description:
        yield from _type(ctx, "description_field", description)
    return (yield from _save(ctx))


def delete_event(ctx: Ctx, title: str, date: Date | datetime | str) -> Skill:
    """Delete the event ``title`` on ``date`` (details → Delete → confirm)."""
    yield from open_event(ctx, title, date)
    yield from _role_or_overflow(ctx, "delete_event", "delete_label")
    yield from tap_role(ctx, APP, "confirm_delete")
    if _has(ctx, "event_title"):
        raise OracleError(f"event {title!r} was not deleted")
    return ctx.obs


def _edit(ctx: Ctx) -> Skill:
    yield from tap_role(ctx, APP, "edit_event")
    if not _in_editor(ctx):
        raise OracleError("the edit form did not open")
    return ctx.obs


def rename_event(ctx: Ctx, title: str, date: Date | datetime | str, new_title: str) -> Skill:
    """Give the event ``title`` on ``date`` a new title."""
    yield from open_event(ctx, title, date)
    yield from _edit(ctx)
    yield from _type(ctx, "title_field", new_title)
    yield from _save(ctx)
    # the details show again (sim, Google), or the app returns to its views (Etar closes them to edit)
    if _has(ctx, "event_title") and not _opened(ctx, new_title):
        raise OracleError(f"event was not renamed to {new_title!r}")
    return ctx.obs


def move_event(ctx: Ctx, title: str, date: Date | datetime | str, new_start: datetime) -> Skill:
    """Move the event to start at ``new_start``, keeping its duration."""
    yield from open_event(ctx, title, date)
    yield from _edit(ctx)
    yield from _set_date(ctx, "start", new_start.date())
    if _has(ctx, "start_time"):
        yield from _set_time(ctx, "start", new_start.hour, new_start.minute)
    return (yield from _save(ctx))


def read_event(ctx: Ctx, title: str, date: Date | datetime | str | None = None) -> Skill:
    """Open an event and return what its details (and the list row it was opened from) show.

    Keys: title, date (date line), time (time line), start_time ("10:00", "10:00 AM" or "All day"),
    all_day, location, description, day (the header of the day it was listed under, if any).
    """
    yield from open_event(ctx, title, date)
    shown = {k: v or "" for k, v in _drv().details(ctx.ui(APP)).items()}
    row = _memo(ctx).get("row") or {}
    date_line, time_line = shown["date"], shown["time"] or row.get("time", "")
    words = ctx.words(APP, "all_day_label")
    labels = _labels(ctx, "all_day_label")
    when_text = time_line or date_line
    all_day = any(lab in norm(time_line) for lab in labels) or parse_time(when_text) is None
    hm = parse_time(when_text)
    if all_day:
        start_time = (words if isinstance(words, list) else [words])[0]
    elif date_line.rstrip().endswith("–"):  # multi-day: "Mon, Mar 15, 2027, 10:00 –"
        start_time = date_line.rstrip(" –").rsplit(", ", 1)[-1]
    else:
        hit = _TIME.search(when_text)
        # "2:30 PM" as shown; a range's start without its own meridiem ("1:00 – 2:00 PM") as 24-hour
        start_time = hit.group(0).strip() if hit and hit.group(3) else f"{hm[0]:02d}:{hm[1]:02d}" if hm else ""
    return {"title": shown["title"], "date": date_line, "time": time_line, "start_time": start_time,
            "all_day": all_day, "location": shown["location"] or row.get("place", ""),
            "description": shown["description"], "day": _memo(ctx).get("day") or ""}


def list_events(ctx: Ctx, date: Date | datetime | str) -> Skill:
    """Titles of the events ``date`` shows, in the app's order (all-day first, then by time)."""
    d = _as_date(date)
    yield from go_to_date(ctx, d)
    if _defines(ctx, "day_header"):
        rows = yield from day_rows(ctx, d)
        return [r["title"] for r in rows]
    seen: dict[str, str] = {}

    def collect() -> None:
        m = ctx.ui(APP)
        for e in m.find("event"):
            t = _drv().event_title(m, e)
            if t:
                seen.setdefault(e.content_desc or t, t)

    yield from sweep(ctx, lambda direction: collect() if direction == "down" else None)
    collect()
    return list(seen.values())
