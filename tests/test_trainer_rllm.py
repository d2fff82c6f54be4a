"""The rLLM adapter (``experiments/trainers/rllm_env.py``) driven through rLLM's real ``BaseEnv``.

rLLM is not on the package index; its environment interface is kept verbatim in
``tests/fixtures/rllm`` (``SOURCES.md`` there) and put at the end of ``sys.path``, so an installed
rLLM is used instead where there is one. The envs play real simulator episodes (real Chromium),
from threads at once, as rLLM's workflows call them.
"""

from __future__ import annotations

import inspect
import json
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent / "fixtures" / "rllm"))

from rllm.environments.base.base_env import BaseEnv  # noqa: E402

from experiments.trainers.rllm_env import PhoneEnv  # noqa: E402
from transfer.tasks.loader import get_template  # noqa: E402

TASK = "train.calculator.add"


def test_the_adapter_is_rllms_own_base_env_with_nothing_abstract_left() -> None:
    assert issubclass(PhoneEnv, BaseEnv) and inspect.getmodule(BaseEnv).__name__ == "rllm.environments.base.base_env"
    assert not PhoneEnv.__abstractmethods__ and BaseEnv.__abstractmethods__ == {"reset", "step", "from_dict"}
    assert PhoneEnv.is_multithread_safe()


def _episode(seed: int, right: bool, sim_pool) -> tuple[list[float], bool, dict]:
    env = PhoneEnv.from_dict({"task": TASK, "max_steps": 5, "pool": sim_pool})
    env.idx = seed  # BaseEnv's own property
    try:
        obs, info = env.reset({"task": TASK, "seed": seed})
        assert isinstance(obs, str) and info["instruction"] in obs and info["seed"] == seed and env.idx == seed
        rewards = []
        _, r, done, info = env.step("let me think about which button to press")
        rewards.append(r)
        assert not done and info["invalid_action"]
        expected = get_template(TASK).instantiate(seed).answer_sheet.fields[0].expected
        _, r, done, info = env.step(json.dumps({"type": "answer", "fields": {"result": expected if right else -1}}))
        rewards.append(r)
        return rewards, done, info
    finally:
        env.close()


def test_episodes_from_threads_are_judged_and_rewarded(sim_pool) -> None:
    with ThreadPoolExecutor(2) as ex:  # rLLM steps its envs in a thread pool
        right, wrong = ex.map(lambda a: _episode(*a, sim_pool), [(3, True), (4, False)])
    for rewards, done, info in (right, wrong):
        assert done and info["terminated"] and not info["truncated"] and rewards[0] == -0.1
    assert right[2]["verdict"]["success"] and right[0][1] == 1.0
    assert not wrong[2]["verdict"]["success"] and wrong[0][1] == 0.0
