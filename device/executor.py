"""Carrying out actions: one schema :class:`~actionmap.actions.Action` becomes real input on a phone.

:class:`ActionExecutor` resolves an action's target (an element of the last observation, or a
grid point mapped through :class:`device.screen.ScreenView`) and hands it to the
:class:`~device.input.InputDriver`: taps, presses, swipes and drags; scrolls as swipes inside the
content area (or the targeted scrollable), away from the system gesture edges; typing into the
focused field through the text routes the phone really has, trying the next route only when a
route visibly did nothing (text is never typed twice); and reading the field back afterwards
(:meth:`ActionExecutor.verify_text`): a mismatch is reported, never hidden. Bad actions are
reported in ``StepInfo.invalid_action``; nothing here raises for a policy's mistake.
"""

from __future__ import annotations

import time
from typing import Any

from actionmap.actions import (Abort, Action, Answer, Complete, DoubleTap, Drag, Key, LongPress, OpenApp, Scroll,
                               Swipe, Tap, TypeText, Wait, check_text)
from actionmap.env import StepInfo
from actionmap.observation import Observation, UIElement
from device.input import Geometry, InputDriver
from device.observe import Observer
from device.parsers import ParseError, parse_hierarchy
from device.screen import ScreenView

__all__ = ["ActionExecutor"]


class ActionExecutor:
    """Carries out actions on one phone: its input driver, observer (focus reads) and screen view."""

    def __init__(self, input: InputDriver, observer: Observer, view: ScreenView):
        self.input = input
        self.observer = observer
        self.view = view
        #: the field a TypeText typed into: (element, its text before, the text expected after)
        self._text_ctx: tuple[UIElement | None, str, str] = (None, "", "")

    def _element(self, index: int, info: StepInfo) -> UIElement | None:
        el = self.view.element(index)
        if el is None:
            last = self.view.last_obs
            n = len(last.elements) if last else 0
            info.invalid_action = f"target {index} is not an element of the current observation ({n} elements)"
        return el

    def _point(self, a: Any, geo: Geometry, info: StepInfo) -> tuple[int, int] | None:
        if getattr(a, "target", None) is not None:
            el = self._element(a.target, info)
            return None if el is None else geo.frame_px(*el.bounds.center)
        if getattr(a, "point", None) is not None:
            return self.view.grid_px(a.point, geo)
        return None


    def execute(self, a: Action, info: StepInfo) -> bool:
        """Carry out ``a``; returns whether it touched the phone (then the screen must settle).
        A bad action is reported in ``info.invalid_action`` and touches nothing."""
        inp = self.input
        geo = self.view.geometry()
        if isinstance(a, (Tap, DoubleTap, LongPress)):
            p = self._point(a, geo, info)
            if p is None:
                info.invalid_action = info.invalid_action or "no point"
                return False
            if isinstance(a, Tap):
                inp.tap(*p)
            elif isinstance(a, DoubleTap):
                info.extra["double_tap"] = inp.double_tap(*p)
            else:
                inp.long_press(*p, a.duration_ms)
            info.extra["px"] = list(p)
            return True
        if isinstance(a, Swipe):
            (x0, y0), (x1, y1) = self.view.grid_px(a.start, geo), self.view.grid_px(a.end, geo)
            inp.swipe(x0, y0, x1, y1, a.duration_ms)
            return True
        if isinstance(a, Drag):
            (x0, y0), (x1, y1) = self.view.grid_px(a.start, geo), self.view.grid_px(a.end, geo)
            info.extra["drag"] = inp.drag(x0, y0, x1, y1, a.duration_ms)
            return True
        if isinstance(a, Scroll):
            return self._scroll(a, geo, info)
        if isinstance(a, TypeText):
            return self._type(a, geo, info)
        if isinstance(a, Key):
            inp.key(a.key)
            return True
        if isinstance(a, OpenApp):
            why = inp.open_app(a.app)
            if why:
                info.invalid_action = why
                return False
            return True
        if isinstance(a, Wait):
            time.sleep(a.seconds)
            return True
        if isinstance(a, (Answer, Complete, Abort)):
            return False
        info.invalid_action = f"unsupported action {a.type}"  # pragma: no cover
        return False

    def _scroll(self, a: Scroll, geo: Geometry, info: StepInfo) -> bool:
        """A swipe inside the content area (or the targeted scrollable), away from gesture edges."""
        left, top, right, bottom = geo.content_box()
        if a.target is not None or a.point is not None:
            p = self._point(a, geo, info)
            if p is None:
                return False
            cx, cy = p
            if a.target is not None:
                el = self.view.element(a.target)
                if el is not None and el.bounds.area:
                    l2, t2 = geo.frame_px(el.bounds.left, el.bounds.top)
                    r2, b2 = geo.frame_px(el.bounds.right, el.bounds.bottom)
                    if r2 - l2 > 40 and b2 - t2 > 40:
                        left, top, right, bottom = max(left, l2 + 8), max(top, t2 + 8), min(right, r2 - 8), \
                            min(bottom, b2 - 8)
                        if right <= left or bottom <= top:
                            left, top, right, bottom = geo.content_box()
        else:
            cx, cy = (left + right) // 2, (top + bottom) // 2
        cx, cy = min(max(cx, left), right), min(max(cy, top), bottom)
        if a.direction in ("up", "down"):
            dist = int((bottom - top) * 0.45)
            sign = -1 if a.direction == "down" else 1  # down reveals content below: the finger moves up
            y0 = min(max(cy - sign * dist // 2, top), bottom)
            y1 = min(max(y0 + sign * dist, top), bottom)
            x0 = x1 = cx
        else:
            dist = int((right - left) * 0.5)
            sign = -1 if a.direction == "right" else 1
            x0 = min(max(cx - sign * dist // 2, left), right)
            x1 = min(max(x0 + sign * dist, left), right)
            y0 = y1 = cy
        self.input.swipe(x0, y0, x1, y1, 400)
        info.extra["px"] = [x0, y0, x1, y1]
        return True

    # ------------------------------------------------------------------ text
    def _focused(self, settled_xml: str | None = None) -> tuple[UIElement | None, bool]:
        """The focused editable element, and whether the IME is up: from the dump a settle just
        took (a dump is the dearest thing on a real phone: never take the same screen twice),
        else from a fresh one."""
        pf = self.view.pf
        assert pf is not None
        xml = settled_xml if settled_xml is not None else self.observer.hierarchy_xml()[0]
        try:
            w, h = self.view.last_obs.width, self.view.last_obs.height  # type: ignore[union-attr]
        except AttributeError:
            w, h = pf.display_size or (1080, 2400)
        try:
            hier = parse_hierarchy(xml, screen=(w, h))
        except ParseError:
            return None, False
        el = next((e for e in hier.elements if e.focused and e.editable), None)
        el = el or next((e for e in hier.elements if e.focused), None)
        win = self.observer.window()
        return el, bool(win and win.ime_visible)

    @staticmethod
    def _field_text(el: UIElement | None) -> str:
        if el is None:
            return ""
        return "" if el.hint and el.text == el.hint else el.text

    def _type(self, a: TypeText, geo: Geometry, info: StepInfo) -> bool:
        try:
            check_text(a.text)
        except ValueError as e:
            info.invalid_action = str(e)
            return False
        inp = self.input
        if a.target is not None:
            p = self._point(a, geo, info)
            if p is None:
                return False
            inp.tap(*p)
            xml, meta = self.view.settle_inside()
            el, ime = self._focused(xml if meta.settled else None)
        else:
            el, ime = self._focused()
        target = self.view.element(a.target) if a.target is not None else None
        deadline = time.perf_counter() + 1.5
        # a busy phone may not have moved focus yet after a settled tap on a text field; a tap on
        # anything else will never focus it, so an un-editable target is not waited for
        waits = target is not None and (target.editable or "EditText" in (target.class_name or ""))
        while waits and not (el is not None and el.bounds.contains(*target.bounds.center)) \
                and time.perf_counter() < deadline:
            time.sleep(0.1)
            el, ime = self._focused()
        if el is None and not ime:
            info.invalid_action = "no focused text field to type into"
            return False
        original = self._field_text(el)
        expected = a.text if a.clear else original + a.text
        methods = inp.text_methods()
        info.extra["text_expected"] = expected
        self._text_ctx = (el, original, expected)
        used = None
        now = original
        for i, m in enumerate(methods):
            if a.clear and (i == 0 or now):
                inp.clear_text(m, now)
            if not a.text:
                used = m if a.clear else None
                break
            att = inp.type_with(m, a.text, current="" if a.clear and el is not None else original)
            if not att.ok:
                info.extra.setdefault("text_attempts", []).append(att.model_dump())
                continue
            used = m
            if el is None or el.password:
                break
            xml, meta = self.view.settle_inside()
            now_el, _ = self._focused(xml if meta.settled else None)
            now = self._field_text(now_el)
            if now == expected or now not in (original, ""):  # it took, or it did something: never type twice
                break
            # the field still holds what it held (or only got cleared): the method had no effect
            info.extra.setdefault("text_attempts", []).append({"method": m, "ok": False, "detail": "field unchanged"})
            used = None
        info.extra["text_method"] = used
        if a.text and used is None:
            info.error, info.error_kind = "no text input method changed the field", "bridge"
        if a.submit:
            inp.key("enter")
        return True

    def verify_text(self, info: StepInfo, obs: Observation) -> None:
        """Read the field back: a mismatch is reported, never hidden."""
        el, _before, expected = self._text_ctx
        if el is None:
            info.extra["text_verified"] = "no focused node to read back"
            return
        if el.password:
            info.extra["text_verified"] = "password field (not readable)"
            return
        cand = [e for e in obs.elements if e.editable and e.focused] or \
               [e for e in obs.elements if e.editable and e.resource_id and e.resource_id == el.resource_id]
        if not cand:
            cand = [e for e in obs.elements if e.editable and e.bounds == el.bounds]
        actual = self._field_text(cand[0]) if cand else None
        if actual is None:
            info.extra["text_verified"] = "field no longer on screen"
        elif actual == expected or (info.extra.get("text_expected") and actual == info.extra["text_expected"]):
            info.extra["text_verified"] = True
        else:
            info.extra["text_verified"] = False
            info.extra["text_mismatch"] = {"expected": expected, "actual": actual}
