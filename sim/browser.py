"""Finding and launching the Chromium that Playwright drives.

We use a system Chromium where there is one (Debian's ``chromium``) because Playwright's
own browser download is not reachable everywhere; ``S2R_CHROMIUM`` overrides the choice.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

CHROMIUM_ARGS: list[str] = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--disable-extensions",
    "--disable-default-apps",
    "--mute-audio",
    "--hide-scrollbars",
    "--font-render-hinting=none",
    "--disable-renderer-backgrounding",
    "--disable-background-timer-throttling",
    "--disable-backgrounding-occluded-windows",
]
"""Flags for a quiet, deterministic headless Chromium: no network chatter, no GPU, no
background throttling (a page that is not 'visible' must still render promptly)."""

_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_chromium() -> str | None:
    """Path of a Chromium executable, or None (then Playwright's own browser is tried)."""
    env = os.environ.get("S2R_CHROMIUM")
    if env and Path(env).exists():
        return env
    for name in _CANDIDATES:
        p = shutil.which(name)
        if p:
            return p
    return None


def launch_kwargs(headless: bool = True) -> dict[str, object]:
    """Keyword arguments for ``playwright.chromium.launch``."""
    kw: dict[str, object] = {"headless": headless, "args": list(CHROMIUM_ARGS)}
    exe = find_chromium()
    if exe:
        kw["executable_path"] = exe
    return kw
