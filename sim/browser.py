"""Finding and launching the Chromium that Playwright drives.

We use a system Chromium where there is one (Debian's ``chromium``) because Playwright's
own browser download is not reachable everywhere; ``S2R_CHROMIUM`` overrides the choice.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PLAYWRIGHT_DISABLED_FEATURES: tuple[str, ...] = (
    "AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable", "LensOverlay", "MediaRouter", "PaintHolding", "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect", "TcpPortRandomizationWin", "OptimizationHints", "NetworkTimeServiceQuerying",
    "AimEnabled", "PreconnectToSearch", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
)
"""The features Playwright (1.65) itself disables. Chromium keeps only the *last*
``--disable-features`` switch, and ours comes after Playwright's, so ours must repeat them or
they would be re-enabled. (Unknown names are ignored, so a stale entry is harmless; a feature
a newer Playwright adds must be added here.)"""

MEMORY_DISABLED_FEATURES: tuple[str, ...] = (
    # New headless Chromium gives every browser window (one per pool page) a preloaded omnibox
    # popup: a WebUI renderer of ~45 MB PSS per window that a headless phone never shows.
    "PreloadTopChromeWebUI", "WebUIOmniboxPopup", "WebUIOmniboxAimPopup",
    # A spare renderer kept warm for the next navigation (~11 MB); pool pages are opened once.
    "SpareRendererForSitePerProcess",
)
"""Features that cost memory for every context or page and do nothing for a pool page."""

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
    # The pages of one profile (one context, one origin) share a renderer process: a second
    # page then costs its document (~15 MB), not a process (~40 MB). A renderer crash takes
    # that profile's pages down together; the pool replaces each one.
    "--process-per-site",
    "--disable-features=" + ",".join(PLAYWRIGHT_DISABLED_FEATURES + MEMORY_DISABLED_FEATURES),
]
"""Flags for a quiet, deterministic, lean headless Chromium: no network chatter, no GPU, no
background throttling (a page that is not 'visible' must still render promptly), and none
of the per-window browser UI that a headless phone never shows."""

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


def launch_kwargs(headless: bool = True, device_scale_factor: float | None = None) -> dict[str, object]:
    """Keyword arguments for ``playwright.chromium.launch``.

    ``device_scale_factor``: give the browser's own windows this pixel ratio. A page whose
    emulated ratio equals its window's is composited and captured at device pixels directly;
    a 3x phone in a 1x window costs a forced re-raster and a rescale on every screenshot
    (measured: about a quarter of a step's CPU at 1080x2400). So the runtime keeps one
    browser per pixel ratio in use.
    """
    args = list(CHROMIUM_ARGS)
    if device_scale_factor:
        args.append(f"--force-device-scale-factor={device_scale_factor:g}")
    kw: dict[str, object] = {"headless": headless, "args": args}
    exe = find_chromium()
    if exe:
        kw["executable_path"] = exe
    return kw
