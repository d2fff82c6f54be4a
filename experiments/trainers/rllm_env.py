"""rLLM environment over s2r's simulator: ``PhoneEnv``, an rLLM ``BaseEnv`` that plays phone tasks in process.

Why: rLLM trains agents through workflows that own an env and call its ``reset(task)`` and
``step(action)`` (in a thread pool, one env per rollout). This adapter makes that env an s2r
``SimGymEnv`` (pages of a shared headless Chromium, no server between), so rLLM's trainers get
phone episodes scored by s2r's judge.

What rLLM's ``BaseEnv`` asks, and how it is met here:

* ``reset()`` (abstract) -> ``(observation, info)``. rLLM calls it as ``reset(task)`` or
  ``reset(task=task)`` with the dataset row; a row ``{"task": "<template id>", "seed": N}`` picks
  the instance (no row: the env's own task list and RNG).
* ``step(action)`` (abstract) -> ``(observation, reward, done, info)`` — four values, not
  Gymnasium's five: ``done`` is terminated or truncated, and ``info`` says which
  (``terminated``/``truncated``), with the judge's ``verdict`` and ``is_success`` once done. The
  action is the model's raw text, or rLLM's ``Action`` wrapping it (its ``.action``).
* ``from_dict(info)`` (abstract, static) builds an env from a dict (the task row merged with the
  configured env args); ``close()``; ``is_multithread_safe()`` — True: every call goes through
  the page pool's own event loop, so envs may step from any threads at once.

The observation is the policy's next user turn as text (``gym_prompt.observation_text``: the task
on reset, what the last step did after it, the UI elements); ``observation="gym"`` gives the
Gymnasium dict instead. The reward is the env's: at the end the judge's success (or progress),
and ``-invalid_penalty`` on every step whose text was not carried out. Members of a GRPO group
reset on the same row start from the same phone (the env is deterministic).

rLLM is an optional dependency, and the adapter is rLLM's own ``BaseEnv`` or nothing: without
rLLM importing this module fails and says how to install it (rLLM is installed from its
repository; the test suite keeps rLLM's interface file verbatim, ``tests/fixtures/rllm``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from experiments.trainers.gym_prompt import observation_text

try:
    from rllm.environments.base.base_env import BaseEnv
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("experiments.trainers.rllm_env needs rLLM (`pip install` it from rLLM's repository, "
                      "rllm-org/rllm); it is not on the package index") from e

OBSERVATIONS: tuple[str, ...] = ("text", "gym")


class PhoneEnvArgs(BaseModel):
    """The env's arguments (``from_dict`` reads these keys; any other key of the row is ignored)."""

    model_config = ConfigDict(extra="ignore")

    task: str | list[str] | None = Field(None, description="Template id(s) to play; None: every one of split.")
    seed: int | None = Field(None, ge=0, le=2**32 - 1, description="Pin the instance seed.")
    split: str | None = None
    flavor: str = "sim"
    max_steps: int | None = Field(None, ge=1, description="Step budget (None: each task's own).")
    reward: str = "success"
    invalid_penalty: float = Field(0.1, ge=0)
    pages: int | None = Field(None, ge=1, description="Live pages per device profile of the shared pool.")
    observation: str = Field("text", description="'text' (the user turn) or 'gym' (the Gymnasium dict).")
    max_elements: int = Field(40, ge=0)


class PhoneEnv(BaseEnv):
    """An rLLM env over one simulated phone: see the module docstring."""

    def __init__(self, *, task: str | Sequence[str] | None = None, seed: int | None = None, split: str | None = None,
                 flavor: str = "sim", max_steps: int | None = None, reward: str = "success",
                 invalid_penalty: float = 0.1, pages: int | None = None, observation: str = "text",
                 max_elements: int = 40, pool: Any = None):
        from s2r.gym.sim import SimGymEnv

        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be one of {', '.join(OBSERVATIONS)}, got {observation!r}")
        self.observation, self.max_elements = observation, max_elements
        self.gym = SimGymEnv(task=task if task is None or isinstance(task, str) else list(task), seed=seed,
                             split=split, flavor=flavor, max_steps=max_steps, reward=reward,
                             invalid_penalty=invalid_penalty, pixels=False, pages=pages, pool=pool)

    @staticmethod
    def from_dict(info: dict) -> PhoneEnv:
        """An env from a dict of :class:`PhoneEnvArgs` keys (a ``pool`` object may ride along)."""
        args = PhoneEnvArgs.model_validate(dict(info))
        return PhoneEnv(**args.model_dump(), pool=info.get("pool"))

    @staticmethod
    def is_multithread_safe() -> bool:
        return True

    def reset(self, task: Mapping[str, Any] | None = None, *, seed: int | None = None) -> tuple[Any, dict]:
        """Start an episode on ``task``'s instance (``{"task": id, "seed": N}``), else a sampled one."""
        options = None
        if task is not None:
            if not isinstance(task, Mapping):
                raise TypeError(f"task must be a dict with 'task' (and 'seed'), got {type(task).__name__}")
            options = {k: task[k] for k in ("task", "seed") if task.get(k) is not None}
        obs, info = self.gym.reset(seed=seed, options=options or None)
        info = {**info, "instruction": obs["instruction"]}
        return self._observe(obs, None), info

    def step(self, action: Any) -> tuple[Any, float, bool, dict]:
        """Run the model's text (or an rLLM ``Action`` wrapping it); rLLM's 4-tuple."""
        text = getattr(action, "action", action)
        if not isinstance(text, str):
            raise TypeError(f"the action must be the model's text (or an Action holding it), got {type(text).__name__}")
        obs, reward, terminated, truncated, info = self.gym.step(text)
        info = {**info, "terminated": bool(terminated), "truncated": bool(truncated)}
        return self._observe(obs, info), float(reward), bool(terminated or truncated), info

    def close(self) -> None:
        self.gym.close()

    def _observe(self, obs: dict[str, Any], info: dict[str, Any] | None) -> Any:
        if self.observation == "gym":
            return obs
        return observation_text(obs, max_elements=self.max_elements, info=info)
