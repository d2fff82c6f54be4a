"""What a policy sees: a screenshot, the UI elements on it, and where the phone is.

``UIElement`` follows android_world: every element carries pixel bounds *and* bounds on
the 0–1000 grid, Android widget class names and resource ids, and the accessibility flags
uiautomator reports — so a policy reading elements sees the same record from the sim's DOM
and from a phone's hierarchy dump.
"""

from __future__ import annotations

import base64
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator

from .geometry import px_to_grid


class Bounds(BaseModel):
    """A rectangle [left, top) – [right, bottom) in pixels or grid units."""

    model_config = ConfigDict(frozen=True)
    left: int
    top: int
    right: int
    bottom: int

    @property
    def width(self) -> int:
        return self.right - self.left

    @property
    def height(self) -> int:
        return self.bottom - self.top

    @property
    def area(self) -> int:
        return max(0, self.width) * max(0, self.height)

    @property
    def center(self) -> tuple[int, int]:
        return (self.left + self.right) // 2, (self.top + self.bottom) // 2

    def contains(self, x: float, y: float) -> bool:
        return self.left <= x < self.right and self.top <= y < self.bottom

    def to_grid(self, width: int, height: int) -> "Bounds":
        return Bounds(
            left=px_to_grid(self.left, width), top=px_to_grid(self.top, height),
            right=px_to_grid(max(self.left, self.right - 1), width),
            bottom=px_to_grid(max(self.top, self.bottom - 1), height),
        )


class UIElement(BaseModel):
    """One node of the UI that a policy may act on or read."""

    model_config = ConfigDict(extra="forbid")
    index: int = Field(ge=0, description="Position in the observation's element list; `target` refers to it.")
    text: str = ""
    content_desc: str = ""
    resource_id: str = ""
    class_name: str = Field("android.view.View", description="Android widget class, e.g. android.widget.Switch.")
    package: str = ""
    bounds: Bounds = Field(description="Pixel bounds on the observation's screenshot.")
    grid_bounds: Bounds = Field(description="Bounds on the 0–1000 grid.")
    clickable: bool = False
    long_clickable: bool = False
    editable: bool = False
    checkable: bool = False
    checked: bool = False
    enabled: bool = True
    focused: bool = False
    scrollable: bool = False
    selected: bool = False
    visible: bool = True
    password: bool = False
    hint: str = ""

    @property
    def label(self) -> str:
        """The most human-readable name of the element."""
        return self.text or self.content_desc or self.hint or self.resource_id.rsplit("/", 1)[-1]

    @classmethod
    def from_px(cls, index: int, bounds: tuple[int, int, int, int], screen: tuple[int, int], **kw: Any) -> "UIElement":
        b = Bounds(left=bounds[0], top=bounds[1], right=bounds[2], bottom=bounds[3])
        return cls(index=index, bounds=b, grid_bounds=b.to_grid(*screen), **kw)


class Screen(BaseModel):
    width: int = Field(gt=0, description="Screenshot width in px.")
    height: int = Field(gt=0, description="Screenshot height in px.")
    density: int = Field(420, gt=0, description="dpi (Android density, 160 = 1x).")
    rotation: int = Field(0, ge=0, le=3)


class Foreground(BaseModel):
    app: str | None = Field(None, description="Canonical app id, or None if the package is not a known app.")
    package: str = ""
    activity: str = Field("", description="Android activity, or the sim's route.")


class Observation(BaseModel):
    """What the policy sees after a reset or a step."""

    model_config = ConfigDict(extra="forbid")
    screenshot: bytes = Field(b"", description="PNG or JPEG bytes (base64 in JSON).")
    image_format: Literal["png", "jpeg", "none"] = "png"
    screen: Screen
    elements: list[UIElement] = Field(default_factory=list)
    foreground: Foreground = Field(default_factory=Foreground)
    keyboard_visible: bool = False
    step: int = 0
    timestamp: float = Field(default_factory=time.time)

    @field_serializer("screenshot", when_used="json")
    def _b64(self, v: bytes) -> str:
        return base64.b64encode(v).decode("ascii")

    @field_validator("screenshot", mode="before")
    @classmethod
    def _unb64(cls, v: Any) -> Any:
        if isinstance(v, str):
            return base64.b64decode(v, validate=True)
        return v

    @property
    def width(self) -> int:
        return self.screen.width

    @property
    def height(self) -> int:
        return self.screen.height

    def element(self, index: int) -> UIElement | None:
        if 0 <= index < len(self.elements) and self.elements[index].index == index:
            return self.elements[index]
        return next((e for e in self.elements if e.index == index), None)

    def find(self, text: str | None = None, *, resource_id: str | None = None, class_name: str | None = None,
             contains: bool = False) -> list[UIElement]:
        """Elements matching all given criteria (text matches text or content_desc)."""
        out = []
        for e in self.elements:
            if text is not None:
                hay = (e.text, e.content_desc)
                if contains:
                    if not any(text.lower() in h.lower() for h in hay):
                        continue
                elif text not in hay:
                    continue
            if resource_id is not None and not (e.resource_id == resource_id or e.resource_id.endswith("/" + resource_id)):
                continue
            if class_name is not None and e.class_name != class_name:
                continue
            out.append(e)
        return out

    def describe(self, limit: int = 200) -> str:
        """A compact text rendering of the elements, for prompts and logs."""
        lines = []
        for e in self.elements[:limit]:
            flags = [f for f in ("clickable", "editable", "checkable", "checked", "scrollable", "focused", "selected")
                     if getattr(e, f)]
            lines.append(f"[{e.index}] {e.class_name.rsplit('.', 1)[-1]} {e.label!r} "
                         f"grid={tuple(e.grid_bounds.model_dump().values())} {' '.join(flags)}".rstrip())
        return "\n".join(lines)
