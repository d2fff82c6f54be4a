"""Finding and launching the Chromium that Playwright drives.

We use a system Chromium where there is one because Playwright's own browser download is not
reachable everywhere; ``S2R_CHROMIUM`` overrides the choice. For headless work the
*headless shell* (Debian's ``chromium-headless-shell``, the same build Playwright itself uses
for headless Chromium) is preferred over the full browser: it has no per-window browser UI,
so it measured ~120 MB less for the browser alone, ~20 MB less per live page once pages
have stepped, and ~10% less CPU per step (see ``s2r bench sim``).
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

_HEADLESS_CANDIDATES = ("chromium-headless-shell", "chrome-headless-shell")
_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

SMALL_SHM_BYTES = 1 << 30
"""Below this much room in ``/dev/shm`` (a container's default is 64 MB) Chromium is told to
keep its shared memory in ``/tmp`` instead. Where ``/dev/shm`` is roomy it is used: ``/tmp``
on a disk file system makes every fresh capture buffer a page fault on a file mapping."""


def find_chromium(headless: bool = True) -> str | None:
    """Path of a Chromium executable, or None (then Playwright's own browser is tried).

    ``headless``: a headless shell is preferred where one is installed (it cannot show a
    window, so it is never picked for a headed launch).
    """
    env = os.environ.get("S2R_CHROMIUM")
    if env and Path(env).exists():
        return env
    for name in (_HEADLESS_CANDIDATES if headless else ()) + _CANDIDATES:
        p = shutil.which(name)
        if p:
            return p
    return None


def is_headless_shell(exe: str | None) -> bool:
    """Whether ``exe`` is a Chromium headless shell (told by its file name)."""
    return exe is not None and "headless-shell" in Path(exe).name


def shm_is_small(path: str = "/dev/shm") -> bool:
    """Whether ``/dev/shm`` is missing or too small for Chromium's shared memory (see :data:`SMALL_SHM_BYTES`)."""
    try:
        st = os.statvfs(path)
    except OSError:
        return True
    return st.f_bavail * st.f_frsize < SMALL_SHM_BYTES


def launch_kwargs(headless: bool = True, device_scale_factor: float | None = None) -> dict[str, object]:
    """Keyword arguments for ``playwright.chromium.launch``.

    ``device_scale_factor``: give the browser's own windows this pixel ratio. A page whose
    emulated ratio equals its window's is composited and captured at device pixels directly;
    a 3x phone in a 1x window costs a forced re-raster and a rescale on every screenshot
    (measured: about a quarter of a step's CPU at 1080x2400). So the runtime keeps one
    browser per pixel ratio in use.
    """
    args = list(CHROMIUM_ARGS)
    if shm_is_small():
        args.append("--disable-dev-shm-usage")
    if device_scale_factor:
        args.append(f"--force-device-scale-factor={device_scale_factor:g}")
    kw: dict[str, object] = {"headless": headless, "args": args}
    exe = find_chromium(headless)
    if exe:
        kw["executable_path"] = exe
    return kw
