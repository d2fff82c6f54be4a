"""The virtual phone's screen: rendering the sim into frames and hierarchy dumps (display
overrides, animations, screen off, the keyguard over it), the soft keyboard's frame and the
foreground app.

Why its own module: ``screencap``, ``uiautomator dump``, ``dumpsys window`` and the uiautomator2
server all read the same screen; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from actionmap.observation import Bounds, Observation, UIElement

from .phone_part import PhonePart

__all__ = ["PhoneScreen"]


class PhoneScreen(PhonePart):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

    # ------------------------------------------------------------------ rendering
    def _render_locked(self, shot: bool) -> Observation:
        self._prepare_locked()
        if self._cache_obs is not None and self._cache_rev == self._rev and (not shot or self._cache_shot_rev == self._rev):
            return self._cache_obs
        self.env.screenshots = shot
        try:
            obs = self.env.observe()
        finally:
            self.env.screenshots = True
        fg = getattr(self.env, "_foreground", None)  # the sim's activity name (the Observation has the route)
        # a render may normalise the state (e.g. open an app at its root): keep the cache valid
        self._cache_obs, self._cache_rev, self._cache_fg = obs, self._rev, dict(fg or {})
        if shot:
            self._cache_shot_rev, self._cache_shot = self._rev, obs.screenshot
        return obs

    def observation(self, screenshot: bool = False) -> Observation:
        """The sim's current observation (elements in *physical* pixels)."""
        with self._lock:
            return self._render_locked(screenshot)

    def _scale(self) -> tuple[float, float]:
        if self.override_size is None:
            return 1.0, 1.0
        return self.override_size[0] / self.profile.width_px, self.override_size[1] / self.profile.height_px

    def window_size(self) -> tuple[int, int]:
        """Effective screen size (``wm size`` override wins); the sim is always portrait."""
        return self.override_size or (self.profile.width_px, self.profile.height_px)

    @property
    def physical_size(self) -> tuple[int, int]:
        return self.profile.width_px, self.profile.height_px

    @property
    def rotation(self) -> int:
        """Display rotation 0–3. The simulator renders portrait only, so this is 0."""
        return 0

    @property
    def density(self) -> int:
        return self.override_density or self.profile.density

    @property
    def screen_on(self) -> bool:
        with self._lock:
            self._power_tick_locked()
            return self._screen_on

    def animation_ms(self) -> float:
        """Effective transition length: the knob × ``animator_duration_scale``."""
        try:
            scale = float(self.settings.raw("global", "animator_duration_scale") or "1")
        except ValueError:
            scale = 1.0
        return max(0.0, self.knobs.animation_ms * scale)

    def animating(self) -> float:
        """Milliseconds of transition left (0 when the frame is stable)."""
        anim = self.animation_ms()
        if anim <= 0 or not self._last_action_at:
            return 0.0
        return max(0.0, anim - (time.monotonic() - self._last_action_at) * 1000)

    def screenshot_png(self) -> bytes:
        """The screen as PNG at the effective size — what ``screencap -p`` prints.

        Within ``animation_ms`` of an action the frame is a cross-fade from the previous frame
        to the new one, so consecutive captures differ until the transition ends.
        """
        W, H = self.window_size()
        with self._lock:
            self._power_tick_locked()
            if not self._screen_on:
                return _blank_png(W, H)
            if self._keyguard:  # SystemUI's keyguard covers every app window
                return self._keyguard_png_locked()
            obs = self._render_locked(True)
            png = obs.screenshot
            left = self.animating()
            if time.monotonic() < self.animating_until:  # a spinner: this frame is not the last one
                png = _spinner(png, time.monotonic())
            elif left > 0 and self._anim_from and self._anim_from != png:
                alpha = 1.0 - left / max(1.0, self.animation_ms())
                png = _crossfade(self._anim_from, png, alpha)
            else:
                self._last_frame = png
        if self.override_size is not None:
            png = _resize_png(png, W, H)
        return png

    def elements(self) -> list[UIElement]:
        """The visible UI nodes at the effective screen size (the keyguard's while it shows)."""
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                from device.parsers.hierarchy import parse_hierarchy

                return list(parse_hierarchy(self._keyguard_xml_locked(), screen=self.window_size()).elements)
            obs = self._render_locked(False)
            sx, sy = self._scale()
        if (sx, sy) == (1.0, 1.0):
            return list(obs.elements)
        W, H = self.window_size()
        out = []
        for e in obs.elements:
            b = Bounds(left=round(e.bounds.left * sx), top=round(e.bounds.top * sy),
                       right=round(e.bounds.right * sx), bottom=round(e.bounds.bottom * sy))
            out.append(e.model_copy(update={"bounds": b, "grid_bounds": b.to_grid(W, H)}))
        return out

    def hierarchy_xml(self, wait_idle: bool = False) -> str:
        """A uiautomator dump of the screen (``to_hierarchy_xml`` of the sim's elements).

        ``wait_idle`` waits out a running transition first, as uiautomator waits for idle.
        """
        from device.parsers.hierarchy import to_hierarchy_xml

        if wait_idle:
            left = self.animating()
            if left > 0:
                time.sleep(left / 1000)
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:  # the notification shade window, which hosts the keyguard, is all there is
                return self._keyguard_xml_locked()
        els = self.elements()
        return to_hierarchy_xml(els, rotation=self.rotation, screen=self.window_size())

    def keyboard_visible(self) -> bool:
        with self._lock:
            return bool(self._render_locked(False).keyboard_visible)

    def has_focused_field(self) -> bool:
        """A text field has input focus (while the keyguard shows: only the bouncer's PIN entry)."""
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                return self._bouncer
            self._prepare_locked()
            return bool(json.loads(self.env.capture())["ui"].get("focus"))

    def ime_frame(self) -> tuple[int, int, int, int] | None:
        """The soft keyboard's frame in effective pixels, or None when it is hidden."""
        if not self.keyboard_visible():
            return None
        with self._lock:
            if self._ime_rect is None:
                self._ime_rect = self._measure_ime_locked()
            l, t, r, b = self._ime_rect
        sx, sy = self._scale()
        return round(l * sx), round(t * sy), round(r * sx), round(b * sy)

    def _measure_ime_locked(self) -> tuple[int, int, int, int]:
        """Measure the sim keyboard's rectangle once (device px); fallback: the lower 40 %."""
        W, H = self.physical_size
        env = self.env

        async def measure() -> Any:
            async with env.pool.page(env.profile) as slot:
                await slot.page.evaluate("(s) => window.S2R.load(s)", env.capture())
                slot.loaded = None  # force SimEnv to reload its own state next time
                return await slot.page.evaluate(
                    "() => { const k = document.querySelector('.keyboard'); if (!k) return null;"
                    " const r = k.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }")

        try:
            rect = env.rt.run(measure())
        except Exception:  # noqa: BLE001 - measuring is a nicety
            rect = None
        if not rect:
            return 0, int(H * 0.6), W, H
        return 0, max(0, round(rect[1] * self.profile.dpr)), W, H  # IME insets reach the bottom edge

    # ------------------------------------------------------------------ foreground
    def foreground(self) -> tuple[str, str]:
        """(package, fully qualified activity) of the window with focus."""
        with self._lock:
            return self._foreground_locked()

    def _foreground_locked(self) -> tuple[str, str]:
        self._render_locked(False)
        fg = self._cache_fg or {}
        comp = str(fg.get("activity") or "")
        pkg = str(fg.get("package") or "")
        if "/" in comp:
            pkg2, act = comp.split("/", 1)
            pkg = pkg or pkg2
            act = pkg2 + act if act.startswith(".") else act
            return pkg2, act
        pkg = pkg or self.family.packages["launcher"]
        app = self.family.by_package(pkg)
        return pkg, app.full(app.launcher) if app is not None else pkg + ".MainActivity"

    def ui_overlays(self) -> dict[str, Any]:
        """What covers the app: a dialog (kind/app), the shade, recents, the keyboard."""
        data = self.state_data()
        ui = data.get("ui") or {}
        return {"dialog": ui.get("dialog"), "shade": ui.get("shade"), "recents": bool(ui.get("recentsOpen")),
                "keyboard": bool(ui.get("keyboard") and ui.get("focus")), "current": ui.get("current"),
                "tasks": list((ui.get("tasks") or {}).keys()), "recent_apps": list(ui.get("recents") or [])}


def _blank_png(w: int, h: int) -> bytes:
    import cv2
    import numpy as np

    ok, buf = cv2.imencode(".png", np.zeros((h, w, 3), np.uint8))
    return buf.tobytes()


def _crossfade(a: bytes, b: bytes, alpha: float) -> bytes:
    import cv2
    import numpy as np

    ia = cv2.imdecode(np.frombuffer(a, np.uint8), cv2.IMREAD_COLOR)
    ib = cv2.imdecode(np.frombuffer(b, np.uint8), cv2.IMREAD_COLOR)
    if ia is None or ib is None or ia.shape != ib.shape:
        return b
    alpha = min(1.0, max(0.0, alpha))
    out = cv2.addWeighted(ia, 1.0 - alpha, ib, alpha, 0)
    ok, buf = cv2.imencode(".png", out, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else b


def _spinner(png: bytes, t: float) -> bytes:
    """The frame with a spinner drawn at its centre, turned to where it is at time ``t``
    (one turn a second): consecutive captures differ, as on a screen that keeps animating."""
    import math

    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        return png
    h, w = img.shape[:2]
    r = max(8, min(w, h) // 8)
    a = (t % 1.0) * 2 * math.pi
    cx, cy = w // 2, h // 2
    cv2.circle(img, (cx, cy), r, (60, 60, 60), -1)
    cv2.line(img, (cx, cy), (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))), (250, 250, 250), max(3, r // 5))
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else png


def _resize_png(png: bytes, w: int, h: int) -> bytes:
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    if img is None or (img.shape[1], img.shape[0]) == (w, h):
        return png
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, 1])
    return buf.tobytes() if ok else png
