"""Which command printed this text? — and parse it with the matching reader.

Used by ``s2r inspect`` (a user drops in a saved capture) and by the fixture tests (every
capture must be recognised and read). Detection looks first at the section banners dumpsys
prints (``WINDOW MANAGER …``), then at field names each format alone uses.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from ._common import ParseError, normalize_text

__all__ = ["KINDS", "detect_kind", "parse_as", "to_jsonable"]

KINDS: tuple[str, ...] = ("hierarchy", "content", "settings", "dumpsys-window", "dumpsys-activity",
                          "dumpsys-display", "dumpsys-alarm", "dumpsys-input", "dumpsys-power", "wm", "getprop")

_BANNERS = (
    (re.compile(r"^\s*DISPLAY MANAGER\b", re.M), "dumpsys-display"),
    (re.compile(r"^\s*INPUT MANAGER\b", re.M), "dumpsys-input"),
    (re.compile(r"^\s*(ALARM MANAGER\b|Current Alarm Manager state:)", re.M), "dumpsys-alarm"),
    (re.compile(r"^\s*POWER MANAGER\b", re.M), "dumpsys-power"),
    (re.compile(r"^\s*ACTIVITY MANAGER\b", re.M), "dumpsys-activity"),
    (re.compile(r"^\s*WINDOW MANAGER\b", re.M), "dumpsys-window"),
)
_MARKERS = (
    (re.compile(r"^Row: 0 ", re.M), "content"),
    (re.compile(r"^\[[^\]\n]+\]: \[", re.M), "getprop"),
    (re.compile(r"^\s*(Physical|Override) (size|density):", re.M), "wm"),
    (re.compile(r"\bmScreenState=|DisplayDeviceInfo\{|\bmViewports=\[|Display State="), "dumpsys-display"),
    (re.compile(r"^Event Hub State:|^\s*Viewport \w*:? ?displayId=", re.M), "dumpsys-input"),
    (re.compile(r"Next alarm clock information|\bnowRTC=\d"), "dumpsys-alarm"),
    (re.compile(r"\bmWakefulness="), "dumpsys-power"),
    (re.compile(r"\bmCurrentFocus=|\bmFocusedApp="), "dumpsys-window"),
    (re.compile(r"(?<![A-Za-z])(topResumedActivity|ResumedActivity|mResumedActivity|mFocusedActivity)\s*[:=]"
                r"|Hist\s*#\d+: ActivityRecord"), "dumpsys-activity"),
    (re.compile(r"\binit=\d+x\d+ \d+dpi"), "dumpsys-window"),
)
_KV = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:@/\-]*=")


def detect_kind(text: str | bytes) -> str | None:
    """The kind of capture (one of :data:`KINDS`), or ``None`` if no reader recognises it."""
    t = normalize_text(text)
    if not t.strip():
        return None
    if "<hierarchy" in t or "UI hierchary dumped" in t or "null root node returned by UiTestAutomationBridge" in t:
        return "hierarchy"
    if t.strip() == "No result found.":
        return "content"
    head = t[:4000]
    for rx, kind in _BANNERS:
        if rx.search(head):
            return kind
    for rx, kind in _MARKERS:
        if rx.search(t):
            return kind
    lines = [ln for ln in t.split("\n") if ln.strip()]
    if lines and sum(bool(_KV.match(ln)) for ln in lines) >= max(1, 0.6 * len(lines)):
        return "settings"
    return None


def _parsers() -> dict[str, Callable[..., Any]]:
    from .alarm import parse_dumpsys_alarm
    from .content import parse_content_rows
    from .dumpsys import (parse_dumpsys_activity, parse_dumpsys_display, parse_dumpsys_input, parse_dumpsys_power,
                          parse_dumpsys_window)
    from .getprop import parse_getprop
    from .hierarchy import parse_hierarchy
    from .settings import parse_settings_list
    from .wm import parse_wm

    return {
        "hierarchy": parse_hierarchy, "content": parse_content_rows, "settings": parse_settings_list,
        "dumpsys-window": parse_dumpsys_window, "dumpsys-activity": parse_dumpsys_activity,
        "dumpsys-display": parse_dumpsys_display, "dumpsys-alarm": parse_dumpsys_alarm,
        "dumpsys-input": parse_dumpsys_input, "dumpsys-power": parse_dumpsys_power, "wm": parse_wm,
        "getprop": parse_getprop,
    }


def parse_as(kind: str, text: str | bytes, **kwargs: Any) -> Any:
    """Parse ``text`` as ``kind``; ``ParseError`` if it is not that kind of output."""
    parsers = _parsers()
    if kind not in parsers:
        raise ParseError(f"unknown kind {kind!r}; expected one of {', '.join(KINDS)}")
    return parsers[kind](text, **kwargs)


def to_jsonable(result: Any) -> Any:
    """Parser results (pydantic models, dicts, lists of either) → plain JSON values."""
    if isinstance(result, BaseModel):
        return result.model_dump(mode="json")
    if isinstance(result, dict):
        return {k: to_jsonable(v) for k, v in result.items()}
    if isinstance(result, (list, tuple)):
        return [to_jsonable(v) for v in result]
    return result
