"""Oracle skills for Calendar.

Events are reached the way a user reaches them: month view → the day (by the day cell's
content description, e.g. "Thursday, March 18, 2027") → the event, or through the app's
search when no date is given. Dates are typed through the date picker's text mode and times
through the time picker's keyboard mode, so no skill depends on coordinates. Every control is
a role of the app UI layer (:mod:`device.apps.calendar`, data in ``device/apps/data/calendar.yaml``):
the view switcher is a tab (the `sim` flavor) or an item of a navigation drawer (the `aosp`
flavor, Etar), a date dialog has Month/Day/Year fields or a text mode to switch to, the create
button may open a speed dial (Google Calendar). A control a family lacks is an OracleError
that names it and the family.
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import datetime
from typing import Any

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role, tap_role

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


APP = "calendar"


def _drv() -> Any:
    from device.apps import driver

    return driver(APP)


def _type(ctx: Ctx, role: str, text: str) -> Skill:
    """Tap the field playing ``role`` (unless focused) and replace its text, in one action."""
    el = yield from scroll_to_role(ctx, APP, role)
    return (yield from act(ctx, TypeText(text=text, clear=True, target=None if el.focused else el.index)))


def _has(ctx: Ctx, role: str) -> bool:
    return ctx.role(APP, role) is not None


def _toast(ctx: Ctx) -> str:
    t = ctx.role(APP, "toast")
    return t.text if t else ""


def _labels(ctx: Ctx, key: str) -> set[str]:
    w = ctx.words(APP, key)
    return {norm(x) for x in (w if isinstance(w, list) else [w])}


def open_calendar(ctx: Ctx) -> Skill:
    """Open Calendar on one of its views (leaving an event, a form, a dialog or search)."""
    yield from open_app(ctx, APP)
    if _has(ctx, "permission_allow"):
        yield from tap_role(ctx, APP, "permission_allow")
    for _ in range(8):
        if _has(ctx, "create_event"):
            return ctx.obs
        if _has(ctx, "discard"):
            yield from tap_role(ctx, APP, "discard")
        else:
            yield from back(ctx)
            if ctx.obs.foreground.app not in (None, APP):
                yield from open_app(ctx, APP)
    raise OracleError(f"could not reach a Calendar view ({ctx.family(APP)} family)")


def open_month_view(ctx: Ctx) -> Skill:
    yield from open_calendar(ctx)
    if _has(ctx, "prev_month"):
        return ctx.obs
    if not _has(ctx, "view_month") and _has(ctx, "drawer_toggle"):
        yield from tap_role(ctx, APP, "drawer_toggle")  # the views are in a navigation drawer
    yield from tap_role(ctx, APP, "view_month")
    if not _has(ctx, "prev_month"):
        raise OracleError("month view did not open")
    return ctx.obs


def _shown_month(ctx: Ctx) -> tuple[int, int]:
    el = ctx.role(APP, "month_label")
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
        yield from tap_role(ctx, APP, "next_month" if diff > 0 else "prev_month")
    else:
        raise OracleError(f"could not page to {d:%Y-%m}")
    want = norm(long_date(d))
    yield from tap_role(ctx, APP, "month_day", scroll=True, pred=lambda e: norm(e.content_desc) == want
                        or norm(e.content_desc).startswith(want + ","))
    return ctx.obs


def _event_pred(ctx: Ctx, title: str):
    t = norm(title)

    def pred(e: UIElement) -> bool:
        return norm(_drv().event_title(ctx.ui(APP), e)) == t
    return pred


def _opened(ctx: Ctx, title: str) -> bool:
    el = ctx.role(APP, "event_title")
    return el is not None and norm(el.text) == norm(title)


def open_event(ctx: Ctx, title: str, date: Date | datetime | str | None = None) -> Skill:
    """Open an event's details: by its day when ``date`` is given, else through search."""
    if date is not None:
        yield from go_to_date(ctx, date)
        el = yield from scroll_to_role(ctx, APP, "event", pred=_event_pred(ctx, title))
        fab = ctx.role(APP, "create_event")
        if fab is not None and fab.bounds.contains(*el.bounds.center):
            # the event's centre is under the floating button: bring it up first
            yield from act(ctx, Scroll(direction="down"))
            el = yield from scroll_to_role(ctx, APP, "event", pred=_event_pred(ctx, title))
        yield from act(ctx, Tap(target=el.index))
    else:
        yield from open_calendar(ctx)
        yield from tap_role(ctx, APP, "search")
        yield from act(ctx, TypeText(text=title, clear=True))
        yield from tap_role(ctx, APP, "event", scroll=True, pred=_event_pred(ctx, title))
    if not _opened(ctx, title):
        raise OracleError(f"event {title!r} did not open")
    return ctx.obs


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
    else:
        raise OracleError(f"{APP}: the date picker has no typed input ({ctx.family(APP)} family)")
    yield from tap_role(ctx, APP, "dialog_ok")
    el = ctx.role(APP, f"{which}_date")
    if el is None or norm(el.text) != norm(short_date(d)):
        raise OracleError(f"{which} date did not become {short_date(d)} ({_toast(ctx) or (el.text if el else 'no field')})")
    return ctx.obs


def _set_time(ctx: Ctx, which: str, hour: int, minute: int) -> Skill:
    yield from tap_role(ctx, APP, f"{which}_time", scroll=True)
    if not _has(ctx, "time_hour_field") and _has(ctx, "time_text_mode"):
        yield from tap_role(ctx, APP, "time_text_mode")  # the clock face: switch it to typing
    twelve = _has(ctx, "am")
    h = (hour % 12 or 12) if twelve else hour
    yield from _type(ctx, "time_hour_field", str(h))
    yield from _type(ctx, "time_minute_field", f"{minute:02d}")
    if twelve:
        yield from tap_role(ctx, APP, "pm" if hour >= 12 else "am")
    yield from tap_role(ctx, APP, "dialog_ok")
    if not _has(ctx, f"{which}_time"):
        raise OracleError(f"{which} time was not accepted ({_toast(ctx)})")
    return ctx.obs


def _in_editor(ctx: Ctx) -> bool:
    return _has(ctx, "start_date")


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
    if location:
        yield from _type(ctx, "location_field", location)
    if description:
        yield from _type(ctx, "description_field", description)
    return (yield from _save(ctx))


def delete_event(ctx: Ctx, title: str, date: Date | datetime | str) -> Skill:
    """Delete the event ``title`` on ``date`` (details → Delete → confirm)."""
    yield from open_event(ctx, title, date)
    if _has(ctx, "delete_event"):
        yield from tap_role(ctx, APP, "delete_event")
    else:
        yield from tap_role(ctx, APP, "more_options")
        labels = _labels(ctx, "delete_label")
        yield from tap_role(ctx, APP, "menu_item", pred=lambda e: norm(e.text) in labels)
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
    if not _opened(ctx, new_title):
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
    """Open an event and return what its details show.

    Keys: title, date (date line), time (time line), start_time ("10:00" or "All day"),
    all_day, location, description.
    """
    yield from open_event(ctx, title, date)
    shown = {k: v or "" for k, v in _drv().details(ctx.ui(APP)).items()}
    date_line, time_line = shown["date"], shown["time"]
    all_day = norm(time_line) in _labels(ctx, "all_day_label")
    if all_day:
        start_time = time_line
    elif date_line.rstrip().endswith("–"):  # multi-day: "Mon, Mar 15, 2027, 10:00 –"
        start_time = date_line.rstrip(" –").rsplit(", ", 1)[-1]
    else:
        start_time = time_line.split(" – ")[0]
    return {"title": shown["title"], "date": date_line, "time": time_line, "start_time": start_time,
            "all_day": all_day, "location": shown["location"], "description": shown["description"]}


def list_events(ctx: Ctx, date: Date | datetime | str) -> Skill:
    """Titles of the events ``date`` shows, in the app's order (all-day first, then by time)."""
    yield from go_to_date(ctx, date)
    seen: dict[str, str] = {}

    def collect() -> None:
        m = ctx.ui(APP)
        for e in m.find("event"):
            t = _drv().event_title(m, e)
            if t:
                seen.setdefault(e.content_desc or t, t)

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
