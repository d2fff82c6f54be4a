"""uiautomator2's JSON-RPC methods that deliver input: touches and gestures, keys, the
clipboard and text.

Why its own module: one subject of the server's methods (the others: :mod:`.u2_rpc_device`,
:mod:`.u2_rpc_select`); a mixin over :class:`~device.virtual.u2_rpc.RpcBase`. A touch is judged
as Android judges it (touch slop, long-press timeout) and SystemUI's clipboard overlay, a window
above the app, takes the touches that land on it.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

from .systemui import clipboard_overlay, overlay_tap
from .u2_errors import invalid, to_float, to_int, unsupported
from .u2_rpc import SIM_LONG_PRESS_MS, RpcBase, SelectorArg, corner_point, is_numeric, Touch
from .uitree import UiNode

__all__ = ["InputMethods"]


class InputMethods(RpcBase):
    """``click``/``longClick``, ``swipe``/``swipePoints``/``drag``/``dragTo``,
    ``injectInputEvent``, ``pressKey``/``pressKeyCode``, the clipboard, ``setText`` and friends."""

    async def _in_screen(self, x: float, y: float) -> bool:
        W, H = await self._screen()
        return 0 <= x < W and 0 <= y < H

    async def _click_xy(self, x: Any, y: Any, ms: Any = None) -> bool:
        fx, fy = to_float(x, "x"), to_float(y, "y")
        if not await self._in_screen(fx, fy):
            return False  # UiDevice.click: false for points outside the display
        if ms is None:
            await self._tap(fx, fy)
        else:  # touchDown, hold ms, touchUp: Android decides tap vs long press
            await self._press(fx, fy, max(1, to_int(ms, "milliseconds")))
        return True

    async def _press(self, x: float, y: float, held_ms: int) -> None:
        """A touch held ``held_ms`` without moving, judged as Android judges it: at least the
        long-press timeout → a long press (delivered at least :data:`SIM_LONG_PRESS_MS`, so the
        sim's own 500 ms timer agrees), else a tap."""
        if held_ms >= self.long_press_ms:
            await self._call(self.phone.long_press, x, y, max(held_ms, SIM_LONG_PRESS_MS))
        else:
            await self._tap(x, y)

    async def _tap(self, x: float, y: float) -> None:
        """One tap; SystemUI's clipboard overlay (a window above the app) takes it first."""
        if not overlay_tap(self.phone, x, y):
            await self._call(self.phone.tap, x, y)

    async def rpc_click(self, *args: Any) -> bool:
        """``click(x, y)``, ``click(x, y, ms)`` (long click), ``click(selector[, corner])``."""
        if args and isinstance(args[0], (dict, str)) and not is_numeric(args[0]):
            if len(args) > 2:
                raise invalid("click(selector[, corner])")
            node = await self._find(args[0])
            x, y = corner_point(node, args[1] if len(args) > 1 else None)
            await self._tap(x, y)
            return True
        if len(args) == 2:
            return await self._click_xy(args[0], args[1])
        if len(args) == 3:
            return await self._click_xy(args[0], args[1], args[2])
        raise invalid("click(x, y[, ms]) or click(selector[, corner])")

    async def rpc_longClick(self, selector: SelectorArg, corner: Any = None) -> bool:
        node = await self._find(selector)
        x, y = corner_point(node, corner)
        await self._call(self.phone.long_press, x, y, 800)  # UiObject.longClick: timeout + margin
        return True

    async def rpc_swipe(self, *args: Any) -> bool:
        """``swipe(x0, y0, x1, y1, steps)``; ``swipe(selector, dir, steps)`` / ``(selector, dir, percent, steps)``."""
        if args and isinstance(args[0], (dict, str)) and not is_numeric(args[0]):
            return await self._swipe_object(*args)
        if len(args) != 5:
            raise invalid("swipe(x0, y0, x1, y1, steps)")
        x0, y0, x1, y1 = (to_float(a, n) for a, n in zip(args[:4], ("x0", "y0", "x1", "y1")))
        steps = max(1, to_int(args[4], "steps"))
        W, H = await self._screen()
        if not all(0 <= v < lim for v, lim in ((x0, W), (x1, W), (y0, H), (y1, H))):
            return False  # UiDevice.swipe: false when a point is off the display
        await self._call(self.phone.swipe, x0, y0, x1, y1, steps * 5)  # uiautomator: 5 ms per step
        return True

    async def _swipe_object(self, selector: SelectorArg, direction: Any, *rest: Any) -> bool:
        if len(rest) == 1:
            percent, steps = 1.0, to_int(rest[0], "steps")
        elif len(rest) == 2:
            percent, steps = to_float(rest[0], "percent"), to_int(rest[1], "steps")
        else:
            raise invalid("swipe(selector, direction[, percent], steps)")
        node = await self._find(selector)
        l, t, r, b = node.bounds
        cx, cy = (l + r) / 2, (t + b) / 2
        hw, hh = (r - l) * percent / 2 * 0.9, (b - t) * percent / 2 * 0.9
        d = str(direction).lower()
        vec = {"up": (cx, cy + hh, cx, cy - hh), "down": (cx, cy - hh, cx, cy + hh),
               "left": (cx + hw, cy, cx - hw, cy), "right": (cx - hw, cy, cx + hw, cy)}.get(d)
        if vec is None:
            raise invalid(f"direction must be up/down/left/right, got {direction!r}")
        await self._call(self.phone.swipe, *vec, max(1, steps) * 5)
        return True

    async def rpc_swipePoints(self, points: Any, steps: Any) -> bool:
        """A polyline gesture. The sim takes straight swipes only, so the finger goes from the
        first point to the last one in ``steps × 5 ms`` per segment (documented approximation)."""
        if not isinstance(points, list) or len(points) < 4 or len(points) % 2:
            raise invalid("points must be [x0, y0, x1, y1, ...] with at least two points")
        xs = [to_float(v, "point") for v in points]
        segs = len(xs) // 2 - 1
        n = max(1, to_int(steps, "steps"))
        await self._call(self.phone.swipe, xs[0], xs[1], xs[-2], xs[-1], n * 5 * segs)
        return True

    async def rpc_drag(self, x0: Any, y0: Any, x1: Any, y1: Any, steps: Any) -> bool:
        a, b, c, d = (to_float(v, n) for v, n in ((x0, "x0"), (y0, "y0"), (x1, "x1"), (y1, "y1")))
        W, H = await self._screen()
        if not all(0 <= v < lim for v, lim in ((a, W), (c, W), (b, H), (d, H))):
            return False
        await self._call(self.phone.drag, a, b, c, d, max(1, to_int(steps, "steps")) * 5)
        return True

    async def rpc_dragTo(self, selector: SelectorArg, *args: Any) -> bool:
        """``dragTo(selector, x, y, steps)`` or ``dragTo(selector, destSelector, steps)``."""
        node = await self._find(selector)
        x0, y0 = node.center
        if len(args) == 3:
            x1, y1, steps = to_float(args[0], "x"), to_float(args[1], "y"), to_int(args[2], "steps")
        elif len(args) == 2 and isinstance(args[0], (dict, str)):
            dest = await self._find(args[0])
            (x1, y1), steps = dest.center, to_int(args[1], "steps")
        else:
            raise invalid("dragTo(selector, x, y, steps) or dragTo(selector, destSelector, steps)")
        await self._call(self.phone.drag, x0, y0, x1, y1, max(1, steps) * 5)
        return True

    async def rpc_injectInputEvent(self, action: Any, x: Any, y: Any, metaState: Any = 0) -> bool:
        """MotionEvent DOWN(0)/UP(1)/MOVE(2)/CANCEL(3): the gesture is delivered at UP.

        Android decides at UP too: moved beyond the touch slop (8 dp) → a swipe along the
        DOWN→UP line over the held time; held ≥ the long-press timeout → long press; else a tap.
        """
        act = to_int(action, "action")
        fx, fy = to_float(x, "x"), to_float(y, "y")
        now = time.monotonic()
        if act == 0:
            self._touch = Touch(fx, fy, now, fx, fy)
            return True
        t = self._touch
        if t is None:
            return act in (2, 3)  # a stray MOVE/CANCEL is harmless; a stray UP did nothing
        if act == 2:
            t.x, t.y = fx, fy
            t.moved = max(t.moved, math.hypot(fx - t.x0, fy - t.y0))
            return True
        if act == 3:
            self._touch = None
            return True
        if act != 1:
            raise invalid(f"unsupported MotionEvent action {act}")
        self._touch = None
        t.moved = max(t.moved, math.hypot(fx - t.x0, fy - t.y0))
        held_ms = int((now - t.t0) * 1000)
        slop = 8 * self._density() / 160
        if t.moved > slop:
            await self._call(self.phone.swipe, t.x0, t.y0, fx, fy, max(held_ms, 10))
        else:
            await self._press(t.x0, t.y0, held_ms)
        await self._note_toast()  # only at UP: DOWN/MOVE must stay cheap, they time the gesture
        return True

    async def rpc_gesture(self, *args: Any) -> bool:
        raise unsupported("two-finger gesture")

    async def rpc_pinchIn(self, *args: Any) -> bool:
        raise unsupported("pinchIn (two fingers)")

    async def rpc_pinchOut(self, *args: Any) -> bool:
        raise unsupported("pinchOut (two fingers)")

    # ================================================================== keys / text
    async def rpc_pressKey(self, key: Any) -> bool:
        name = str(key).strip()
        if not name:
            return False
        return bool(await self._call(self.phone.key, name))

    async def rpc_pressKeyCode(self, keyCode: Any, metaState: Any = 0) -> bool:
        return bool(await self._call(self.phone.key, to_int(keyCode, "keyCode")))

    async def rpc_setClipboard(self, label: Any, text: Any = None) -> None:
        """``ClipboardManager.setPrimaryClip``; on Android 13+ SystemUI then shows its overlay."""
        value = "" if text is None else str(text)
        await self._call(self.phone.set_clipboard, value)
        clipboard_overlay(self.phone).clip_changed(value)

    async def rpc_getClipboard(self) -> str | None:
        text = await self._call(self.phone.get_clipboard)
        return text if text else None

    async def rpc_pasteClipboard(self) -> bool:
        """Ctrl+V injected as key events (uiautomator2's server: ``UiDevice.pressKeyCode(
        KEYCODE_V, META_CTRL_ON)``). A focused editable field handles the shortcut with
        ``TextView.onTextContextMenuItem(android.R.id.paste)`` (frameworks/base core/java/android/
        widget/TextView.java ``onKeyShortcut``) and inserts the primary clip literally; with no
        focused field the keys reach nobody. Injection itself succeeds, so the answer is true.
        """
        text = await self._call(self.phone.get_clipboard)
        if text and not await self._edit_focused(lambda cur: cur + text):
            await self._call(self.phone.input_text, text)  # a phone without state access: type it
        return True

    async def _edit_focused(self, change: Callable[[str], str]) -> bool:
        """Replace the focused field's text with ``change(text)``, literally (no IME, no key map:
        what ``TextView.paste``/``setText`` do to an ``Editable``). False if no field has focus
        or the phone has no state access."""
        mutate = getattr(self.phone, "mutate", None)
        if mutate is None:
            return False
        showing = getattr(self.phone, "keyguard_showing", None)
        if showing is not None and await self._call(showing):  # the app's fields are behind the keyguard
            return False

        def edit(d: dict[str, Any]) -> bool:
            ui = d.get("ui") or {}
            focus = ui.get("focus")
            if not focus:
                return False
            fields = ui.setdefault("fields", {})
            fields[focus] = change(str(fields.get(focus) or ""))
            return True
        return bool(await self._call(mutate, edit))

    async def rpc_clearInputText(self) -> bool:
        """Ctrl+A then DEL, injected as key events: TextView selects all (``onKeyShortcut``
        ``KEYCODE_A`` → ``selectAllText``) and DEL deletes the selection. True once injected."""
        await self._call(self.phone.clear_text)
        return True

    async def _focus(self, node: UiNode) -> bool:
        """Give ``node`` (a text field) input focus by touching it, as ACTION_FOCUS would."""
        if node.flag("focused"):
            return True
        x, y = node.center
        await self._call(self.phone.tap, x, y)
        has = getattr(self.phone, "has_focused_field", None)
        return bool(await self._call(has)) if has is not None else True

    async def rpc_setText(self, selector: SelectorArg, text: Any) -> bool:
        """UiObject.setText: focus the field, then ``ACTION_SET_TEXT`` replaces its text with the
        argument literally — any Unicode, newlines included (frameworks/base core/java/android/
        widget/TextView.java ``performAccessibilityActionInternal``). False for a view that is
        not a text field."""
        from device.parsers.hierarchy import is_editable_class

        node = await self._find(selector)
        if not is_editable_class(node.get("class")):
            return False
        if not await self._focus(node):
            return False
        value = "" if text is None else str(text)
        if await self._edit_focused(lambda _cur: value):  # ACTION_SET_TEXT: the text, literally
            return True
        await self._call(self.phone.clear_text)
        if value:
            return bool(await self._call(self.phone.input_text, value))
        return True

    async def rpc_clearTextField(self, selector: SelectorArg) -> bool:
        return await self.rpc_setText(selector, "")

    async def rpc_getText(self, selector: SelectorArg) -> str:
        return (await self._find(selector)).get("text")

