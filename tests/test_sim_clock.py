"""The simulated Clock app, driven for real: headless Chromium through ``SimEnv``.

Every flow starts from a fresh phone, runs the oracle skills (or raw schema actions) in
both flavors and checks the resulting ``WorldState`` — the record a judge would read — not
the pixels. Bad input (an impossible time, an empty timer, a world with missing lists)
must leave the app running and the phone state valid.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from actionmap.actions import Action, Key, LongPress, Tap, TypeText, Wait
from actionmap.observation import Observation
from actionmap.worldstate import WorldState

pytest.importorskip("playwright")

from sim import state as sim_state  # noqa: E402
from sim.env import SimEnv  # noqa: E402
from transfer.oracle.base import Ctx, OracleError  # noqa: E402
from transfer.oracle.drive import run_skill  # noqa: E402
from transfer.oracle.skills import clock as C  # noqa: E402
from _simhelpers import fresh, run, step, find, healthy  # noqa: E402

FLAVORS = ["sim", "aosp"]

# 12 extra alarms: with the two default ones the list is far longer than the screen.
MANY = [{"hour": h, "minute": m, "enabled": on, "label": lab, "days": days}
        for h, m, on, lab, days in [(5, 0, False, "Early", []), (5, 30, True, "Run", ["sat"]), (7, 0, False, "", []),
                                    (9, 10, True, "Pills", []), (10, 0, False, "Call mum", ["sun"]),
                                    (11, 11, True, "", []), (12, 0, False, "Lunch", []), (13, 30, False, "", []),
                                    (15, 0, True, "Pick up kids", ["mon", "tue", "wed", "thu", "fri"]),
                                    (18, 45, False, "Dinner", []), (21, 0, False, "Read", []),
                                    (23, 59, False, "Last", [])]]


def alarms_at(ws: WorldState, hour: int, minute: int) -> list:
    return [a for a in ws.alarms or [] if (a.hour, a.minute) == (hour, minute)]


# --- alarms ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", FLAVORS)
def test_create_alarm_with_label_and_days(flavor: str) -> None:
    env = fresh(flavor)
    before = env.read_state().alarms
    run(env, C.create_alarm, hour=7, minute=15, label="Gym ☀ Früh", days=["wed", "mon"])
    ws = healthy(env)
    new = alarms_at(ws, 7, 15)
    assert len(new) == 1
    a = new[0]
    assert (a.enabled, a.label, a.days, a.vibrate) == (True, "Gym ☀ Früh", ["mon", "wed"], True)
    assert [x for x in ws.alarms if x.id != a.id] == before  # nothing else touched
    # a plain one-off alarm at a time another (disabled, unlabelled) alarm already has
    run(env, C.create_alarm, hour=8, minute=0)
    ws = healthy(env)
    assert sorted((x.enabled, x.days == []) for x in alarms_at(ws, 8, 0)) == [(False, False), (True, True)]


@pytest.mark.parametrize("flavor", FLAVORS)
def test_edit_alarms_in_a_long_list(flavor: str) -> None:
    env = fresh(flavor, {"add": {"alarms": MANY}, "start": {"app": "clock"}})
    ws0 = env.read_state()
    assert run(env, C.count_enabled_alarms) == sum(a.enabled for a in ws0.alarms)

    run(env, C.set_alarm_enabled, hour=23, minute=59, enabled=True)  # the last card: needs scrolling
    run(env, C.set_alarm_enabled, hour=15, minute=0, enabled=False, label="Pick up kids")
    run(env, C.set_alarm_label, hour=21, minute=0, label="Lesen 📖")
    run(env, C.set_alarm_days, hour=21, minute=0, days=["sat", "sun"])
    run(env, C.change_alarm_time, hour=5, minute=30, new_hour=6, new_minute=5)
    run(env, C.delete_alarm, hour=18, minute=45, label="Dinner")
    ws = healthy(env)

    assert alarms_at(ws, 23, 59)[0].enabled is True
    assert alarms_at(ws, 15, 0)[0].enabled is False
    read = alarms_at(ws, 21, 0)[0]
    assert (read.label, read.days, read.enabled) == ("Lesen 📖", ["sat", "sun"], False)
    moved = alarms_at(ws, 6, 5)[0]
    assert (moved.label, moved.days, moved.enabled) == ("Run", ["sat"], True) and not alarms_at(ws, 5, 30)
    assert not alarms_at(ws, 18, 45) and len(ws.alarms) == len(ws0.alarms) - 1
    # ids are stable: the edited alarms are the same records
    assert {a.id for a in ws.alarms} == {a.id for a in ws0.alarms} - {alarms_at(ws0, 18, 45)[0].id}


@pytest.mark.parametrize("flavor", FLAVORS)
def test_next_alarm_is_read_from_the_clock_tab(flavor: str) -> None:
    # Monday 09:30: the weekday 06:45 alarm rings tomorrow, a one-off 10:00 alarm today
    env = fresh(flavor, {"time": "2027-03-15T09:30:00",
                         "add": {"alarms": [{"hour": 10, "minute": 0, "enabled": True},
                                            {"hour": 9, "minute": 45, "enabled": False}]}})
    assert run(env, C.read_next_alarm) == "10:00"
    run(env, C.set_alarm_enabled, hour=10, minute=0, enabled=False)
    assert run(env, C.read_next_alarm) == "06:45"
    clock_tab = find(env.observe(), rid="nextAlarm")
    assert clock_tab is not None and "Tue" in clock_tab.text


# --- world clock ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", FLAVORS)
def test_world_clock_add_read_remove(flavor: str) -> None:
    env = fresh(flavor)
    assert env.read_state().world_clocks == ["London", "New York"]
    # sim: an accent-insensitive search; AOSP's matches a prefix of the name as written
    # (CitySelectionActivity.CityAdapter.filter, City.matches), case aside
    run(env, C.add_world_clock, city="sao paulo" if flavor == "sim" else "são paulo")
    got = run(env, C.read_world_clock_time, city="São Paulo")
    ws = env.read_state()
    assert ws.world_clocks == ["London", "New York", "São Paulo"]
    assert got == (ws.time - timedelta(hours=3)).strftime("%H:%M")
    assert run(env, C.read_world_clock_time, city="New York") == (ws.time - timedelta(hours=5)).strftime("%H:%M")
    run(env, C.remove_world_clock, city="London")
    ws = healthy(env)
    assert ws.world_clocks == ["New York", "São Paulo"]
    run(env, C.add_world_clock, city="New York")  # already there: no duplicate
    assert env.read_state().world_clocks == ["New York", "São Paulo"]


@pytest.mark.parametrize("flavor", FLAVORS)
def test_city_search_filters_a_long_list(flavor: str) -> None:
    env = fresh(flavor, {"start": {"app": "clock", "route": "cities"}})
    obs = env.observe()
    assert len(Ctx(obs=obs).find_all(rid="city_name")) >= 8  # the screen is full; the list goes on
    if flavor == "aosp":
        obs = step(env, Tap(target=find(obs, desc="Search").index))
    # sim: a substring of the name or country, accents aside; AOSP: a prefix of the name
    obs = step(env, TypeText(text="zur" if flavor == "sim" else "zü", clear=True, target=find(obs, rid="search_src_text").index))
    names = [e.text for e in Ctx(obs=obs).find_all(rid="city_name")]
    assert names == ["Zürich"]
    obs = step(env, TypeText(text="xyzzy", clear=True))
    assert not Ctx(obs=obs).find_all(rid="city_name")
    if flavor == "sim":  # AOSP's cities_activity.xml has no empty view
        assert find(obs, rid="empty") is not None
    healthy(env)


# --- timers and stopwatch ---------------------------------------------------------------------

@pytest.mark.parametrize("flavor", FLAVORS)
def test_timer_start_pause_label_delete(flavor: str) -> None:
    env = fresh(flavor)
    run(env, C.start_timer, hours=0, minutes=5, seconds=30)
    ws = env.read_state()
    assert len(ws.timers) == 1
    t = ws.timers[0]
    assert (t.duration_s, t.running, t.label) == (330, True, "")
    assert 0 < t.remaining_s < 330  # the sim clock ran while the skill stepped
    run(env, C.start_timer, hours=1, minutes=2, seconds=3)
    run(env, C.set_timer_label, label="Tee 🍵")
    assert run(env, C.pause_timer, label="Tee 🍵") is True
    ws = env.read_state()
    assert [(x.duration_s, x.label, x.running) for x in ws.timers] == [(330, "Tee 🍵", False), (3723, "", True)]
    frozen = ws.timers[0].remaining_s
    step(env, Wait(seconds=5))
    assert env.read_state().timers[0].remaining_s == frozen
    run(env, C.delete_timer, label="Tee 🍵")
    ws = healthy(env)
    assert [(x.duration_s, x.running) for x in ws.timers] == [(3723, True)]
    with pytest.raises(OracleError):
        run(env, C.start_timer, hours=0, minutes=0, seconds=0)


@pytest.mark.parametrize("flavor", FLAVORS)
def test_stopwatch_start_lap_stop_reset(flavor: str) -> None:
    env = fresh(flavor)
    run(env, C.start_stopwatch)
    run(env, C.lap_stopwatch)
    run(env, C.stop_stopwatch)
    sw = env.read_state().stopwatch
    assert sw.running is False and sw.elapsed_ms > 0 and len(sw.laps) == 1 and 0 < sw.laps[0] <= sw.elapsed_ms
    step(env, Wait(seconds=3))
    assert env.read_state().stopwatch.elapsed_ms == sw.elapsed_ms  # paused: time no longer counts
    shown = run(env, C.read_stopwatch)
    s = sw.elapsed_ms // 1000
    assert shown == f"{s // 60:02d}:{s % 60:02d}.{sw.elapsed_ms // 10 % 100:02d}"
    run(env, C.reset_stopwatch)
    assert healthy(env).stopwatch.model_dump() == {"elapsed_ms": 0, "running": False, "laps": []}


# --- flavors ----------------------------------------------------------------------------------

def test_flavors_differ_where_stock_android_does() -> None:
    sim, aosp = fresh("sim", {"start": {"app": "clock"}}), fresh("aosp", {"start": {"app": "clock"}})
    so, ao = sim.observe(), aosp.observe()
    # tabs on top vs AOSP's bottom navigation (four items, no Bedtime: that tab is Google Clock's)
    assert find(so, rid="tab_alarm") is not None and find(so, desc="Bedtime") is None
    assert find(ao, rid="page_alarm") is not None and find(ao, desc="Bedtime") is None
    assert find(ao, rid="bottom_view") is not None and find(ao, rid="title_view").text == "Alarm"
    # AOSP's cards are id-less items described "<time> <label or 'Alarm'>" in alarms_recycler_view
    assert find(ao, rid="alarms_recycler_view") is not None and find(ao, desc="08:00 Alarm") is not None
    # repeat summaries
    assert find(so, "Weekdays") is not None and find(ao, "Mon, Tue, Wed, Thu, Fri") is not None
    # sim edits on a full-screen form; aosp expands the card in place
    so = step(sim, Tap(target=find(so, "06:45").index))
    assert find(so, "Edit alarm") is not None and find(so, rid="save") is not None
    ao = step(aosp, Tap(target=find(ao, desc="Expand alarm").index))
    assert find(ao, desc="Collapse alarm") is not None and find(ao, rid="edit_label") is not None
    # week starts Monday vs Sunday on the day chips
    assert find(so, rid="day_button_0").content_desc == "Monday"
    assert find(ao, rid="day_button_0").content_desc == "Sunday"
    # sim confirms a delete; aosp deletes at once
    so = step(sim, Tap(target=find(so, "Delete", rid="delete").index))
    assert find(so, "Delete alarm?") is not None and len(sim.read_state().alarms) == 2
    ao = step(aosp, Tap(target=find(ao, "Delete", rid="delete").index))
    assert len(aosp.read_state().alarms) == 1
    ao = step(aosp, Wait(seconds=1))  # the "Alarm deleted" toast, over the bottom navigation, goes
    # the world-clock FAB and the way a city is removed
    so = step(sim, Key(key="back"))
    so = step(sim, Key(key="back"))
    so = step(sim, Tap(target=find(so, desc="Clock", rid="tab_clock").index))
    assert find(so, desc="Add city") is not None
    step(sim, LongPress(target=find(so, "London", rid="city_name").index))
    so = sim.observe()
    assert find(so, "Remove London?") is not None
    ao = step(aosp, Tap(target=find(ao, desc="Clock", rid="page_clock").index))
    assert find(ao, desc="Cities") is not None
    step(aosp, LongPress(target=find(ao, "London", rid="city_name").index))
    assert find(aosp.observe(), "Remove London?") is None
    healthy(sim), healthy(aosp)


# --- bad input ----------------------------------------------------------------------------------

@pytest.mark.parametrize("flavor", FLAVORS)
def test_invalid_time_and_empty_inputs_do_not_corrupt_state(flavor: str) -> None:
    env = fresh(flavor, {"start": {"app": "clock"}})
    before = env.read_state().alarms
    obs = step(env, Tap(target=find(env.observe(), desc="Add alarm").index))
    error = "error"
    if flavor == "aosp":  # the framework TimePickerDialog opens on its clock face: switch to typing
        obs = step(env, Tap(target=find(obs, rid="toggle_mode").index))
        error = "label_error"
    for hh, mm in (("27", "30"), ("", "15"), ("ab", "x"), ("7", "60")):
        step(env, TypeText(text=hh, clear=True, target=find(obs, rid="input_hour").index))
        obs = step(env, TypeText(text=mm, clear=True, target=find(env.observe(), rid="input_minute").index))
        obs = step(env, Tap(target=find(obs, "OK").index)) if find(obs, "OK") else obs
        if find(obs, "OK") is None:  # the keyboard covers the buttons: hide it first
            obs = step(env, Key(key="back"))
            obs = step(env, Tap(target=find(obs, "OK").index))
        assert find(obs, rid="timePicker") is not None and find(obs, rid=error) is not None
    step(env, Tap(target=find(obs, "Cancel").index))
    if flavor == "sim":  # the Add alarm form saved with an empty name keeps the preset time
        obs = step(env, Tap(target=find(env.observe(), rid="save").index))
    ws = healthy(env)
    added = [a for a in ws.alarms if a not in before]
    assert len(added) == (1 if flavor == "sim" else 0)
    if added:
        assert (added[0].label, added[0].days, added[0].enabled) == ("", [], True)
    # a whitespace-only label clears the label, it is not stored as spaces
    run(env, C.set_alarm_label, hour=6, minute=45, label="   ")
    assert alarms_at(healthy(env), 6, 45)[0].label == ""
    # an empty timer cannot be started: no Start button, the zero keys do nothing
    run(env, C.goto_tab, tab="timer")
    obs = env.observe()
    for key in ("timer_setup_digit_00", "timer_setup_digit_0"):
        obs = step(env, Tap(target=find(obs, rid=key).index))
    assert find(obs, rid="timer_setup_time").text == "00h 00m 00s" and find(obs, desc="Start") is None
    assert healthy(env).timers == []


@pytest.mark.parametrize("flavor", FLAVORS)
def test_world_without_clock_lists_still_works(flavor: str) -> None:
    env = SimEnv(flavor=flavor, screenshots=False)  # type: ignore[arg-type]
    base = sim_state.merge_patch(env.capture(), {"world": {"alarms": None, "timers": None, "stopwatch": None,
                                                            "world_clocks": ["Atlantis", "Tokyo"]}})
    env.reset(base)
    assert env.read_state().timers is None
    for tab in ("alarm", "clock", "timer", "stopwatch"):
        run(env, C.goto_tab, tab=tab)
        healthy(env)
    assert run(env, C.read_world_clock_time, city="Atlantis") == "--:--"
    run(env, C.start_timer, hours=0, minutes=0, seconds=45)
    run(env, C.create_alarm, hour=6, minute=0)
    ws = healthy(env)
    assert [t.duration_s for t in ws.timers] == [45] and [(a.hour, a.minute) for a in ws.alarms] == [(6, 0)]


def test_skill_arguments_are_checked_before_acting() -> None:
    assert C.time_texts(7, 5) >= {"07:05", "7:05 AM"}
    assert "7:05 PM" in C.time_texts(19, 5)
    for bad in ((24, 0), (7, 60), (-1, 0)):
        with pytest.raises(OracleError):
            C.time_texts(*bad)
    ctx = Ctx(obs=Observation(screen={"width": 1080, "height": 2400}))
    for h, m, s in ((0, 0, 0), (100, 0, 0), (0, -1, 0)):
        with pytest.raises(OracleError):
            next(C.start_timer(ctx, h, m, s))
