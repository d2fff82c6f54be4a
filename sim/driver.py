"""Driving one live page: load a phone into it, send real input, observe it.

Input goes through Chrome DevTools ``Input.dispatchTouchEvent`` / ``dispatchKeyEvent`` /
``insertText``: the page receives genuine touch and keyboard events (with touch
semantics: a long press is a held touch, a swipe is a stream of moves), exactly as it would
from a finger, so the apps' own handlers decide what happens.
"""

from __future__ import annotations

import asyncio
import base64
import time
from dataclasses import dataclass, field
from typing import Any

from .profiles import DeviceProfile

SETTLE_JS = "() => new Promise(r => requestAnimationFrame(() => setTimeout(() => r(window.S2R.renders), 0)))"


@dataclass
class PageSlot:
    """A live page in its own browser context (one device profile: viewport and pixel ratio)."""

    page: Any
    context: Any
    cdp: Any
    profile: DeviceProfile
    loaded: tuple[str, int] | None = None  # (phone key, state version) the page currently shows
    dead: bool = False
    uses: int = 0
    created: float = field(default_factory=time.time)

    async def close(self) -> None:
        try:
            await self.context.close()
        except Exception:  # noqa: BLE001 - closing a crashed page may fail; it is gone either way
            pass


async def open_slot(browser: Any, base_url: str, profile: DeviceProfile) -> PageSlot:
    vw, vh = profile.viewport
    context = await browser.new_context(viewport={"width": vw, "height": vh}, device_scale_factor=profile.dpr,
                                        has_touch=True, is_mobile=True, locale="en-US", timezone_id="UTC",
                                        reduced_motion="reduce")
    page = await context.new_page()
    slot_holder: dict[str, PageSlot] = {}
    page.on("crash", lambda *_: setattr(slot_holder.get("s"), "dead", True) if slot_holder.get("s") else None)
    await page.goto(f"{base_url}/phone.html?pool=1")
    await page.wait_for_function("window.S2R && window.S2R.booted === true", timeout=30_000)
    cdp = await context.new_cdp_session(page)
    slot = PageSlot(page=page, context=context, cdp=cdp, profile=profile)
    slot_holder["s"] = slot
    return slot


# --- input -----------------------------------------------------------------------------------

async def _touch(slot: PageSlot, kind: str, pts: list[tuple[float, float]]) -> None:
    await slot.cdp.send("Input.dispatchTouchEvent", {
        "type": kind, "touchPoints": [{"x": x, "y": y, "radiusX": 4, "radiusY": 4, "force": 1, "id": 0} for x, y in pts]})


async def tap(slot: PageSlot, x: float, y: float) -> None:
    await _touch(slot, "touchStart", [(x, y)])
    await _touch(slot, "touchEnd", [])


async def double_tap(slot: PageSlot, x: float, y: float) -> None:
    await tap(slot, x, y)
    await asyncio.sleep(0.06)  # well inside Android's 300 ms double-tap window
    await tap(slot, x, y)


async def long_press(slot: PageSlot, x: float, y: float, ms: int) -> None:
    await _touch(slot, "touchStart", [(x, y)])
    await asyncio.sleep(max(ms, 550) / 1000)  # hold past the long-press timeout
    await _touch(slot, "touchEnd", [])


async def swipe(slot: PageSlot, x0: float, y0: float, x1: float, y1: float, ms: int = 300, steps: int = 12,
                hold_ms: int = 0) -> None:
    await _touch(slot, "touchStart", [(x0, y0)])
    if hold_ms:
        await asyncio.sleep(hold_ms / 1000)
    for i in range(1, steps + 1):
        f = i / steps
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
    await slot.page.evaluate("() => { const a = document.activeElement; if (a && a.select) a.select(); }")


# --- observation -----------------------------------------------------------------------------

async def settle(slot: PageSlot, animations: bool = False, cap_s: float = 1.0) -> None:
    """Wait until the frame is stable: two animation frames, plus animations if enabled."""
    await slot.page.evaluate(SETTLE_JS)
    if animations:
        await asyncio.sleep(min(cap_s, 0.3))
        await slot.page.evaluate(SETTLE_JS)


async def screenshot(slot: PageSlot, fmt: str = "jpeg", quality: int = 80) -> bytes:
    """A device-pixel screenshot of exactly the profile's size (e.g. 1080x2400).

    Playwright's device-scale capture is used rather than a raw CDP call: in headless
    Chromium a raw clipped capture resets the emulated pixel ratio. When the pixel ratio is
    fractional (440 dpi → 2.75) the viewport is rounded up to whole CSS pixels and the image
    is cropped back to the profile's size, which costs one re-encode.
    """
    kw: dict[str, Any] = {"type": fmt, "scale": "device", "animations": "allow", "caret": "initial"}
    if fmt == "jpeg":
        kw["quality"] = quality
    data = await slot.page.screenshot(**kw)
    W, H = slot.profile.width_px, slot.profile.height_px
    vw, vh = slot.profile.viewport
    if (round(vw * slot.profile.dpr), round(vh * slot.profile.dpr)) != (W, H):
        data = await asyncio.to_thread(_crop, data, W, H, fmt, quality)
    return data


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
    return await slot.page.evaluate("(w) => window.S2R.snapshot(w)", with_state)
