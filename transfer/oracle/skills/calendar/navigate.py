"""Getting to a day or an event in Calendar: opening the app, paging a month, a date, search.

How a day is reached is the family's (see the package's docstring): the month view's named
days, the month view's day cells, or the Agenda sent to the date through the overflow's
"Go to…"; a known event is found through the app's search, whose results list its day's
header above it. Also the small readers every calendar skill uses (roles, the family's wording,
the year the calendar shows as this year).
"""

from __future__ import annotations

import re
from datetime import date as Date
from datetime import datetime
from typing import Any

from actionmap.actions import Scroll, Tap, TypeText
from actionmap.observation import UIElement

from ...base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role, tap_role
from .dates import MONTHS, _as_date, long_date, picker_day

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


def _defines(ctx: Ctx, role: str) -> bool:
    """Whether the family's data names ``role`` at all (what its screens are built from)."""
    return role in ctx.ui(APP).family.roles


def _toast(ctx: Ctx) -> str:
    t = ctx.role(APP, "toast")
    return t.text if t else ""


def _labels(ctx: Ctx, key: str) -> set[str]:
    w = ctx.words(APP, key)
    return {norm(x) for x in (w if isinstance(w, list) else [w])}


def _memo(ctx: Ctx) -> dict[str, Any]:
    return ctx.__dict__.setdefault("_calendar", {})


def _note_year(ctx: Ctx) -> None:
    """Remember this year from a main view: its title ("March 2027") or a day header with its year."""
    from device.apps.calendar import parse_day

    for role in ("view_title", "month_label"):
        el = ctx.role(APP, role)
        hit = re.search(r"\b(\d{4})\b", el.text if el else "")
        if hit and "year" not in _memo(ctx):
            _memo(ctx)["year"] = int(hit.group(1))
            return
    for h in ctx.roles(APP, "day_header"):
        p = parse_day(h.text or h.content_desc)
        if p and p[0]:
            _memo(ctx).setdefault("year", p[0])
            return


def this_year(ctx: Ctx, default: int | None = None) -> int:
    """The year the phone's calendar shows as this year (what a date without a year means)."""
    y = _memo(ctx).get("year") or default
    if y is None:
        raise OracleError("cannot tell the current year from the calendar's screens")
    return y


def _in_editor(ctx: Ctx) -> bool:
    return _has(ctx, "start_date")


def open_calendar(ctx: Ctx) -> Skill:
    """Open Calendar on one of its views (leaving an event, a form, a dialog or search)."""
    yield from open_app(ctx, APP)
    if _has(ctx, "permission_allow"):
        yield from tap_role(ctx, APP, "permission_allow")
    for _ in range(8):
        if _has(ctx, "create_event") and not _has(ctx, "dialog"):
            _note_year(ctx)
            return ctx.obs
        if _has(ctx, "discard"):
            yield from tap_role(ctx, APP, "discard")
        elif _in_editor(ctx) and _has(ctx, "cancel_edit"):
            yield from tap_role(ctx, APP, "cancel_edit")  # leaving an editor by back may save it (Etar)
        else:
            yield from back(ctx)
            if ctx.obs.foreground.app not in (None, APP):
                yield from open_app(ctx, APP)
    raise OracleError(f"could not reach a Calendar view ({ctx.family(APP)} family)")


def _drawer(ctx: Ctx, role: str) -> Skill:
    """Pick a view from the navigation drawer (or the view tabs, where they show)."""
    if not _has(ctx, role) and _has(ctx, "drawer_toggle"):
        yield from tap_role(ctx, APP, "drawer_toggle")
    return (yield from tap_role(ctx, APP, role))


def open_month_view(ctx: Ctx) -> Skill:
    yield from open_calendar(ctx)
    yield from _ensure_year(ctx)
    if _has(ctx, "prev_month") or _has(ctx, "month_cell"):
        return ctx.obs
    yield from _drawer(ctx, "view_month")
    if not (_has(ctx, "prev_month") or _has(ctx, "month_cell")):
        raise OracleError("month view did not open")
    return ctx.obs


def _ensure_year(ctx: Ctx) -> Skill:
    """Learn this year where a main view shows it only in its day headers (Google's schedule)."""
    if "year" not in _memo(ctx):
        _note_year(ctx)
    if "year" not in _memo(ctx) and _defines(ctx, "view_schedule"):
        yield from _drawer(ctx, "view_schedule")
        _note_year(ctx)
    return ctx.obs


def _shown_month(ctx: Ctx) -> tuple[int, int]:
    el = ctx.role(APP, "month_label")
    m = re.fullmatch(r"\s*([A-Za-z]+)(?:\s+(\d{4}))?\s*", el.text if el else "")
    if not m or m.group(1).capitalize() not in MONTHS:
        raise OracleError(f"cannot read the month shown: {el.text if el else None!r}")
    year = int(m.group(2)) if m.group(2) else this_year(ctx)
    return year, MONTHS.index(m.group(1).capitalize()) + 1


def show_month(ctx: Ctx, day: Date) -> Skill:
    """The month view, paged to ``day``'s month (arrows, or a sideways swipe of the month pager)."""
    yield from open_month_view(ctx)
    for _ in range(40):
        y, m = _shown_month(ctx)
        diff = (day.year - y) * 12 + (day.month - m)
        if diff == 0:
            return ctx.obs
        if _defines(ctx, "next_month"):
            yield from tap_role(ctx, APP, "next_month" if diff > 0 else "prev_month")
        else:
            before = _shown_month(ctx)
            yield from act(ctx, Scroll(direction="right" if diff > 0 else "left"))
            if _shown_month(ctx) == before:
                raise OracleError("the month view did not page")
    raise OracleError(f"could not page to {day:%Y-%m}")


def _pick_calendar_day(ctx: Ctx, d: Date) -> Skill:
    """In the framework date picker: page to ``d``'s month and tap its day."""
    from device.apps.calendar import parse_day

    want = norm(picker_day(d))
    for _ in range(40):
        days = ctx.roles(APP, "picker_day")
        hit = next((e for e in days if norm(e.content_desc) == want), None)
        if hit is not None:
            return (yield from act(ctx, Tap(target=hit.index)))
        shown = parse_day(days[0].content_desc) if days else None
        if not shown or not shown[0]:
            raise OracleError("the date picker shows no days")
        diff = (d.year - shown[0]) * 12 + (d.month - shown[1])
        yield from tap_role(ctx, APP, "picker_next" if diff > 0 else "picker_prev")
    raise OracleError(f"could not page the date picker to {d:%Y-%m}")


def _agenda_at(ctx: Ctx, d: Date) -> Skill:
    """The Agenda view sent to ``d`` (overflow → Go to… → the date picker)."""
    yield from open_calendar(ctx)
    if not _has(ctx, "agenda_list"):
        yield from _drawer(ctx, "view_agenda")
    yield from _overflow_item(ctx, "goto_label")
    yield from _pick_calendar_day(ctx, d)
    yield from tap_role(ctx, APP, "dialog_ok")
    if not _has(ctx, "agenda_list"):
        raise OracleError("the agenda did not come back after Go to")
    return ctx.obs


def go_to_date(ctx: Ctx, date: Date | datetime | str) -> Skill:
    """Show ``date``'s events: sim, the month view's list under the grid; Google, the day view;
    AOSP/Etar, the agenda from that day on."""
    d = _as_date(date)
    if _defines(ctx, "month_day"):
        yield from show_month(ctx, d)
        want = norm(long_date(d))
        yield from tap_role(ctx, APP, "month_day", scroll=True, pred=lambda e: norm(e.content_desc) == want
                            or norm(e.content_desc).startswith(want + ","))
    elif _defines(ctx, "month_cell"):
        yield from show_month(ctx, d)
        yield from tap_role(ctx, APP, "month_cell", pred=lambda e: _same_day(e.content_desc, d, ctx))
    else:
        yield from _agenda_at(ctx, d)
    return ctx.obs


def _same_day(label: str | None, d: Date, ctx: Ctx) -> bool:
    from device.apps.calendar import parse_day

    p = parse_day(label or "")
    return bool(p) and p[1:] == (d.month, d.day) and (p[0] or _memo(ctx).get("year", d.year)) == d.year


def _row_day(ctx: Ctx, label: str | None) -> Date | None:
    from device.apps.calendar import parse_day

    p = parse_day(label or "")
    if not p:
        return None
    try:
        return Date(p[0] or this_year(ctx), p[1], p[2])
    except (ValueError, OracleError):
        return None


def day_rows(ctx: Ctx, d: Date) -> Skill:
    """The events listed under ``d``'s header (the agenda, a day view, search results), scrolling
    as far as the list goes past that day: [(row element info, element)] top to bottom."""
    drv = _drv()
    seen: dict[tuple[str, str], dict[str, str]] = {}
    for _ in range(ctx.max_scrolls):
        m = ctx.ui(APP)
        groups = drv.day_groups(m)
        days = [_row_day(ctx, label) for label, _ in groups]
        for (label, evs), day in zip(groups, days):
            if day == d:
                for e in evs:
                    info = drv.row_info(m, e)
                    seen.setdefault((info["title"], info["time"]), info)
        dated = [x for x in days if x is not None]
        if dated and max(dated) > d:
            break
        if dated and min(dated) > d and not seen:
            break
        before = [(e.text, e.content_desc, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, Scroll(direction="down"))
        if [(e.text, e.content_desc, e.bounds) for e in ctx.obs.elements] == before:
            break
    return list(seen.values())


def _event_pred(ctx: Ctx, title: str):
    t = norm(title)

    def pred(e: UIElement) -> bool:
        return norm(_drv().event_title(ctx.ui(APP), e)) == t
    return pred


def _opened(ctx: Ctx, title: str) -> bool:
    el = ctx.role(APP, "event_title")
    return el is not None and norm(el.text) == norm(title)


def _overflow_item(ctx: Ctx, label_key: str) -> Skill:
    """The overflow menu's item the family's wording ``label_key`` names."""
    yield from tap_role(ctx, APP, "more_options")
    labels = _labels(ctx, label_key)
    yield from tap_role(ctx, APP, "menu_item", pred=lambda e: norm(e.text) in labels)


def _role_or_overflow(ctx: Ctx, role: str, label_key: str) -> Skill:
    """The control playing ``role`` where the family shows one, else its overflow menu item."""
    if _has(ctx, role):
        yield from tap_role(ctx, APP, role)
    else:
        yield from _overflow_item(ctx, label_key)


def search(ctx: Ctx, query: str) -> Skill:
    """The app's search for ``query``: the toolbar's search button, or the overflow's Search item."""
    yield from open_calendar(ctx)
    yield from _role_or_overflow(ctx, "search", "search_label")
    field = ctx.role(APP, "search_field")
    if field is None:
        raise OracleError(f"no search field ({ctx.family(APP)} family)")
    return (yield from act(ctx, TypeText(text=query, clear=True, submit=True,
                                         target=None if field.focused else field.index)))


def _find_listed(ctx: Ctx, title: str, d: Date | None) -> Skill:
    """The row of the event ``title`` (on ``d``, when given) in a list grouped by days."""
    drv = _drv()
    pred = _event_pred(ctx, title)
    direction = "down"
    for _ in range(ctx.max_scrolls):
        m = ctx.ui(APP)
        groups = drv.day_groups(m)
        unknown = False
        for label, evs in groups:
            for e in evs:
                if not pred(e):
                    continue
                if d is None:
                    return e
                day = _row_day(ctx, label)
                if day == d:
                    _memo(ctx)["day"] = label
                    return e
                unknown = unknown or day is None
        dated = [x for x in (_row_day(ctx, label) for label, _ in groups) if x is not None]
        if d is not None and (unknown or (dated and min(dated) > d)):
            direction = "up"
        elif d is not None and dated and max(dated) < d:
            direction = "down"
        before = [(e.content_desc, e.text, e.bounds) for e in ctx.obs.elements]
        yield from act(ctx, Scroll(direction=direction))  # type: ignore[arg-type]
        if [(e.content_desc, e.text, e.bounds) for e in ctx.obs.elements] == before:
            if direction == "up" or d is None:
                break
            direction = "up"
    raise OracleError(f"no event {title!r}{f' on {d}' if d else ''} in the list ({ctx.family(APP)} family)")


def open_event(ctx: Ctx, title: str, date: Date | datetime | str | None = None) -> Skill:
    """Open an event's details: through search where results are listed by day (the stock apps),
    else by its day (or through search when no date is given)."""
    d = _as_date(date) if date is not None else None
    memo = _memo(ctx)
    memo.pop("row", None)
    memo.pop("day", None)
    if _defines(ctx, "day_header"):
        yield from search(ctx, title)
        el = yield from _find_listed(ctx, title, d)
        m = ctx.ui(APP)
        memo["row"] = _drv().row_info(m, el)
        memo.setdefault("day", next((label for label, evs in _drv().day_groups(m) if any(x.index == el.index for x in evs)), None))
        yield from act(ctx, Tap(target=el.index))
    elif d is not None:
        yield from go_to_date(ctx, d)
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
