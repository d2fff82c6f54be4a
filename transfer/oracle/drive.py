"""Running a skill generator against any Env (sim or device), one step of an episode at a time."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.env import Env
from actionmap.observation import Observation

from ..episode_loop import Episode
from .base import Ctx, OracleError, Skill


def run_skill(env: Env, make: Callable[[Ctx], Skill], *, obs: Observation | None = None, flavor: str = "sim",
              params: dict[str, Any] | None = None, max_steps: int = 80) -> tuple[Observation, int, Any]:
    """Drive ``make(ctx)`` to completion on ``env``; returns (last observation, steps, skill's return value).

    The skill acts on the screen as it is (an attached :class:`~transfer.episode_loop.Episode`:
    no setup, nothing judged); an action that was not carried out, or a step that failed, stops it
    with :class:`OracleError`.
    """
    episode = Episode(env, max_steps=max_steps)
    ctx = Ctx(obs=episode.attach(obs), flavor=flavor, params=params or {})
    gen = make(ctx)
    try:
        action = next(gen)
        while True:
            if episode.steps >= max_steps:
                raise OracleError(f"skill exceeded {max_steps} steps")
            if episode.over:
                raise OracleError(f"skill acted after {episode.ended_by} ended the episode: {action.to_json()}")
            step = episode.step(action)
            if step.invalid:
                raise OracleError(f"oracle action {action.to_json()} was invalid: {step.invalid}")
            if step.info is not None and step.info.error:
                raise OracleError(f"step failed: {step.info.error}")
            action = gen.send(step.observation)
    except StopIteration as stop:
        return ctx.obs, episode.steps, stop.value
