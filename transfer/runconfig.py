"""How a run executes its episodes: one typed, validated value handed from the CLI to the executors.

``s2r run``/``paired``/``demo`` build a :class:`RunConfig` from their flags; a
:class:`~transfer.session.Session` hands it to the executor it builds (this machine's
:class:`~transfer.runner.LocalExecutor` or a cluster's ``RayExecutor``), and the executor to
every episode it runs. Nothing about a run's execution is read from ambient state.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_MAX_POLICY_OUTAGES = 5
"""Policy-server outage episodes in a row that stop a run, unless a run says otherwise."""


class RunConfig(BaseModel):
    """The execution choices of a run (the same on every executor).

    ``max_attempts``: tries of an episode after infrastructure errors, each on a fresh backend;
    ``max_policy_outages``: policy-server outage episodes in a row (per policy) that stop the run
    (0: never); ``traces``: write each episode's trace (frames, steps, verdict);
    ``trace_width``: the width its frames are scaled to; ``frames``: ``"auto"`` captures the
    screen at every step only for a policy that reads pixels (one that reads only UI elements gets
    the same elements, and its trace keeps the first and last frames), ``"all"`` at every step.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)
    max_attempts: int = Field(3, ge=1)
    max_policy_outages: int = Field(DEFAULT_MAX_POLICY_OUTAGES, ge=0)
    traces: bool = True
    trace_width: int = Field(270, ge=16)
    frames: Literal["auto", "all"] = "auto"
    record: tuple[Literal["video"], ...] = ()

    @property
    def video(self) -> bool:
        return "video" in self.record
