"""A vector env of N simulated phones stepping concurrently on M live pages.

``SimVectorEnv(num_envs=N, pages=M, **Sim-v0 arguments)`` (or
``gym.make_vec("s2r/Sim-v0", num_envs=N, pages=M, ...)``) follows ``gymnasium.vector.VectorEnv``:
batched observations (``gymnasium.vector.utils.concatenate`` of the single space), reward,
terminated and truncated arrays of shape ``(N,)``, and infos as a dict of arrays with
``_key`` masks. Autoreset is Gymnasium's default ``NEXT_STEP`` mode: the step after a
sub-env's episode ended resets it (its action is ignored; reward 0, not terminated).

Each sub-env is a :class:`~s2r.gym.sim.SimGymEnv`; a step runs them on a thread pool, and
the page pool lends its M pages to whichever phones are stepping (``sim.pool``).

Group rollouts: ``reset(options={"group_size": G})`` resets every G-th sub-env and makes the
G − 1 after it exact forks of it, so each group starts from one identical state (GRPO).
``reset_mask`` (a bool array) resets only the sub-envs it marks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from .core import RESET_OPTIONS, check_seed
from .sim import SimGymEnv

VECTOR_OPTIONS: tuple[str, ...] = (*RESET_OPTIONS, "group_size", "reset_mask")


class SimVectorEnv(VectorEnv):
    """N :class:`SimGymEnv` phones as one vector env; see the module docstring."""

    metadata: dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": ["rgb_array"]}

    def __init__(self, num_envs: int = 1, *, pages: int | None = None, pool: Any = None, workers: int | None = None,
                 **env_kwargs: Any):
        from .sim import shared_pool

        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        env_kwargs.pop("max_episode_steps", None)  # Gymnasium's TimeLimit argument; s2r uses max_steps
        self.pool = pool if pool is not None else shared_pool(pages if pages is not None else 2)
        self.num_envs = num_envs
        self.envs: list[SimGymEnv] = [SimGymEnv(pool=self.pool, **env_kwargs) for _ in range(num_envs)]
        first = self.envs[0]
        self.render_mode = first.render_mode
        self.single_observation_space = first.observation_space
        self.single_action_space = first.action_space
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._executor = ThreadPoolExecutor(max_workers=workers or num_envs, thread_name_prefix="s2r-vec")
        self._autoreset = np.zeros(num_envs, dtype=bool)
        self.closed = False

    # --- VectorEnv API ------------------------------------------------------------------------
    def reset(self, *, seed: int | Sequence[int | None] | None = None,
              options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the sub-envs (``seed``: one int → seed, seed+1, …; or one seed per sub-env)."""
        seeds = self._seeds(seed)
        opts, group, mask = self._vector_options(options)
        if seed is not None:
            super().reset(seed=seeds[0])
        roots = [i for i in range(self.num_envs) if mask[i] and i % group == 0]
        done = self._map(lambda i: self.envs[i].reset(seed=seeds[i], options=opts), roots)
        results: dict[int, tuple[Any, dict[str, Any]]] = dict(zip(roots, done))
        for r in roots:  # the rest of each group: exact copies of its first member
            for i in range(r + 1, r + group):
                self.envs[i].close()
                self.envs[i] = self.envs[r].fork()
                results[i] = (self.envs[i].current_observation(), dict(results[r][1], forked_from=r))
        for i in np.flatnonzero(~mask):
            results[int(i)] = (self.envs[i].current_observation(), {})
        self._autoreset[mask] = False
        return self._batch([results[i] for i in range(self.num_envs)])

    def step(self, actions: Sequence[str]) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Step every sub-env on its action (a sequence of N raw policy outputs)."""
        if isinstance(actions, (str, bytes)) or not isinstance(actions, (Sequence, np.ndarray)):
            raise TypeError(f"actions must be a sequence of {self.num_envs} strings, got {type(actions).__name__}")
        if len(actions) != self.num_envs:
            raise ValueError(f"actions must hold one action per sub-env ({self.num_envs}), got {len(actions)}")
        for i, a in enumerate(actions):
            if not isinstance(a, str):
                raise TypeError(f"actions[{i}] must be the policy's raw output as a str, got {type(a).__name__}")

        def one(i: int) -> tuple[Any, float, bool, bool, dict[str, Any]]:
            if self._autoreset[i]:
                obs, info = self.envs[i].reset()
                return obs, 0.0, False, False, info
            return self.envs[i].step(actions[i])

        out = self._map(one, range(self.num_envs))
        rewards = np.array([o[1] for o in out], dtype=np.float64)
        terms = np.array([o[2] for o in out], dtype=np.bool_)
        truncs = np.array([o[3] for o in out], dtype=np.bool_)
        self._autoreset = terms | truncs
        obs, infos = self._batch([(o[0], o[4]) for o in out])
        return obs, rewards, terms, truncs, infos

    def render(self) -> tuple[np.ndarray | None, ...] | None:
        if self.render_mode is None:
            return None
        return tuple(e.render() for e in self.envs)

    def close_extras(self, **kwargs: Any) -> None:
        """Shut the step threads down; the page pool is the process's and stays open."""
        for e in self.envs:
            e.close()
        self._executor.shutdown(wait=True)

    # --- helpers ------------------------------------------------------------------------------
    def _map(self, fn: Callable[[int], Any], idx: Sequence[int] | range) -> list[Any]:
        return list(self._executor.map(fn, idx))

    def _seeds(self, seed: Any) -> list[int | None]:
        if seed is None:
            return [None] * self.num_envs
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            check_seed(seed)
            return [check_seed(int(seed) + i, f"seed + {i}") for i in range(self.num_envs)]
        if isinstance(seed, Sequence) and not isinstance(seed, str):
            if len(seed) != self.num_envs:
                raise ValueError(f"seed must be None, an int or {self.num_envs} seeds, got {len(seed)} seeds")
            return [check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]
        raise TypeError(f"seed must be None, an int or a list of {self.num_envs} ints, got {seed!r}")

    def _vector_options(self, options: Any) -> tuple[dict[str, Any] | None, int, np.ndarray]:
        """(the sub-envs' own reset options, group size, reset mask)."""
        if options is None:
            return None, 1, np.ones(self.num_envs, dtype=bool)
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict (keys {', '.join(VECTOR_OPTIONS)}), got {type(options).__name__}")
        bad = sorted(set(options) - set(VECTOR_OPTIONS))
        if bad:
            raise ValueError(f"unknown reset options {bad}; valid: {', '.join(VECTOR_OPTIONS)}")
        group = options.get("group_size", 1)
        if isinstance(group, bool) or not isinstance(group, (int, np.integer)) or group < 1 \
                or self.num_envs % int(group):
            raise ValueError(f"group_size must be an int >= 1 that divides num_envs={self.num_envs}, got {group!r}")
        mask = options.get("reset_mask")
        if mask is None:
            mask = np.ones(self.num_envs, dtype=bool)
        else:
            mask = np.asarray(mask)
            if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
                raise ValueError(f"reset_mask must be a bool array of shape ({self.num_envs},), got {mask!r}")
            if group > 1:
                raise ValueError("reset_mask and group_size cannot be combined; reset whole groups")
            never = [i for i in range(self.num_envs) if not mask[i] and self.envs[i].instance is None]
            if never:
                raise ValueError(f"sub-envs {never} were never reset; reset_mask must include them")
        own = {k: v for k, v in options.items() if k in RESET_OPTIONS} or None
        return own, int(group), mask

    def _batch(self, results: list[tuple[Any, dict[str, Any]]]) -> tuple[Any, dict[str, Any]]:
        buf = create_empty_array(self.single_observation_space, self.num_envs)
        obs = concatenate(self.single_observation_space, [r[0] for r in results], buf)
        infos: dict[str, Any] = {}
        for i, (_, info) in enumerate(results):
            infos = self._add_info(infos, info, i)
        return obs, infos
