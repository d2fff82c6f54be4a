"""Parsing untrusted policy output into :class:`~actionmap.actions.Action`.

Policies are VLMs: their output is text that usually, but not always, holds an action in
one of a few agent formats. We accept the formats in common use and map their aliases onto
the one schema; anything else raises :class:`ActionParseError`, which keeps the raw text
so the run records exactly what the policy said. No other exception escapes
:func:`parse_action`, whatever the input.

Formats understood
------------------
* canonical s2r JSON — ``{"type": "tap", "point": [500, 120]}``
* Qwen-VL ``mobile_use`` JSON, bare or in ``<tool_call>`` — ``{"action": "click", "coordinate": [x, y]}``
* android_world JSON — ``{"action_type": "click", "x": 10, "y": 20}`` / ``"index": 3``
* UI-TARS — ``Action: click(start_box='(x,y)')``, ``click(point='<point>x y</point>')``, ``type(content='..')``
* AutoGLM — ``do(action="Tap", element=[x,y])``, ``finish(message="..")``

Coordinate systems are declared, never guessed: ``coords="grid"`` (0..``grid``, default
1000; AutoGLM uses 999), ``coords="norm"`` ([0,1] floats) or ``coords="px"`` with a
``screen`` size. Values slightly outside the range are clamped and the action is flagged
``clamped``; wild values (NaN, 1e308, negative beyond tolerance) are rejected.
"""

from __future__ import annotations

import ast
import json
import logging
import math
import re
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from .errors import MAX_RAW, ActionParseError, ParseReason  # the error and its reasons, re-exported here
from .geometry import GRID, clamp, px_to_grid

if TYPE_CHECKING:  # the action types import this module; at run time they are imported lazily
    from .actions import Action

CLAMP_TOLERANCE = 0.05
"""Fraction of the range a coordinate may overshoot and still be clamped rather than rejected."""

log = logging.getLogger(__name__)

CoordSystem = Literal["grid", "norm", "px"]

# --- aliases -----------------------------------------------------------------------------

_TYPE_ALIASES: dict[str, str] = {
    # tap
    "tap": "tap", "click": "tap", "left_click": "tap", "touch": "tap", "press": "tap", "left_single": "tap",
    # double tap
    "double_tap": "double_tap", "doubletap": "double_tap", "double_click": "double_tap", "left_double": "double_tap",
    # long press
    "long_press": "long_press", "longpress": "long_press", "long_click": "long_press", "long_tap": "long_press",
    # gestures
    "swipe": "swipe", "fling": "swipe", "drag": "drag", "drag_and_drop": "drag", "scroll": "scroll",
    # text
    "type": "type", "input_text": "type", "input": "type", "text": "type", "type_text": "type", "set_text": "type",
    "typing": "type",
    # keys
    "key": "key", "press_key": "key", "system_button": "key", "hotkey": "key", "keyboard_enter": "key:enter",
    "navigate_back": "key:back", "press_back": "key:back", "back": "key:back", "go_back": "key:back",
    "navigate_home": "key:home", "press_home": "key:home", "home": "key:home", "go_home": "key:home",
    "press_recent": "key:recents", "press_recents": "key:recents", "recents": "key:recents",
    "recent_apps": "key:recents", "overview": "key:recents", "press_enter": "key:enter", "enter": "key:enter",
    "delete": "key:delete", "backspace": "key:delete",
    # apps
    "open_app": "open_app", "open": "open_app", "launch": "open_app", "launch_app": "open_app", "awake": "open_app",
    "start_app": "open_app",
    # wait
    "wait": "wait", "sleep": "wait",
    # terminal
    "answer": "answer", "complete": "complete", "finished": "complete", "finish": "complete", "done": "complete",
    "abort": "abort", "infeasible": "abort", "fail": "abort", "call_user": "abort", "take_over": "abort",
    "terminate": "terminate", "status": "status",
}
_KEY_ALIASES: dict[str, str] = {
    "back": "back", "home": "home", "recents": "recents", "recent": "recents", "recent_apps": "recents",
    "menu": "recents", "app_switch": "recents", "overview": "recents", "enter": "enter", "return": "enter",
    "keycode_enter": "enter", "keycode_back": "back", "keycode_home": "home", "keycode_app_switch": "recents",
    "delete": "delete", "del": "delete", "backspace": "delete", "keycode_del": "delete",
}
_DIRECTIONS = {"up", "down", "left", "right"}

_NUM = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?"
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.S)
_FENCE = re.compile(r"```(?:json|python|JSON)?\s*(.*?)```", re.S)
_CALL_START = re.compile(r"(?:^|[\s:>`])((?:do|finish|[A-Za-z_][A-Za-z_0-9]*)\s*\()")


def _norm_name(s: Any) -> str:
    return re.sub(r"[\s\-]+", "_", str(s).strip().lower())


# --- entry point -------------------------------------------------------------------------

def parse_action(
    raw: Any,
    *,
    coords: CoordSystem = "grid",
    grid: int = GRID,
    screen: tuple[int, int] | None = None,
) -> "Action":  # noqa: F821 - forward ref for docs
    """Parse ``raw`` (a dict, an Action, or text) into an :class:`Action`.

    ``grid`` is the policy's grid maximum (1000 for Qwen3-VL/GUI-Owl/MobileGym, 999 for
    AutoGLM); values are rescaled onto s2r's 0–1000 grid. ``coords="px"`` needs ``screen``
    (width, height) of the image the policy saw.
    """
    from .actions import Action

    try:
        if isinstance(raw, Action):
            return raw
        if coords == "px" and (screen is None or screen[0] <= 0 or screen[1] <= 0):
            raise ActionParseError("bad_options", "coords='px' needs screen=(width, height)", raw)
        obj = _to_object(raw)
        conv = _Converter(coords, grid, screen, raw)
        return conv.build(obj)
    except ActionParseError:
        raise
    except RecursionError:
        raise ActionParseError("bad_json", "nesting too deep", raw) from None
    except Exception as e:  # noqa: BLE001 - the contract: only ActionParseError escapes
        # Every deliberate rejection above raises its own kind; reaching here is a parser bug.
        log.error("parse_action bug on %.200r", raw, exc_info=True)
        raise ActionParseError("internal_error", f"{type(e).__name__}: {e}"[:500], raw) from None


def try_parse_action(raw: Any, **options: Any) -> "Action | ActionParseError":
    """Like :func:`parse_action` but returns the error instead of raising it."""
    try:
        return parse_action(raw, **options)
    except ActionParseError as e:
        return e


# --- text → object -------------------------------------------------------------------------

def _to_object(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise ActionParseError("bad_text", "output is not UTF-8", raw) from None
    if not isinstance(raw, str):
        raise ActionParseError("no_action", f"expected text or an object, got {type(raw).__name__}", raw)
    text = raw.strip()
    if not text:
        raise ActionParseError("empty", "empty output", raw)
    if len(text) > MAX_RAW:
        raise ActionParseError("too_long", f"output is {len(text)} characters (max {MAX_RAW})", raw[:MAX_RAW])

    # Candidate regions, most specific first: <tool_call>, fenced code, 'Action:' line, whole text.
    candidates: list[str] = []
    candidates += [m.group(1) for m in _TOOL_CALL.finditer(text)]
    candidates += [m.group(1) for m in _FENCE.finditer(text)]
    m = re.search(r"(?:^|\n)\s*Action\s*[:：]\s*(.+)", text, re.S | re.I)
    if m:
        candidates.append(m.group(1).strip())
    candidates.append(text)

    saw_json_error: str | None = None
    for cand in candidates:
        cand = cand.strip()
        obj, err = _json_object_in(cand)
        if obj is not None:
            if "name" in obj and isinstance(obj.get("arguments"), (dict, str)):  # OpenAI/Qwen tool call
                args = obj["arguments"]
                if isinstance(args, str):
                    args, err2 = _json_object_in(args)
                    if args is None:
                        saw_json_error = err2 or "tool-call arguments are not a JSON object"
                        continue
                obj = args
            return obj
        saw_json_error = saw_json_error or err
        call = _call_in(cand, raw)
        if call is not None:
            return call
    if saw_json_error:
        raise ActionParseError("bad_json", saw_json_error, raw)
    raise ActionParseError("no_action", "no action found in output", raw)


def _json_object_in(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """First balanced ``{...}`` in ``text`` that decodes to a JSON object."""
    dec = json.JSONDecoder()
    err: str | None = None
    start = text.find("{")
    tries = 0
    while start != -1 and tries < 50:
        tries += 1
        try:
            obj, _ = dec.raw_decode(text, start)
            if isinstance(obj, dict):
                return obj, None
        except json.JSONDecodeError as e:
            err = f"invalid JSON: {e.msg} at {e.pos}"
        except (ValueError, RecursionError) as e:
            err = f"invalid JSON: {e}"[:200]
        start = text.find("{", start + 1)
    return None, err


def _call_in(text: str, raw: Any) -> dict[str, Any] | None:
    """A function-call action (UI-TARS, AutoGLM), parsed with ``ast`` — never evaluated."""
    for m in _CALL_START.finditer(" " + text):
        start = m.start(1) - 1
        expr = _balanced_call(text, start)
        if expr is None:
            continue
        try:
            node = ast.parse(expr, mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        name = node.func.id
        kwargs: dict[str, Any] = {}
        try:
            for kw in node.keywords:
                if kw.arg is None:
                    raise ValueError("**kwargs not allowed")
                kwargs[kw.arg] = ast.literal_eval(kw.value)
            args = [ast.literal_eval(a) for a in node.args]
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
            raise ActionParseError("not_literal", f"arguments of {name}() are not literals", raw) from None
        if name == "do":  # AutoGLM: do(action="Tap", element=[x, y])
            act = kwargs.pop("action", args[0] if args else None)
            if act is None:
                raise ActionParseError("missing_field", "do() without action=", raw)
            return {"action": act, **kwargs, "_format": "autoglm"}
        if name == "finish":
            return {"action": "complete", "message": kwargs.get("message", args[0] if args else ""), "_format": "autoglm"}
        if _norm_name(name) in _TYPE_ALIASES:
            if args and not kwargs:
                kwargs["_args"] = args
            return {"action": name, **kwargs, "_format": "call"}
    return None


def _balanced_call(text: str, start: int) -> str | None:
    """Cut ``name(...)`` starting at ``start`` with balanced parentheses, respecting quotes."""
    i = text.find("(", start)
    if i == -1:
        return None
    depth, quote, esc = 0, "", False
    for j in range(i, min(len(text), i + 20_000)):
        c = text[j]
        if quote:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == quote:
                quote = ""
            continue
        if c in "'\"":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return text[start:j + 1].strip()
    return None


# --- object → Action -------------------------------------------------------------------------

class _Converter:
    def __init__(self, coords: CoordSystem, grid: int, screen: tuple[int, int] | None, raw: Any):
        self.coords, self.grid, self.screen, self.raw = coords, grid, screen, raw
        self.clamped = False

    def err(self, kind: ParseReason, reason: str) -> ActionParseError:
        return ActionParseError(kind, reason, self.raw)

    # coordinates ---------------------------------------------------------------------------
    def _num(self, v: Any, what: str) -> float:
        if isinstance(v, str):
            s = v.strip()
            if not re.fullmatch(_NUM, s):
                raise self.err("bad_number", f"{what} is not a number: {v!r}"[:200])
            v = float(s)
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise self.err("bad_number", f"{what} is not a number: {v!r}"[:200])
        if isinstance(v, int) and abs(v) > 10**9:
            raise self.err("out_of_range", f"{what} = {str(v)[:20]}… is out of range")
        v = float(v)
        if not math.isfinite(v):
            raise self.err("bad_number", f"{what} is not finite")
        return v

    def axis(self, v: Any, axis: int, what: str) -> int:
        x = self._num(v, what)
        if self.coords == "grid":
            hi = float(self.grid)
        elif self.coords == "norm":
            hi = 1.0
        else:
            assert self.screen is not None
            hi = float(self.screen[axis] - 1)
        tol = CLAMP_TOLERANCE * hi
        if x < -tol or x > hi + tol:
            raise self.err("out_of_range", f"{what} = {x:g} outside 0..{hi:g}")
        if x < 0 or x > hi:
            self.clamped = True
            x = clamp(x, 0.0, hi)
        if self.coords == "px":
            assert self.screen is not None
            return px_to_grid(x, self.screen[axis])
        return int(clamp(round(x / hi * GRID), 0, GRID)) if hi > 0 else 0

    def point(self, v: Any, what: str = "point") -> tuple[int, int]:
        if isinstance(v, dict):
            if "x" in v and "y" in v:
                return self.axis(v["x"], 0, f"{what}.x"), self.axis(v["y"], 1, f"{what}.y")
            raise self.err("bad_point", f"{what} object needs x and y")
        if isinstance(v, str):
            nums = re.findall(_NUM, v.replace("<|box_start|>", " ").replace("<|box_end|>", " "))
            if len(nums) not in (2, 4):
                raise self.err("bad_point", f"{what} is not a point: {v!r}"[:200])
            v = [float(n) for n in nums]
        if isinstance(v, (list, tuple)):
            if len(v) == 1 and isinstance(v[0], (list, tuple)):
                v = v[0]
            if len(v) == 2:
                return self.axis(v[0], 0, f"{what}.x"), self.axis(v[1], 1, f"{what}.y")
            if len(v) == 4:  # a box: use its centre
                x1, y1 = self.axis(v[0], 0, f"{what}.x1"), self.axis(v[1], 1, f"{what}.y1")
                x2, y2 = self.axis(v[2], 0, f"{what}.x2"), self.axis(v[3], 1, f"{what}.y2")
                return (x1 + x2) // 2, (y1 + y2) // 2
        raise self.err("bad_point", f"{what} is not a point: {v!r}"[:200])

    def _first(self, obj: dict[str, Any], *keys: str) -> Any:
        for k in keys:
            if k in obj and obj[k] is not None:
                return obj[k]
        return None

    def pointing(self, obj: dict[str, Any]) -> dict[str, Any]:
        target = self._first(obj, "target", "index", "element_index", "element_id")
        if target is not None and not isinstance(target, list):
            if isinstance(target, str) and target.strip().isdigit():
                target = int(target.strip())
            if isinstance(target, bool) or not isinstance(target, int) or not 0 <= target < 100_000:
                raise self.err("bad_index", f"element index must be a small non-negative integer: {target!r}"[:200])
            return {"target": target}
        pt = self._first(obj, "point", "coordinate", "coordinates", "start_box", "element", "position", "box",
                         "start_point", "start", "bbox")
        if pt is None and "x" in obj and "y" in obj:
            pt = [obj["x"], obj["y"]]
        if pt is None and "_args" in obj and obj["_args"]:
            pt = obj["_args"][0]
        if pt is None:
            raise self.err("missing_field", "a pointing action needs a point or an element index")
        return {"point": self.point(pt)}

    def text_of(self, obj: dict[str, Any], *keys: str) -> str:
        v = self._first(obj, *keys)
        if v is None and obj.get("_args"):
            v = obj["_args"][0]
        if v is None:
            raise self.err("missing_field", f"missing text (one of {', '.join(keys)})")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            v = str(v)
        if not isinstance(v, str):
            raise self.err("wrong_type", "text must be a string")
        return v

    # build -----------------------------------------------------------------------------------
    def build(self, obj: dict[str, Any]) -> Any:
        from .actions import ACTION_ADAPTER, check_text

        kind = self._first(obj, "type", "action_type", "action", "name")
        if kind is None and "status" in obj:
            kind = "status"
        if kind is None or not isinstance(kind, str):
            raise self.err("missing_field", "no action type ('type', 'action_type' or 'action')")
        name = _norm_name(kind)
        mapped = _TYPE_ALIASES.get(name)
        if mapped is None:
            raise self.err("unknown_action", f"unknown action {str(kind)[:80]!r}")
        out: dict[str, Any]
        if mapped.startswith("key:"):
            out = {"type": "key", "key": mapped[4:]}
        elif mapped in ("tap", "double_tap", "long_press"):
            out = {"type": mapped, **self.pointing(obj)}
            if mapped == "long_press":
                dur = self._first(obj, "duration_ms", "duration", "time")
                if dur is not None:
                    d = self._num(dur if not isinstance(dur, str) else re.sub(r"[^\d.\-eE]", "", dur) or "x", "duration")
                    # 'time' / 'duration' in agent formats are seconds; duration_ms is ms
                    out["duration_ms"] = int(d if "duration_ms" in obj else d * 1000)
        elif mapped in ("swipe", "drag"):
            start = self._first(obj, "start", "from", "coordinate", "start_box", "start_point", "point")
            end = self._first(obj, "end", "to", "coordinate2", "end_box", "end_point", "end_coordinate")
            direction = self._first(obj, "direction")
            if start is not None and end is None and isinstance(direction, str) and mapped == "swipe":
                return self.scroll_like({**obj, "direction": _invert(direction)}, anchor=start)
            if start is None and end is None and direction is not None and mapped == "swipe":
                # a direction-only swipe means finger motion; scroll means content motion
                return self.scroll_like({**obj, "direction": _invert(direction)})
            if start is None or end is None:
                raise self.err("missing_field", f"{mapped} needs a start and an end point")
            out = {"type": mapped, "start": self.point(start, "start"), "end": self.point(end, "end")}
            dur = self._first(obj, "duration_ms")
            if dur is not None:
                out["duration_ms"] = int(self._num(dur, "duration_ms"))
        elif mapped == "scroll":
            return self.scroll_like(obj)
        elif mapped == "type":
            text = self.text_of(obj, "text", "content", "value", "input")
            try:
                check_text(text)
            except ValueError as e:
                raise self.err("bad_text", str(e)) from None
            out = {"type": "type", "text": text}
            for f in ("clear", "submit"):
                if isinstance(obj.get(f), bool):
                    out[f] = obj[f]
            tgt = self._first(obj, "target", "index")
            if tgt is not None:
                out.update(self.pointing({"target": tgt}))
        elif mapped == "key":
            k = self._first(obj, "key", "button", "keycode", "name_of_key", "text")
            if k is None and obj.get("_args"):
                k = obj["_args"][0]
            if not isinstance(k, str) or _norm_name(k) not in _KEY_ALIASES:
                raise self.err("unknown_key", f"unknown key {str(k)[:40]!r}")
            out = {"type": "key", "key": _KEY_ALIASES[_norm_name(k)]}
        elif mapped == "open_app":
            from .apps import canonical_app_id

            app = self.text_of(obj, "app", "app_name", "text", "package", "name_of_app")
            out = {"type": "open_app", "app": canonical_app_id(app) or app.strip()}
        elif mapped == "wait":
            sec = self._first(obj, "seconds", "time", "duration")
            if isinstance(sec, str):
                nums = re.findall(_NUM, sec)
                sec = nums[0] if nums else None
            out = {"type": "wait", "seconds": self._num(sec, "seconds") if sec is not None else 1.0}
        elif mapped == "answer":
            fields = obj.get("fields")
            if fields is None:
                fields = {"answer": self.text_of(obj, "answer", "text", "content", "value")}
            if not isinstance(fields, dict):
                raise self.err("wrong_type", "answer fields must be an object")
            out = {"type": "answer", "fields": fields}
        elif mapped == "complete":
            msg = self._first(obj, "message", "content", "text", "answer") or ""
            out = {"type": "complete", "message": str(msg)[:MAX_RAW]}
        elif mapped == "abort":
            msg = self._first(obj, "reason", "message", "content", "text") or ""
            out = {"type": "abort", "reason": str(msg)[:MAX_RAW]}
        elif mapped in ("terminate", "status"):
            status = _norm_name(self._first(obj, "status", "goal_status", "_args") or "success")
            if status in ("success", "complete", "completed", "done", "finished", "successful"):
                out = {"type": "complete", "message": str(self._first(obj, "message", "answer") or "")}
            elif status in ("failure", "fail", "failed", "infeasible", "abort", "impossible"):
                out = {"type": "abort", "reason": str(self._first(obj, "message", "reason") or status)}
            else:
                raise self.err("bad_status", f"unknown status {status[:40]!r}")
        else:  # pragma: no cover - every alias maps somewhere above
            raise self.err("unknown_action", f"unhandled action {mapped}")
        if self.clamped:
            out["clamped"] = True
        try:
            return ACTION_ADAPTER.validate_python(out)
        except ValidationError as e:
            first = e.errors()[0]
            loc = ".".join(str(p) for p in first.get("loc", ()))
            raise self.err("invalid_action", f"{loc}: {first.get('msg')}"[:300]) from None

    def scroll_like(self, obj: dict[str, Any], anchor: Any = None) -> Any:
        from .actions import ACTION_ADAPTER

        d = obj.get("direction")
        if not isinstance(d, str) or d.strip().lower() not in _DIRECTIONS:
            raise self.err("bad_direction", f"scroll direction must be up/down/left/right, got {str(d)[:40]!r}")
        out: dict[str, Any] = {"type": "scroll", "direction": d.strip().lower()}
        if anchor is None:
            anchor = self._first(obj, "point", "coordinate", "start_box", "element", "anchor")
        if anchor is not None:
            out["point"] = self.point(anchor, "anchor")
        else:
            tgt = self._first(obj, "target", "index")
            if tgt is not None:
                out.update(self.pointing({"target": tgt}))
        if self.clamped:
            out["clamped"] = True
        try:
            return ACTION_ADAPTER.validate_python(out)
        except ValidationError as e:
            raise self.err("invalid_action", str(e.errors()[0].get("msg"))) from None


def _invert(direction: str) -> str:
    d = direction.strip().lower()
    return {"up": "down", "down": "up", "left": "right", "right": "left"}.get(d, d)
