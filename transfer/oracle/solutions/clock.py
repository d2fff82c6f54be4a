"""Oracle solutions for Clock templates (alarms, timers, world clock, stopwatch).

Alarms the instruction names only by label (``Change my “Yoga” alarm``) are located by
reading the alarm list, never from the task's setup; the same goes for "all alarms" and
"the disabled ones". Everything else maps onto ``skills.clock``.
"""

from __future__ import annotations

import re
from typing import Any

from actionmap.actions import Tap
from actionmap.observation import UIElement
from actionmap.worldstate import DAYS
from device.apps.clock import ClockDriver, day_code, days_of
from device.apps.match import inside

from ..base import Ctx, OracleError, Skill, act, answer, back, complete, norm, scroll_to_role, tap_role
from ..skills import clock as C
from ..skills.clock import alarms as CA  # the skills' helpers: alarms, the app's screen, the world clock
from ..skills.clock import screen as CS
from ..skills.clock import world as CW
from ..skills.common import Ambiguous, hold, retrying
from .registry import solution

APP = C.APP


def parse_days(summary: str) -> list[str]:
    """Repeat days from an alarm card's summary ('Weekdays', 'Every day', 'Mon, Wed, Fri'), in the
    order shown; [] when it names none ('Tomorrow', 'Not scheduled'). The wording is the Clock
    driver's (:func:`device.apps.clock.days_of`)."""
    whole = days_of(summary)
    if not whole:
        return []
    shown = [day_code(p) for p in re.split(r"[,\s]+", norm(summary)) if p]
    if all(shown):
        return list(dict.fromkeys(d for d in shown if d))
    return whole


def alarm_hm(text: str) -> tuple[int, int]:
    """(hour, minute) of an alarm card's time text ('06:45', '6:45 AM')."""
    mins = CA._minutes(text)
    if mins is None:
        raise OracleError(f"not an alarm time: {text!r}")
    return divmod(mins, 60)


def alarm_by_label(ctx: Ctx, label: str) -> Skill:
    """(time text, label, repeat days, on) of the alarm labelled ``label``, read from the list."""
    cards = yield from C.list_alarms(ctx)
    hits = [c for c in cards if norm(c[1]) == norm(label)]
    if not hits:
        raise OracleError(f"no alarm labelled {label!r} in the list ({[c[1] for c in cards]})")
    if len(hits) > 1:
        raise Ambiguous(f"{len(hits)} alarms are labelled {label!r}: {[c[0] for c in hits]}")
    return hits[0]


# --- inline families (aosp, Pixel): the expanded alarm card ---------------------------------------
# ``skills.clock`` taps the label row and day toggles of an expanded card wherever they are; where
# the "Add alarm" FAB floats over the bottom of the list, a card expanded near the bottom puts its
# "Add label" row under it — the tap then opens a new alarm's time picker instead. These versions
# scroll each control clear of the FAB first (``CS._tap_clear``).

def expand_alarm(ctx: Ctx, hour: int, minute: int, label: str | None = None) -> Skill:
    """Expand the card of the alarm at hour:minute (and label)."""
    yield from C.goto_tab(ctx, "alarm")
    card = yield from C.find_alarm(ctx, hour, minute, label)
    arrow = ctx.role(APP, "expand_alarm", within=card)
    if arrow is not None:
        yield from act(ctx, Tap(target=arrow.index))
    if ctx.role(APP, "collapse_alarm") is None:
        yield from CS._scroll_until(ctx, lambda: ctx.role(APP, "collapse_alarm"), "the expanded alarm card")
    return ctx.obs


def set_days_expanded(ctx: Ctx, days: list[str]) -> Skill:
    """Make the expanded card's day toggles read exactly ``days``."""
    want = {d.lower()[:3] for d in days}
    for d in DAYS:
        def chip(d: str = d) -> UIElement | None:
            return CA._day_toggle(ctx, d)

        el = yield from scroll_to_role(ctx, APP, "day_toggle",
                                       pred=lambda e, d=d: e.checkable and ClockDriver.day_of(e) == d)
        if bool(el.checked) != (d in want):
            yield from CS._tap_clear(ctx, chip, f"the {d} toggle")
            el = chip()
            if el is None or bool(el.checked) != (d in want):
                raise OracleError(f"day {d} did not toggle")
    return ctx.obs


def set_label_expanded(ctx: Ctx, label: str) -> Skill:
    """Label the expanded card's alarm through its label row and dialog."""
    yield from scroll_to_role(ctx, APP, "edit_label")
    yield from CS._tap_clear(ctx, lambda: ctx.role(APP, "edit_label"), "the alarm's label row")
    if ctx.role(APP, "label_field") is None:
        raise OracleError("the label dialog did not open")
    yield from CS._type_role(ctx, "label_field", label)
    if ctx.obs.keyboard_visible:
        yield from back(ctx)
    yield from tap_role(ctx, APP, "label_ok")
    return ctx.obs


def create_alarm(ctx: Ctx, hour: int, minute: int, label: str = "", days: list[str] | tuple[str, ...] = ()) -> Skill:
    """``skills.clock.create_alarm``; where cards are edited inline the new alarm's card (expanded
    by the app) is edited in place — re-finding it by time could pick an older alarm at the same
    time — and the skill's final look-up, which can scroll a tall expanded card out of sight, is
    skipped."""
    if not CS._flag(ctx, "edits_inline"):
        return (yield from C.create_alarm(ctx, hour, minute, label=label, days=days))
    C.time_texts(hour, minute)  # validates
    yield from C.goto_tab(ctx, "alarm")
    yield from tap_role(ctx, APP, "add_alarm")
    if ctx.role(APP, "time_picker") is None:
        raise OracleError("Add alarm did not open the time picker")
    yield from CA._fill_time_picker(ctx, hour, minute)
    if days or label:
        if ctx.role(APP, "collapse_alarm") is None:
            yield from CS._scroll_until(ctx, lambda: ctx.role(APP, "collapse_alarm"), "the new alarm's card")
        if days:
            yield from set_days_expanded(ctx, list(days))
        if label:
            yield from set_label_expanded(ctx, label)
    return ctx.obs


def set_alarm_label(ctx: Ctx, hour: int, minute: int, label: str) -> Skill:
    if not CS._flag(ctx, "edits_inline"):
        return (yield from C.set_alarm_label(ctx, hour, minute, label))
    yield from expand_alarm(ctx, hour, minute)
    return (yield from set_label_expanded(ctx, label))


def _t(inst: Any, key: str = "t") -> tuple[int, int]:
    t = inst.params[key]
    return int(t["hour"]), int(t["minute"])


# --- alarms: create ------------------------------------------------------------------------------

@solution("clock.alarm_create", "train.clock.alarm_create_evening")
def solve_alarm_create(ctx: Ctx, inst: Any) -> Skill:
    yield from C.create_alarm(ctx, *_t(inst))
    yield from complete(ctx)


@solution("clock.alarm_create_label")
def solve_alarm_create_label(ctx: Ctx, inst: Any) -> Skill:
    yield from create_alarm(ctx, *_t(inst), label=inst.params["label"])
    yield from complete(ctx)


@solution("clock.alarm_create_repeat")
def solve_alarm_create_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from create_alarm(ctx, *_t(inst), days=inst.params["days"]["value"])
    yield from complete(ctx)


@solution("train.clock.alarm_label_repeat")
def solve_alarm_label_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from create_alarm(ctx, *_t(inst), label=inst.params["label"], days=inst.params["days"]["value"])
    yield from complete(ctx)


@solution("test.clock.two_alarms")
def solve_two_alarms(ctx: Ctx, inst: Any) -> Skill:
    yield from C.create_alarm(ctx, *_t(inst, "a"))
    yield from C.create_alarm(ctx, *_t(inst, "b"))
    yield from complete(ctx)


# --- alarms: edit --------------------------------------------------------------------------------

def _sig(ctx: Ctx) -> list[tuple[str, object]]:
    return [(e.text, e.bounds) for e in ctx.obs.elements]


def switch_all_at(ctx: Ctx, hour: int | None, minute: int | None, on: bool) -> Skill:
    """Switch every alarm at hour:minute (every alarm, when ``hour`` is None) on/off, top to bottom
    (identical alarms included), in one pass over the list.

    Returns how many alarms were switched."""
    want = None
    if hour is not None:
        C.time_texts(hour, minute or 0)  # validates
        want = f"{hour:02d}:{minute:02d}"
    drv = CS._drv()
    yield from C.goto_tab(ctx, "alarm")
    for _ in range(ctx.max_scrolls):  # to the top of the list
        before = _sig(ctx)
        yield from CS._scroll(ctx, "up")
        if _sig(ctx) == before:
            break
    seen = 0
    for _ in range(ctx.max_scrolls):
        for _tap in range(6):
            m = ctx.ui(APP)
            lst = CS._list(ctx)
            fabs = CS._fabs(ctx)
            todo = None
            for card in m.find("alarm_card"):
                sw = m.first("alarm_switch", within=card)
                if sw is None or bool(sw.checked) == on or (want is not None and drv.card_time(m, card) != want):
                    continue
                cy = sw.bounds.center[1]
                clear = (lst is None or lst.bounds.top < cy < lst.bounds.bottom - 4) and \
                    not any(f.bounds.contains(*sw.bounds.center) for f in fabs)
                if clear:
                    todo = sw
                    break
            if todo is None:
                break
            yield from act(ctx, Tap(target=todo.index))
            seen += 1
        before = _sig(ctx)
        yield from CS._scroll(ctx, "down")
        if _sig(ctx) == before:
            break
    return seen


@solution("clock.alarm_off", "clock.alarm_on")
def solve_alarm_onoff(ctx: Ctx, inst: Any) -> Skill:
    """Switch *every* alarm at that time: "the 7:00 alarm" means all of them if there are two."""
    yield from retrying(ctx, lambda: switch_all_at(ctx, *_t(inst), on=inst.template_id.endswith("_on")), tries=3)
    yield from complete(ctx)


@solution("clock.alarm_delete")
def solve_alarm_delete(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: C.delete_alarm(ctx, *_t(inst)), tries=3)
    yield from complete(ctx)


@solution("train.clock.alarm_change_time")
def solve_alarm_change_time(ctx: Ctx, inst: Any) -> Skill:
    label = inst.params["label"]
    time_text, *_ = yield from retrying(ctx, lambda: alarm_by_label(ctx, label), tries=3)
    yield from retrying(ctx, lambda: C.change_alarm_time(ctx, *alarm_hm(time_text), *_t(inst, "t2"), label=label), tries=3)
    yield from complete(ctx)


@solution("train.clock.alarm_rename")
def solve_alarm_rename(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: set_alarm_label(ctx, *_t(inst), inst.params["label"]), tries=3)
    yield from complete(ctx)


def set_days_all_at(ctx: Ctx, hour: int, minute: int, days: list[str]) -> Skill:
    """Make every alarm at hour:minute repeat on exactly ``days`` ("the 8:00 alarm" means each of
    them when there are two): the next card at that time reading other days is edited, until none."""
    want = sorted({d.lower()[:3] for d in days}, key=DAYS.index)
    key, drv = f"{hour:02d}:{minute:02d}", CS._drv()

    def other() -> UIElement | None:
        m = ctx.ui(APP)
        return next((c for c in m.find("alarm_card") if drv.card_time(m, c) == key
                     and sorted(drv.card_days(m, c) or [], key=DAYS.index) != want), None)

    for _ in range(6):
        yield from C.goto_tab(ctx, "alarm")
        card = yield from CS._scroll_until(ctx, other, f"alarm {key}", must=False,
                                          first=CA._alarm_direction(ctx, hour, minute))
        if card is None:
            return ctx.obs
        card = yield from CS._ensure_clear(ctx, other, f"alarm {key}")
        if CS._flag(ctx, "edits_inline"):
            arrow = ctx.role(APP, "expand_alarm", within=card)
            if arrow is not None:
                yield from act(ctx, Tap(target=arrow.index))
            yield from set_days_expanded(ctx, want)
        else:
            yield from act(ctx, Tap(target=ctx.need(APP, "alarm_time", within=card).index))
            yield from CA._set_days_here(ctx, want)
            yield from CA._save_editor(ctx)
    raise OracleError(f"alarms at {key} still repeat on other days")


@solution("train.clock.alarm_add_repeat")
def solve_alarm_add_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: set_days_all_at(ctx, *_t(inst), inst.params["days"]["value"]), tries=3)
    yield from complete(ctx)


@solution("train.clock.alarms_all_off")
def solve_alarms_all_off(ctx: Ctx, inst: Any) -> Skill:
    """Switch off every enabled alarm in one pass down the list, then re-read the list until it
    shows none on (a gesture the app misreads — a scroll taken for a long press opens "Delete
    alarm?" — hides the list)."""
    yield from retrying(ctx, lambda: switch_all_at(ctx, None, None, on=False), tries=3)
    for _round in range(3):
        cards = yield from C.list_alarms(ctx)
        todo = [(t, lab) for t, lab, _d, on in cards if on]
        if cards and not todo:
            break
        for time_text, label in todo:
            yield from retrying(ctx, lambda t=time_text, lab=label: C.set_alarm_enabled(ctx, *alarm_hm(t), enabled=False,
                                                                                  label=lab), tries=3)
    yield from complete(ctx)


@solution("train.clock.delete_disabled")
def solve_delete_disabled(ctx: Ctx, inst: Any) -> Skill:
    for _round in range(3):
        cards = yield from C.list_alarms(ctx)
        todo = [(t, lab) for t, lab, _d, on in cards if not on]
        if cards and not todo:
            break
        for time_text, label in todo:
            yield from retrying(ctx, lambda t=time_text, lab=label: C.delete_alarm(ctx, *alarm_hm(t), label=lab), tries=3)
    yield from complete(ctx)


# --- alarms: queries -------------------------------------------------------------------------------

@solution("clock.alarm_query_label")
def solve_alarm_query_label(ctx: Ctx, inst: Any) -> Skill:
    time_text, *_ = yield from retrying(ctx, lambda: alarm_by_label(ctx, inst.params["label"]), tries=3)
    yield from answer(ctx, time=time_text)


@solution("train.clock.query_alarm_days")
def solve_query_alarm_days(ctx: Ctx, inst: Any) -> Skill:
    _time, _label, days, _on = yield from retrying(ctx, lambda: alarm_by_label(ctx, inst.params["label"]), tries=3)
    yield from answer(ctx, days=list(days))


@solution("test.query.alarm_time_and_days")
def solve_query_alarm_time_days(ctx: Ctx, inst: Any) -> Skill:
    time_text, _label, days, _on = yield from retrying(ctx, lambda: alarm_by_label(ctx, inst.params["label"]), tries=3)
    yield from answer(ctx, time=time_text, days=list(days))


@solution("train.clock.query_alarm_count")
def solve_query_alarm_count(ctx: Ctx, inst: Any) -> Skill:
    n = yield from C.count_enabled_alarms(ctx)
    yield from answer(ctx, count=n)


# --- timers ----------------------------------------------------------------------------------------

def _hms(seconds: int) -> tuple[int, int, int]:
    h, rest = divmod(int(seconds), 3600)
    m, s = divmod(rest, 60)
    return h, m, s


@solution("clock.timer_start", "train.clock.timer_seconds", "train.clock.timer_hm")
def solve_timer(ctx: Ctx, inst: Any) -> Skill:
    secs = inst.params.get("secs", inst.params.get("s"))
    yield from C.start_timer(ctx, *_hms(secs))
    yield from complete(ctx)


@solution("train.clock.timer_label")
def solve_timer_label(ctx: Ctx, inst: Any) -> Skill:
    yield from C.start_timer(ctx, *_hms(inst.params["secs"]))
    yield from C.set_timer_label(ctx, inst.params["label"])
    yield from complete(ctx)


# --- world clock / stopwatch ---------------------------------------------------------------------

@solution("clock.world_clock_add")
def solve_world_clock_add(ctx: Ctx, inst: Any) -> Skill:
    yield from C.add_world_clock(ctx, inst.params["city"])
    yield from complete(ctx)


@solution("train.clock.world_clock_two")
def solve_world_clock_two(ctx: Ctx, inst: Any) -> Skill:
    yield from C.add_world_clock(ctx, inst.params["a"])
    yield from C.add_world_clock(ctx, inst.params["b"])
    yield from complete(ctx)


def remove_world_clock(ctx: Ctx, city: str) -> Skill:
    """``skills.clock.remove_world_clock``; where a city is removed by long press, the long press
    falls back to a press-and-slide when the confirmation is dismissed by the release (see
    ``_util.hold``). Families that remove a city in their city picker or search use the skill."""
    if CS._flag(ctx, "city_picker_toggles") or CS._flag(ctx, "city_search_toggles"):
        return (yield from C.remove_world_clock(ctx, city))
    yield from C.goto_tab(ctx, "clock")
    probe = CW._city_probe(ctx, city)
    name = yield from CS._scroll_until(ctx, probe, f"world clock {city!r}")
    row = next((r for r in ctx.roles(APP, "city_row") if inside(name, r)), name)
    ok = yield from hold(ctx, row, lambda: ctx.role(APP, "remove_city_confirm") is not None)
    if not ok:
        raise OracleError(f"no Remove dialog for {city!r}")
    yield from tap_role(ctx, APP, "remove_city_confirm")
    if probe() is not None:
        raise OracleError(f"{city!r} is still listed")
    return ctx.obs


@solution("train.clock.world_clock_remove")
def solve_world_clock_remove(ctx: Ctx, inst: Any) -> Skill:
    yield from retrying(ctx, lambda: remove_world_clock(ctx, inst.params["city"]), tries=3)
    yield from complete(ctx)


@solution("train.clock.stopwatch_start")
def solve_stopwatch_start(ctx: Ctx, inst: Any) -> Skill:
    yield from C.start_stopwatch(ctx)
    yield from complete(ctx)
