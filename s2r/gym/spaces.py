"""The Gymnasium spaces of s2r's environments and the conversion of an ``Observation`` into them.

Observation (a ``Dict``)::

    screenshot    Box(0, 255, (H, W, 3), uint8)   RGB, only when the env was made with pixels=True
    elements      Sequence(Dict(...))              the UI elements, in the order `target` indexes refer to
    instruction   Text                             the task prompt (with the answer format of a query task)
    foreground    Text                             canonical app id of the foreground app ("" if unknown)
    screen_size   Box(1, 32767, (2,), int32)       (width, height) of the screen in device pixels
    keyboard      Discrete(2)                      1 while the on-screen keyboard is shown

Each element is ``Dict(index, text, content_desc, resource_id, class_name, hint, bounds,
grid_bounds, flags)``: ``bounds`` are device pixels (left, top, right, bottom), ``grid_bounds``
the same box on the 0–1000 grid that actions use, ``flags`` a ``MultiBinary`` over
:data:`ELEMENT_FLAGS`. Texts longer than :data:`TEXT_MAX` characters are cut.

The action space is :class:`AnyText`: the policy's raw output, any Unicode string up to
``actionmap.parse.MAX_RAW`` characters, parsed by ``Action.parse`` on each step.
"""

from __future__ import annotations

import string
from typing import Any

import numpy as np
from gymnasium import spaces

from actionmap.observation import Observation, UIElement
from actionmap.parse import MAX_RAW

TEXT_MAX = 4096
"""Longest text of one element field kept in an observation (longer texts are cut)."""
INSTRUCTION_MAX = 8192
COORD_MAX = 32767
"""Largest pixel coordinate an observation carries (bounds are clipped to [0, COORD_MAX])."""
MAX_ELEMENTS = 1 << 20
ELEMENT_FLAGS: tuple[str, ...] = ("clickable", "long_clickable", "editable", "checkable", "checked", "enabled",
                                  "focused", "scrollable", "selected", "password")
"""The order of an element's ``flags`` bits."""
_SAMPLE_CHARSET = string.ascii_letters + string.digits + " "


class AnyText(spaces.Text):
    """A ``Text`` space holding any Unicode string of ``min_length``..``max_length`` characters.

    Gymnasium's ``Text`` admits only characters of its charset; a phone shows (and a policy
    types) any script, so membership here is by length alone. Sampling still draws from a
    small ASCII charset, which is all a random policy needs.
    """

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | np.random.Generator | None = None):
        super().__init__(max_length, min_length=min_length, charset=_SAMPLE_CHARSET, seed=seed)

    def contains(self, x: Any) -> bool:
        return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

    def __repr__(self) -> str:
        return f"AnyText({self.min_length}, {self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AnyText) and (self.min_length, self.max_length) == (other.min_length,
                                                                                     other.max_length)

    __hash__ = spaces.Text.__hash__


def action_space() -> AnyText:
    """The policy's raw output, as it would be handed to ``Action.parse``."""
    return AnyText(MAX_RAW, min_length=1)


def element_space() -> spaces.Dict:
    text = AnyText(TEXT_MAX)
    box = spaces.Box(0, COORD_MAX, shape=(4,), dtype=np.int32)
    return spaces.Dict({
        "index": spaces.Box(0, MAX_ELEMENTS, shape=(), dtype=np.int64),
        "text": text, "content_desc": text, "resource_id": text, "class_name": text, "hint": text,
        "bounds": box, "grid_bounds": spaces.Box(0, 1000, shape=(4,), dtype=np.int32),
        "flags": spaces.MultiBinary(len(ELEMENT_FLAGS)),
    })


def observation_space(frame: tuple[int, int] | None) -> spaces.Dict:
    """The observation space; ``frame`` = (height, width) of the screenshot, None for no pixels."""
    parts: dict[str, spaces.Space[Any]] = {
        "elements": spaces.Sequence(element_space(), stack=False),
        "instruction": AnyText(INSTRUCTION_MAX),
        "foreground": AnyText(TEXT_MAX),
        "screen_size": spaces.Box(1, COORD_MAX, shape=(2,), dtype=np.int32),
        "keyboard": spaces.Discrete(2),
    }
    if frame is not None:
        parts["screenshot"] = spaces.Box(0, 255, shape=(frame[0], frame[1], 3), dtype=np.uint8)
    return spaces.Dict(parts)


def decode_frame(data: bytes, shape: tuple[int, int]) -> tuple[np.ndarray, bool]:
    """PNG/JPEG bytes → an RGB uint8 array of ``shape`` (height, width); a missing or undecodable
    image is black. Returns (array, whether it had to be resized or was missing)."""
    import cv2

    h, w = shape
    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR) if data else None
    if img is None:
        return np.zeros((h, w, 3), np.uint8), True
    img = cv2.cvtColor(img, cv2.COLOR_BGR2RGB)
    if img.shape[:2] == (h, w):
        return np.ascontiguousarray(img), False
    return cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA), True


def _clip_box(b: Any, high: int) -> np.ndarray:
    return np.clip(np.array([b.left, b.top, b.right, b.bottom], dtype=np.int64), 0, high).astype(np.int32)


def element_dict(e: UIElement) -> dict[str, Any]:
    """One element as a member of :func:`element_space` (fresh arrays: callers may keep it)."""
    return {
        "index": np.array(min(e.index, MAX_ELEMENTS), dtype=np.int64),
        "text": e.text[:TEXT_MAX], "content_desc": e.content_desc[:TEXT_MAX],
        "resource_id": e.resource_id[:TEXT_MAX], "class_name": e.class_name[:TEXT_MAX], "hint": e.hint[:TEXT_MAX],
        "bounds": _clip_box(e.bounds, COORD_MAX), "grid_bounds": _clip_box(e.grid_bounds, 1000),
        "flags": np.array([bool(getattr(e, f)) for f in ELEMENT_FLAGS], dtype=np.int8),
    }


def to_gym(obs: Observation, instruction: str, frame: tuple[int, int] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """An ``Observation`` as a member of ``observation_space(frame)``, plus notes for ``info``
    (``frame`` = "resized"/"missing" when the screenshot did not come at the declared shape)."""
    out: dict[str, Any] = {
        "elements": tuple(element_dict(e) for e in obs.elements),
        "instruction": instruction[:INSTRUCTION_MAX],
        "foreground": (obs.foreground.app or "")[:TEXT_MAX],
        "screen_size": np.clip(np.array([obs.screen.width, obs.screen.height], dtype=np.int64), 1,
                               COORD_MAX).astype(np.int32),
        "keyboard": np.int64(1 if obs.keyboard_visible else 0),
    }
    notes: dict[str, Any] = {}
    if frame is not None:
        pixels, changed = decode_frame(obs.screenshot, frame)
        out["screenshot"] = pixels
        if changed:
            notes["frame"] = "missing" if not obs.screenshot else "resized"
    return out, notes
