"""Oracle solutions for Settings templates (real59, train, test).

Toggles go through the Settings app (``skills.settings``); the flashlight, which has no
Settings screen on Android, goes through the quick-settings shade. Queries read what the
screen shows (a switch's state, a row's summary) — never the world state.
"""

from __future__ import annotations

import re
from typing import Any

from actionmap.actions import Swipe, Tap, TypeText
from actionmap.observation import UIElement

from ..base import Ctx, OracleError, Skill, act, answer, back, complete, norm, scroll_to_role
from ..skills import settings as S
from .registry import solution

# --- helpers -----------------------------------------------------------------------------------

APP = S.APP


def read_toggle(ctx: Ctx, field: str) -> Skill:
    """Whether the Settings switch for ``field`` is on, as its screen shows it."""
    return (yield from S.read_toggle(ctx, field))


def _open_display(ctx: Ctx) -> Skill:
    return (yield from S.open_display(ctx))


def _open_sound(ctx: Ctx) -> Skill:
    return (yield from S.open_sound(ctx))


def _qs_tile(ctx: Ctx, label: str) -> UIElement | None:
    want = norm(label)
    return next((e for e in ctx.roles(APP, "qs_tile")
                 if norm(e.text) == want or norm(e.content_desc).startswith(want + ",")), None)


def open_quick_settings(ctx: Ctx, tile: str) -> Skill:
    """Pull the shade down (twice if needed, to expand it) until ``tile`` shows; returns it."""
    for _ in range(3):
        el = _qs_tile(ctx, tile)
        if el is not None:
            return el
        more = ctx.role(APP, "qs_expand")
        if more is not None:
            yield from act(ctx, Tap(target=more.index))
        else:
            yield from act(ctx, Swipe(start=(500, 5), end=(500, 600)))
    el = _qs_tile(ctx, tile)
    if el is None:
        raise OracleError(f"no quick-settings tile {tile!r}")
    return el


def set_quick_tile(ctx: Ctx, tile: str, on: bool) -> Skill:
    el = yield from open_quick_settings(ctx, tile)
    if bool(el.checked) != on:
        yield from act(ctx, Tap(target=el.index))
        el = _qs_tile(ctx, tile)
        if el is None or bool(el.checked) != on:
            raise OracleError(f"tile {tile!r} did not change")
    return ctx.obs


def _yes_no(v: bool) -> str:
    return "yes" if v else "no"


# --- toggles -------------------------------------------------------------------------------------

_TOGGLE_TEMPLATES: dict[str, list[tuple[str, bool]]] = {
    "settings.wifi_on": [("wifi", True)],
    "settings.wifi_off": [("wifi", False)],
    "settings.bluetooth_on": [("bluetooth", True)],
    "settings.bluetooth_off": [("bluetooth", False)],
    "settings.airplane_on": [("airplane_mode", True)],
    "settings.dnd_on": [("do_not_disturb", True)],
    "settings.dark_mode_on": [("dark_mode", True)],
    "settings.dark_mode_off": [("dark_mode", False)],
    "settings.location_off": [("location", False)],
    "settings.auto_rotate_on": [("auto_rotate", True)],
    "train.settings.airplane_off": [("airplane_mode", False)],
    "train.settings.dnd_off": [("do_not_disturb", False)],
    "train.settings.location_on": [("location", True)],
    "train.settings.auto_rotate_off": [("auto_rotate", False)],
    "train.settings.mobile_data_off": [("mobile_data", False)],
    "train.settings.adaptive_brightness_on": [("adaptive_brightness", True)],
    "train.settings.wifi_on_bt_off": [("wifi", True), ("bluetooth", False)],
    "train.settings.dark_and_dnd": [("dark_mode", True), ("do_not_disturb", True)],
    "test.settings.flight_with_wifi": [("airplane_mode", True), ("wifi", True)],
}


def set_toggle(ctx: Ctx, field: str, on: bool) -> Skill:
    """``skills.settings.set_toggle`` (Mobile data in the sim flavor goes through Settings' search,
    as the family's data says)."""
    return (yield from S.set_toggle(ctx, field, on))


@solution(*_TOGGLE_TEMPLATES)
def solve_toggles(ctx: Ctx, inst: Any) -> Skill:
    for field, on in _TOGGLE_TEMPLATES[inst.template_id]:
        yield from set_toggle(ctx, field, on)
    yield from complete(ctx)


@solution("train.settings.flashlight_on", "train.settings.flashlight_off")
def solve_flashlight(ctx: Ctx, inst: Any) -> Skill:
    yield from set_quick_tile(ctx, S.words(ctx, "flashlight"), inst.template_id.endswith("_on"))
    yield from back(ctx)
    yield from complete(ctx)


# --- display -------------------------------------------------------------------------------------

# template → its brightness level (None: the instance's ``target``)
_BRIGHTNESS = {"settings.brightness_level": None, "train.settings.brightness_max": 255,
               "train.settings.brightness_min": 0}


@solution(*_BRIGHTNESS)
def solve_brightness(ctx: Ctx, inst: Any) -> Skill:
    level = _BRIGHTNESS[inst.template_id]
    yield from S.set_brightness(ctx, int(inst.params["target"]) if level is None else level)
    yield from complete(ctx)


@solution("settings.screen_timeout")
def solve_screen_timeout(ctx: Ctx, inst: Any) -> Skill:
    yield from S.set_screen_timeout(ctx, inst.params["to"]["text"])
    yield from complete(ctx)


@solution("train.settings.timeout_longest")
def solve_timeout_longest(ctx: Ctx, inst: Any) -> Skill:
    yield from _open_display(ctx)
    yield from S.tap_row(ctx, S.words(ctx, "screen_timeout"))
    radios = ctx.roles(APP, "radio_option")
    if not radios:
        raise OracleError("the screen timeout dialog shows no options")
    longest = max(radios, key=lambda e: _duration_s(e.text) or -1)
    yield from act(ctx, Tap(target=longest.index))
    yield from complete(ctx)


@solution("settings.font_size", "train.settings.font_default")
def solve_font_size(ctx: Ctx, inst: Any) -> Skill:
    default = inst.template_id == "train.settings.font_default"
    yield from S.set_font_size(ctx, S.words(ctx, "font_default") if default else inst.params["fs"]["text"])
    yield from complete(ctx)


@solution("test.settings.font_and_timeout")
def solve_font_and_timeout(ctx: Ctx, inst: Any) -> Skill:
    yield from S.set_font_size(ctx, inst.params["fs"]["text"])
    yield from S.set_screen_timeout(ctx, inst.params["to"]["text"])
    yield from complete(ctx)


@solution("test.settings.night_routine")
def solve_night_routine(ctx: Ctx, inst: Any) -> Skill:
    yield from set_toggle(ctx, "do_not_disturb", True)
    yield from set_toggle(ctx, "dark_mode", True)
    yield from S.set_brightness(ctx, int(inst.params["target"]))
    yield from complete(ctx)


@solution("test.settings.conditional_radio")
def solve_conditional_radio(ctx: Ctx, inst: Any) -> Skill:
    bt_on = yield from read_toggle(ctx, "bluetooth")
    yield from set_toggle(ctx, "bluetooth" if bt_on else "wifi", False)
    yield from complete(ctx)


# --- sound -----------------------------------------------------------------------------------------

@solution("train.settings.ringer_vibrate")
def solve_ringer(ctx: Ctx, inst: Any) -> Skill:
    mode = "vibrate" if inst.template_id.endswith("vibrate") else "silent"
    yield from _open_sound(ctx)
    if S.has_words(ctx, "ring_volume"):
        # the family sets the ringer with its Ring volume slider: at 0 a phone with a vibrator vibrates;
        # nothing in its Settings silences the ringer (SystemUI's volume dialog does)
        if mode != "vibrate":
            raise OracleError(f"settings: the {ctx.family(S.APP)} family's Settings has no control that silences the ringer")
        yield from S.set_slider_fraction(ctx, S.words(ctx, "ring_volume"), 0.0)
    else:
        yield from S.tap_option(ctx, S.words(ctx, "ring_modes")[mode])
    yield from complete(ctx)


@solution("train.settings.media_mute")
def solve_media_mute(ctx: Ctx, inst: Any) -> Skill:
    yield from _open_sound(ctx)
    yield from S.set_slider_fraction(ctx, S.words(ctx, "media_volume"), 0.0)
    yield from complete(ctx)


# --- about / device name ---------------------------------------------------------------------------

@solution("train.settings.device_name")
def solve_device_name(ctx: Ctx, inst: Any) -> Skill:
    yield from S.open_settings(ctx)
    yield from S.tap_row(ctx, S.words(ctx, "about_phone"))
    yield from S.tap_row(ctx, S.words(ctx, "device_name"))
    field = yield from scroll_to_role(ctx, APP, "edit_field")
    if not field.focused:
        yield from act(ctx, Tap(target=field.index))
    yield from act(ctx, TypeText(text=inst.params["name"], clear=True))
    rename = _rename_button(ctx)
    if ctx.obs.keyboard_visible and rename is None:
        yield from back(ctx)
        rename = _rename_button(ctx)
    if rename is None:
        raise OracleError(f"no {S.words(ctx, 'rename')!r} button in the device name dialog")
    yield from act(ctx, Tap(target=rename.index))
    yield from complete(ctx)


def _rename_button(ctx: Ctx) -> UIElement | None:
    want = norm(S.words(ctx, "rename"))
    return next((e for e in ctx.roles(APP, "dialog_button") if norm(e.text) == want), None)


# template → (the answer's field, the About row that shows it)
_ABOUT = {"settings.about_model": ("model", "model"), "settings.about_android_version": ("version", "android_version")}


@solution(*_ABOUT)
def solve_about(ctx: Ctx, inst: Any) -> Skill:
    field, row = _ABOUT[inst.template_id]
    value = yield from S.read_about(ctx, S.words(ctx, row))
    yield from answer(ctx, **{field: value})


# --- queries -----------------------------------------------------------------------------------------

# template → the switch it asks about
_TOGGLE_QUERIES = {"settings.query_bluetooth": "bluetooth", "train.settings.query_wifi": "wifi",
                   "train.settings.query_dark_mode": "dark_mode"}


@solution(*_TOGGLE_QUERIES)
def solve_query_toggle(ctx: Ctx, inst: Any) -> Skill:
    on = yield from read_toggle(ctx, _TOGGLE_QUERIES[inst.template_id])
    yield from answer(ctx, answer=_yes_no(on))


_DUR = re.compile(r"(\d+)\s*(second|minute|hour)s?", re.I)


def _duration_s(text: str) -> int | None:
    m = _DUR.search(text or "")
    if not m:
        return None
    return int(m.group(1)) * {"second": 1, "minute": 60, "hour": 3600}[m.group(2).lower()]


@solution("train.settings.query_timeout")
def solve_query_timeout(ctx: Ctx, inst: Any) -> Skill:
    yield from _open_display(ctx)
    summary = yield from S.row_summary(ctx, S.words(ctx, "screen_timeout"))
    m = _DUR.search(summary)
    if not m:
        raise OracleError(f"cannot read a duration in {summary!r}")
    yield from answer(ctx, timeout=m.group(0))


@solution("train.settings.query_font")
def solve_query_font(ctx: Ctx, inst: Any) -> Skill:
    size = yield from S.read_font_size(ctx)
    yield from answer(ctx, size=size)
