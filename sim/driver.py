"""Driving one live page: load a phone into it, send real input, observe it.

Input goes through Chrome DevTools ``Input.dispatchTouchEvent`` / ``dispatchKeyEvent`` /
``insertText``: the page receives genuine touch and keyboard events (with touch
semantics: a long press is a held touch, a swipe is a stream of moves), exactly as it would
from a finger, so the apps' own handlers decide what happens.

The hot path (one step = input, settle, elements, a 1080x2400 screenshot) talks to the page
over the slot's own DevTools session rather than through Playwright's page API, because
every Playwright call is several protocol round trips (a screenshot alone is five: layout
metrics, a prepare script in every frame, ``fonts.ready``, the capture, a restore script).
Two facts make the raw session safe:

* Device emulation in Chromium belongs to the DevTools session that set it, and a capture
  is scaled by the emulation of the session that asked for it. So the slot's session sets
  the very same device metrics Playwright set on its own (:func:`device_metrics`); without
  that a raw capture comes back at CSS size, or a clipped one resets the pixel ratio to 1.
* A capture asks the renderer for a fresh frame, so it shows everything the page did before
  the request. :func:`observe` therefore awaits every call that changes the page first (the
  input acks come back after the page handled the event, click included), and only then
  captures, while the settle-and-snapshot script runs beside it. The settle still waits a
  frame and the tasks queued behind it before the elements are read; in this UI those tasks
  draw nothing (the gesture lock's reset), so image and elements show the same page. With
  animations on, the settle runs first and the two overlap only afterwards.
"""

from __future__ import annotations

import asyncio
import base64
import json
import struct
import time
from dataclasses import dataclass, field
from typing import Any

from .profiles import DeviceProfile

SETTLE_JS = "() => new Promise(r => requestAnimationFrame(() => setTimeout(() => r(window.S2R.renders), 0)))"
"""Let one animation frame and the tasks queued behind it run (kept for callers that import it)."""

_SETTLED_SNAPSHOT = ("new Promise(r => requestAnimationFrame(() => setTimeout(() => "
                     "r(window.S2R.snapshot({w})), 0)))")
"""Settle, then snapshot, in one round trip (``{w}``: whether the state text comes back too)."""


PNG_FAST = True
"""Encode PNG screenshots with zlib's fastest setting."""


class PageError(RuntimeError):
    """A script in the page threw (the page may be in an unknown state: it is replaced)."""


def context_options(profile: DeviceProfile) -> dict[str, Any]:
    """``browser.new_context`` keyword arguments for a profile: its viewport and pixel ratio."""
    vw, vh = profile.viewport
    return {"viewport": {"width": vw, "height": vh}, "device_scale_factor": profile.dpr, "has_touch": True,
            "is_mobile": True, "locale": "en-US", "timezone_id": "UTC", "reduced_motion": "reduce"}


def device_metrics(profile: DeviceProfile) -> dict[str, Any]:
    """``Emulation.setDeviceMetricsOverride`` exactly as Playwright sends it for :func:`context_options`."""
    vw, vh = profile.viewport
    landscape = vw > vh
    return {"mobile": True, "width": vw, "height": vh, "screenWidth": vw, "screenHeight": vh,
            "deviceScaleFactor": profile.dpr,
            "screenOrientation": {"angle": 90, "type": "landscapePrimary"} if landscape else
            {"angle": 0, "type": "portraitPrimary"}}


@dataclass
class PageSlot:
    """A live page of one device profile (viewport and pixel ratio), with its own DevTools session.

    Pages of a profile share one browser context (``own_context`` False): a context costs a
    browser window, so a context per page would pay for one per page.
    """

    page: Any
    context: Any
    cdp: Any
    profile: DeviceProfile
    loaded: tuple[str, int] | None = None  # (phone key, state version) the page currently shows
    dead: bool = False
    uses: int = 0
    created: float = field(default_factory=time.time)
    own_context: bool = True

    async def close(self) -> None:
        try:
            if self.own_context:
                await self.context.close()
            else:
                await self.page.close()
        except Exception:  # noqa: BLE001 - closing a crashed page may fail; it is gone either way
            pass


async def new_context(browser: Any, profile: DeviceProfile) -> Any:
    return await browser.new_context(**context_options(profile))


async def open_slot(browser: Any, base_url: str, profile: DeviceProfile, context: Any | None = None,
                    page: Any | None = None) -> PageSlot:
    """Open a booted phone page.

    ``context``: a shared context of the profile (else the page gets a context of its own);
    ``page``: a blank page already opened in it (the pool opens each in a window of its own).
    """
    own = context is None
    if own:
        context = await new_context(browser, profile)
    try:
        if page is None:
            page = await context.new_page()
        slot_holder: dict[str, PageSlot] = {}
        page.on("crash", lambda *_: setattr(slot_holder["s"], "dead", True) if "s" in slot_holder else None)
        await page.goto(f"{base_url}/phone.html?pool=1")
        await page.wait_for_function("window.S2R && window.S2R.booted === true", timeout=30_000)
        cdp = await context.new_cdp_session(page)
        await cdp.send("Emulation.setDeviceMetricsOverride", device_metrics(profile))
    except BaseException:
        try:
            if own:
                await context.close()
            elif page is not None:
                await page.close()
        except Exception:  # noqa: BLE001 - the original error is the one worth raising
            pass
        raise
    slot = PageSlot(page=page, context=context, cdp=cdp, profile=profile, own_context=own)
    slot_holder["s"] = slot
    return slot


# --- scripts -----------------------------------------------------------------------------------

def call_js(fn: str, *args: Any) -> str:
    """A JS expression calling ``fn`` with JSON arguments (ASCII-escaped, so any text survives)."""
    return f"({fn})({', '.join(json.dumps(a) for a in args)})"


async def js(slot: PageSlot, expression: str, await_promise: bool = False) -> Any:
    """Evaluate an expression in the page's main world over the slot's session; its JSON value."""
    r = await slot.cdp.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                 "awaitPromise": await_promise})
    exc = r.get("exceptionDetails")
    if exc:
        detail = exc.get("exception", {}).get("description") or exc.get("text") or "script error"
        raise PageError(str(detail)[:500])
    return r.get("result", {}).get("value")


async def load(slot: PageSlot, state: str) -> None:
    """Show a phone: the page renders ``state`` synchronously."""
    await js(slot, call_js("(s) => window.S2R.load(s)", state))


# --- input -----------------------------------------------------------------------------------

async def _touch(slot: PageSlot, kind: str, pts: list[tuple[float, float]]) -> None:
    await slot.cdp.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 0} for x, y in pts]})


async def tap(slot: PageSlot, x: float, y: float) -> None:
    # Send start and end back to back (CDP keeps their order): awaiting the start's ack first
    # can take ~1 s on a loaded machine, long enough for the page's long-press timer to fire.
    await asyncio.gather(_touch(slot, "touchStart", [(x, y)]), _touch(slot, "touchEnd", []))


async def double_tap(slot: PageSlot, x: float, y: float) -> None:
    await tap(slot, x, y)
    await asyncio.sleep(0.06)  # well inside Android's 300 ms double-tap window
    await tap(slot, x, y)


async def long_press(slot: PageSlot, x: float, y: float, ms: int) -> None:
    await _touch(slot, "touchStart", [(x, y)])
    await asyncio.sleep(max(ms, 550) / 1000)  # hold past the long-press timeout
    await _touch(slot, "touchEnd", [])


SWIPE_PATH: tuple[float, ...] = (1 / 3, 2 / 3, 11 / 12, 1.0)
"""Where along a swipe the moves land (fractions of its length).

The page's fling comes from the *last* move's distance, so the path ends with a step of
1/12 of the swipe: the gesture a 12-move swipe makes, in 4 moves. Each move is awaited
(Chromium coalesces queued moves, which would merge the last step into the others), and
each costs about a frame, so fewer moves is most of a scroll's time (measured: ~430 → ~150
ms per scroll)."""


async def swipe(slot: PageSlot, x0: float, y0: float, x1: float, y1: float, ms: int = 300,
                path: tuple[float, ...] = SWIPE_PATH, hold_ms: int = 0) -> None:
    await _touch(slot, "touchStart", [(x0, y0)])
    if hold_ms:
        await asyncio.sleep(hold_ms / 1000)
    for f in path:
        await _touch(slot, "touchMove", [(x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)])
    await _touch(slot, "touchEnd", [])


async def key_event(slot: PageSlot, key: str) -> None:
    codes = {"Enter": (13, "\r"), "Backspace": (8, "")}
    code, text = codes[key]
    base = {"key": key, "code": key, "windowsVirtualKeyCode": code, "nativeVirtualKeyCode": code}
    await slot.cdp.send("Input.dispatchKeyEvent", {"type": "keyDown" if text else "rawKeyDown", **base,
                                                   **({"text": text} if text else {})})
    await slot.cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **base})


async def insert_text(slot: PageSlot, text: str) -> None:
    await slot.cdp.send("Input.insertText", {"text": text})


async def select_all_in_focused(slot: PageSlot) -> None:
    await js(slot, "(() => { const a = document.activeElement; if (a && a.select) a.select(); })()")


# --- observation -----------------------------------------------------------------------------

async def settle(slot: PageSlot, animations: bool = False, cap_s: float = 1.0) -> None:
    """Wait until the frame is stable: an animation frame and the tasks behind it, plus animations if enabled."""
    await js(slot, f"({SETTLE_JS})()", await_promise=True)
    if animations:
        await asyncio.sleep(min(cap_s, 0.3))
        await js(slot, f"({SETTLE_JS})()", await_promise=True)


def _needs_clip(profile: DeviceProfile) -> bool:
    vw, vh = profile.viewport
    return (round(vw * profile.dpr), round(vh * profile.dpr)) != (profile.width_px, profile.height_px)


async def screenshot(slot: PageSlot, fmt: str = "jpeg", quality: int = 80) -> bytes:
    """A device-pixel screenshot of exactly the profile's size (e.g. 1080x2400).

    One ``Page.captureScreenshot`` on the slot's session (which carries the profile's device
    emulation). When the pixel ratio is fractional (440 dpi → 2.75) the viewport is whole CSS
    pixels a little larger than the screen, so the capture is clipped to the screen's exact
    CSS size, which Chromium renders at exactly the profile's pixel size — no re-encode. An
    image of any other size (emulation lost) falls back to Playwright's capture and a crop.
    """
    W, H = slot.profile.width_px, slot.profile.height_px
    params: dict[str, Any] = {"format": fmt, "captureBeyondViewport": False}
    if fmt in ("jpeg", "webp"):
        params["quality"] = quality
    else:
        # zlib's fastest level: a 1080x2400 PNG comes back ~40% larger (over loopback) for
        # half the encode CPU (measured: ~90 → ~35 ms in the browser process)
        params["optimizeForSpeed"] = PNG_FAST
    if _needs_clip(slot.profile):
        params["clip"] = {"x": 0, "y": 0, "width": W / slot.profile.dpr, "height": H / slot.profile.dpr, "scale": 1}
    r = await slot.cdp.send("Page.captureScreenshot", params)
    data = base64.b64decode(r["data"])
    if image_size(data) == (W, H):
        return data
    return await _playwright_screenshot(slot, fmt, quality)


async def _playwright_screenshot(slot: PageSlot, fmt: str, quality: int) -> bytes:
    kw: dict[str, Any] = {"type": fmt, "scale": "device", "animations": "allow", "caret": "initial"}
    if fmt == "jpeg":
        kw["quality"] = quality
    data = await slot.page.screenshot(**kw)
    W, H = slot.profile.width_px, slot.profile.height_px
    if image_size(data) != (W, H):
        data = await asyncio.to_thread(_crop, data, W, H, fmt, quality)
    return data


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) from a PNG or JPEG header, without decoding; None if unreadable."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:2] != b"\xff\xd8":
        return None
    i, n = 2, len(data)
    while i + 9 < n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        seg = struct.unpack(">H", data[i + 2:i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h, w = struct.unpack(">HH", data[i + 5:i + 9])
            return w, h
        i += 2 + seg
    return None


def _crop(data: bytes, w: int, h: int, fmt: str, quality: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img.shape[0] < h or img.shape[1] < w:
        img = cv2.copyMakeBorder(img, 0, max(0, h - img.shape[0]), 0, max(0, w - img.shape[1]), cv2.BORDER_REPLICATE)
    img = img[:h, :w]
    ok, buf = cv2.imencode(".jpg" if fmt == "jpeg" else ".png", img,
                           [cv2.IMWRITE_JPEG_QUALITY, quality] if fmt == "jpeg" else [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else data


async def snapshot(slot: PageSlot, with_state: bool = True) -> dict[str, Any]:
    return await js(slot, call_js("(w) => window.S2R.snapshot(w)", with_state))


async def observe(slot: PageSlot, *, state: str | None = None, with_state: bool = True, shot: bool = True,
                  fmt: str = "jpeg", quality: int = 80, animations: bool = False) -> tuple[dict[str, Any], bytes]:
    """Settle, then the elements snapshot and the screenshot, in as few round trips as is safe.

    ``state``: load this phone first. Every call that changes the page is awaited before the
    capture is requested, so the image can only show the settled page; the snapshot (which
    waits one frame and the tasks behind it, and changes nothing) runs while the frame is
    captured and encoded.
    """
    if state is not None:
        await load(slot, state)
    if animations:
        await settle(slot, animations=True)
        snap_expr, wait = call_js("(w) => window.S2R.snapshot(w)", with_state), False
    else:
        snap_expr, wait = _SETTLED_SNAPSHOT.format(w=json.dumps(with_state)), True
    if not shot:
        return await js(slot, snap_expr, await_promise=wait), b""
    snap, img = await asyncio.gather(js(slot, snap_expr, await_promise=wait), screenshot(slot, fmt, quality),
                                     return_exceptions=True)
    for r in (snap, img):
        if isinstance(r, BaseException):
            raise r
    return snap, img  # type: ignore[return-value]
