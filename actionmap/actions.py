"""The one action type every policy emits and every backend executes.

``Action`` is the base class of a family of pydantic models discriminated on ``type``;
``AnyAction`` is the tagged union used at boundaries (JSON Schema, validation).
Points are integers on the 0–1000 grid over the full screen. A pointing action may name
an element index of the current observation (``target``) instead of a point; the env
resolves it to the element's centre, so element-reading policies and pixel policies share
one format (as in android_world's JSON action).
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, ClassVar, Literal, Union

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, field_validator, model_validator

from .geometry import GRID, point_to_px

MAX_TEXT = 4096
"""Longest text a ``type`` action may carry; longer text is an invalid action."""

GridInt = Annotated[int, Field(ge=0, le=GRID)]
Point = tuple[GridInt, GridInt]
KeyName = Literal["back", "home", "recents", "enter", "delete"]
Direction = Literal["up", "down", "left", "right"]


def check_text(text: str) -> str:
    """Reject text no phone keyboard could produce: over-long or with control characters.

    Newline and tab are allowed (multi-line fields exist); other C0/C1 controls, and
    unpaired surrogates, are not — they are a sign of corrupt policy output and some
    device input paths would turn them into key events.
    """
    if len(text) > MAX_TEXT:
        raise ValueError(f"text is {len(text)} characters; at most {MAX_TEXT} allowed")
    for ch in text:
        if ch in "\n\t":
            continue
        cat = unicodedata.category(ch)
        if cat == "Cc":
            raise ValueError(f"text contains control character U+{ord(ch):04X}")
        if cat == "Cs":
            raise ValueError(f"text contains an unpaired surrogate U+{ord(ch):04X}")
    return text


class Action(BaseModel):
    """Base of every action. Use :meth:`parse` for untrusted policy output."""

    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)
    type: str
    clamped: bool = Field(False, description="A coordinate was outside the grid and was clamped on parsing.")

    POINTING: ClassVar[bool] = False

    @classmethod
    def parse(cls, raw: Any, **options: Any) -> "Action":
        """Parse untrusted policy output (dict, JSON text, or agent-format text).

        Raises :class:`actionmap.parse.ActionParseError` — and nothing else — on any input.
        See :func:`actionmap.parse.parse_action` for options.
        """
        from .parse import parse_action

        return parse_action(raw, **options)

    @classmethod
    def validate_any(cls, obj: Any) -> "Action":
        """Validate a canonical JSON object into the right subclass."""
        return ACTION_ADAPTER.validate_python(obj)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_defaults=False)


class _Pointing(Action):
    """An action aimed at a point or at an element index of the current observation."""

    POINTING: ClassVar[bool] = True
    point: Point | None = None
    target: int | None = Field(None, ge=0, description="Element index in the current observation.")

    @model_validator(mode="after")
    def _one_of(self) -> "_Pointing":
        if (self.point is None) == (self.target is None):
            raise ValueError("give exactly one of 'point' or 'target'")
        return self

    def px(self, width: int, height: int) -> tuple[int, int] | None:
        return None if self.point is None else point_to_px(self.point, width, height)


class Tap(_Pointing):
    type: Literal["tap"] = "tap"


class DoubleTap(_Pointing):
    type: Literal["double_tap"] = "double_tap"


class LongPress(_Pointing):
    type: Literal["long_press"] = "long_press"
    duration_ms: int = Field(800, ge=100, le=10_000)


class Swipe(Action):
    """A finger moving from ``start`` to ``end`` (use ``scroll`` to express intent instead)."""

    type: Literal["swipe"] = "swipe"
    start: Point = Field(validation_alias=AliasChoices("start", "from"))
    end: Point = Field(validation_alias=AliasChoices("end", "to"))
    duration_ms: int = Field(300, ge=10, le=10_000)


class Drag(Action):
    """Press, hold, move and release — moves items (icons, list rows), unlike a fling."""

    type: Literal["drag"] = "drag"
    start: Point = Field(validation_alias=AliasChoices("start", "from"))
    end: Point = Field(validation_alias=AliasChoices("end", "to"))
    duration_ms: int = Field(1000, ge=100, le=10_000)


class Scroll(Action):
    """Scroll the content so that what lies in ``direction`` comes into view.

    ``down`` reveals content further down (the finger moves up), as in android_world.
    ``point`` or ``target`` anchors the gesture inside a particular scrollable.
    """

    type: Literal["scroll"] = "scroll"
    direction: Direction
    point: Point | None = None
    target: int | None = Field(None, ge=0)


class TypeText(Action):
    """Type ``text`` into the focused field (or ``target``, which is tapped first)."""

    type: Literal["type"] = "type"
    text: str
    clear: bool = False
    submit: bool = False
    target: int | None = Field(None, ge=0)

    @field_validator("text")
    @classmethod
    def _text(cls, v: str) -> str:
        return check_text(v)


class Key(Action):
    type: Literal["key"] = "key"
    key: KeyName


class OpenApp(Action):
    """Open an app by canonical id (see :mod:`actionmap.apps`)."""

    type: Literal["open_app"] = "open_app"
    app: str = Field(min_length=1, max_length=200)


class Wait(Action):
    type: Literal["wait"] = "wait"
    seconds: float = Field(1.0, ge=0.0, le=60.0, allow_inf_nan=False)


AnswerValue = Union[str, int, float, bool, list[Union[str, int, float]]]


class Answer(Action):
    """Report the answer of a query task: named fields (AnswerSheet), e.g. {"answer": "42"}."""

    type: Literal["answer"] = "answer"
    fields: dict[str, AnswerValue]

    @field_validator("fields")
    @classmethod
    def _fields(cls, v: dict[str, Any]) -> dict[str, Any]:
        if not v:
            raise ValueError("an answer needs at least one field")
        for k, val in v.items():
            check_text(k)
            if isinstance(val, str):
                check_text(val)
        return v


class Complete(Action):
    type: Literal["complete"] = "complete"
    message: str = ""


class Abort(Action):
    """The policy judges the task infeasible or gives up."""

    type: Literal["abort"] = "abort"
    reason: str = ""


ACTION_CLASSES: tuple[type[Action], ...] = (
    Tap, DoubleTap, LongPress, Swipe, Drag, Scroll, TypeText, Key, OpenApp, Wait, Answer, Complete, Abort,
)
AnyAction = Annotated[
    Union[Tap, DoubleTap, LongPress, Swipe, Drag, Scroll, TypeText, Key, OpenApp, Wait, Answer, Complete, Abort],
    Field(discriminator="type"),
]
ACTION_ADAPTER: TypeAdapter[Any] = TypeAdapter(AnyAction)
ACTION_TYPES: tuple[str, ...] = tuple(c.model_fields["type"].default for c in ACTION_CLASSES)
TERMINAL_TYPES = frozenset({"complete", "abort", "answer"})
"""Action types that end an episode (an answer is a completion with content)."""
