"""Oracle solutions for Clock templates (alarms, timers, world clock, stopwatch).

Alarms the instruction names only by label (``Change my “Yoga” alarm``) are located by
reading the alarm list, never from the task's setup; the same goes for "all alarms" and
"the disabled ones". Everything else maps onto ``skills.clock``.
"""

from __future__ import annotations

import re
from typing import Any

from ..base import Ctx, OracleError, Skill, answer, complete, norm
from ..skills import clock as C
from ..solutions import solution

_DAY_CODES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


def parse_days(summary: str) -> list[str]:
    """Repeat days from an alarm card's summary: 'Weekdays', 'Weekends', 'Every day', 'Mon, Wed, Fri'."""
    s = norm(summary)
    if s == "every day":
        return list(_DAY_CODES)
    if s == "weekdays":
        return list(_DAY_CODES[:5])
    if s == "weekends":
        return ["sat", "sun"]
    out = []
    for part in re.split(r"[,\s]+", s):
        code = part[:3]
        if code in _DAY_CODES and code not in out:
            out.append(code)
    return out


def alarm_hm(text: str) -> tuple[int, int]:
    """(hour, minute) of an alarm card's time text ('06:45', '6:45 AM')."""
    mins = C._minutes(text)
    if mins is None:
        raise OracleError(f"not an alarm time: {text!r}")
    return divmod(mins, 60)


def alarm_by_label(ctx: Ctx, label: str) -> Skill:
    """(time text, label, days summary, on) of the alarm labelled ``label``, read from the list."""
    cards = yield from C.list_alarms(ctx)
    hits = [c for c in cards if norm(c[1]) == norm(label)]
    if not hits:
        raise OracleError(f"no alarm labelled {label!r} in the list ({[c[1] for c in cards]})")
    if len(hits) > 1:
        raise OracleError(f"{len(hits)} alarms are labelled {label!r}")
    return hits[0]


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
    yield from C.create_alarm(ctx, *_t(inst), label=inst.params["label"])
    yield from complete(ctx)


@solution("clock.alarm_create_repeat")
def solve_alarm_create_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from C.create_alarm(ctx, *_t(inst), days=inst.params["days"]["value"])
    yield from complete(ctx)


@solution("train.clock.alarm_label_repeat")
def solve_alarm_label_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from C.create_alarm(ctx, *_t(inst), label=inst.params["label"], days=inst.params["days"]["value"])
    yield from complete(ctx)


@solution("test.clock.two_alarms")
def solve_two_alarms(ctx: Ctx, inst: Any) -> Skill:
    yield from C.create_alarm(ctx, *_t(inst, "a"))
    yield from C.create_alarm(ctx, *_t(inst, "b"))
    yield from complete(ctx)


# --- alarms: edit --------------------------------------------------------------------------------

@solution("clock.alarm_off", "clock.alarm_on")
def solve_alarm_onoff(ctx: Ctx, inst: Any) -> Skill:
    yield from C.set_alarm_enabled(ctx, *_t(inst), enabled=inst.template_id.endswith("_on"))
    yield from complete(ctx)


@solution("clock.alarm_delete")
def solve_alarm_delete(ctx: Ctx, inst: Any) -> Skill:
    yield from C.delete_alarm(ctx, *_t(inst))
    yield from complete(ctx)


@solution("train.clock.alarm_change_time")
def solve_alarm_change_time(ctx: Ctx, inst: Any) -> Skill:
    label = inst.params["label"]
    time_text, *_ = yield from alarm_by_label(ctx, label)
    yield from C.change_alarm_time(ctx, *alarm_hm(time_text), *_t(inst, "t2"), label=label)
    yield from complete(ctx)


@solution("train.clock.alarm_rename")
def solve_alarm_rename(ctx: Ctx, inst: Any) -> Skill:
    yield from C.set_alarm_label(ctx, *_t(inst), inst.params["label"])
    yield from complete(ctx)


@solution("train.clock.alarm_add_repeat")
def solve_alarm_add_repeat(ctx: Ctx, inst: Any) -> Skill:
    yield from C.set_alarm_days(ctx, *_t(inst), inst.params["days"]["value"])
    yield from complete(ctx)


@solution("train.clock.alarms_all_off")
def solve_alarms_all_off(ctx: Ctx, inst: Any) -> Skill:
    cards = yield from C.list_alarms(ctx)
    for time_text, label, _days, on in cards:
        if on:
            yield from C.set_alarm_enabled(ctx, *alarm_hm(time_text), enabled=False, label=label)
    yield from complete(ctx)


@solution("train.clock.delete_disabled")
def solve_delete_disabled(ctx: Ctx, inst: Any) -> Skill:
    cards = yield from C.list_alarms(ctx)
    for time_text, label, _days, on in cards:
        if not on:
            yield from C.delete_alarm(ctx, *alarm_hm(time_text), label=label)
    yield from complete(ctx)


# --- alarms: queries -------------------------------------------------------------------------------

@solution("clock.alarm_query_label")
def solve_alarm_query_label(ctx: Ctx, inst: Any) -> Skill:
    time_text, *_ = yield from alarm_by_label(ctx, inst.params["label"])
    yield from answer(ctx, time=time_text)


@solution("train.clock.query_alarm_days")
def solve_query_alarm_days(ctx: Ctx, inst: Any) -> Skill:
    _time, _label, days, _on = yield from alarm_by_label(ctx, inst.params["label"])
    yield from answer(ctx, days=parse_days(days))


@solution("test.query.alarm_time_and_days")
def solve_query_alarm_time_days(ctx: Ctx, inst: Any) -> Skill:
    time_text, _label, days, _on = yield from alarm_by_label(ctx, inst.params["label"])
    yield from answer(ctx, time=time_text, days=parse_days(days))


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


@solution("train.clock.world_clock_remove")
def solve_world_clock_remove(ctx: Ctx, inst: Any) -> Skill:
    yield from C.remove_world_clock(ctx, inst.params["city"])
    yield from complete(ctx)


@solution("train.clock.stopwatch_start")
def solve_stopwatch_start(ctx: Ctx, inst: Any) -> Skill:
    yield from C.start_stopwatch(ctx)
    yield from complete(ctx)
