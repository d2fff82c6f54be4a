"""``s2r/Sim-v0``: a Gymnasium env over a simulated phone (``sim.env.SimEnv``).

A phone is only its state; it borrows a live page of a ``sim.pool.SimPool`` for each step, so
many envs (a vector env, the forks of a group rollout) share a few pages. The env is
deterministic: the same seed gives the same task instance, screen and outcome, and
:meth:`SimGymEnv.fork` copies a phone mid-episode exactly (GRPO's identical starting states).
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from typing import Any

from gymnasium.error import ResetNeeded

from actionmap.actions import Action
from actionmap.env import StepInfo
from actionmap.observation import Observation
from actionmap.worldstate import WorldState

from .core import PhoneTaskEnv, _Hooks, check_choice

_pools: dict[int, Any] = {}
_pools_lock = threading.Lock()


def shared_pool(pages: int | None = None) -> Any:
    """The process's page pool with ``pages`` pages per device profile (None: ``sim.env``'s
    default pool). Envs made through ``gym.make`` name a pool by its size, which survives the
    copies Gymnasium makes of an env's arguments; a ``SimPool`` object can be passed directly
    to :class:`SimGymEnv` instead."""
    from sim.env import default_pool

    if pages is None:
        return default_pool()
    if isinstance(pages, bool) or not isinstance(pages, int) or pages < 1:
        raise ValueError(f"pages must be an int >= 1 (live pages per device profile), got {pages!r}")
    with _pools_lock:
        pool = _pools.get(pages)
        if pool is None:
            from sim.pool import SimPool

            pool = _pools[pages] = SimPool(pages_per_profile=pages)
        return pool


class SimGymEnv(PhoneTaskEnv):
    """``s2r/Sim-v0``. Arguments (all keyword):

    * ``task`` — a template id or a list of them; ``split`` — ``train`` (default), ``test`` or
      ``real59``, to sample from when no task is named; ``seed`` — pin the instance seed;
    * ``flavor`` — ``sim`` or ``aosp``; ``profile`` — a device profile (``sim.profiles``);
    * ``max_steps`` — the step budget (default: each task's own); ``reward`` — ``"success"`` or
      ``"progress"``; ``invalid_penalty`` — subtracted for every action not carried out;
    * ``pixels`` — observations carry the screenshot; ``image_size`` — (width, height) to
      scale it to; ``coords``/``grid`` — how the policy writes points (see ``actionmap.parse``);
    * ``pages`` or ``pool`` — which page pool to step on (:func:`shared_pool`).
    """

    def __init__(self, *, task: str | Sequence[str] | None = None, split: str | None = None,
                 seed: int | None = None, flavor: str = "sim", profile: str = "default",
                 max_steps: int | None = None, reward: str = "success", invalid_penalty: float = 0.1,
                 pixels: bool = True, image_size: tuple[int, int] | None = None, coords: str = "grid",
                 grid: int = 1000, pages: int | None = None, pool: Any = None, render_mode: str | None = None):
        from sim.env import SimEnv
        from sim.profiles import FLAVORS, get_profile

        self.flavor = check_choice(flavor, "flavor", FLAVORS)
        self.profile = get_profile(profile)  # ValueError naming the known profiles
        self.pool = pool if pool is not None else shared_pool(pages)
        super().__init__(task=task, split=split, seed=seed, max_steps=max_steps, reward=reward,
                         invalid_penalty=invalid_penalty, pixels=pixels, image_size=image_size, coords=coords,
                         grid=grid, render_mode=render_mode,
                         screen=(self.profile.width_px, self.profile.height_px))
        self.sim = SimEnv(self.profile, self.flavor, pool=self.pool, screenshots=pixels)  # type: ignore[arg-type]

    def _backend_reset(self, instance: Any) -> Observation:
        return self.sim.reset(instance)

    def _backend_step(self, action: Action) -> tuple[Observation, StepInfo]:
        return self.sim.step(action)

    def _backend_state(self) -> WorldState:
        return self.sim.read_state()

    # native async twins: the page pool's own event loop, no thread per env
    async def _abackend_reset(self, instance: Any) -> Observation:
        return await self.sim.areset(instance)

    async def _abackend_step(self, action: Action) -> tuple[Observation, StepInfo]:
        return await self.sim.astep(action)

    async def _abackend_state(self) -> WorldState:
        return await self.sim.aread_state()

    def _backend_capture(self) -> Observation:
        was = self.sim.set_screenshots(True)
        try:
            return self.sim.observe()
        finally:
            self.sim.set_screenshots(was)

    def fork(self) -> "SimGymEnv":
        """An exact copy of this env mid-episode: same phone state, task, step count and RNG.

        The copy and the original then evolve independently; given the same actions they see
        the same observations, rewards and verdicts. Use it for group rollouts (GRPO): one
        ``reset``, then ``fork()`` for each member of the group.
        """
        if self.instance is None:
            raise ResetNeeded("call reset() before fork(): there is no episode to copy")
        twin = copy.copy(self)
        twin.sim = self.sim.fork()
        twin._episode = self._episode.fork(_Hooks(twin)) if self._episode is not None else None
        twin._np_random = copy.deepcopy(self._np_random)
        twin.observation_space = copy.deepcopy(self.observation_space)
        twin.action_space = copy.deepcopy(self.action_space)
        return twin

    def close(self) -> None:
        """A sim phone holds no page between steps; closing only marks it closed."""
        self.sim.close()
