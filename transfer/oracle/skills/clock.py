"""Oracle skills for the Clock app (alarms, world clock, timers, stopwatch).

Every skill starts with ``open_app`` and works from any screen of the app (a dialog, the
alarm editor, the city picker), in both flavors: ``sim`` edits an alarm on a full-screen
form with Save, ``aosp`` edits it inline in an expandable card. Elements are found by text,
content description and resource id — never by coordinates — and alarm rows are located
by reading the time and label *inside* each alarm card, scrolling the list as needed, so
the skills keep working with long lists and on other screen sizes. Query skills return
what the screen shows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from actionmap.actions import LongPress, Scroll, Tap
from actionmap.observation import UIElement
from actionmap.worldstate import DAYS

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to, tap, type_into

DAY_NAMES = {"mon": "Monday", "tue": "Tuesday", "wed": "Wednesday", "thu": "Thursday", "fri": "Friday",
             "sat": "Saturday", "sun": "Sunday"}
TAB_LABELS = {"alarm": "Alarm", "clock": "Clock", "timer": "Timer", "stopwatch": "Stopwatch"}
_TIME_RE = re.compile(r"\d{1,2}:\d{2}(?:\s?[AP]M)?")


# --- small readers ---------------------------------------------------------------------------

def _rid(e: UIElement, name: str) -> bool:
    return e.resource_id == name or e.resource_id.endswith("/" + name)


def _inside(e: UIElement, box: UIElement) -> bool:
    cx, cy = e.bounds.center
    b = box.bounds
    return b.left <= cx <= b.right and b.top <= cy <= b.bottom


def _parts(ctx: Ctx, box: UIElement) -> list[UIElement]:
    return [e for e in ctx.obs.elements if e.index != box.index and _inside(e, box)]


def _part(ctx: Ctx, box: UIElement, name: str) -> UIElement | None:
    return next((e for e in _parts(ctx, box) if _rid(e, name)), None)


def time_texts(hour: int, minute: int) -> set[str]:
    """Every way the app may show ``hour:minute`` (24-hour and 12-hour clocks)."""
    if not (0 <= hour <= 23 and 0 <= minute <= 59):
        raise OracleError(f"invalid time {hour}:{minute}")
    h12 = hour % 12 or 12
    ap = "AM" if hour < 12 else "PM"
    return {f"{hour:02d}:{minute:02d}", f"{hour}:{minute:02d}", f"{h12}:{minute:02d} {ap}", f"{h12}:{minute:02d}{ap}"}


def _fold(s: str) -> str:
    """Match city names regardless of accents and case ('Sao Paulo' finds 'São Paulo')."""
    s = unicodedata.normalize("NFKD", s or "")
    return norm("".join(ch for ch in s if not unicodedata.combining(ch)).replace("’", "'"))


def _list(ctx: Ctx) -> UIElement | None:
    return ctx.find(rid="list", pred=lambda e: e.scrollable)


def _fabs(ctx: Ctx) -> list[UIElement]:
    return ctx.find_all(rid="fab")


def _signature(ctx: Ctx) -> list[tuple[str, str, object]]:
    return [(e.text, e.content_desc, e.bounds) for e in ctx.obs.elements]


def _scroll(ctx: Ctx, direction: str) -> Skill:
    lst = _list(ctx)
    action = Scroll(direction=direction, target=lst.index) if lst is not None else Scroll(direction=direction)  # type: ignore[arg-type]
    return (yield from act(ctx, action))


def _scroll_until(ctx: Ctx, probe: Callable[[], UIElement | None], what: str, *, must: bool = True,
                  first: str = "down") -> Skill:
    """Scroll the list (towards ``first`` to that end, then back the other way) until ``probe`` finds something."""
    hit = probe()
    for direction in (("up", "down") if first == "up" else ("down", "up")):
        tries = 0
        while hit is None and tries < ctx.max_scrolls:
            before = _signature(ctx)
            yield from _scroll(ctx, direction)
            tries += 1
            hit = probe()
            if hit is None and _signature(ctx) == before:
                break  # this end of the list is reached
        if hit is not None:
            break
    if hit is None and must:
        raise OracleError(f"not found in the list: {what}")
    return hit


def _ensure_clear(ctx: Ctx, refind: Callable[[], UIElement | None], what: str) -> Skill:
    """Scroll until the element is wholly inside the list and not under a floating button."""
    el = refind()
    for _ in range(3):
        if el is None:
            raise OracleError(f"lost sight of {what}")
        lst = _list(ctx)
        if lst is None:
            return el
        lb, b = lst.bounds, el.bounds
        under_fab = any(f.bounds.left < b.right and b.left < f.bounds.right and f.bounds.top < b.bottom
                        and b.top < f.bounds.bottom for f in _fabs(ctx))
        if b.bottom >= lb.bottom - 1 or under_fab:
            direction = "down"
        elif b.top <= lb.top + 1:
            direction = "up"
        else:
            return el
        before = _signature(ctx)
        yield from _scroll(ctx, direction)
        el = refind()
        if _signature(ctx) == before:
            return el
    return el


# --- navigation ------------------------------------------------------------------------------

def _on_tabs(ctx: Ctx) -> bool:
    return ctx.has(desc="Alarm", pred=lambda e: e.clickable) and ctx.has(desc="Stopwatch", pred=lambda e: e.clickable)


def open_clock(ctx: Ctx) -> Skill:
    """Open the Clock app and get back to its tabbed main screen (closing dialogs, editors)."""
    yield from open_app(ctx, "clock")
    for _ in range(8):
        allow = ctx.find(rid="permission_allow_button")
        if allow is not None:  # a first-launch runtime permission prompt
            yield from _tap_el(ctx, allow)
            continue
        dialog = ctx.has(rid="parentPanel")
        if _on_tabs(ctx) and not dialog and not ctx.obs.keyboard_visible:
            return ctx.obs
        if ctx.obs.foreground.app not in (None, "clock") or not (dialog or ctx.obs.keyboard_visible or ctx.has(desc="Navigate up")):
            yield from open_app(ctx, "clock")
            if _on_tabs(ctx):
                return ctx.obs
        yield from back(ctx)
    raise OracleError("could not reach the Clock app's main screen")


def goto_tab(ctx: Ctx, tab: str) -> Skill:
    """Open the Clock app on ``tab`` (alarm, clock, timer, stopwatch)."""
    if tab not in TAB_LABELS:
        raise OracleError(f"unknown Clock tab {tab!r}; known: {', '.join(TAB_LABELS)}")
    label = TAB_LABELS[tab]
    yield from open_clock(ctx)
    el = ctx.find(desc=label, pred=lambda e: e.clickable)
    if el is None:
        raise OracleError(f"no {label} tab")
    if not el.selected:
        yield from act(ctx, Tap(target=el.index))
    return ctx.obs


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def _hide_keyboard(ctx: Ctx) -> Skill:
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return ctx.obs


# --- alarms: finding a card --------------------------------------------------------------------

def _card_matches(ctx: Ctx, card: UIElement, times: set[str], label: str | None) -> bool:
    parts = _parts(ctx, card)
    if not any(_rid(e, "digital_clock") and e.text in times for e in parts):
        return False
    if label is None:
        return True
    lab = next((e for e in parts if e.resource_id.endswith(":id/label")), None)
    return norm(lab.text if lab else "") == norm(label)


def _card_probe(ctx: Ctx, hour: int, minute: int, label: str | None) -> Callable[[], UIElement | None]:
    times = time_texts(hour, minute)

    def probe() -> UIElement | None:
        return next((c for c in ctx.find_all(rid="alarm_item") if _card_matches(ctx, c, times, label)), None)

    return probe


def _minutes(text: str) -> int | None:
    """'06:45' / '6:45 AM' / '12:05 PM' → minutes after midnight (None if not a time)."""
    m = re.fullmatch(r"\s*(\d{1,2}):(\d{2})\s*([AP]M)?\s*", text or "")
    if not m:
        return None
    h, mi = int(m.group(1)), int(m.group(2))
    if m.group(3):
        h = h % 12 + (12 if m.group(3) == "PM" else 0)
    return h * 60 + mi


def _alarm_direction(ctx: Ctx, hour: int, minute: int) -> str:
    """Alarms are listed by time of day: scroll towards the target from the times on screen."""
    shown = [v for v in (_minutes(e.text) for e in ctx.find_all(rid="digital_clock")) if v is not None]
    return "up" if shown and hour * 60 + minute < min(shown) else "down"


def find_alarm(ctx: Ctx, hour: int, minute: int, label: str | None = None) -> Skill:
    """On the Alarm tab: scroll to the alarm card showing hour:minute (and label); returns the card."""
    probe = _card_probe(ctx, hour, minute, label)
    what = f"alarm {hour:02d}:{minute:02d}" + (f" {label!r}" if label is not None else "")
    yield from _scroll_until(ctx, probe, what, first=_alarm_direction(ctx, hour, minute))
    return (yield from _ensure_clear(ctx, probe, what))


def _fill_time_picker(ctx: Ctx, hour: int, minute: int) -> Skill:
    """Type a time into the keyboard-mode time picker and press OK."""
    time_texts(hour, minute)  # validates
    twelve = ctx.has(rid="am_label") or ctx.has(rid="pm_label")
    h_text = str(hour % 12 or 12) if twelve else f"{hour:02d}"
    yield from type_into(ctx, None, h_text, clear=True, rid="input_hour")
    yield from type_into(ctx, None, f"{minute:02d}", clear=True, rid="input_minute")
    yield from _hide_keyboard(ctx)
    if twelve:
        yield from tap(ctx, scroll=False, rid="am_label" if hour < 12 else "pm_label")
    yield from tap(ctx, "OK", scroll=False, cls="Button")
    if ctx.has(rid="timePicker"):
        err = ctx.find(rid="error")
        raise OracleError(f"time picker rejected {hour}:{minute:02d}: {err.text if err else 'still open'}")
    return ctx.obs


def _open_editor(ctx: Ctx, hour: int, minute: int, label: str | None) -> Skill:
    """sim: open the Edit alarm form; aosp: expand the alarm's card. Returns the card (aosp) or None."""
    yield from goto_tab(ctx, "alarm")
    card = yield from find_alarm(ctx, hour, minute, label)
    if ctx.flavor == "aosp":
        arrow = _part(ctx, card, "arrow")
        if arrow is not None and norm(arrow.content_desc) == norm("Expand alarm"):
            yield from _tap_el(ctx, arrow)
        return None
    t = next(e for e in _parts(ctx, card) if _rid(e, "digital_clock"))
    yield from _tap_el(ctx, t)
    if not ctx.has(rid="save"):
        raise OracleError("the alarm editor did not open")
    return None


def _save_editor(ctx: Ctx) -> Skill:
    yield from _hide_keyboard(ctx)
    yield from tap(ctx, scroll=False, rid="save")
    if ctx.has(rid="save"):
        raise OracleError("the alarm editor did not close on Save")
    return ctx.obs


def _set_days_here(ctx: Ctx, days: Iterable[str]) -> Skill:
    """Set the day chips visible in the open editor / expanded card to exactly ``days``."""
    want = {d.lower()[:3] for d in days}
    bad = want - set(DAYS)
    if bad:
        raise OracleError(f"unknown days {sorted(bad)}; use {DAYS}")
    for d in DAYS:
        chip = yield from scroll_to(ctx, desc=DAY_NAMES[d], pred=lambda e: e.checkable)
        if chip.checked != (d in want):
            yield from _tap_el(ctx, chip)
            chip = ctx.find(desc=DAY_NAMES[d], pred=lambda e: e.checkable)
            if chip is None or chip.checked != (d in want):
                raise OracleError(f"day {d} did not toggle")
    return ctx.obs


def _set_label_here(ctx: Ctx, label: str) -> Skill:
    if ctx.flavor == "aosp":
        yield from tap(ctx, rid="edit_label")
        yield from type_into(ctx, None, label, clear=True, rid="label_input")
        yield from _hide_keyboard(ctx)
        yield from tap(ctx, "OK", scroll=False, cls="Button")
    else:
        yield from type_into(ctx, None, label, clear=True, rid="alarm_name")
        yield from _hide_keyboard(ctx)
    return ctx.obs


# --- alarms: operations ------------------------------------------------------------------------

def create_alarm(ctx: Ctx, hour: int, minute: int, label: str = "", days: Iterable[str] = ()) -> Skill:
    """Add an enabled alarm at hour:minute with an optional label and repeat days (``'mon'``…)."""
    days = list(days)
    yield from goto_tab(ctx, "alarm")
    yield from tap(ctx, scroll=False, desc="Add alarm")
    if not ctx.has(rid="timePicker"):
        raise OracleError("Add alarm did not open the time picker")
    yield from _fill_time_picker(ctx, hour, minute)
    if ctx.flavor != "aosp":  # the Add alarm form: name, repeat days, Save
        if label:
            yield from _set_label_here(ctx, label)
        if days:
            yield from _set_days_here(ctx, days)
        yield from _save_editor(ctx)
    else:  # the new alarm is created and its card expanded
        if label or days:
            yield from _scroll_until(ctx, lambda: ctx.find(desc="Collapse alarm"), "the new alarm's card")
            if days:
                yield from _set_days_here(ctx, days)
            if label:
                yield from _set_label_here(ctx, label)
    yield from find_alarm(ctx, hour, minute, label)
    return ctx.obs


def set_alarm_enabled(ctx: Ctx, hour: int, minute: int, enabled: bool, label: str | None = None) -> Skill:
    """Switch the alarm at hour:minute (and label) on or off."""
    yield from goto_tab(ctx, "alarm")
    probe = _card_probe(ctx, hour, minute, label)
    card = yield from find_alarm(ctx, hour, minute, label)
    sw = _part(ctx, card, "onoff")
    if sw is None:
        raise OracleError("no switch on the alarm card")
    if sw.checked != enabled:
        yield from _tap_el(ctx, sw)
        card = probe()
        sw = _part(ctx, card, "onoff") if card else None
        if sw is None or sw.checked != enabled:
            raise OracleError("the alarm switch did not change")
    return ctx.obs


def set_alarm_label(ctx: Ctx, hour: int, minute: int, label: str, current_label: str | None = None) -> Skill:
    """Give the alarm at hour:minute a new label (``''`` clears it)."""
    yield from _open_editor(ctx, hour, minute, current_label)
    yield from _set_label_here(ctx, label)
    if ctx.flavor != "aosp":
        yield from _save_editor(ctx)
    return ctx.obs


def set_alarm_days(ctx: Ctx, hour: int, minute: int, days: Iterable[str], label: str | None = None) -> Skill:
    """Make the alarm repeat on exactly ``days`` (``[]`` = one-off)."""
    yield from _open_editor(ctx, hour, minute, label)
    yield from _set_days_here(ctx, list(days))
    if ctx.flavor != "aosp":
        yield from _save_editor(ctx)
    return ctx.obs


def change_alarm_time(ctx: Ctx, hour: int, minute: int, new_hour: int, new_minute: int, label: str | None = None) -> Skill:
    """Move the alarm at hour:minute to new_hour:new_minute."""
    time_texts(new_hour, new_minute)
    if ctx.flavor == "aosp":
        yield from goto_tab(ctx, "alarm")
        card = yield from find_alarm(ctx, hour, minute, label)
        t = _part(ctx, card, "digital_clock")
        yield from _tap_el(ctx, t)
    else:
        yield from _open_editor(ctx, hour, minute, label)
        yield from tap(ctx, rid="edit_time")
    if not ctx.has(rid="timePicker"):
        raise OracleError("the time picker did not open")
    yield from _fill_time_picker(ctx, new_hour, new_minute)
    if ctx.flavor != "aosp":
        yield from _save_editor(ctx)
    return ctx.obs


def delete_alarm(ctx: Ctx, hour: int, minute: int, label: str | None = None) -> Skill:
    """Delete the alarm at hour:minute (sim asks for confirmation; aosp deletes at once)."""
    yield from _open_editor(ctx, hour, minute, label)
    yield from tap(ctx, "Delete", rid="delete")
    if ctx.flavor != "aosp":
        if not ctx.has("Delete alarm?"):
            raise OracleError("no delete confirmation")
        yield from tap(ctx, "Delete", scroll=False, cls="Button", pred=lambda e: "button" in e.resource_id)
    return ctx.obs


def set_alarm_vibrate(ctx: Ctx, hour: int, minute: int, vibrate: bool, label: str | None = None) -> Skill:
    """Turn vibration on or off for the alarm at hour:minute."""
    yield from _open_editor(ctx, hour, minute, label)
    el = yield from scroll_to(ctx, pred=lambda e: e.checkable and (_rid(e, "vibrate_onoff") or _rid(e, "switch_widget")
                                                                 and _near_text(ctx, e, "Vibrate")))
    if el.checked != vibrate:
        yield from _tap_el(ctx, el)
    if ctx.flavor != "aosp":
        yield from _save_editor(ctx)
    return ctx.obs


def _near_text(ctx: Ctx, e: UIElement, text: str) -> bool:
    cy = e.bounds.center[1]
    return any(norm(x.text) == norm(text) and x.bounds.top - 20 <= cy <= x.bounds.bottom + 20 for x in ctx.obs.elements)


# --- alarms: queries ---------------------------------------------------------------------------

def read_next_alarm(ctx: Ctx) -> Skill:
    """The time of the next alarm that will ring, as the Clock tab shows it ('06:45'); '' if none."""
    yield from goto_tab(ctx, "clock")
    el = ctx.find(rid="nextAlarm")
    if el is None:
        return ""
    m = _TIME_RE.search(el.text) or _TIME_RE.search(el.content_desc)
    return m.group(0) if m else el.text


def _visible_cards(ctx: Ctx) -> list[tuple[str, str, str, bool]]:
    """(time, label, days, on) of every alarm card wholly on screen, top to bottom."""
    lst = _list(ctx)
    out = []
    for card in sorted(ctx.find_all(rid="alarm_item"), key=lambda c: c.bounds.top):
        if lst is not None and (card.bounds.top <= lst.bounds.top or card.bounds.bottom >= lst.bounds.bottom):
            continue
        parts = _parts(ctx, card)
        t = next((e.text for e in parts if _rid(e, "digital_clock")), None)
        sw = next((e for e in parts if _rid(e, "onoff")), None)
        if t is None or sw is None:
            continue
        lab = next((e.text for e in parts if e.resource_id.endswith(":id/label")), "")
        days = next((e.text for e in parts if _rid(e, "days_of_week")), "")
        out.append((t, lab, days, sw.checked))
    return out


def list_alarms(ctx: Ctx) -> Skill:
    """Every alarm on the Alarm tab as (time, label, repeat summary, on), scrolling the whole list."""
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


# --- world clock -------------------------------------------------------------------------------

def _city_probe(ctx: Ctx, city: str) -> Callable[[], UIElement | None]:
    want = _fold(city)
    return lambda: ctx.find(rid="city_name", pred=lambda e: _fold(e.text) == want)


def _city_row(ctx: Ctx, name_el: UIElement) -> UIElement | None:
    return next((r for r in ctx.find_all(rid="world_clock_item") if _inside(name_el, r)), None)


def read_world_clock_time(ctx: Ctx, city: str) -> Skill:
    """The time the Clock tab shows for ``city`` (e.g. '04:30')."""
    yield from goto_tab(ctx, "clock")
    name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
    row = _city_row(ctx, name)
    t = _part(ctx, row, "digital_clock") if row is not None else None
    if t is None:
        raise OracleError(f"no time shown for {city!r}")
    return t.text


def _open_city_picker(ctx: Ctx, city: str) -> Skill:
    yield from tap(ctx, scroll=False, desc=ctx.t("Add city", "Cities"))
    if not ctx.has(rid="search_src_text"):
        yield from tap(ctx, scroll=False, desc="Search")
    yield from type_into(ctx, None, city, clear=True, rid="search_src_text")
    return ctx.obs


def _leave_picker(ctx: Ctx) -> Skill:
    for _ in range(4):
        if _on_tabs(ctx):
            return ctx.obs
        yield from back(ctx)
    if not _on_tabs(ctx):
        raise OracleError("could not leave the city picker")
    return ctx.obs


def add_world_clock(ctx: Ctx, city: str) -> Skill:
    """Add ``city`` to the world clock (no-op if it is already there)."""
    yield from goto_tab(ctx, "clock")
    if (yield from _scroll_until(ctx, _city_probe(ctx, city), city, must=False)) is not None:
        return ctx.obs
    yield from _open_city_picker(ctx, city)
    want = _fold(city)
    yield from _hide_keyboard(ctx)
    if ctx.flavor == "aosp":
        box = yield from scroll_to(ctx, pred=lambda e: _rid(e, "city_onoff") and _fold(e.text) == want)
        if not box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        yield from tap(ctx, rid="city_name", pred=lambda e: _fold(e.text) == want)
    if not _on_tabs(ctx):
        yield from _leave_picker(ctx)
    yield from _scroll_until(ctx, _city_probe(ctx, city), f"added city {city!r}")
    return ctx.obs


def remove_world_clock(ctx: Ctx, city: str) -> Skill:
    """Remove ``city`` from the world clock (sim: long press → Remove; aosp: uncheck it in Cities)."""
    yield from goto_tab(ctx, "clock")
    if ctx.flavor == "aosp":
        yield from _open_city_picker(ctx, city)
        yield from _hide_keyboard(ctx)
        want = _fold(city)
        box = yield from scroll_to(ctx, pred=lambda e: _rid(e, "city_onoff") and _fold(e.text) == want)
        if box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
        yield from act(ctx, LongPress(target=name.index))
        yield from tap(ctx, "Remove", scroll=False, cls="Button")
    if ctx.find(rid="city_name", pred=lambda e: _fold(e.text) == _fold(city)) is not None:
        raise OracleError(f"{city!r} is still listed")
    return ctx.obs


# --- timers ------------------------------------------------------------------------------------

def start_timer(ctx: Ctx, hours: int, minutes: int, seconds: int) -> Skill:
    """Set a timer on the keypad (hh mm ss, each 0–99) and start it."""
    for v, what in ((hours, "hours"), (minutes, "minutes"), (seconds, "seconds")):
        if not (isinstance(v, int) and 0 <= v <= 99):
            raise OracleError(f"{what} must be an integer 0–99, got {v!r}")
    if hours == minutes == seconds == 0:
        raise OracleError("a timer needs a non-zero duration")
    yield from goto_tab(ctx, "timer")
    if not ctx.has(rid="timer_setup_time"):
        yield from tap(ctx, scroll=False, desc="Add timer")
    zero = "00h 00m 00s"
    for _ in range(7):
        disp = ctx.find(rid="timer_setup_time")
        if disp is None or disp.text == zero:
            break
        yield from tap(ctx, scroll=False, rid="timer_setup_delete")
    for ch in f"{hours:02d}{minutes:02d}{seconds:02d}".lstrip("0"):
        yield from tap(ctx, scroll=False, rid=f"timer_setup_digit_{ch}")
    want = f"{hours:02d}h {minutes:02d}m {seconds:02d}s"
    disp = ctx.find(rid="timer_setup_time")
    if disp is None or disp.text != want:
        raise OracleError(f"timer keypad shows {disp.text if disp else None!r}, wanted {want!r}")
    yield from tap(ctx, scroll=False, desc="Start")
    if not ctx.has(rid="timer_item"):
        raise OracleError("no running timer after Start")
    return ctx.obs


def _timer_card(ctx: Ctx, label: str | None) -> Skill:
    def probe() -> UIElement | None:
        for card in ctx.find_all(rid="timer_item"):
            if label is None:
                return card
            lab = _part(ctx, card, "timer_label")
            if lab is not None and norm(lab.text) == norm(label):
                return card
        return None

    yield from goto_tab(ctx, "timer")
    yield from _scroll_until(ctx, probe, f"timer {label!r}")
    return (yield from _ensure_clear(ctx, probe, f"timer {label!r}"))


def _timer_button(ctx: Ctx, label: str | None, rid: str, verify: str | None) -> Skill:
    card = yield from _timer_card(ctx, label)
    btn = _part(ctx, card, rid)
    if btn is None:
        return False
    yield from _tap_el(ctx, btn)
    if verify is not None and not ctx.has(rid=verify):
        raise OracleError(f"timer did not change ({rid})")
    return True


def pause_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Pause the (first, or labelled) running timer; no-op if it is not running."""
    return (yield from _timer_button(ctx, label, "timer_pause", "timer_resume"))


def resume_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Resume (or start) the (first, or labelled) paused timer; no-op if it is running."""
    return (yield from _timer_button(ctx, label, "timer_resume", "timer_pause"))


def delete_timer(ctx: Ctx, label: str | None = None) -> Skill:
    """Delete the (first, or labelled) timer."""
    card = yield from _timer_card(ctx, label)
    btn = _part(ctx, card, "delete")
    if btn is None:
        raise OracleError("no Delete on the timer")
    yield from _tap_el(ctx, btn)
    return ctx.obs


def set_timer_label(ctx: Ctx, label: str, current_label: str | None = None) -> Skill:
    """Label the (first, or currently labelled) timer."""
    card = yield from _timer_card(ctx, current_label)
    yield from _tap_el(ctx, _part(ctx, card, "timer_label"))
    yield from type_into(ctx, None, label, clear=True, rid="label_input")
    yield from _hide_keyboard(ctx)
    yield from tap(ctx, "OK", scroll=False, cls="Button")
    return ctx.obs


# --- stopwatch ---------------------------------------------------------------------------------

def _sw_running(ctx: Ctx) -> bool:
    if ctx.flavor == "aosp":
        return ctx.has(desc="Pause", rid="fab")
    return ctx.has("Stop", cls="Button")


def start_stopwatch(ctx: Ctx) -> Skill:
    """Start (or resume) the stopwatch; no-op if it is running."""
    yield from goto_tab(ctx, "stopwatch")
    if _sw_running(ctx):
        return ctx.obs
    if ctx.flavor == "aosp":
        yield from tap(ctx, scroll=False, desc="Start", rid="fab")
    else:
        yield from tap(ctx, scroll=False, cls="Button", pred=lambda e: norm(e.text) in ("start", "resume"))
    if not _sw_running(ctx):
        raise OracleError("the stopwatch did not start")
    return ctx.obs


def stop_stopwatch(ctx: Ctx) -> Skill:
    """Pause the stopwatch; no-op if it is not running."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        return ctx.obs
    if ctx.flavor == "aosp":
        yield from tap(ctx, scroll=False, desc="Pause", rid="fab")
    else:
        yield from tap(ctx, "Stop", scroll=False, cls="Button")
    if _sw_running(ctx):
        raise OracleError("the stopwatch did not stop")
    return ctx.obs


def lap_stopwatch(ctx: Ctx) -> Skill:
    """Record a lap (the stopwatch must be running)."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        raise OracleError("the stopwatch is not running")
    yield from tap(ctx, "Lap", scroll=False, cls="Button")
    return ctx.obs


def reset_stopwatch(ctx: Ctx) -> Skill:
    """Stop the stopwatch and reset it to zero, clearing laps."""
    yield from stop_stopwatch(ctx)
    if ctx.has("Reset", cls="Button"):
        yield from tap(ctx, "Reset", scroll=False, cls="Button")
    return ctx.obs


def read_stopwatch(ctx: Ctx) -> Skill:
    """The stopwatch reading as shown ('00:04.00')."""
    yield from goto_tab(ctx, "stopwatch")
    el = ctx.find(rid="stopwatch_time_text")
    if el is None:
        raise OracleError("no stopwatch reading")
    return el.text


__all__ = [
    "add_world_clock", "change_alarm_time", "count_enabled_alarms", "create_alarm", "delete_alarm", "delete_timer",
    "find_alarm", "goto_tab", "lap_stopwatch", "list_alarms", "open_clock", "pause_timer", "read_next_alarm",
    "read_stopwatch", "read_world_clock_time", "remove_world_clock", "reset_stopwatch", "resume_timer",
    "set_alarm_days", "set_alarm_enabled", "set_alarm_label", "set_alarm_vibrate", "set_timer_label",
    "start_stopwatch", "start_timer", "stop_stopwatch", "time_texts",
]
