"""One session of ``s2r env serve``: a simulated phone, the task it runs and its episode.

A session is live (a :class:`~sim.env.SimEnv` and a :class:`~transfer.episode_loop.Episode`
in memory) or hibernated: its whole self as one compressed JSON text — the phone (~0.04 MB of
state), the task instance's id and seed, the episode's counters and start state. A live phone
holds no page between steps anyway (``sim.pool``), so what hibernation saves is the Python
objects and the last screenshot; waking rebuilds them from that text, and the next step runs
on the phone exactly where it was. So one machine holds many more sessions than it has pages.

Rewards and verdicts are the Gymnasium envs' (``s2r.gym.core``): ``-invalid_penalty`` for each
action not carried out, and at the end 1/0 for success (or the progress fraction) from the one
judge. A backend failure ends the episode as infrastructure (``info["terminated_by"] ==
"infra"``), with no verdict: it is no result of the policy's.
"""

from __future__ import annotations

import json
import time
import uuid
import zlib
from dataclasses import dataclass
from typing import Any

from actionmap.actions import Action
from actionmap.worldstate import WorldState
from transfer.episode_loop import Episode

from . import images
from .errors import BadRequest, ResetNeeded, UnknownTask
from .protocol import ResetOptions, S2RObservation, S2RState, SessionConfig

DEFAULT_BUDGET = 30
"""Step budget of an episode with no task (a restored phone with nothing to judge) and no max_steps."""


@dataclass
class _Live:
    sim: Any  # sim.env.SimEnv
    episode: Episode
    last: S2RObservation | None = None


def _instance(task: str, seed: int) -> Any:
    from s2r.gym.core import _unknown_task
    from transfer.tasks.loader import TemplateError, get_template

    try:
        template = get_template(task)
    except (KeyError, TemplateError, FileNotFoundError) as e:
        raise UnknownTask(str(_unknown_task(task, None))) from e
    return template.instantiate(seed)


def _draw_task(seed: int) -> str:
    import random

    from transfer.tasks.loader import load_templates

    ids = sorted(t.id for t in load_templates("train"))
    return random.Random(seed).choice(ids)


class Session:
    """One phone session; used from the server's event loop only (``busy`` guards hibernation)."""

    def __init__(self, pool: Any, config: SessionConfig, sid: str | None = None):
        self.id = sid or uuid.uuid4().hex
        self.pool = pool
        self.config = config
        self.task: str | None = None
        self.seed: int | None = None
        self.live: _Live | None = None
        self.frozen: bytes | None = None
        self.busy = 0
        self.closed = False
        self.last_used = time.monotonic()

    # --- start --------------------------------------------------------------------------------
    def _sim(self, state: str | None = None) -> Any:
        from sim.env import SimEnv

        c = self.config
        return SimEnv(c.profile, c.flavor, pool=self.pool, image_format=c.image_format, quality=c.quality,
                      screenshots=c.pixels, state=state)

    def _parse(self, text: str) -> Action:
        c = self.config
        screen = c.image_size
        if screen is None and self.live is not None and self.live.last is not None:
            screen = (self.live.last.width or self.live.last.screen_width, self.live.last.height or self.live.last.screen_height)
        return Action.parse(text, coords=c.coords, grid=c.grid, screen=screen)

    async def reset(self, opts: ResetOptions) -> S2RObservation:
        """Start an episode on a task instance, or on a saved phone (see :class:`ResetOptions`)."""
        if opts.fork_of is not None:
            raise BadRequest("fork_of is handled by the session store")
        self.frozen = None
        if opts.state is not None:
            return await self._restore(opts)
        task = opts.task
        seed = opts.seed if opts.seed is not None else int(uuid.uuid4().int % 2**31)
        if task is None:
            task = _draw_task(seed)
        instance = _instance(task, seed)
        self.task, self.seed = task, seed
        sim = self._sim()
        episode = Episode(sim, instance, max_steps=self.config.max_steps, parse=self._parse)
        self.live = _Live(sim, episode)
        obs = await episode.astart()
        return await self._observe(obs, reward=0.0, info=self._episode_info())

    async def _restore(self, opts: ResetOptions) -> S2RObservation:
        from sim import state as st

        try:
            st.load(opts.state or "")
        except Exception as e:  # noqa: BLE001 - any validation failure is the request's
            raise BadRequest(f"state is not a saved phone: {type(e).__name__}: {str(e)[:300]}") from e
        instance = None
        if opts.task is not None:
            instance = _instance(opts.task, opts.seed or 0)
            self.task, self.seed = opts.task, opts.seed or 0
        sim = self._sim(opts.state)
        budget = self.config.max_steps or (None if instance is not None else DEFAULT_BUDGET)
        episode = Episode(sim, instance, max_steps=budget, parse=self._parse)
        self.live = _Live(sim, episode)
        before = await sim.aread_state() if instance is not None else None
        obs = await episode.aattach(before=before)
        return await self._observe(obs, reward=0.0, info=self._episode_info())

    def fork_from(self, src: "Session") -> None:
        """Become an exact copy of ``src`` (same phone text, task, step count): a GRPO group
        member. ``src`` stays as it is."""
        src_live = src.wake()
        self.config, self.task, self.seed = src.config, src.task, src.seed
        sim = src_live.sim.fork()
        episode = src_live.episode.fork(sim)
        episode.parse = self._parse
        self.live = _Live(sim, episode, last=src_live.last.model_copy(update={"session_id": self.id})
                          if src_live.last is not None else None)

    async def first_observation(self) -> S2RObservation:
        """A fork's first observation: its source's last one (the screens are the same)."""
        live = self.wake()
        if live.last is not None:
            return live.last
        obs = await live.sim.aobserve()
        return await self._observe(obs, reward=0.0, info=self._episode_info())

    # --- step ---------------------------------------------------------------------------------
    async def step(self, text: str) -> S2RObservation:
        live = self.wake()
        ep = live.episode
        if ep.phase == "new":
            raise ResetNeeded("no episode yet: call reset first")
        if ep.over:
            raise ResetNeeded(f"the episode is over ({ep.ended_by}): call reset to start another")
        out = await ep.astep(text)
        obs = out.observation if out.observation is not None else await live.sim.aobserve()
        reward = -self.config.invalid_penalty if out.invalid else 0.0
        info = self._episode_info()
        if out.info is not None:
            info["action"] = out.action.to_json() if out.action is not None else None
            if out.info.error:
                info["error"], info["error_kind"] = out.info.error, out.info.error_kind
        if ep.over:
            reward += await self._judge(ep, info)
        return await self._observe(obs, reward=reward, info=info, invalid=out.invalid, done=ep.over)

    async def _judge(self, ep: Episode, info: dict[str, Any]) -> float:
        from s2r.gym.core import end_reward, verdict_info

        info["terminated_by"] = ep.ended_by
        info["is_success"] = False
        if ep.ended_by == "infra":  # the phone's state is unknown: nothing to judge
            info["error_kind"] = "infra"
            return 0.0
        if ep.before is None:  # a restored phone with no task: nothing to judge against
            info["verdict"] = None
            return 0.0
        try:
            verdict = await ep.afinish()
        except Exception as e:  # noqa: BLE001 - a state that cannot be read is infrastructure
            info.update(error=f"reading state failed: {type(e).__name__}: {e}"[:500], error_kind="infra",
                        terminated_by="infra")
            return 0.0
        info["verdict"] = verdict_info(verdict)
        info["is_success"] = bool(verdict.success)
        return end_reward(verdict, self.config.reward)

    def _episode_info(self) -> dict[str, Any]:
        live = self.live
        inst = live.episode.instance if live is not None else None
        info: dict[str, Any] = {"task": self.task, "seed": self.seed,
                                "max_steps": live.episode.budget if live is not None else None}
        if inst is not None:
            info.update(instance_id=inst.instance_id, split=inst.split)
        return info

    async def _observe(self, obs: Any, *, reward: float, info: dict[str, Any], invalid: str | None = None,
                       done: bool = False) -> S2RObservation:
        shot, fmt, w, h = await images.screenshot(obs, self.config)
        inst = self.live.episode.instance if self.live is not None else None
        out = S2RObservation(
            session_id=self.id, instruction=inst.prompt() if inst is not None else "", screenshot=shot,
            image_format=fmt, width=w, height=h, screen_width=obs.width, screen_height=obs.height,
            elements=[e.model_dump(mode="json") for e in obs.elements],
            foreground=obs.foreground.model_dump(mode="json"), keyboard_visible=obs.keyboard_visible,
            step=self.live.episode.steps if self.live is not None else 0, invalid_action=invalid, info=info,
            reward=reward, done=done)
        if self.live is not None:
            self.live.last = out
        return out

    # --- hibernation --------------------------------------------------------------------------
    def hibernate(self) -> bool:
        """Fold the live session into its JSON text; False when it is busy, closed or already asleep."""
        live = self.live
        if live is None or self.busy or self.closed:
            return False
        ep = live.episode
        payload = {
            "config": self.config.model_dump(mode="json"), "task": self.task, "seed": self.seed,
            "phone": live.sim.capture(), "sim_step": live.sim._step, "foreground": live.sim._foreground,
            "episode": {"phase": ep.phase, "budget": ep.budget, "steps": ep.steps, "invalid": ep.invalid,
                        "ended_by": ep.ended_by, "final": ep.final.to_json() if ep.final is not None else None,
                        "before": ep.before.model_dump(mode="json") if ep.before is not None else None},
        }
        self.frozen = zlib.compress(json.dumps(payload, separators=(",", ":")).encode(), 6)
        self.live = None
        return True

    def wake(self) -> _Live:
        """The live session, rebuilt from its hibernated text if it was asleep."""
        if self.live is not None:
            return self.live
        if self.frozen is None:
            raise ResetNeeded("no episode yet: call reset first")
        p = json.loads(zlib.decompress(self.frozen))
        self.config = SessionConfig.model_validate(p["config"])
        sim = self._sim(p["phone"])
        sim._step, sim._foreground = p["sim_step"], p["foreground"]
        e = p["episode"]
        instance = _instance(p["task"], p["seed"]) if p["task"] is not None and e["before"] is not None else None
        ep = Episode(sim, instance, max_steps=e["budget"] or None, parse=self._parse)
        ep.budget = e["budget"]
        ep.phase, ep.steps, ep.invalid, ep.ended_by = e["phase"], e["steps"], e["invalid"], e["ended_by"]
        ep.final = Action.validate_any(e["final"]) if e["final"] is not None else None
        ep.before = WorldState.model_validate(e["before"]) if e["before"] is not None else None
        self.live = _Live(sim, ep)
        self.frozen = None
        return self.live

    @property
    def hibernated(self) -> bool:
        return self.live is None and self.frozen is not None

    def frozen_bytes(self) -> int:
        return len(self.frozen) if self.frozen is not None else 0

    def state(self) -> S2RState:
        if self.live is None and self.frozen is not None:
            p = json.loads(zlib.decompress(self.frozen))
            return S2RState(session_id=self.id, task=self.task, seed=self.seed, phase=p["episode"]["phase"],
                            step_count=p["episode"]["steps"], hibernated=True, phone=p["phone"])
        live = self.live
        return S2RState(session_id=self.id, task=self.task, seed=self.seed,
                        phase=live.episode.phase if live else "new", step_count=live.episode.steps if live else 0,
                        phone=live.sim.capture() if live else "")
