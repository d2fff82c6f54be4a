"""Recipes for the Launcher's real dumps (see :mod:`_screens`): each drives a freshly reset env to
the screen of the dump, with ``env.step`` / ``env.observe`` only.
"""

from __future__ import annotations

from typing import Any

from actionmap.actions import Key


def pixel_home(env: Any) -> None:
    """Pixel Launcher's home page (a reset env starts there; Home makes sure of it)."""
    env.step(Key(key="home"))


RECIPES = {
    "google/launcher/pixel_launcher_home_sdk34_1080x2400": ("google", pixel_home),
}
