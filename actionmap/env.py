"""The Env protocol: the one surface the simulator and a phone both implement.

``StepInfo.error_kind`` is :data:`actionmap.errors.ErrorKind` (re-exported here).

Modelled on Gymnasium's ``Env`` (reset/step/close) plus ``read_state`` — the judge reads
``WorldState`` from the backend itself rather than from pixels.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from .actions import Action
from .errors import ErrorKind
from .observation import Observation
from .worldstate import WorldState


class StepInfo(BaseModel):
    """What happened when an action was executed, besides the new observation."""

    invalid_action: str | None = Field(None, description="Why the action was not executed, if it was not.")
    clamped: bool = Field(False, description="A point was off screen and was clamped.")
    error: str | None = None
    error_kind: ErrorKind | None = None
    done: bool = Field(False, description="The action ended the episode (complete, abort, answer).")
    timings_ms: dict[str, float] = Field(default_factory=dict)
    extra: dict[str, Any] = Field(default_factory=dict)


@runtime_checkable
class Env(Protocol):
    """A phone a policy can act on: simulated or real."""

    def reset(self, setup: Any = None) -> Observation:
        """Bring the phone to a starting state (a task instance or a state patch) and observe."""
        ...

    def step(self, action: Action) -> tuple[Observation, StepInfo]:
        """Execute one action as real input and observe the result. Never raises on bad actions."""
        ...

    def observe(self) -> Observation:
        ...

    def read_state(self) -> WorldState:
        ...

    def close(self) -> None:
        ...
