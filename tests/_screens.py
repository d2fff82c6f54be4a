"""Screen equivalence: does a screen s2r draws read like the real phone's screen it models?

A real dump in ``fixtures/real-apps/<family>/<app>/`` and the screen the simulator (or the virtual
phone, which dumps the simulator's screen through uiautomator) shows in the same state must be
read the same way by the app UI layer: the same app, family and screen, the same roles among the
controls, and the same keys in what the screen shows (``visible``). Values differ — the worlds
differ (other alarms, other names) — but a reader that works on one works on the other.

Recipes that bring an env to the state of a real dump live beside each app's tests, in
``tests/_recipes_<app>.py``: ``RECIPES = {"<family>/<app>/<dump stem>": (flavor, fn)}`` where
``fn(env)`` drives a freshly reset env (SimEnv or DeviceEnv: only ``step``/``observe``, actions
from :mod:`actionmap.actions`) to that screen. Equivalence tests import them all through
:func:`recipes`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from actionmap.observation import UIElement
from device.apps import ScreenReading, read_screen

from _appfixtures import REAL, elements

Recipe = tuple[str, Callable[[Any], None]]


def reading(els: Sequence[UIElement], manufacturer: str | None = None) -> ScreenReading:
    return read_screen(els, manufacturer=manufacturer)


def real_dump(key: str) -> Path:
    """``google/clock/alarm_expanded_new_sdk34_1080x2400`` → the XML beside its truth file."""
    return REAL / f"{key}.xml"


def differences(real: ScreenReading, ours: ScreenReading) -> list[str]:
    """What the two readings disagree on, in words (empty when equivalent)."""
    out: list[str] = []
    for k in ("app", "family", "screen"):
        if getattr(real, k) != getattr(ours, k):
            out.append(f"{k}: real {getattr(real, k)!r}, ours {getattr(ours, k)!r}")
    rr, ro = {c.role for c in real.controls}, {c.role for c in ours.controls}
    if rr != ro:
        out.append(f"roles only on the real screen: {sorted(rr - ro)}; only on ours: {sorted(ro - rr)}")
    kr, ko = set(real.visible), set(ours.visible)
    if kr != ko:
        out.append(f"visible keys only on the real screen: {sorted(kr - ko)}; only on ours: {sorted(ko - kr)}")
    return out


def compare(key: str, ours: Sequence[UIElement], manufacturer: str | None = None) -> list[str]:
    """Read the real dump ``key`` and our elements; their differences."""
    return differences(reading(elements(real_dump(key)), manufacturer), reading(ours, manufacturer))


def _modules() -> list[Any]:
    return [importlib.import_module(f.stem) for f in sorted(Path(__file__).parent.glob("_recipes_*.py"))]


def recipes() -> dict[str, Recipe]:
    """Every recipe of every app (``tests/_recipes_*.py``)."""
    out: dict[str, Recipe] = {}
    for mod in _modules():
        out.update(mod.RECIPES)
    return out


def known_gaps() -> dict[str, list[str]]:
    """Differences a recipe's module declares (``KNOWN_GAPS``) because of how the real dump was
    framed, each explained there — e.g. a control cut off by the screen's edge in the capture.
    An equivalence test asserts the differences are exactly these: no more, and none fewer."""
    out: dict[str, list[str]] = {}
    for mod in _modules():
        out.update(getattr(mod, "KNOWN_GAPS", {}))
    return out
