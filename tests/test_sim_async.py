"""Async episodes on real headless Chromium: ``SimEnv``'s async twins and ``Episode``'s.

An async trainer drives many phones from one event loop. These tests check what it relies on:
concurrent episodes on a few shared pages each reach their own verdict, the async and sync
paths see the same screens and states, a fork starts from its parent's exact state, an invalid
action is a report and not an exception, and a caller on the page pool's own loop may await too.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from actionmap.actions import Action
from actionmap.observation import Observation
from sim.env import SimEnv
from transfer.episode_loop import Episode
from transfer.tasks.loader import get_template

pytestmark = pytest.mark.timeout(300)

TASK = "settings.wifi_off"
OPEN_SETTINGS = '{"type": "open_app", "app": "settings"}'
COMPLETE = '{"type": "complete"}'
WIFI_PATH = ("Network & internet", "Internet", "Wi‑Fi")


def wifi_off(obs: Observation, tapped: set[str]) -> str:
    """A scripted policy for ``settings.wifi_off`` that reads only the observation's elements."""
    if obs.foreground.app != "settings":
        return OPEN_SETTINGS
    if "switch" in tapped:
        return COMPLETE
    for e in obs.elements:
        if e.class_name.endswith("Switch") and e.checked and "Airplane" not in e.text:
            tapped.add("switch")
            return json.dumps({"type": "tap", "target": e.index})
    for label in WIFI_PATH:
        hit = next((e for e in obs.elements if e.text == label), None)
        if hit is not None and label not in tapped:
            tapped.add(label)
            return json.dumps({"type": "tap", "target": hit.index})
    return '{"type": "abort"}'


def state_json(state: Any) -> str:
    return json.dumps(state.model_dump(mode="json"), sort_keys=True)


async def one_episode(pool: Any, seed: int, solve: bool) -> tuple[int, bool, Any, int]:
    """Play one episode with the async twins: solve the task, or claim it done at once."""
    ep = Episode(SimEnv(pool=pool, screenshots=False), get_template(TASK).instantiate(seed), max_steps=10)
    obs = await ep.astart()
    tapped: set[str] = set()
    while not ep.over:
        out = await ep.astep(wifi_off(obs, tapped) if solve else COMPLETE)
        obs = out.observation
    verdict = await ep.afinish()
    return seed, solve, verdict, ep.steps


def test_32_concurrent_episodes_from_one_loop_reach_their_own_verdicts(sim_pool: Any) -> None:
    """32 episodes on 2 pages, interleaved by one event loop with no thread each: every solved
    one succeeds and every premature "complete" is judged a false completion, so no episode saw
    another's phone while they took turns on the pages."""

    async def main() -> list[tuple[int, bool, Any, int]]:
        return await asyncio.gather(*(one_episode(sim_pool, seed, seed % 2 == 0) for seed in range(32)))

    results = asyncio.run(main())
    assert len(results) == 32
    for seed, solve, verdict, steps in results:
        if solve:
            assert verdict.success, (seed, verdict)
            assert steps > 2
        else:
            assert not verdict.success and verdict.false_complete, (seed, verdict)
            assert steps == 1
    # they took turns on the profile's pages: no page was opened beyond the pool's cap
    default = SimEnv(pool=sim_pool).profile.name
    assert sum(1 for s in sim_pool._all if not s.dead and s.profile.name == default) <= sim_pool.pages_per_profile


def test_async_and_sync_see_the_same_screens_and_states(sim_pool: Any) -> None:
    """The same actions through ``step`` and ``astep`` give equal observations and states:
    one implementation behind both."""
    inst = get_template(TASK).instantiate(5)
    actions = [Action.parse(OPEN_SETTINGS), Action.parse('{"type": "scroll", "direction": "down"}'),
               Action.parse('{"type": "key", "key": "back"}')]
    sync_env = SimEnv(pool=sim_pool, screenshots=False)
    sync_obs = [sync_env.reset(inst)] + [sync_env.step(a)[0] for a in actions]
    sync_state = state_json(sync_env.read_state())

    async def run_async() -> tuple[list[Observation], str]:
        env = SimEnv(pool=sim_pool, screenshots=False)
        seen = [await env.areset(inst)]
        for a in actions:
            obs, info = await env.astep(a)
            assert info.error is None and info.invalid_action is None
            seen.append(obs)
        seen.append(await env.aobserve())
        state = state_json(await env.aread_state())
        await env.aclose()
        assert env.closed
        return seen, state

    async_obs, async_state = asyncio.run(run_async())
    assert async_state == sync_state
    assert async_obs[-1].foreground == async_obs[-2].foreground  # observing changes nothing
    for a, s in zip(async_obs, sync_obs):
        assert a.foreground == s.foreground and a.step == s.step
        assert [e.model_dump() for e in a.elements] == [e.model_dump() for e in s.elements]
    assert async_obs[1].foreground.app == "settings"


def test_an_async_fork_starts_from_its_parents_exact_state(sim_pool: Any) -> None:
    """A fork's state is its parent's (JSON-equal); they then evolve apart."""

    async def main() -> None:
        parent = SimEnv(pool=sim_pool, screenshots=False)
        await parent.areset(get_template(TASK).instantiate(7))
        await parent.astep(Action.parse(OPEN_SETTINGS))
        forks = [await parent.afork() for _ in range(4)]
        base = state_json(await parent.aread_state())
        assert all(f.capture() == parent.capture() for f in forks)
        assert [state_json(await f.aread_state()) for f in forks] == [base] * 4
        seen = await asyncio.gather(*(f.aobserve() for f in forks))
        assert {o.foreground.app for o in seen} == {"settings"}
        await forks[0].astep(Action.parse('{"type": "key", "key": "home"}'))
        assert state_json(await forks[0].aread_state()) != base
        assert state_json(await parent.aread_state()) == base

    asyncio.run(main())


def test_an_invalid_action_is_reported_not_raised(sim_pool: Any) -> None:
    """A target that is not on screen or an app that does not exist comes back as
    ``StepInfo.invalid_action`` and leaves the phone usable; unparseable text in an async
    episode is an invalid step too."""

    async def main() -> None:
        env = SimEnv(pool=sim_pool, screenshots=False)
        await env.areset(get_template(TASK).instantiate(1))
        _, info = await env.astep(Action.parse('{"type": "tap", "target": 9999}'))
        assert info.invalid_action and "9999" in info.invalid_action and info.error is None
        _, info = await env.astep(Action.parse('{"type": "open_app", "app": "no-such-app"}'))
        assert info.invalid_action and "unknown app" in info.invalid_action
        obs, info = await env.astep(Action.parse(OPEN_SETTINGS))
        assert info.invalid_action is None and obs.foreground.app == "settings"

        ep = Episode(SimEnv(pool=sim_pool, screenshots=False), get_template(TASK).instantiate(1), max_steps=3)
        await ep.astart()
        bad = await ep.astep("not an action at all")
        assert bad.parse_error is not None and bad.invalid and ep.invalid == 1
        off_screen = await ep.astep('{"type": "tap", "target": 9999}')
        assert off_screen.invalid and off_screen.info is not None and ep.invalid == 2

    asyncio.run(main())


def test_a_caller_on_the_pools_own_loop_awaits_directly(sim_pool: Any) -> None:
    """Code already running on the runtime's loop (where the sync API refuses to block) awaits
    the async twins with no hop between loops."""
    rt = sim_pool.rt

    async def on_runtime_loop() -> tuple[str, str]:
        assert asyncio.get_running_loop() is rt.loop
        env = SimEnv(pool=sim_pool, screenshots=False)
        await env.areset(get_template(TASK).instantiate(2))
        obs, info = await env.astep(Action.parse(OPEN_SETTINGS))
        assert info.error is None
        with pytest.raises(RuntimeError, match="runtime thread"):
            env.observe()  # blocking the loop the work needs would deadlock: refused instead
        return obs.foreground.app, (await env.aread_state()).foreground.app

    assert rt.run(on_runtime_loop()) == ("settings", "settings")


def test_sync_and_async_episodes_judge_alike(sim_pool: Any) -> None:
    """``Episode.step`` and ``Episode.astep`` are one phase implementation: the same outputs
    give the same step accounting and verdict."""
    inst = get_template(TASK).instantiate(11)

    def play_sync() -> tuple[Any, int, int, str | None]:
        ep = Episode(SimEnv(pool=sim_pool, screenshots=False), inst, max_steps=10)
        obs, tapped = ep.start(), set()  # type: ignore[var-annotated]
        while not ep.over:
            obs = ep.step(wifi_off(obs, tapped)).observation
        return ep.finish(), ep.steps, ep.invalid, ep.ended_by

    async def play_async() -> tuple[Any, int, int, str | None]:
        ep = Episode(SimEnv(pool=sim_pool, screenshots=False), inst, max_steps=10)
        obs, tapped = await ep.astart(), set()  # type: ignore[var-annotated]
        while not ep.over:
            obs = (await ep.astep(wifi_off(obs, tapped))).observation
        return await ep.afinish(), ep.steps, ep.invalid, ep.ended_by

    s, a = play_sync(), asyncio.run(play_async())
    assert s[0].success and a[0].success
    assert s[1:] == a[1:] and s[3] == "complete"
    assert s[0].progress == a[0].progress


# ------------------------------------------------------------------ the Gymnasium env's twins
def _gym_play(env: Any, texts: list[str]) -> list[tuple[Any, ...]]:
    out = []
    for t in texts:
        obs, reward, term, trunc, info = env.step(t)
        out.append((json.dumps(obs, sort_keys=True, default=str), reward, term, trunc, info.get("invalid_action"),
                    info.get("is_success"), info.get("terminated_by")))
    return out


async def _gym_aplay(env: Any, texts: list[str]) -> list[tuple[Any, ...]]:
    out = []
    for t in texts:
        obs, reward, term, trunc, info = await env.astep(t)
        out.append((json.dumps(obs, sort_keys=True, default=str), reward, term, trunc, info.get("invalid_action"),
                    info.get("is_success"), info.get("terminated_by")))
    return out


def test_gym_env_async_twins_match_sync_and_run_concurrently(sim_pool: Any) -> None:
    """``SimGymEnv.areset/astep`` run the same bodies as ``reset/step``: eight envs driven from one
    event loop each see what one sync env sees for the same texts — an unparseable one is an
    invalid step with its penalty, and a premature "complete" ends the episode judged a failure."""
    from s2r.gym.sim import SimGymEnv

    texts = ["not an action", OPEN_SETTINGS, COMPLETE]
    opts = {"task": TASK, "seed": 5}
    sync = SimGymEnv(task=TASK, pixels=False, pool=sim_pool, invalid_penalty=0.25)
    obs0, info0 = sync.reset(seed=1, options=opts)
    want = _gym_play(sync, texts)
    assert want[0][4] and want[0][1] == -0.25, want[0]  # the invalid text: flagged and penalised
    assert want[-1][2] is True and want[-1][5] is False and want[-1][6] == "complete", want[-1]

    async def main() -> list[Any]:
        envs = [SimGymEnv(task=TASK, pixels=False, pool=sim_pool, invalid_penalty=0.25) for _ in range(8)]
        starts = await asyncio.gather(*(e.areset(seed=1, options=opts) for e in envs))
        plays = await asyncio.gather(*(_gym_aplay(e, texts) for e in envs))
        return [(s, p) for s, p in zip(starts, plays)]

    for (obs, info), got in asyncio.run(main()):
        assert json.dumps(obs, sort_keys=True, default=str) == json.dumps(obs0, sort_keys=True, default=str)
        assert info["instance_id"] == info0["instance_id"]
        assert got == want
