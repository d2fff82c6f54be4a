"""Helpers shared by the sim app tests: a fresh phone, running an oracle skill, checked steps."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from actionmap.actions import Action, Wait
from actionmap.observation import Observation
from actionmap.worldstate import WorldState
from sim import state as sim_state
from sim.env import SimEnv
from transfer.oracle.base import Ctx
from transfer.oracle.drive import run_skill


def fresh(flavor: str, setup: dict[str, Any] | None = None) -> SimEnv:
    env = SimEnv(flavor=flavor, screenshots=False)  # type: ignore[arg-type]
    env.reset(setup)
    return env


def run(env: SimEnv, skill: Callable[..., Any], **kw: Any) -> Any:
    _, _, ret = run_skill(env, lambda ctx: skill(ctx, **kw), flavor=env.flavor, max_steps=120)
    return None if isinstance(ret, Observation) else ret


def step(env: SimEnv, action: Action) -> Observation:
    obs, info = env.step(action)
    assert info.invalid_action is None, info.invalid_action
    assert "page_error" not in info.extra, info.extra["page_error"]
    return obs


def find(obs: Observation, text: str | None = None, **kw: Any):
    return Ctx(obs=obs).find(text, **kw)


def healthy(env: SimEnv) -> WorldState:
    """No JS error on screen, and the whole phone state still validates."""
    obs, info = env.step(Wait(seconds=0))
    assert "page_error" not in info.extra, info.extra["page_error"]
    assert not any("has stopped" in e.text for e in obs.elements)
    sim_state.load(env.capture())
    return env.read_state()
