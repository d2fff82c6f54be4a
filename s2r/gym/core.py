"""What the simulator's and the phone's Gymnasium environments share: tasks, steps, the judge.

An episode is one task instance (template + seed). ``reset`` samples it, applies its setup on
the backend and reads the ``WorldState`` before; ``step`` takes the policy's raw text, parses
it with ``Action.parse`` and runs it. The episode ends when the policy completes, answers or
aborts (``terminated``) or when its step budget is spent (``truncated``); then the one judge
(``transfer.tasks.judge``) scores it from the states before and after, and ``info["verdict"]``
carries the result. Each env episode is a ``transfer.episode_loop.Episode`` — the same state
machine a ``transfer.runner`` episode runs on — so steps are counted and episodes judged alike.

Rewards come only at the end (the judge needs the final state): ``"success"`` gives 1 for a
successful episode and 0 otherwise, ``"progress"`` the fraction of the task's checks that
passed (1 on success). Every step whose action was not carried out (unparseable text, a
target that is not on screen, an app that is not installed) costs ``invalid_penalty``.
"""

from __future__ import annotations

import asyncio
import difflib
import math
from collections.abc import Mapping, Sequence
from typing import Any, SupportsFloat

import gymnasium as gym
import numpy as np
from gymnasium.error import ResetNeeded

from actionmap.actions import Action
from actionmap.env import StepInfo
from actionmap.errors import StateReadFailed
from actionmap.observation import Observation
from actionmap.worldstate import WorldState
from transfer.episode_loop import Episode, PhaseRun, adrive_phase, drive_phase

from . import spaces as sp

SEED_MAX = 2**32 - 1
"""Seeds (of ``reset`` and of task instances) are ints in [0, SEED_MAX]."""
REWARDS: tuple[str, ...] = ("success", "progress")
COORDS: tuple[str, ...] = ("grid", "norm", "px")
RESET_OPTIONS: tuple[str, ...] = ("task", "seed")
SAMPLE_ATTEMPTS = 10
"""Sampled tasks tried before ``reset`` gives up on a backend that cannot set them up."""


# ------------------------------------------------------------------------------ argument checks
def check_seed(seed: Any, what: str = "seed") -> int | None:
    """``seed`` unchanged if it is None or an int in [0, SEED_MAX]; else TypeError/ValueError."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{what} must be None or an int in [0, {SEED_MAX}], got {type(seed).__name__} {seed!r}")
    if not 0 <= int(seed) <= SEED_MAX:
        raise ValueError(f"{what} must be an int in [0, {SEED_MAX}], got {seed}")
    return int(seed)


def _known_ids(split: str | None = None) -> list[str]:
    from transfer.tasks.loader import load_templates

    return sorted(t.id for t in load_templates(split))


def _unknown_task(tid: str, split: str | None) -> ValueError:
    ids = _known_ids(split)
    close = difflib.get_close_matches(tid, ids, n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    where = f" of split {split!r}" if split else ""
    return ValueError(f"unknown task {tid!r}{where}{hint} Valid task ids ({len(ids)}): {', '.join(ids)}")


def resolve_tasks(task: str | Sequence[str] | None, split: str | None) -> tuple[str, ...]:
    """The template ids an env samples from: ``task`` (one id or a list), else every template
    of ``split`` (default ``train``). Ids named together with a split must belong to it."""
    from transfer.tasks.loader import SPLITS, load_templates

    if split is not None and split not in SPLITS:
        raise ValueError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    if task is None:
        return tuple(t.id for t in load_templates(split or "train"))
    ids = [task] if isinstance(task, str) else task
    if not isinstance(ids, Sequence) or not all(isinstance(t, str) for t in ids):
        raise TypeError(f"task must be a template id or a list of them, got {task!r}")
    if not ids:
        raise ValueError("task is an empty list; name at least one template id")
    known = set(_known_ids(split))
    for t in ids:
        if t not in known:
            raise _unknown_task(t, split)
    return tuple(dict.fromkeys(ids))


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


def check_max_steps(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"max_steps must be None or an int >= 1, got {value!r}")
    if value < 1:
        raise ValueError(f"max_steps must be >= 1 (or None for each task's own budget), got {value}")
    return int(value)


def check_penalty(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating, np.integer)):
        raise TypeError(f"invalid_penalty must be a number >= 0, got {value!r}")
    if not math.isfinite(float(value)) or value < 0:
        raise ValueError(f"invalid_penalty must be a finite number >= 0, got {value}")
    return float(value)


def check_image_size(value: Any) -> tuple[int, int] | None:
    """``(width, height)`` of pixel observations, or None for the screen's own size."""
    if value is None:
        return None
    if (not isinstance(value, Sequence) or len(value) != 2
            or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value)):
        raise TypeError(f"image_size must be None or (width, height) ints, got {value!r}")
    w, h = int(value[0]), int(value[1])
    if not (1 <= w <= sp.COORD_MAX and 1 <= h <= sp.COORD_MAX):
        raise ValueError(f"image_size must be within 1..{sp.COORD_MAX} on both sides, got {value!r}")
    return w, h


def verdict_info(verdict: Any) -> dict[str, Any]:
    """The parts of a ``transfer.tasks.judge.Verdict`` a trainer needs, as plain data."""
    return {"success": verdict.success, "progress": float(verdict.progress),
            "side_effects": list(verdict.side_effects), "undetermined": bool(verdict.undetermined),
            "undetermined_fields": list(verdict.undetermined_fields),
            "false_complete": bool(verdict.false_complete), "over_truncated": bool(verdict.over_truncated)}


def end_reward(verdict: Any, kind: str) -> float:
    """The end-of-episode reward of a judged episode: ``"success"`` 1/0, ``"progress"`` the
    fraction of the task's checks that passed (what every s2r env pays, in process or served)."""
    if kind == "success":
        return 1.0 if verdict.success else 0.0
    return float(verdict.progress)


# ------------------------------------------------------------------------------ the shared env
class _Hooks:
    """A Gymnasium env's backend hooks, as the ``Env`` an :class:`Episode` drives."""

    def __init__(self, env: "PhoneTaskEnv"):
        self.env = env

    def reset(self, instance: Any) -> Observation:
        return self.env._backend_reset(instance)

    def step(self, action: Action) -> tuple[Observation, StepInfo]:
        return self.env._backend_step(action)

    def read_state(self) -> WorldState:
        return self.env._backend_state()

    def end_episode(self) -> Any:
        return self.env._backend_end()

    # async twins (what Episode.astart/astep/afinish await)
    async def areset(self, instance: Any) -> Observation:
        return await self.env._abackend_reset(instance)

    async def astep(self, action: Action) -> tuple[Observation, StepInfo]:
        return await self.env._abackend_step(action)

    async def aread_state(self) -> WorldState:
        return await self.env._abackend_state()


class _EpisodeCalls:
    """What the env's phases ask of an episode, by name: ``drive_phase`` calls ``start(ep)``, and
    ``adrive_phase`` awaits ``astart(ep)`` — so ``reset``/``step`` and ``areset``/``astep`` share
    one body each (written as generators that yield these calls)."""

    @staticmethod
    def start(ep: Episode) -> Observation:
        return ep.start()

    @staticmethod
    async def astart(ep: Episode) -> Observation:
        return await ep.astart()

    @staticmethod
    def step(ep: Episode, action: str) -> Any:
        return ep.step(action)

    @staticmethod
    async def astep(ep: Episode, action: str) -> Any:
        return await ep.astep(action)

    @staticmethod
    def finish(ep: Episode) -> Any:
        return ep.finish()

    @staticmethod
    async def afinish(ep: Episode) -> Any:
        return await ep.afinish()


class PhoneTaskEnv(gym.Env[dict[str, Any], str]):
    """A Gymnasium env over one phone (sim or device): see the module docstring.

    Subclasses connect a backend: ``_backend_reset``, ``_backend_step``, ``_backend_state``,
    ``_backend_capture`` and optionally ``_backend_end``, ``_end_episode`` and ``_skippable``.
    """

    metadata: dict[str, Any] = {"render_modes": ["rgb_array"], "render_fps": 2}
    _episode: Episode | None = None  # the current episode, once one has started

    def __init__(self, *, task: str | Sequence[str] | None, split: str | None, seed: int | None,
                 max_steps: int | None, reward: str, invalid_penalty: float, pixels: bool,
                 image_size: tuple[int, int] | None, coords: str, grid: int, render_mode: str | None,
                 screen: tuple[int, int]):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {self.metadata['render_modes']}, got {render_mode!r}")
        if not isinstance(pixels, bool):
            raise TypeError(f"pixels must be True or False, got {pixels!r}")
        if isinstance(grid, bool) or not isinstance(grid, int) or grid < 1:
            raise ValueError(f"grid must be an int >= 1 (the policy's coordinate maximum), got {grid!r}")
        self.tasks = resolve_tasks(task, split)
        self.split = split
        self.task_seed = check_seed(seed, "seed")
        self.max_steps = check_max_steps(max_steps)
        self.reward_kind = check_choice(reward, "reward", REWARDS)
        self.invalid_penalty = check_penalty(invalid_penalty)
        self.pixels = pixels
        self.image_size = check_image_size(image_size)
        self.coords = check_choice(coords, "coords", COORDS)
        self.grid = grid
        self.render_mode = render_mode
        w, h = self.image_size or screen
        self.frame: tuple[int, int] | None = (h, w) if pixels else None
        self.observation_space = sp.observation_space(self.frame)
        self.action_space = sp.action_space()
        self._episode = None

    # --- backend hooks --------------------------------------------------------------------
    def _backend_reset(self, instance: Any) -> Observation:
        raise NotImplementedError

    def _backend_step(self, action: Action) -> tuple[Observation, StepInfo]:
        raise NotImplementedError

    def _backend_state(self) -> WorldState:
        raise NotImplementedError

    def _backend_capture(self) -> Observation:
        """An observation with a screenshot, whatever ``pixels`` says (for ``render``)."""
        raise NotImplementedError

    # async twins: a backend with native ones overrides these; by default the sync hook runs on
    # a worker thread, so an event loop driving many envs is never blocked by one of them
    async def _abackend_reset(self, instance: Any) -> Observation:
        return await asyncio.to_thread(self._backend_reset, instance)

    async def _abackend_step(self, action: Action) -> tuple[Observation, StepInfo]:
        return await asyncio.to_thread(self._backend_step, action)

    async def _abackend_state(self) -> WorldState:
        return await asyncio.to_thread(self._backend_state)

    def _backend_end(self) -> Any:
        """Undo the episode's setup on the backend; its teardown report (None: nothing to undo)."""
        return None

    def _end_episode(self) -> dict[str, Any]:
        """Backend work once an episode is judged; returns extra ``info`` entries."""
        return {}

    def _skippable(self, error: Exception) -> bool:
        """Whether a failed setup means "this backend cannot run that task" (sample another)."""
        return False

    # --- the current episode ------------------------------------------------------------------
    @property
    def instance(self) -> Any:
        """The current episode's task instance (None before the first ``reset``)."""
        return self._episode.instance if self._episode is not None else None

    @property
    def before(self) -> WorldState | None:
        """The current episode's start state, as the judge reads it."""
        return self._episode.before if self._episode is not None else None

    @property
    def _last(self) -> Observation | None:
        return self._episode.observation if self._episode is not None else None

    @property
    def _steps(self) -> int:
        return self._episode.steps if self._episode is not None else 0

    # --- Gymnasium API ----------------------------------------------------------------------
    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start an episode on a task instance drawn with this env's RNG (``seed`` reseeds it).

        ``options``: ``{"task": id or [ids], "seed": instance seed}`` pick the instance instead.
        """
        return drive_phase(_EpisodeCalls, self._reset(seed, options))

    async def areset(self, *, seed: int | None = None,
                     options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        """:meth:`reset` for an asyncio caller: many envs reset concurrently from one event loop
        (on a simulator, on the page pool's loop, without a thread each)."""
        return await adrive_phase(_EpisodeCalls, self._reset(seed, options))

    def _reset(self, seed: int | None, options: dict[str, Any] | None) -> PhaseRun:
        check_seed(seed, "seed")
        tasks, pinned = self._reset_options(options)
        super().reset(seed=seed)
        skipped: list[str] = []
        for attempt in range(SAMPLE_ATTEMPTS):
            instance = self._draw(tasks, pinned)
            episode = Episode(_Hooks(self), instance, max_steps=self.max_steps, parse=self._parse)
            try:
                obs = yield ("start", (episode,))
            except Exception as e:  # noqa: BLE001 - only setups this backend cannot do are retried
                if (episode.observation is not None  # set up, but its start state could not be read
                        or not (len(tasks) > 1 and self._skippable(e)) or attempt == SAMPLE_ATTEMPTS - 1):
                    raise
                skipped.append(f"{instance.instance_id}: {e}"[:300])
                continue
            break
        self._episode = episode
        out, notes = self._convert(obs)
        info: dict[str, Any] = {"task": instance.template_id, "seed": instance.seed,
                                "instance_id": instance.instance_id, "split": instance.split,
                                "max_steps": episode.budget, **notes}
        if skipped:
            info["skipped"] = skipped
        return out, info

    def _reset_options(self, options: Any) -> tuple[tuple[str, ...], int | None]:
        if options is None:
            return self.tasks, self.task_seed
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a dict (keys {', '.join(RESET_OPTIONS)}), got {type(options).__name__}")
        bad = sorted(set(options) - set(RESET_OPTIONS))
        if bad:
            raise ValueError(f"unknown reset options {bad}; valid: {', '.join(RESET_OPTIONS)}")
        tasks = resolve_tasks(options["task"], None) if options.get("task") is not None else self.tasks
        pinned = check_seed(options["seed"], "options['seed']") if "seed" in options else self.task_seed
        return tasks, pinned

    def _draw(self, tasks: tuple[str, ...], pinned: int | None) -> Any:
        from transfer.tasks.loader import get_template

        tid = tasks[int(self.np_random.integers(len(tasks)))] if len(tasks) > 1 else tasks[0]
        seed = pinned if pinned is not None else int(self.np_random.integers(0, 2**31))
        return get_template(tid).instantiate(seed)

    def step(self, action: str) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """Run the policy's raw output; an unparseable one is a step with ``info["invalid_action"]``."""
        return drive_phase(_EpisodeCalls, self._step(action))

    async def astep(self, action: str) -> tuple[dict[str, Any], SupportsFloat, bool, bool, dict[str, Any]]:
        """:meth:`step` for an asyncio caller (see :meth:`areset`)."""
        return await adrive_phase(_EpisodeCalls, self._step(action))

    def _step(self, action: str) -> PhaseRun:
        if not isinstance(action, str):
            raise TypeError(f"the action must be the policy's raw output as a str, got {type(action).__name__}")
        episode = self._episode
        if episode is None:
            raise ResetNeeded("call reset() before step()")
        if episode.over:
            raise ResetNeeded("the episode is over (terminated or truncated); call reset()")
        step = yield ("step", (episode, action))
        info: dict[str, Any] = {"step": step.step, "action": None, "invalid_action": step.invalid, "clamped": False}
        if step.action is not None and step.info is not None:
            si = step.info
            info["action"] = step.action.to_json()
            info["clamped"] = bool(si.clamped or step.action.clamped)
            if si.error:
                info["error"], info["error_kind"] = si.error, si.error_kind
        reward = -self.invalid_penalty if info["invalid_action"] else 0.0
        truncated = episode.ended_by in ("infra", "max_steps")
        terminated = episode.over and not truncated
        out, notes = self._convert(self._last)
        info.update(notes)
        if terminated or truncated:
            reward += yield from self._finish(episode, info)
        return out, float(reward), terminated, truncated, info

    def _parse(self, text: str) -> Action:
        return Action.parse(text, coords=self.coords, grid=self.grid, screen=self._policy_screen())

    def _finish(self, episode: Episode, info: dict[str, Any]) -> PhaseRun:
        """Judge the episode into ``info``; returns the end-of-episode reward."""
        info["terminated_by"] = episode.ended_by
        if episode.ended_by == "infra":  # the phone's state is unknown: there is nothing to judge
            info["is_success"] = False
            return 0.0
        try:
            verdict = yield ("finish", (episode,))
        except StateReadFailed as e:  # a phone lost at the end: no verdict, not a crash
            info.update(error=f"reading state failed: {type(e.cause).__name__}: {e.cause}"[:500], error_kind="infra",
                        terminated_by="infra", is_success=False)
            return 0.0
        info["verdict"] = verdict_info(verdict)
        info["is_success"] = bool(verdict.success)
        info.update(self._end_episode())
        return end_reward(verdict, self.reward_kind)

    def render(self) -> np.ndarray | None:
        """The current screen as an RGB array (``render_mode="rgb_array"``), at the screen's size."""
        if self.render_mode != "rgb_array":
            return None
        obs = self._last if self._last is not None and self._last.screenshot else self._backend_capture()
        shape = (obs.screen.height, obs.screen.width)
        return sp.decode_frame(obs.screenshot, shape)[0]

    def current_observation(self) -> dict[str, Any]:
        """The last observation again, as fresh objects (callers may keep or change it)."""
        if self._last is None:
            raise ResetNeeded("call reset() first: there is no observation yet")
        return self._convert(self._last)[0]

    # --- helpers -----------------------------------------------------------------------------
    def _policy_screen(self) -> tuple[int, int] | None:
        """The (width, height) that ``coords="px"`` refers to: the image the policy saw."""
        if self.frame is not None:
            return self.frame[1], self.frame[0]
        return (self._last.width, self._last.height) if self._last is not None else None

    def _convert(self, obs: Observation) -> tuple[dict[str, Any], dict[str, Any]]:
        return sp.to_gym(obs, self.instance.prompt() if self.instance is not None else "", self.frame)
