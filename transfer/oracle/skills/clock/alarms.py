"""Clock skills for alarms: finding a card, the time picker, the editor, and reading the list.

Alarm cards are found and read by the Clock driver (:meth:`device.apps.clock.ClockDriver.card_for`),
collapsed or expanded, scrolling the list towards the alarm's time of day as needed. Whether an
alarm is edited in its expanded card or in a full-screen form with Save is the family's
``edits_inline``; whether a delete is confirmed is ``confirms_delete``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from actionmap.observation import UIElement
from actionmap.worldstate import DAYS
from device.apps.clock import ClockDriver, hhmm
from device.apps.match import inside
from device.apps.spec import load_spec

from ...base import Ctx, OracleError, Skill, norm, scroll_to_role, tap_role
from .screen import (APP, _drv, _ensure_clear, _flag, _has, _hide_keyboard, _list, _role, _scroll, _scroll_until,
                     _signature, _tap_el, _type_role, goto_tab)

_TIME_RE = re.compile(r"\d{1,2}:\d{2}(?:\s?[AP]M)?")

#: weekday code → the long name a day toggle is described by (family-free wording of the data)
DAY_NAMES: dict[str, str] = dict(load_spec(APP).family("generic").texts["day_names"])


def time_texts(hour: int, minute: int) -> set[str]:
    """Every way the app may show ``hour:minute`` (24-hour and 12-hour clocks)."""
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise OracleError(f"invalid time {hour}:{minute}")
    h12 = hour % 12 or 12
    ap = "AM" if hour < 12 else "PM"
    return {f"{hour:02d}:{minute:02d}", f"{hour}:{minute:02d}", f"{h12}:{minute:02d} {ap}", f"{h12}:{minute:02d}{ap}"}


# --- alarms: finding a card --------------------------------------------------------------------

def _card_probe(ctx: Ctx, hour: int, minute: int, label: str | None) -> Callable[[], UIElement | None]:
    time_texts(hour, minute)  # validates
    drv = _drv()
    return lambda: drv.card_for(ctx.ui(APP), hour, minute, label)


def _minutes(text: str) -> int | None:
    """'06:45' / '6:45 AM' / '12:05 PM' → minutes after midnight (None if not a time)."""
    t = hhmm(text)
    if t is None:
        return None
    h, mi = (int(x) for x in t.split(":"))
    return h * 60 + mi


def _alarm_direction(ctx: Ctx, hour: int, minute: int) -> str:
    """Alarms are listed by time of day: scroll towards the target from the times on screen."""
    shown = [v for v in (_minutes(e.text or e.content_desc) for e in ctx.roles(APP, "alarm_time")) if v is not None]
    return "up" if shown and hour * 60 + minute < min(shown) else "down"


def find_alarm(ctx: Ctx, hour: int, minute: int, label: str | None = None) -> Skill:
    """On the Alarm tab: scroll to the alarm card showing hour:minute (and label); returns the card."""
    probe = _card_probe(ctx, hour, minute, label)
    what = f"alarm {hour:02d}:{minute:02d}" + (f" {label!r}" if label is not None else "")
    yield from _scroll_until(ctx, probe, what, first=_alarm_direction(ctx, hour, minute))
    return (yield from _ensure_clear(ctx, probe, what))


def _set_period(ctx: Ctx, am: bool) -> Skill:
    """Choose AM or PM: the picker's AM/PM buttons, or (framework keyboard mode) its AM/PM spinner."""
    key = "am" if am else "pm"
    if _has(ctx, key):
        return (yield from tap_role(ctx, APP, key))
    spinner = ctx.need(APP, "am_pm_spinner")
    yield from _tap_el(ctx, spinner)
    want = norm(ctx.words(APP, "am_pm")[key])
    return (yield from tap_role(ctx, APP, "am_pm_option",
                                pred=lambda e: norm(e.text) == want and not inside(e, spinner)))


def _type_field(ctx: Ctx, role: str, text: str) -> Skill:
    """Type into a keyboard-mode field; where only the field being edited is a text box and the
    other shows a chip that selects it (Material time picker), tap the chip first."""
    if not _has(ctx, role) and _has(ctx, f"{role}_chip"):
        yield from tap_role(ctx, APP, f"{role}_chip")
    return (yield from _type_role(ctx, role, text))


def _fill_time_picker(ctx: Ctx, hour: int, minute: int) -> Skill:
    """Type a time into the time picker's keyboard mode (switching to it if needed) and press OK."""
    time_texts(hour, minute)  # validates
    if not (_has(ctx, "input_hour") or _has(ctx, "input_hour_chip")) and _has(ctx, "input_mode_toggle"):
        yield from tap_role(ctx, APP, "input_mode_toggle")
    twelve = _has(ctx, "am") or _has(ctx, "pm") or _has(ctx, "am_pm_spinner")
    h_text = str(hour % 12 or 12) if twelve else f"{hour:02d}"
    yield from _type_field(ctx, "input_hour", h_text)
    yield from _type_field(ctx, "input_minute", f"{minute:02d}")
    yield from _hide_keyboard(ctx)
    if twelve:
        yield from _set_period(ctx, hour < 12)
    yield from tap_role(ctx, APP, "time_picker_ok")
    if _has(ctx, "time_picker"):
        err = _role(ctx, "time_picker_error")
        raise OracleError(f"time picker rejected {hour}:{minute:02d}: {err.text if err else 'still open'}")
    return ctx.obs


def _open_editor(ctx: Ctx, hour: int, minute: int, label: str | None) -> Skill:
    """Inline families: expand the alarm's card; the others: open its full-screen editor."""
    yield from goto_tab(ctx, "alarm")
    card = yield from find_alarm(ctx, hour, minute, label)
    if _flag(ctx, "edits_inline"):
        arrow = _role(ctx, "expand_alarm", within=card)
        if arrow is not None:
            yield from _tap_el(ctx, arrow)
        return None
    yield from _tap_el(ctx, ctx.need(APP, "alarm_time", within=card))
    if not _has(ctx, "save"):
        raise OracleError("the alarm editor did not open")
    return None


def _save_editor(ctx: Ctx) -> Skill:
    yield from _hide_keyboard(ctx)
    yield from tap_role(ctx, APP, "save")
    if _has(ctx, "save"):
        raise OracleError("the alarm editor did not close on Save")
    return ctx.obs


def _day_toggle(ctx: Ctx, day: str) -> UIElement | None:
    return next((e for e in ctx.roles(APP, "day_toggle") if e.checkable and ClockDriver.day_of(e) == day), None)


def _set_days_here(ctx: Ctx, days: Iterable[str]) -> Skill:
    """Set the day toggles visible in the open editor / expanded card to exactly ``days``."""
    want = {d.lower()[:3] for d in days}
    bad = want - set(DAYS)
    if bad:
        raise OracleError(f"unknown days {sorted(bad)}; use {DAYS}")
    for d in DAYS:
        chip = yield from scroll_to_role(ctx, APP, "day_toggle",
                                         pred=lambda e, d=d: e.checkable and ClockDriver.day_of(e) == d)
        if chip.checked != (d in want):
            yield from _tap_el(ctx, chip)
            chip = _day_toggle(ctx, d)
            if chip is None or chip.checked != (d in want):
                raise OracleError(f"day {d} did not toggle")
    return ctx.obs


def _set_label_here(ctx: Ctx, label: str) -> Skill:
    if _flag(ctx, "edits_inline"):  # the card's label row opens a label dialog
        yield from tap_role(ctx, APP, "edit_label", scroll=True)
        yield from _type_role(ctx, "label_field", label)
        yield from _hide_keyboard(ctx)
        yield from tap_role(ctx, APP, "label_ok")
    else:  # the editor's name field
        yield from _type_role(ctx, "alarm_name", label)
        yield from _hide_keyboard(ctx)
    return ctx.obs


# --- alarms: operations ------------------------------------------------------------------------

def create_alarm(ctx: Ctx, hour: int, minute: int, label: str = "", days: Iterable[str] = ()) -> Skill:
    """Add an enabled alarm at hour:minute with an optional label and repeat days (``'mon'``…)."""
    days = list(days)
    yield from goto_tab(ctx, "alarm")
    yield from tap_role(ctx, APP, "add_alarm")
    if not _has(ctx, "time_picker"):
        raise OracleError("Add alarm did not open the time picker")
    yield from _fill_time_picker(ctx, hour, minute)
    if not _flag(ctx, "edits_inline"):  # the Add alarm form: name, repeat days, Save
        if label:
            yield from _set_label_here(ctx, label)
        if days:
            yield from _set_days_here(ctx, days)
        yield from _save_editor(ctx)
    else:  # the new alarm is created and its card expanded
        if label or days:
            yield from _scroll_until(ctx, lambda: _role(ctx, "collapse_alarm"), "the new alarm's card")
            if days:
                yield from _set_days_here(ctx, days)
            if label:
                yield from _set_label_here(ctx, label)
    probe = _card_probe(ctx, hour, minute, label)  # the new alarm is listed
    yield from _scroll_until(ctx, probe, f"the new alarm {hour:02d}:{minute:02d}", first=_alarm_direction(ctx, hour, minute))
    return ctx.obs


def set_alarm_enabled(ctx: Ctx, hour: int, minute: int, enabled: bool, label: str | None = None) -> Skill:
    """Switch the alarm at hour:minute (and label) on or off."""
    yield from goto_tab(ctx, "alarm")
    probe = _card_probe(ctx, hour, minute, label)
    card = yield from find_alarm(ctx, hour, minute, label)
    sw = _role(ctx, "alarm_switch", within=card)
    if sw is None:
        raise OracleError("no switch on the alarm card")
    if sw.checked != enabled:
        yield from _tap_el(ctx, sw)
        card = probe()
        sw = _role(ctx, "alarm_switch", within=card) if card else None
        if sw is None or sw.checked != enabled:
            raise OracleError("the alarm switch did not change")
    return ctx.obs


def set_alarm_label(ctx: Ctx, hour: int, minute: int, label: str, current_label: str | None = None) -> Skill:
    """Give the alarm at hour:minute a new label (``''`` clears it)."""
    yield from _open_editor(ctx, hour, minute, current_label)
    yield from _set_label_here(ctx, label)
    if not _flag(ctx, "edits_inline"):
        yield from _save_editor(ctx)
    return ctx.obs


def set_alarm_days(ctx: Ctx, hour: int, minute: int, days: Iterable[str], label: str | None = None) -> Skill:
    """Make the alarm repeat on exactly ``days`` (``[]`` = one-off)."""
    yield from _open_editor(ctx, hour, minute, label)
    yield from _set_days_here(ctx, list(days))
    if not _flag(ctx, "edits_inline"):
        yield from _save_editor(ctx)
    return ctx.obs


def change_alarm_time(ctx: Ctx, hour: int, minute: int, new_hour: int, new_minute: int, label: str | None = None) -> Skill:
    """Move the alarm at hour:minute to new_hour:new_minute."""
    time_texts(new_hour, new_minute)
    inline = _flag(ctx, "edits_inline")
    if inline:  # the card's time opens the picker
        yield from goto_tab(ctx, "alarm")
        card = yield from find_alarm(ctx, hour, minute, label)
        yield from _tap_el(ctx, ctx.need(APP, "alarm_time", within=card))
    else:
        yield from _open_editor(ctx, hour, minute, label)
        yield from tap_role(ctx, APP, "edit_time", scroll=True)
    if not _has(ctx, "time_picker"):
        raise OracleError("the time picker did not open")
    yield from _fill_time_picker(ctx, new_hour, new_minute)
    if not inline:
        yield from _save_editor(ctx)
    return ctx.obs


def delete_alarm(ctx: Ctx, hour: int, minute: int, label: str | None = None) -> Skill:
    """Delete the alarm at hour:minute (confirming where the family asks, e.g. the sim flavor)."""
    yield from _open_editor(ctx, hour, minute, label)
    yield from tap_role(ctx, APP, "delete", scroll=True)
    if _flag(ctx, "confirms_delete"):
        if not _has(ctx, "delete_confirm"):
            raise OracleError("no delete confirmation")
        yield from tap_role(ctx, APP, "delete_confirm")
    return ctx.obs


def set_alarm_vibrate(ctx: Ctx, hour: int, minute: int, vibrate: bool, label: str | None = None) -> Skill:
    """Turn vibration on or off for the alarm at hour:minute."""
    yield from _open_editor(ctx, hour, minute, label)
    el = yield from scroll_to_role(ctx, APP, "vibrate", pred=lambda e: e.checkable)
    if el.checked != vibrate:
        yield from _tap_el(ctx, el)
    if not _flag(ctx, "edits_inline"):
        yield from _save_editor(ctx)
    return ctx.obs


# --- alarms: queries ---------------------------------------------------------------------------

def read_next_alarm(ctx: Ctx) -> Skill:
    """The time of the next alarm that will ring, as the Clock tab shows it ('06:45'); '' if none."""
    yield from goto_tab(ctx, "clock")
    el = _role(ctx, "next_alarm")
    if el is None:
        return ""
    m = _TIME_RE.search(el.text) or _TIME_RE.search(el.content_desc)
    return m.group(0) if m else el.text


def _visible_cards(ctx: Ctx) -> list[tuple[str, str, list[str], bool]]:
    """(time as shown, label, repeat days, on) of every alarm card wholly on screen, top to bottom.

    The label is ``''`` for an alarm without one; the days are weekday codes (``[]`` for a
    one-off alarm), read by the Clock driver from the collapsed summary or the expanded toggles."""
    drv, m = _drv(), ctx.ui(APP)
    lst = _list(ctx)
    out = []
    for card in sorted(m.find("alarm_card"), key=lambda c: c.bounds.top):
        if lst is not None and (card.bounds.top <= lst.bounds.top or card.bounds.bottom >= lst.bounds.bottom):
            continue
        t = m.first("alarm_time", within=card)
        sw = m.first("alarm_switch", within=card)
        if t is None or sw is None:
            continue
        out.append((t.text or t.content_desc, drv.card_label(m, card) or "", drv.card_days(m, card) or [],
                    bool(sw.checked)))
    return out


def list_alarms(ctx: Ctx) -> Skill:
    """Every alarm on the Alarm tab as (time, label, repeat days, on), scrolling the whole list."""
    yield from goto_tab(ctx, "alarm")
    for _ in range(ctx.max_scrolls):  # to the top
        before = _signature(ctx)
        if _list(ctx) is None:
            break
        yield from _scroll(ctx, "up")
        if _signature(ctx) == before:
            break
    seen = _visible_cards(ctx)
    for _ in range(ctx.max_scrolls * 2):
        if _list(ctx) is None:
            break
        before = _signature(ctx)
        yield from _scroll(ctx, "down")
        if _signature(ctx) == before:
            break
        page = _visible_cards(ctx)
        # the new page overlaps the previous one: append what lies past the longest overlap
        k = next((k for k in range(min(len(seen), len(page)), 0, -1) if seen[-k:] == page[:k]), 0)
        seen.extend(page[k:])
    return seen


def count_enabled_alarms(ctx: Ctx) -> Skill:
    """How many alarms are switched on (read from the whole alarm list)."""
    cards = yield from list_alarms(ctx)
    return sum(1 for c in cards if c[3])
