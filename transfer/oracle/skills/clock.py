"""Oracle skills for the Clock app (alarms, world clock, timers, stopwatch).

Every skill starts with ``open_app`` and works from any screen of the app (a dialog, the
alarm editor, the city picker). Controls are found through the app UI layer by *role*
(``device/apps/data/clock.yaml``: ``add_alarm``, ``alarm_card``, ``tab_timer`` …), never by a
resource id, description or label written here, so the same skill runs on the simulator's two
flavors and on each phone family the data describes. What differs between families in how a
task is done is family data too: ``edits_inline`` (the alarm's card expands in the list, as on
AOSP and Pixel, rather than opening a full-screen form with Save), ``confirms_delete``,
``city_picker_toggles`` (cities are checked in the city picker rather than tapped there and
removed by long press), ``city_search_toggles`` (a city search whose results add a city, or remove
one already chosen, as on a Pixel). A first-launch tooltip over the app (``tooltip``) is tapped
away before anything else. Alarm cards are found and read by the Clock driver
(:meth:`device.apps.clock.ClockDriver.card_for`), collapsed or expanded, scrolling the list as
needed, so the skills keep working with long lists and on other screen sizes. Query skills
return what the screen shows.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable

from actionmap.actions import LongPress, Scroll, Tap, TypeText
from actionmap.observation import UIElement
from actionmap.worldstate import DAYS
from device.apps.clock import ClockDriver, hhmm
from device.apps.match import inside
from device.apps.spec import load_spec

from ..base import Ctx, OracleError, Skill, act, back, norm, open_app, scroll_to_role, tap_role

APP = "clock"
_TIME_RE = re.compile(r"\d{1,2}:\d{2}(?:\s?[AP]M)?")


_DRIVER: list[ClockDriver] = []


def _drv() -> ClockDriver:
    """The Clock driver that reads cards (alarm time, label, days) off the matcher ``ctx.ui`` gives."""
    if not _DRIVER:
        _DRIVER.append(ClockDriver())
    return _DRIVER[0]


#: weekday code → the long name a day toggle is described by (family-free wording of the data)
DAY_NAMES: dict[str, str] = dict(load_spec(APP).family("generic").texts["day_names"])


# --- small readers ---------------------------------------------------------------------------

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


def _flag(ctx: Ctx, key: str) -> bool:
    """A yes/no of the family's data (``edits_inline``, ``confirms_delete`` …)."""
    return bool(ctx.words(APP, key))


def _role(ctx: Ctx, role: str, within: UIElement | None = None) -> UIElement | None:
    return ctx.role(APP, role, within=within)


def _has(ctx: Ctx, role: str) -> bool:
    return ctx.role(APP, role) is not None


def _list(ctx: Ctx) -> UIElement | None:
    return _role(ctx, "scroll_list")


def _fabs(ctx: Ctx) -> list[UIElement]:
    return ctx.roles(APP, "fab")


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


def _overlaps(a: UIElement, b: UIElement) -> bool:
    return a.bounds.left < b.bounds.right and b.bounds.left < a.bounds.right and \
        a.bounds.top < b.bounds.bottom and b.bounds.top < a.bounds.bottom


def _ensure_clear(ctx: Ctx, refind: Callable[[], UIElement | None], what: str) -> Skill:
    """Scroll until the element is wholly inside the list and not under a floating button. An
    element nearly as tall as the list (an expanded alarm card on a Pixel) cannot be: its top is
    brought into the list instead, where its time and switch are."""
    el = refind()
    for _ in range(3):
        if el is None:
            raise OracleError(f"lost sight of {what}")
        lst = _list(ctx)
        if lst is None:
            return el
        lb, b = lst.bounds, el.bounds
        tall = b.bottom - b.top >= 0.6 * (lb.bottom - lb.top)
        under_fab = any(_overlaps(el, f) for f in _fabs(ctx))
        if b.top <= lb.top + 1:
            direction = "up"
        elif tall:
            return el
        elif b.bottom >= lb.bottom - 1 or under_fab:
            direction = "down"
        else:
            return el
        before = _signature(ctx)
        yield from _scroll(ctx, direction)
        el = refind()
        if _signature(ctx) == before:
            return el
    return el


def _tap_clear(ctx: Ctx, find: Callable[[], UIElement | None], what: str) -> Skill:
    """Tap what ``find()`` returns once it is clear of the list's edges and the FAB
    (:func:`solved._util.tap_clear` with the Clock family's ``scroll_list`` and ``fab``)."""
    from ..solved._util import tap_clear

    return (yield from tap_clear(ctx, APP, find, what))


def _tap_el(ctx: Ctx, el: UIElement) -> Skill:
    return (yield from act(ctx, Tap(target=el.index)))


def _type_role(ctx: Ctx, role: str, text: str) -> Skill:
    """Type ``text`` into the field playing ``role`` (scrolled to and focused first), replacing its text."""
    el = yield from scroll_to_role(ctx, APP, role)
    if not el.focused:
        yield from act(ctx, Tap(target=el.index))
    return (yield from act(ctx, TypeText(text=text, clear=True, submit=False)))


def _hide_keyboard(ctx: Ctx) -> Skill:
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    return ctx.obs


# --- navigation ------------------------------------------------------------------------------

def _on_tabs(ctx: Ctx) -> bool:
    return _has(ctx, "tab_alarm") and _has(ctx, "tab_stopwatch")


def _in_dialog(ctx: Ctx) -> bool:
    return _has(ctx, "dialog") or _has(ctx, "time_picker")


def open_clock(ctx: Ctx) -> Skill:
    """Open the Clock app and get back to its tabbed main screen (closing dialogs, editors)."""
    yield from open_app(ctx, APP)
    for _ in range(8):
        allow = _role(ctx, "permission_allow")
        if allow is not None:  # a first-launch runtime permission prompt
            yield from _tap_el(ctx, allow)
            continue
        tip = _role(ctx, "tooltip")
        if tip is not None:  # a first-launch tooltip (Pixel: over the Add alarm button); a tap dismisses it
            yield from _tap_el(ctx, tip)
            continue
        dialog = _in_dialog(ctx)
        if _on_tabs(ctx) and not dialog and not ctx.obs.keyboard_visible:
            return ctx.obs
        if ctx.obs.foreground.app not in (None, APP) or \
                not (dialog or ctx.obs.keyboard_visible or _has(ctx, "navigate_up")):
            yield from open_app(ctx, APP)
            if _on_tabs(ctx):
                return ctx.obs
        yield from back(ctx)
    raise OracleError("could not reach the Clock app's main screen")


def goto_tab(ctx: Ctx, tab: str) -> Skill:
    """Open the Clock app on ``tab`` (alarm, clock, timer, stopwatch — the keys of the family's tabs)."""
    tabs = ctx.words(APP, "tabs")
    if tab not in tabs:
        raise OracleError(f"unknown Clock tab {tab!r}; known: {', '.join(tabs)}")
    yield from open_clock(ctx)
    el = ctx.need(APP, f"tab_{tab}")
    if not el.selected:
        yield from act(ctx, Tap(target=el.index))
    return ctx.obs


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


# --- world clock -------------------------------------------------------------------------------

def _city_probe(ctx: Ctx, city: str) -> Callable[[], UIElement | None]:
    want = _fold(city)
    return lambda: next((e for e in ctx.roles(APP, "city_name") if _fold(e.text) == want), None)


def _names_city(text: str, want: str) -> bool:
    """A city picker's entry for the (folded) city: its name, or its name qualified by its region
    ('Chicago, IL, USA' on a Pixel)."""
    t = _fold(text)
    return t == want or t.startswith(want + ",")


def _city_row(ctx: Ctx, name_el: UIElement) -> UIElement | None:
    return next((r for r in ctx.roles(APP, "city_row") if inside(name_el, r)), None)


def read_world_clock_time(ctx: Ctx, city: str) -> Skill:
    """The time the Clock tab shows for ``city`` (e.g. '04:30')."""
    yield from goto_tab(ctx, "clock")
    name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
    row = _city_row(ctx, name)
    t = _role(ctx, "city_time", within=row) if row is not None else None
    if t is None:
        raise OracleError(f"no time shown for {city!r}")
    return t.text


def _open_city_picker(ctx: Ctx, city: str, search: bool = True) -> Skill:
    """Open the city picker and (``search``) type ``city`` into its search field. AOSP's picker
    searches only the cities not yet selected (CitySelectionActivity.CityAdapter.filter), so a
    selected city is found unfiltered, at the top of the list."""
    yield from tap_role(ctx, APP, "add_city")
    if not search:
        return ctx.obs
    if not _has(ctx, "city_search_field"):
        yield from tap_role(ctx, APP, "city_search")
    yield from _type_role(ctx, "city_search_field", city)
    return ctx.obs


def _leave_picker(ctx: Ctx) -> Skill:
    for _ in range(4):
        if _on_tabs(ctx):
            return ctx.obs
        yield from back(ctx)
    if not _on_tabs(ctx):
        raise OracleError("could not leave the city picker")
    return ctx.obs


def _is_city_box(ctx: Ctx, box: UIElement, want: str) -> bool:
    """The picker's check box for the city: named by its own text or description, or on the row of
    the city's name (AOSP's box and name are separate views of one row)."""
    if _fold(box.text) == want or _fold(box.content_desc) == want:
        return True
    if box.text or box.content_desc:
        return False
    top, bottom = box.bounds.top, box.bounds.bottom
    return any(_fold(n.text) == want and top <= n.bounds.center[1] <= bottom for n in ctx.roles(APP, "city_name"))


def _city_box(ctx: Ctx, city: str) -> Skill:
    want = _fold(city)
    return (yield from scroll_to_role(ctx, APP, "city_checkbox", pred=lambda e: _is_city_box(ctx, e, want)))


def add_world_clock(ctx: Ctx, city: str) -> Skill:
    """Add ``city`` to the world clock (no-op if it is already there)."""
    yield from goto_tab(ctx, "clock")
    if (yield from _scroll_until(ctx, _city_probe(ctx, city), city, must=False)) is not None:
        return ctx.obs
    yield from _open_city_picker(ctx, city)
    want = _fold(city)
    yield from _hide_keyboard(ctx)
    if _flag(ctx, "city_picker_toggles"):
        box = yield from _city_box(ctx, city)
        if not box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        yield from tap_role(ctx, APP, "city_name", scroll=True, pred=lambda e: _names_city(e.text, want))
    if not _on_tabs(ctx):
        yield from _leave_picker(ctx)
    yield from _scroll_until(ctx, _city_probe(ctx, city), f"added city {city!r}")
    return ctx.obs


def _chosen_in_search(ctx: Ctx, name: UIElement) -> bool:
    """Whether a search result is marked as an already chosen city (a marker on its row)."""
    top, bottom = name.bounds.top - name.bounds.height, name.bounds.bottom + name.bounds.height
    return any(top <= m.bounds.center[1] <= bottom for m in ctx.roles(APP, "city_selected"))


def _remove_by_search(ctx: Ctx, city: str) -> Skill:
    """Search the city and tap its (chosen) result, which removes it."""
    want = _fold(city)
    yield from _open_city_picker(ctx, city)
    yield from _hide_keyboard(ctx)
    name = yield from scroll_to_role(ctx, APP, "city_name", pred=lambda e: _names_city(e.text, want))
    if not _chosen_in_search(ctx, name):
        raise OracleError(f"{city!r} is not marked as chosen in the city search")
    yield from _tap_el(ctx, name)
    if not _on_tabs(ctx):
        yield from _leave_picker(ctx)
    return ctx.obs


def remove_world_clock(ctx: Ctx, city: str) -> Skill:
    """Remove ``city`` from the world clock (uncheck it in the city picker, or long press → Remove)."""
    yield from goto_tab(ctx, "clock")
    if _flag(ctx, "city_search_toggles"):
        yield from _remove_by_search(ctx, city)
    elif _flag(ctx, "city_picker_toggles"):
        yield from _open_city_picker(ctx, city, search=False)
        yield from _hide_keyboard(ctx)
        box = yield from _city_box(ctx, city)
        if box.checked:
            yield from _tap_el(ctx, box)
        yield from _leave_picker(ctx)
    else:
        name = yield from _scroll_until(ctx, _city_probe(ctx, city), f"world clock {city!r}")
        yield from act(ctx, LongPress(target=name.index))
        yield from tap_role(ctx, APP, "remove_city_confirm")
    if _city_probe(ctx, city)() is not None:
        raise OracleError(f"{city!r} is still listed")
    return ctx.obs


# --- timers ------------------------------------------------------------------------------------

def _timer_display(ctx: Ctx, h: int, m: int, s: int) -> str:
    return str(ctx.words(APP, "timer_display")).format(h=h, m=m, s=s)


def start_timer(ctx: Ctx, hours: int, minutes: int, seconds: int) -> Skill:
    """Set a timer on the keypad (hh mm ss, each 0–99) and start it."""
    for v, what in ((hours, "hours"), (minutes, "minutes"), (seconds, "seconds")):
        if not (isinstance(v, int) and 0 <= v <= 99):
            raise OracleError(f"{what} must be an integer 0–99, got {v!r}")
    if hours == minutes == seconds == 0:
        raise OracleError("a timer needs a non-zero duration")
    yield from goto_tab(ctx, "timer")
    if not _has(ctx, "timer_setup_time"):
        yield from tap_role(ctx, APP, "add_timer")
    zero = _timer_display(ctx, 0, 0, 0)
    for _ in range(7):
        disp = _role(ctx, "timer_setup_time")
        if disp is None or disp.text == zero:
            break
        yield from tap_role(ctx, APP, "timer_setup_delete")
    for ch in f"{hours:02d}{minutes:02d}{seconds:02d}".lstrip("0"):
        yield from tap_role(ctx, APP, "timer_digit", pred=lambda e, ch=ch: e.text.strip() == ch)
    want = _timer_display(ctx, hours, minutes, seconds)
    disp = _role(ctx, "timer_setup_time")
    if disp is None or disp.text != want:
        raise OracleError(f"timer keypad shows {disp.text if disp else None!r}, wanted {want!r}")
    yield from tap_role(ctx, APP, "timer_start")
    if not _has(ctx, "timer_card"):
        raise OracleError("no running timer after Start")
    return ctx.obs


def _timer_card(ctx: Ctx, label: str | None) -> Skill:
    def probe() -> UIElement | None:
        for card in ctx.roles(APP, "timer_card"):
            if label is None:
                return card
            lab = _role(ctx, "timer_label", within=card)
            if lab is not None and norm(lab.text) == norm(label):
                return card
        return None

    yield from goto_tab(ctx, "timer")
    yield from _scroll_until(ctx, probe, f"timer {label!r}")
    return (yield from _ensure_clear(ctx, probe, f"timer {label!r}"))


def _timer_button(ctx: Ctx, label: str | None, role: str, verify: str | None) -> Skill:
    card = yield from _timer_card(ctx, label)
    btn = _role(ctx, role, within=card)
    if btn is None:
        return False
    yield from _tap_el(ctx, btn)
    if verify is not None and not _has(ctx, verify):
        raise OracleError(f"timer did not change ({role})")
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
    btn = _role(ctx, "timer_delete", within=card)
    if btn is None:
        raise OracleError("no Delete on the timer")
    yield from _tap_el(ctx, btn)
    return ctx.obs


def set_timer_label(ctx: Ctx, label: str, current_label: str | None = None) -> Skill:
    """Label the (first, or currently labelled) timer."""
    card = yield from _timer_card(ctx, current_label)
    yield from _tap_el(ctx, ctx.need(APP, "timer_label", within=card))
    yield from _type_role(ctx, "label_field", label)
    yield from _hide_keyboard(ctx)
    yield from tap_role(ctx, APP, "label_ok")
    return ctx.obs


# --- stopwatch ---------------------------------------------------------------------------------

def _sw_running(ctx: Ctx) -> bool:
    return _has(ctx, "stopwatch_pause")


def start_stopwatch(ctx: Ctx) -> Skill:
    """Start (or resume) the stopwatch; no-op if it is running."""
    yield from goto_tab(ctx, "stopwatch")
    if _sw_running(ctx):
        return ctx.obs
    yield from tap_role(ctx, APP, "stopwatch_start")
    if not _sw_running(ctx):
        raise OracleError("the stopwatch did not start")
    return ctx.obs


def stop_stopwatch(ctx: Ctx) -> Skill:
    """Pause the stopwatch; no-op if it is not running."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        return ctx.obs
    yield from tap_role(ctx, APP, "stopwatch_pause")
    if _sw_running(ctx):
        raise OracleError("the stopwatch did not stop")
    return ctx.obs


def lap_stopwatch(ctx: Ctx) -> Skill:
    """Record a lap (the stopwatch must be running)."""
    yield from goto_tab(ctx, "stopwatch")
    if not _sw_running(ctx):
        raise OracleError("the stopwatch is not running")
    yield from tap_role(ctx, APP, "stopwatch_lap")
    return ctx.obs


def reset_stopwatch(ctx: Ctx) -> Skill:
    """Stop the stopwatch and reset it to zero, clearing laps."""
    yield from stop_stopwatch(ctx)
    if _has(ctx, "stopwatch_reset"):
        yield from tap_role(ctx, APP, "stopwatch_reset")
    return ctx.obs


def read_stopwatch(ctx: Ctx) -> Skill:
    """The stopwatch reading as shown ('00:04.00'; '4.00' where the hundredths are a view of their own)."""
    yield from goto_tab(ctx, "stopwatch")
    el = _role(ctx, "stopwatch_time")
    if el is None:
        raise OracleError("no stopwatch reading")
    hs = _role(ctx, "stopwatch_hundredths")
    return f"{el.text}.{hs.text}" if hs is not None else el.text


__all__ = [
    "add_world_clock", "change_alarm_time", "count_enabled_alarms", "create_alarm", "delete_alarm", "delete_timer",
    "find_alarm", "goto_tab", "lap_stopwatch", "list_alarms", "open_clock", "pause_timer", "read_next_alarm",
    "read_stopwatch", "read_world_clock_time", "remove_world_clock", "reset_stopwatch", "resume_timer",
    "set_alarm_days", "set_alarm_enabled", "set_alarm_label", "set_alarm_vibrate", "set_timer_label",
    "start_stopwatch", "start_timer", "stop_stopwatch", "time_texts",
]
