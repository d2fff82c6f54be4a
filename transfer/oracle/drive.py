"""Running a skill generator against any Env (sim or device)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.env import Env
from actionmap.observation import Observation

from .base import Ctx, OracleError, Skill


def run_skill(env: Env, make: Callable[[Ctx], Skill], *, obs: Observation | None = None, flavor: str = "sim",
              params: dict[str, Any] | None = None, max_steps: int = 80) -> tuple[Observation, int, Any]:
    """Drive ``make(ctx)`` to completion on ``env``; returns (last observation, steps, skill's return value)."""
    ctx = Ctx(obs=obs if obs is not None else env.observe(), flavor=flavor, params=params or {})
    gen = make(ctx)
    steps = 0
    try:
        action = next(gen)
        while True:
            if steps >= max_steps:
                raise OracleError(f"skill exceeded {max_steps} steps")
            o, info = env.step(action)
            steps += 1
            if info.invalid_action:
                raise OracleError(f"oracle action {action.to_json()} was invalid: {info.invalid_action}")
            if info.error:
                raise OracleError(f"step failed: {info.error}")
            action = gen.send(o)
    except StopIteration as stop:
        return ctx.obs, steps, stop.value
