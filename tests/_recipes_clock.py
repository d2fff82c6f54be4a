"""Recipes: drive a fresh phone (launcher home, default world) to the state of each real Clock dump.

Each recipe uses only ``env.step`` / ``env.observe`` with actions of :mod:`actionmap.actions`, so it
runs on the simulator (``SimEnv``) and on the virtual phone (``DeviceEnv``) alike. Controls are
found on the observed screen by the ids and descriptions the real dumps show (this is test code
about those screens, not a skill). The default world's first alarm is labelled, which none of the
real list screens shows: the recipes of those screens delete the labelled alarms first, through
the app, as a person would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.actions import OpenApp, Tap
from actionmap.observation import UIElement

PKG = "com.google.android.deskclock"


def _rid(name: str) -> Callable[[UIElement], bool]:
    return lambda e: e.resource_id == f"{PKG}:id/{name}"


def _find(env: Any, pred: Callable[[UIElement], bool], what: str) -> UIElement:
    el = next((e for e in env.observe().elements if pred(e)), None)
    assert el is not None, f"not on screen: {what}"
    return el


def _tap(env: Any, pred: Callable[[UIElement], bool], what: str) -> None:
    env.step(Tap(target=_find(env, pred, what).index))


def _open(env: Any) -> None:
    env.step(OpenApp(app="clock"))
    _find(env, _rid("tab_menu_alarm"), "the Alarm tab")


def _dismiss_tooltip(env: Any) -> None:
    tip = next((e for e in env.observe().elements if _rid("body")(e)), None)
    if tip is not None:
        env.step(Tap(target=tip.index))


def _delete_labelled_alarms(env: Any) -> None:
    """Expand each card showing a label (the arrow on the label's row) and press its Delete."""
    for _ in range(6):
        els = env.observe().elements
        label = next((e for e in els if _rid("label")(e)), None)
        if label is None:
            return
        arrow = next(e for e in els if _rid("arrow")(e) and e.content_desc == "Expand alarm"
                     and label.bounds.top <= e.bounds.center[1] <= label.bounds.bottom + label.bounds.height)
        env.step(Tap(target=arrow.index))
        _tap(env, _rid("delete"), "the expanded card's Delete")
    raise AssertionError("labelled alarms remain")


def alarm_list_bedtime_tooltip(env: Any) -> None:
    _open(env)
    _delete_labelled_alarms(env)
    _find(env, _rid("body"), "the Bedtime tooltip")


def bedtime_onboarding(env: Any) -> None:
    _open(env)
    _tap(env, _rid("tab_menu_bedtime"), "the Bedtime tab")


def time_picker_dial_hours(env: Any) -> None:
    _open(env)
    _dismiss_tooltip(env)
    _tap(env, _rid("fab"), "Add alarm")


def alarm_expanded_new(env: Any) -> None:
    time_picker_dial_hours(env)
    _tap(env, _rid("material_timepicker_ok_button"), "the picker's OK")


def music_alarm_providers_dialog(env: Any) -> None:
    alarm_expanded_new(env)
    _tap(env, _rid("choose_ringtone"), "the new alarm's ringtone")


def alarm_sound_picker(env: Any) -> None:
    music_alarm_providers_dialog(env)
    _tap(env, _rid("dismiss"), "Dismiss")


RECIPES: dict[str, tuple[str, Callable[[Any], None]]] = {
    f"google/clock/{fn.__name__}_sdk34_1080x2400": ("google", fn)
    for fn in (alarm_list_bedtime_tooltip, bedtime_onboarding, time_picker_dial_hours, alarm_expanded_new,
               music_alarm_providers_dialog, alarm_sound_picker)
}
