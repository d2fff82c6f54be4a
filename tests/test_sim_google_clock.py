"""The simulator's `google` Clock: Google Clock as a Pixel on Android 14 shows it.

Why: a policy trained in the simulator must meet the screens a Pixel's Clock really shows — the
five bottom tabs with Bedtime, the first-launch Bedtime tooltip, cards that expand in the list,
the Material time picker with its keyboard mode, the label dialog, the music-alarm card before the
sound picker, the city search — and the app UI layer must read them as it reads the real dumps.
Each real dump in ``fixtures/real-apps/google/clock`` has a recipe (``_recipes_clock.py``) that
drives a fresh phone to the same state; the readings must agree (``_screens.compare``). The flows
below run the oracle's skills and raw actions and check the world a judge reads.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest

from actionmap.actions import Key, OpenApp, Tap, TypeText, Wait
from actionmap.observation import Observation, UIElement

pytest.importorskip("playwright")

from sim.env import SimEnv  # noqa: E402
from transfer.oracle.base import Ctx  # noqa: E402
from transfer.oracle.skills import clock as C  # noqa: E402
from _recipes_clock import RECIPES  # noqa: E402
from _screens import compare, reading  # noqa: E402
from _simhelpers import fresh, run, step, find, healthy  # noqa: E402

PKG = "com.google.android.deskclock"
HAIR = "\u200a"
GOOGLE_KEYS = sorted(k for k in RECIPES if k.startswith("google/clock/"))


def _in(obs: Observation, box: UIElement, **kw: object) -> list[UIElement]:
    """Elements matching ``kw`` whose centre lies in ``box``."""
    return [e for e in Ctx(obs=obs).find_all(**kw)  # type: ignore[arg-type]
            if box.bounds.left <= e.bounds.center[0] <= box.bounds.right
            and box.bounds.top <= e.bounds.center[1] <= box.bounds.bottom]


# --- the real screens, reached and read alike ------------------------------------------------

@pytest.fixture(scope="module")
def pixel() -> Iterator[SimEnv]:
    env = SimEnv("pixel", "google", screenshots=False)  # type: ignore[arg-type]
    yield env


def test_every_real_google_clock_dump_has_a_recipe() -> None:
    from _appfixtures import REAL
    stems = sorted(f"google/clock/{p.stem}" for p in (REAL / "google/clock").glob("*.xml"))
    assert stems == GOOGLE_KEYS and len(stems) == 6


@pytest.mark.parametrize("key", GOOGLE_KEYS, ids=[k.split("/")[-1] for k in GOOGLE_KEYS])
def test_the_sim_shows_each_real_google_clock_screen(pixel: SimEnv, key: str) -> None:
    flavor, recipe = RECIPES[key]
    assert flavor == "google"
    pixel.reset()
    recipe(pixel)
    els = pixel.observe().elements
    assert compare(key, els) == []
    assert reading(els).family == "google"


# --- the activity and the first launch -------------------------------------------------------

def test_first_launch_shows_the_pixel_chrome_and_the_bedtime_tooltip() -> None:
    env = fresh("google")
    obs = step(env, OpenApp(app="clock"))
    assert (obs.foreground.package, obs.foreground.activity) == (PKG, "clock/alarm")
    tabs = [e for e in obs.elements if e.resource_id.startswith(f"{PKG}:id/tab_menu_")]
    assert [(e.content_desc, e.selected, e.clickable) for e in tabs] == [
        ("Alarm", True, False), ("Clock", False, True), ("Timer", False, True), ("Stopwatch", False, True),
        ("Bedtime", False, True)]
    # 12-hour times with a hair space, cards described "<label> Alarm"
    assert find(obs, f"6:45{HAIR}AM", rid="digital_clock") is not None
    assert find(obs, desc="Wake up Alarm") is not None and find(obs, desc=" Alarm") is not None
    # the tooltip's window lies beside the FAB, above the Bedtime tab; it stays until tapped
    tip, fab = find(obs, rid="body"), find(obs, desc="Add alarm", rid="fab")
    assert tip is not None and tip.text == "Set a consistent bedtime for better sleep"
    assert fab.bounds.left < tip.bounds.left < fab.bounds.right and tip.bounds.bottom <= find(obs, desc="Bedtime").bounds.top
    obs = step(env, Tap(target=fab.index))
    assert find(obs, "Select time", rid="header_title") is not None and find(obs, rid="body") is None  # under the scrim
    obs = step(env, Key(key="back"))
    obs = step(env, Tap(target=find(obs, rid="body").index))
    assert find(obs, rid="body") is None
    step(env, Key(key="home"))
    obs = step(env, OpenApp(app="clock"))
    assert find(obs, rid="body") is None  # shown once
    healthy(env)


def test_the_bedtime_tab_dismisses_the_tooltip() -> None:
    env = fresh("google", {"start": {"app": "clock"}})
    obs = step(env, Tap(target=find(env.observe(), desc="Bedtime").index))
    assert find(obs, "Get started", rid="bedtime_onboarding_start") is not None
    assert find(obs, "Bedtime", rid="action_bar_title") is not None and find(obs, rid="fab") is None
    obs = step(env, Tap(target=find(obs, desc="Alarm").index))
    assert find(obs, rid="body") is None and find(obs, desc="Add alarm") is not None


# --- alarms ----------------------------------------------------------------------------------

def test_alarms_are_created_and_edited_in_expanding_cards() -> None:
    env = fresh("google")
    run(env, C.create_alarm, hour=7, minute=15, label="Gym ☀", days=["wed", "mon"])
    run(env, C.create_alarm, hour=21, minute=5)
    ws = env.read_state()
    new = {(a.hour, a.minute): a for a in ws.alarms}
    assert (new[(7, 15)].label, new[(7, 15)].days, new[(7, 15)].enabled) == ("Gym ☀", ["mon", "wed"], True)
    assert (new[(21, 5)].label, new[(21, 5)].days, new[(21, 5)].enabled) == ("", [], True)
    run(env, C.set_alarm_enabled, hour=6, minute=45, enabled=False, label="Wake up")
    run(env, C.set_alarm_label, hour=8, minute=0, label="Weekend")
    run(env, C.set_alarm_days, hour=21, minute=5, days=["sat", "sun"])
    run(env, C.change_alarm_time, hour=21, minute=5, new_hour=22, new_minute=40)
    run(env, C.set_alarm_vibrate, hour=22, minute=40, vibrate=False)
    # what the expanded card shows once days are set (WW step_0029)
    obs = env.observe()
    assert find(obs, desc="Collapse alarm") is not None and find(obs, "Pause alarm", rid="blackout_title") is not None
    assert find(obs, rid="repeat_summary").text == "Sun, Sat"
    assert find(obs, "Vibrate", rid="vibrate_onoff").checked is False
    run(env, C.delete_alarm, hour=7, minute=15, label="Gym ☀")
    ws = healthy(env)
    got = sorted((a.hour, a.minute, a.enabled, a.label, a.days, a.vibrate) for a in ws.alarms)
    assert got == [(6, 45, False, "Wake up", ["mon", "tue", "wed", "thu", "fri"], True),
                   (8, 0, False, "Weekend", ["sat", "sun"], True),
                   (22, 40, True, "", ["sat", "sun"], False)]


def test_the_material_time_picker_dial_and_keyboard() -> None:
    env = fresh("google", {"start": {"app": "clock"}})
    before = len(env.read_state().alarms)
    obs = step(env, Tap(target=find(env.observe(), rid="body").index))  # the tooltip
    obs = step(env, Tap(target=find(obs, desc="Add alarm").index))
    hour, minute = find(obs, rid="material_hour_tv"), find(obs, rid="material_minute_tv")
    assert (hour.text, hour.content_desc, hour.checked) == ("10", "10 o'clock", True)  # 09:30 → the next hour
    assert (minute.text, minute.content_desc, minute.checked) == ("00", "0 minutes", False)
    obs = step(env, Tap(target=find(obs, "7", desc="7 o'clock").index))  # an hour moves on to the minutes
    assert find(obs, rid="material_hour_tv").text == "07" and find(obs, rid="material_minute_tv").checked
    obs = step(env, Tap(target=find(obs, "25", desc="25 minutes").index))
    obs = step(env, Tap(target=find(obs, "PM", rid="material_clock_period_pm_button").index))
    assert find(obs, rid="material_minute_tv").text == "25" and find(obs, rid="material_clock_period_pm_button").checked
    # the keyboard mode (MDC 1.10): the field being edited — the minutes, selected last — is an
    # EditText without id, focused; the other field is a chip showing its value
    obs = step(env, Tap(target=find(obs, rid="material_timepicker_mode_button").index))
    assert find(obs, desc="Switch to clock mode for the time input.") is not None
    hbox, mbox = find(obs, rid="material_hour_text_input"), find(obs, rid="material_minute_text_input")
    edit = _in(obs, mbox, cls="android.widget.EditText")
    assert len(edit) == 1 and edit[0].resource_id == "" and edit[0].text == "25" and edit[0].focused
    chip = _in(obs, hbox, cls="android.widget.Button")
    assert [c.text for c in chip] == ["07"] and not _in(obs, hbox, cls="android.widget.EditText")
    assert [e.text for e in Ctx(obs=obs).find_all(rid="material_label")] == ["Hour", "Minute"]
    step(env, TypeText(text="5", clear=True))
    obs = step(env, Tap(target=chip[0].index))
    edit = _in(obs, find(obs, rid="material_hour_text_input"), cls="android.widget.EditText")
    assert len(edit) == 1 and edit[0].focused and edit[0].text == "07"
    assert [c.text for c in _in(obs, find(obs, rid="material_minute_text_input"), cls="android.widget.Button")] == ["05"]
    # beyond 12 the field's filter refuses the text, and an empty hour reads as 12 (MDC
    # MaxInputValidator, TimeModel.setHour)
    obs = step(env, TypeText(text="27", clear=True))
    assert _in(obs, find(obs, rid="material_hour_text_input"), cls="android.widget.EditText")[0].text == ""
    step(env, TypeText(text="11", clear=True))
    obs = step(env, Key(key="back"))
    step(env, Tap(target=find(obs, "OK", rid="material_timepicker_ok_button").index))
    ws = healthy(env)
    assert len(ws.alarms) == before + 1 and [(a.hour, a.minute) for a in ws.alarms][-1] == (23, 5)
    obs = env.observe()
    assert find(obs, f"11:05{HAIR}PM", rid="digital_clock") is not None and find(obs, desc="Collapse alarm") is not None


def test_the_label_dialog_and_the_sound_picker() -> None:
    env = fresh("google", {"start": {"app": "clock"}})
    obs = step(env, Tap(target=find(env.observe(), rid="body").index))
    obs = step(env, Tap(target=find(obs, desc="Expand alarm").index))
    obs = step(env, Tap(target=find(obs, "Wake up", rid="edit_label").index))
    assert find(obs, rid="parentPanel").resource_id == f"{PKG}:id/parentPanel"
    field = find(obs, rid="label_input_field")
    assert field is not None and field.text == "Wake up" and field.focused
    step(env, TypeText(text="Rise", clear=True))
    obs = step(env, Key(key="back"))
    obs = step(env, Tap(target=find(obs, "OK", rid="android:id/button1").index))
    assert [a.label for a in env.read_state().alarms if (a.hour, a.minute) == (6, 45)] == ["Rise"]
    assert find(obs, desc="Rise Alarm") is not None
    # the first ringtone tap shows the music-alarm card; Dismiss goes on to the sound picker
    obs = step(env, Tap(target=find(obs, rid="choose_ringtone").index))
    assert [e.text for e in Ctx(obs=obs).find_all(rid="title")] == ["YouTube Music", "Calm", "Pandora Music", "Spotify Music"]
    obs = step(env, Tap(target=find(obs, "Dismiss", rid="dismiss").index))
    assert obs.foreground.activity == "clock/ringtone"
    assert find(obs, desc="Alarm sound", rid="collapsing_toolbar_layout") is not None
    row = find(obs, "BeeBeep Alarm", rid="ringtone_primary_text")
    obs = step(env, Tap(target=row.index))
    sel = find(obs, desc="Selected")
    assert sel is not None and abs(sel.bounds.center[1] - row.bounds.center[1]) < row.bounds.height
    assert find(obs, desc="Playing") is not None
    obs = step(env, Tap(target=find(obs, desc="Navigate up").index))
    ring = find(obs, rid="choose_ringtone")
    assert (ring.text, ring.content_desc) == ("BeeBeep Alarm", "Ringtone BeeBeep Alarm")
    obs = step(env, Tap(target=ring.index))  # shown once: straight to the picker now
    assert find(obs, rid="dismiss") is None and find(obs, rid="ringtone_content") is not None
    healthy(env)


# --- world clock, timers, stopwatch ----------------------------------------------------------

def test_world_clock_add_read_remove_through_the_city_search() -> None:
    env = fresh("google")
    run(env, C.add_world_clock, city="são paulo")
    ws = env.read_state()
    assert ws.world_clocks == ["London", "New York", "São Paulo"]
    t = ws.time - timedelta(hours=3)
    assert run(env, C.read_world_clock_time, city="São Paulo") == f"{t.hour % 12 or 12}:{t.minute:02d}{HAIR}{'AM' if t.hour < 12 else 'PM'}"
    # the search lists a chosen city qualified by its region, and marks it
    obs = step(env, Tap(target=find(env.observe(), desc="Add city").index))
    field = find(obs, rid="open_search_view_edit_text")
    assert field is not None and field.focused
    obs = step(env, TypeText(text="lond", clear=True))
    names = Ctx(obs=obs).find_all(rid="city_name")
    assert [e.text for e in names] == ["London, United Kingdom"] and find(obs, rid="city_selected") is not None
    step(env, Key(key="back"))
    step(env, Key(key="back"))
    run(env, C.remove_world_clock, city="London")
    run(env, C.add_world_clock, city="New York")  # already there: no duplicate
    assert healthy(env).world_clocks == ["New York", "São Paulo"]


def test_timers_and_the_stopwatch() -> None:
    env = fresh("google")
    run(env, C.start_timer, hours=0, minutes=5, seconds=30)
    run(env, C.set_timer_label, label="Tee")
    obs = env.observe()
    assert find(obs, desc="Pause", rid="play_pause") is not None and find(obs, "Tee", rid="timer_label") is not None
    assert run(env, C.pause_timer, label="Tee") is True
    obs = env.observe()
    assert find(obs, desc="Start", rid="play_pause") is not None and env.read_state().timers[0].running is False
    frozen = env.read_state().timers[0].remaining_s
    step(env, Wait(seconds=3))
    assert env.read_state().timers[0].remaining_s == frozen
    run(env, C.delete_timer, label="Tee")
    assert healthy(env).timers == []
    run(env, C.start_stopwatch)
    run(env, C.lap_stopwatch)
    run(env, C.stop_stopwatch)
    sw = env.read_state().stopwatch
    assert sw.running is False and len(sw.laps) == 1 and sw.elapsed_ms > 0
    s = sw.elapsed_ms // 1000
    main = f"{s // 60}:{s % 60:02d}" if s >= 60 else str(s)
    assert run(env, C.read_stopwatch) == f"{main}.{sw.elapsed_ms // 10 % 100:02d}"
    assert find(env.observe(), "# 1", rid="lap_number") is not None
    run(env, C.reset_stopwatch)
    assert healthy(env).stopwatch.model_dump() == {"elapsed_ms": 0, "running": False, "laps": []}
