"""The oracle as a Policy: runs the scripted solution of the episode's task template.

It sees only observations (it finds elements by text, id and role), so run on a device it
measures the bridge: a task the oracle fails on a phone but solves in the sim is a bridge
fault, not the policy's.
"""

from __future__ import annotations

from typing import Any

from actionmap.actions import Abort, Complete
from actionmap.observation import Observation

from ..oracle.base import Ctx, OracleError, Skill
from .base import BasePolicy, PolicyOutput, StepRecord


class OraclePolicy(BasePolicy):
    reads_pixels = False  # UI elements only
    name = "oracle"

    def __init__(self) -> None:
        super().__init__()
        self._gen: Skill | None = None
        self._ctx: Ctx | None = None
        self._done = False

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        super().reset(instruction, context)
        self._gen, self._ctx, self._done = None, None, False

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        if self._done:
            return Complete(message="oracle finished")
        try:
            if self._gen is None:
                from ..oracle.solutions import solution_for

                inst = self.context.get("instance")
                if inst is None:
                    return Abort(reason="oracle needs the task instance in its context")
                make = solution_for(inst.template_id)
                if make is None:
                    self._done = True
                    return Abort(reason=f"no oracle solution for {inst.template_id}")
                self._ctx = Ctx(obs=observation, flavor=self.context.get("flavor", "sim"), params=dict(inst.params),
                                families=dict(self.context.get("app_families") or {}))
                self._gen = make(self._ctx, inst)
                return next(self._gen)
            assert self._ctx is not None
            self._ctx.steps += 1
            return self._gen.send(observation)
        except StopIteration:
            self._done = True
            return Complete(message="oracle finished")
        except OracleError as e:
            self._done = True
            return Abort(reason=f"oracle: {e}"[:500])
