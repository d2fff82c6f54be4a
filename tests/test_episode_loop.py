"""The one episode loop (transfer.episode_loop.Episode) on a real simulated phone: its phases, its
step accounting, and the same verdict whether the runner or the Gymnasium env drives it."""

from __future__ import annotations

from typing import Any

import pytest

from actionmap.errors import ActionParseError, InfraError, PolicyServerError, PolicyServerOutage
from sim.env import SimEnv
from transfer.episode_loop import Episode, EpisodeStateError
from transfer.policies.base import BasePolicy
from transfer.runner import EpisodeSpec, run_episode
from transfer.tasks.loader import get_template

TASK, SEED = "settings.wifi_off", 3
OPEN_SETTINGS = '{"type": "open_app", "app": "settings"}'
COMPLETE = '{"type": "complete"}'


def test_phases_and_step_accounting(sim_pool: Any) -> None:
    inst = get_template(TASK).instantiate(SEED)
    ep = Episode(SimEnv(pool=sim_pool, screenshots=False), inst, max_steps=4)
    with pytest.raises(EpisodeStateError):
        ep.step(OPEN_SETTINGS)  # not started
    first = ep.start()
    assert ep.phase == "running" and ep.before is not None and ep.budget == 4
    bad = ep.step("no action here")
    assert bad.parse_error is not None and bad.invalid == f"{bad.parse_error.kind}: {bad.parse_error.reason}"
    assert bad.observation is first and bad.info is None and (ep.steps, ep.invalid) == (1, 1)
    with pytest.raises(EpisodeStateError):
        ep.finish()  # still running
    opened = ep.step(OPEN_SETTINGS)
    assert opened.action is not None and opened.invalid is None and opened.observation.foreground.app == "settings"
    done = ep.step(COMPLETE)
    assert done.ended_by == "complete" and ep.over and not ep.truncated and ep.phase == "over"
    with pytest.raises(EpisodeStateError, match="over"):
        ep.step(OPEN_SETTINGS)
    verdict = ep.finish()
    assert ep.phase == "judged" and verdict.success is False and verdict.false_complete  # Wi-Fi is still on
    assert ep.teardown() == []  # a sim phone has nothing to undo

    budget = Episode(SimEnv(pool=sim_pool, screenshots=False), inst, max_steps=2)
    budget.start()
    budget.step("x")
    assert budget.step("y").ended_by == "max_steps" and budget.truncated and budget.invalid == 2
    assert budget.finish().success is False


class _Scripted(BasePolicy):
    """Says the given raw outputs in turn (a parse failure stays the policy's fault)."""

    reads_pixels = False

    def __init__(self, outputs: list[str | Exception]):
        super().__init__()
        self.outputs = outputs
        self.i = 0

    def act(self, observation: Any, history: Any) -> Any:
        out = self.outputs[self.i]
        self.i += 1
        if isinstance(out, Exception):
            return out
        try:
            return self.parse(out)
        except ActionParseError as e:
            return e

    @staticmethod
    def parse(text: str) -> Any:
        from actionmap.actions import Action

        return Action.parse(text)


def test_runner_and_gym_judge_alike(sim_pool: Any) -> None:
    from s2r.gym.sim import SimGymEnv

    outputs = ["not an action", OPEN_SETTINGS, COMPLETE]
    inst = get_template(TASK).instantiate(SEED)
    spec = EpisodeSpec(policy="scripted", policy_spec="scripted", task_id=TASK, seed=SEED)
    rec = run_episode(SimEnv(pool=sim_pool, screenshots=False), _Scripted(list(outputs)), inst, spec,
                      backend_info={"flavor": "sim"})
    env = SimGymEnv(task=TASK, pixels=False, pool=sim_pool)
    env.reset(options={"seed": SEED})
    for text in outputs:
        _, _, terminated, truncated, info = env.step(text)
    assert terminated and not truncated
    assert (rec.terminated_by, rec.steps, rec.invalid_actions) == (info["terminated_by"], 3, 1)
    v = info["verdict"]
    assert (rec.success, rec.progress, rec.false_complete) == (v["success"], v["progress"], v["false_complete"])


def test_a_model_server_outage_voids_the_episode_as_infrastructure(sim_pool: Any) -> None:
    down = PolicyServerOutage("http://127.0.0.1:9/v1", "APIConnectionError: refused")
    assert isinstance(down, PolicyServerError) and isinstance(down, InfraError)
    assert not isinstance(down, ActionParseError)  # a server that is down says nothing about the policy
    inst = get_template(TASK).instantiate(SEED)
    spec = EpisodeSpec(policy="scripted", policy_spec="scripted", task_id=TASK, seed=SEED)
    with pytest.raises(PolicyServerOutage) as got:
        run_episode(SimEnv(pool=sim_pool, screenshots=False), _Scripted([OPEN_SETTINGS, down]), inst, spec,
                    backend_info={"flavor": "sim"})
    assert got.value.steps == 1 and str(got.value) == "policy server http://127.0.0.1:9/v1: APIConnectionError: refused"
