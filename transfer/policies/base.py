"""The Policy protocol.

A policy sees an :class:`Observation` and returns an :class:`Action` — or the
:class:`ActionParseError` its raw output produced, which the runner records as an invalid
action (the episode goes on; the policy's fault is counted, never a crash) — or, for a policy
behind a model server, the :class:`~actionmap.errors.PolicyServerOutage` of a step the server did
not answer (infrastructure, not the policy's fault: the episode is void and rerun on ``--resume``).
"""

from __future__ import annotations

from typing import Any, Protocol, Union, runtime_checkable

from pydantic import BaseModel, Field

from actionmap.actions import Action
from actionmap.errors import ActionParseError, PolicyServerOutage
from actionmap.observation import Observation

__all__ = ["BasePolicy", "Policy", "PolicyOutput", "PolicyServerOutage", "StepRecord"]

PolicyOutput = Union[Action, ActionParseError, PolicyServerOutage]


class StepRecord(BaseModel):
    """One step of history, as a policy may want to see it."""

    step: int
    action: dict[str, Any] | None = None
    raw: str | None = Field(None, description="The policy's raw output (for model policies).")
    invalid: str | None = None


@runtime_checkable
class Policy(Protocol):
    name: str

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        """Start an episode. ``context`` holds the task instance, backend, flavor, seed."""
        ...

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        ...


class BasePolicy:
    """Convenience base: stores the instruction and context; a checkpoint hash if any."""

    name = "policy"
    checkpoint_hash: str | None = None
    #: Whether ``act`` looks at ``observation.screenshot``. A policy that reads only the UI
    #: elements lets the runner skip the per-step screen capture (the trace keeps the first and
    #: last frames); it sees exactly the same elements either way.
    reads_pixels: bool = True

    def __init__(self) -> None:
        self.instruction = ""
        self.context: dict[str, Any] = {}

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        self.instruction = instruction
        self.context = dict(context)

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:  # pragma: no cover
        raise NotImplementedError

    def act_batch(self, items: list[tuple[Observation, list[StepRecord]]]) -> list[PolicyOutput]:
        """Optional batched acting; the default loops."""
        return [self.act(o, h) for o, h in items]
