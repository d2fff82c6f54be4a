"""The virtual phone's input: touches, gestures, keys and text delivered to the sim (with the
latency and jitter knobs), the clipboard, and opening and force-stopping apps.

Why its own module: ``input``, ``am start``/``force-stop`` and the uiautomator2 server deliver
input the same way; a mixin of :class:`~device.virtual.phone.VirtualPhone`.
"""

from __future__ import annotations

import json
import time
from typing import Any

from .android_keys import key_effect, resolve_keycode
from .phone_part import PhonePart

__all__ = ["PhoneInput"]


class PhoneInput(PhonePart):
    """A part of :class:`~device.virtual.phone.VirtualPhone` (see the module doc)."""

    # ------------------------------------------------------------------ input
    def _latency(self) -> None:
        if self.knobs.input_latency_ms > 0:
            time.sleep(self.knobs.input_latency_ms / 1000)

    def _jitter(self, x: float, y: float) -> tuple[float, float]:
        n = self.knobs.touch_jitter_px
        if n <= 0:
            return x, y
        with self._lock:
            return x + self._rng.randint(-n, n), y + self._rng.randint(-n, n)

    def _to_physical(self, x: float, y: float) -> tuple[float, float]:
        sx, sy = self._scale()
        W, H = self.physical_size
        return min(max(x / sx, 0), W - 1), min(max(y / sy, 0), H - 1)

    def _inject(self, event: dict[str, Any]) -> None:
        """Deliver one input event to the sim (device px), then mirror what it changed."""
        with self._lock:
            self._prepare_locked()
            self._anim_from = self._last_frame or self._cache_shot
            self.env.inject(event)
            self._rev += 1
            if not self.knobs.ime_visible:
                data = json.loads(self.env.capture())
                if data["ui"].get("keyboard"):
                    data["ui"]["keyboard"] = False
                    self.env.restore(json.dumps(data))
            self._sync_files_locked()
            self._last_action_at = time.monotonic()

    def _touch_allowed(self) -> bool:
        """The screen is on (a touch on a dark screen wakes nothing); the touch is user activity."""
        with self._lock:
            self._power_tick_locked()
            if self._screen_on:
                self._last_activity = time.monotonic()  # PowerManagerService.userActivity
            return self._screen_on

    def tap(self, x: float, y: float) -> None:
        """A single touch at (x, y) in effective screen pixels."""
        self._press("tap", x, y, {})

    def long_press(self, x: float, y: float, ms: int = 800) -> None:
        self._press("long_press", x, y, {"ms": int(ms)})

    def _press(self, kind: str, x: float, y: float, extra: dict[str, Any]) -> None:
        """One touch at (x, y): the latency, the touch gate, the jitter and the keyguard apply."""
        self._latency()
        if not self._touch_allowed():
            return
        x, y = self._jitter(x, y)
        if self._keyguard_touch(kind, x, y):
            return
        px, py = self._to_physical(x, y)
        self._inject({"kind": kind, "x": px, "y": py, **extra})

    def swipe(self, x0: float, y0: float, x1: float, y1: float, ms: int = 300) -> None:
        """A swipe; equal endpoints held for ≥ 500 ms is a long press, as on Android."""
        if (round(x0), round(y0)) == (round(x1), round(y1)):
            if ms >= 500:
                self.long_press(x0, y0, ms)
            else:
                self.tap(x0, y0)
            return
        self._latency()
        if not self._touch_allowed():
            return
        x0, y0 = self._jitter(x0, y0)
        x1, y1 = self._jitter(x1, y1)
        if self._keyguard_touch("swipe", x0, y0, x1, y1):
            return
        a, b = self._to_physical(x0, y0)
        c, d = self._to_physical(x1, y1)
        self._inject({"kind": "swipe", "x0": a, "y0": b, "x1": c, "y1": d, "ms": int(ms)})

    def drag(self, x0: float, y0: float, x1: float, y1: float, ms: int = 1000) -> None:
        """Press and hold, then move (``input draganddrop``)."""
        self._latency()
        if not self._touch_allowed():
            return
        if self._keyguard_touch("drag", x0, y0, x1, y1):
            return
        a, b = self._to_physical(*self._jitter(x0, y0))
        c, d = self._to_physical(*self._jitter(x1, y1))
        self._inject({"kind": "swipe", "x0": a, "y0": b, "x1": c, "y1": d, "ms": int(ms), "hold_ms": 650})

    def key(self, key: str | int) -> bool:
        """Press a key by name or code; returns False for an unknown name.

        Back/home/recents/enter/delete drive the sim; character keys type into the focused
        field; POWER/SLEEP/WAKEUP switch the screen; other codes are accepted and ignored
        (no app on the phone handles them), as ``input keyevent`` accepts any code.
        """
        code = resolve_keycode(key)
        if code is None:
            return False
        kind, arg = key_effect(code)
        self._latency()
        if kind == "power":
            with self._lock:
                self._power_tick_locked()
                if arg == "toggle":
                    arg = "off" if self._screen_on else "on"
                if arg == "on" and not self._screen_on:
                    self._wake_locked()
                elif arg == "off" and self._screen_on:
                    self._sleep_locked("user", time.monotonic())
                self._last_action_at = time.monotonic()
            return True
        if not self._touch_allowed():  # keys reach nobody on a dark screen; a key is user activity
            return True
        if self._keyguard_key(kind, arg):
            return True
        if kind == "sim" and arg is not None:
            self._inject({"kind": "key", "key": arg})
        elif kind == "text" and arg is not None:
            if self.has_focused_field():
                self._inject({"kind": "text", "text": arg})
        elif kind == "volume":
            self.mutate(lambda d: _volume(d, arg or ""))
        return True

    def input_text(self, text: str) -> bool:
        """Commit ``text`` into the focused field (the IME path: any Unicode). False if no focus.

        On the keyguard the only field is the bouncer's PIN entry, which takes digits."""
        self._latency()
        if not self._touch_allowed():
            return False
        with self._lock:
            if self._keyguard:
                if not self._bouncer:
                    return False
                self._pin_typed = (self._pin_typed + "".join(c for c in text if c.isascii() and c.isdigit()))[:16]
                self._keyguard_changed_locked()
                return True
        if not self.has_focused_field():
            return False
        self._inject({"kind": "text", "text": text})
        return True

    def clear_text(self) -> bool:
        with self._lock:
            self._power_tick_locked()
            if self._keyguard:
                if not (self._screen_on and self._bouncer):
                    return False
                self._pin_typed = ""
                self._keyguard_changed_locked()
                return True
        if not self._screen_on or not self.has_focused_field():
            return False
        self._inject({"kind": "clear_text"})
        return True

    def hide_keyboard(self) -> None:
        def hide(d: dict[str, Any]) -> None:
            d["ui"]["keyboard"] = False
        self.mutate(hide)

    def get_clipboard(self) -> str:
        return str(self.state_data()["world"].get("clipboard") or "")

    def set_clipboard(self, text: str) -> None:
        def put(d: dict[str, Any]) -> None:
            d["world"]["clipboard"] = text
        self.mutate(put)

    def open_app(self, app_id: str, route: str | None = None) -> bool:
        """Open an app (its task is resumed, or started at its root)."""
        if app_id == "launcher":
            self._inject({"kind": "key", "key": "home"})
            return True
        if app_id not in self.family.apps:
            return False
        if route:
            def go(d: dict[str, Any]) -> None:
                ui = d["ui"]
                ui["current"] = app_id
                ui["tasks"][app_id] = [{"s": "__root__", "p": {}}] + ([] if route == "__root__" else [{"s": route, "p": {}}])
                ui["recents"] = [app_id] + [a for a in ui.get("recents", []) if a != app_id]
                ui["dialog"] = ui["shade"] = None
                ui["focus"], ui["keyboard"], ui["recentsOpen"], ui["drawer"] = None, False, False, False
                first_launch_prompt(d, app_id)
            self.mutate(go)
            with self._lock:
                self._anim_from = self._last_frame or self._cache_shot
                self._last_action_at = time.monotonic()
            return True
        self._inject({"kind": "open_app", "app": app_id})
        return True

    def force_stop(self, package: str) -> bool:
        """``am force-stop``: the app's task is removed; if it was in front, home shows."""
        app = self.family.package_apps.get(package)
        if app is None or app == "launcher":
            return False

        def stop(d: dict[str, Any]) -> None:
            ui = d["ui"]
            ui["tasks"].pop(app, None)
            # the app's process dies with its in-memory UI state (expanded cards, selections, ...):
            # apps keep such state in extra ui keys, which the sim's UIState does not declare
            from sim.state import UIState

            for k in [k for k in ui if k not in UIState.model_fields]:
                ui.pop(k, None)
            # and its lists' scroll positions: a recreated activity starts at the top, as on a phone
            # (a cleared task keeps no saved instance state — frameworks/base ActivityRecord)
            scroll = ui.get("scroll") or {}
            for k in [k for k in scroll if str(k).startswith(app + "/")]:
                scroll.pop(k, None)
            if ui.get("toast"):
                ui["toast"] = None
            ui["recents"] = [a for a in ui.get("recents", []) if a != app]
            if ui.get("current") == app:
                ui["current"] = None
                ui["dialog"] = None
                ui["focus"], ui["keyboard"] = None, False
        self.mutate(stop)
        return True


# ============================================================================ helpers
def first_launch_prompt(d: dict[str, Any], app_id: str) -> None:
    """Show the runtime-permission dialog if ``app_id`` asks on first launch (the sim's
    ``openApp`` rule, for apps the phone opens by editing the state, e.g. deep links)."""
    sys = d.get("sys") or {}
    if app_id in (sys.get("permission_prompts") or []) and app_id not in (sys.get("permissions_granted") or []):
        d["ui"]["dialog"] = {"kind": "permission", "app": app_id}
        d["ui"]["focus"], d["ui"]["keyboard"] = None, False


def _volume(d: dict[str, Any], which: str) -> None:
    s = d["world"]["settings"]
    v = int(s.get("media_volume") or 0)
    if which == "volume_up":
        s["media_volume"] = min(25, v + 1)
    elif which == "volume_down":
        s["media_volume"] = max(0, v - 1)
    else:
        s["media_volume"] = 0
