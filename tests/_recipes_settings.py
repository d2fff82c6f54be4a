"""Recipes: drive a fresh phone (launcher home, default world) to the state of each real Settings dump.

Each recipe uses only ``env.step`` / ``env.observe`` with actions of :mod:`actionmap.actions`, so it
runs on the simulator (``SimEnv``) and on the virtual phone (``DeviceEnv``) alike. Controls are found
on the observed screen by the ids and texts AOSP Settings gives them (test code about those screens,
not a skill).

``aosp/settings/settings_home_oem_skin_1080x2400`` is a real homepage of an OEM-skinned AOSP Settings:
its rows are the OEM's (an account row, "Bluetooth & devices", "Display & brightness", "Lock screen &
wallpaper"), so the values differ from AOSP's; what is comparable is the screen's structure — the
app bar with the search bar, the scrolling homepage container, the top-level list, and the collapsed
condition card above it. That card (described "Show", two icons in header_icons_container) is AOSP's
ConditionHeaderContextualCard: the phone had two conditions on. The recipe turns two on through the
app, as a person would — Airplane mode (Network & internet) and Do Not Disturb (Sound & vibration) —
and comes back to the homepage.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.actions import Key, OpenApp, Scroll, Tap
from actionmap.observation import UIElement

PKG = "com.android.settings"


def _title(text: str) -> Callable[[UIElement], bool]:
    return lambda e: e.resource_id == "android:id/title" and e.text == text


def _find(env: Any, pred: Callable[[UIElement], bool], what: str, *, scroll: str | None = None) -> UIElement:
    """The element ``pred`` picks, scrolling towards ``scroll`` ("down" / "up") until it shows."""
    for _ in range(6 if scroll else 1):
        el = next((e for e in env.observe().elements if pred(e)), None)
        if el is not None or not scroll:
            break
        env.step(Scroll(direction=scroll))  # type: ignore[arg-type]
    assert el is not None, f"not on screen: {what}"
    return el


def _tap(env: Any, pred: Callable[[UIElement], bool], what: str, *, scroll: str | None = None) -> None:
    env.step(Tap(target=_find(env, pred, what, scroll=scroll).index))


def _open(env: Any) -> None:
    env.step(OpenApp(app="settings"))
    _find(env, lambda e: e.resource_id == f"{PKG}:id/homepage_title", "the homepage title")


def settings_home_oem_skin_1080x2400(env: Any) -> None:
    _open(env)
    _tap(env, _title("Network & internet"), "Network & internet")
    _tap(env, _title("Airplane mode"), "the Airplane mode row")
    env.step(Key(key="back"))
    _tap(env, _title("Sound & vibration"), "Sound & vibration", scroll="down")
    _tap(env, _title("Do Not Disturb"), "Do Not Disturb", scroll="down")
    _tap(env, lambda e: e.class_name.endswith("Button") and e.text == "Turn on now", "Turn on now")
    env.step(Key(key="back"))
    env.step(Key(key="back"))
    # back on the homepage, at its top (as the real dump is)
    _find(env, lambda e: e.class_name.endswith("CardView") and e.content_desc == "Show", "the condition card",
          scroll="up")
    _find(env, lambda e: e.resource_id == f"{PKG}:id/search_action_bar", "the search bar", scroll="up")


RECIPES: dict[str, tuple[str, Callable[[Any], None]]] = {
    "aosp/settings/settings_home_oem_skin_1080x2400": ("aosp", settings_home_oem_skin_1080x2400),
}
