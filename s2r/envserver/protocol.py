"""What travels between a trainer and ``s2r env serve``: OpenEnv's action, observation and state
types, specialised for a phone.

* :class:`S2RAction` — the policy's raw output (``text``), parsed on the server by
  ``Action.parse``: the server, not the client, decides what the text means, exactly as in a
  paired run on a real phone. Text that is no action is an observation with the reason.
* :class:`S2RObservation` — the instruction, the screenshot (PNG or JPEG, base64, at the size
  asked for), the UI elements with pixel and 0–1000 grid boxes, and ``info`` (the judge's
  verdict when the episode ends). ``reward`` and ``done`` are OpenEnv's own fields.
* :class:`S2RState` — the session: its task, seed, step count, phase and the whole phone as
  JSON (``phone``), which is what a fork copies and what ``reset(state=…)`` restores.
* :class:`ResetOptions` — what ``reset`` accepts; unknown options are refused, not ignored.
"""

from __future__ import annotations

from typing import Any, Literal

from openenv.core.env_server.types import Action as OEAction
from openenv.core.env_server.types import Observation as OEObservation
from openenv.core.env_server.types import State as OEState
from pydantic import BaseModel, ConfigDict, Field, field_validator

SEED_MAX = 2**32 - 1


class S2RAction(OEAction):
    """One policy output, as the model wrote it (JSON action text, or anything else)."""

    text: str = Field(description="The policy's raw output; parsed by actionmap's Action.parse on the server.")


class S2RObservation(OEObservation):
    """The phone after a reset or a step (``done`` / ``reward`` are OpenEnv's fields)."""

    session_id: str = Field(description="This session's id: what fork_of names to copy it.")
    instruction: str = Field("", description="The task as the policy is told it.")
    screenshot: str = Field("", description="The screen, base64 PNG or JPEG ('' without pixels).")
    image_format: Literal["png", "jpeg", "none"] = "none"
    width: int = Field(0, description="Width of the screenshot sent (px).")
    height: int = Field(0, description="Height of the screenshot sent (px).")
    screen_width: int = Field(0, description="The phone's screen width (px): what element bounds refer to.")
    screen_height: int = 0
    elements: list[dict[str, Any]] = Field(default_factory=list,
                                           description="UI elements: text, ids, pixel and 0-1000 grid bounds, state.")
    foreground: dict[str, Any] = Field(default_factory=dict)
    keyboard_visible: bool = False
    step: int = 0
    invalid_action: str | None = Field(None, description="Why the last action was not carried out, if it was not.")
    info: dict[str, Any] = Field(default_factory=dict,
                                 description="Episode facts: task, seed, terminated_by, verdict, is_success, error.")


class S2RState(OEState):
    """The session as a whole (OpenEnv's ``state`` message)."""

    session_id: str = ""
    task: str | None = None
    seed: int | None = None
    phase: str = "new"
    hibernated: bool = False
    phone: str = Field("", description="The whole phone as JSON (reset(state=...) restores it exactly).")


class ResetOptions(BaseModel):
    """``reset``'s arguments. Exactly one way to pick the start: ``fork_of`` (copy a live
    session of this server), ``state`` (a saved phone; ``task`` then names what to judge it
    against), or ``task``/``seed`` (a task instance; neither: a train task drawn by ``seed``)."""

    model_config = ConfigDict(extra="forbid")
    task: str | None = None
    seed: int | None = Field(None, ge=0, le=SEED_MAX)
    state: str | None = Field(None, description="A phone saved from S2RState.phone.")
    fork_of: str | None = Field(None, description="A session of this server to copy exactly.")
    episode_id: str | None = None
    flavor: Literal["sim", "aosp"] | None = None
    profile: str | None = None
    pixels: bool | None = None
    image_format: Literal["png", "jpeg"] | None = None
    image_size: tuple[int, int] | None = None
    quality: int | None = Field(None, ge=1, le=100)
    max_steps: int | None = Field(None, ge=1, le=1000)
    reward: Literal["success", "progress"] | None = None
    invalid_penalty: float | None = Field(None, ge=0, le=100)
    coords: Literal["grid", "norm", "px"] | None = None
    grid: int | None = Field(None, ge=1, le=100000)

    @field_validator("image_size")
    @classmethod
    def _size(cls, v: tuple[int, int] | None) -> tuple[int, int] | None:
        if v is not None and not all(16 <= s <= 4096 for s in v):
            raise ValueError(f"image_size must be (width, height) within 16..4096, got {v}")
        return v


class SessionConfig(BaseModel):
    """How one session's phone is made and shown; fixed at reset (a fork keeps its source's)."""

    model_config = ConfigDict(frozen=True)
    flavor: Literal["sim", "aosp"] = "sim"
    profile: str = "default"
    pixels: bool = True
    image_format: Literal["png", "jpeg"] = "jpeg"
    image_size: tuple[int, int] | None = None
    quality: int = 80
    max_steps: int | None = None
    reward: Literal["success", "progress"] = "success"
    invalid_penalty: float = 0.1
    coords: Literal["grid", "norm", "px"] = "grid"
    grid: int = 1000

    def with_options(self, opts: ResetOptions) -> "SessionConfig":
        """This config with the options a reset set (the rest keep their values)."""
        fields = set(SessionConfig.model_fields)
        changes = {k: v for k, v in opts.model_dump(exclude_unset=True).items() if k in fields and v is not None}
        return self.model_copy(update=changes)
