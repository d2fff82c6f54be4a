"""``s2r bench env``: what serving the simulator over the wire costs, measured, as one JSON object.

A trainer that drives phones through ``s2r env serve`` pays for the WebSocket, the JSON (a
base64 screenshot every step), the server's sessions and a second Python process. This bench
puts a number on each, against the same phones driven in-process:

* steps/s — ``sessions`` phones stepping for ``duration`` seconds with a screenshot every step
  on ``pages`` live pages: in-process (``SimEnv.astep`` from one event loop) and over the wire
  (``S2REnv`` clients in this process, the server in a subprocess), the same actions (scroll
  down, scroll up: cheap, valid, and each one changes the screen) from the same task and seed;
* latency over the wire, one session at a time: a step, a task+seed reset, a fork;
* memory of the server's process tree per live and per hibernated session, and how many
  sessions one server keeps alive on a few pages (the oldest, asleep, must wake and answer).

Each figure travels with its conditions (sessions, pages, duration, format, CPUs) so it is never
read without them; :data:`TARGETS` are the issue's, and each is recorded as met or not.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, Field

from sim.bench import _load, _p

from .bench_memory import ServerProcess, settled_memory, stats, tree_cpu_s, tree_pids

SCROLLS = ('{"type": "scroll", "direction": "down"}', '{"type": "scroll", "direction": "up"}')
"""The actions every session cycles through, as policy text (the server parses it)."""

ALIVE_MAX_LIVE = 8
"""``--max-live`` of the server that holds ``alive`` sessions: all but this many sleep."""

OPEN_CONCURRENCY = 16
"""Sessions opened (connected and reset) at once."""

TARGETS: dict[str, tuple[str, float]] = {
    "server_vs_inprocess_ratio": (">=", 0.9),  # 64 sessions, 2 cores, a screenshot every step
    "sessions_alive_max": (">=", 1000),  # hibernated, on 4 live pages
    "reset_ms_p50": ("<=", 100.0),
    "fork_ms_p50": ("<=", 100.0),
}
"""The issue's targets for ``s2r bench env`` on a 2-core machine."""


class EnvBenchConfig(BaseModel):
    """What one run of the bench measures."""

    sessions: int = Field(64, ge=1, description="Sessions stepping at once for steps/s.")
    pages: int = Field(4, ge=1, description="Live pages, in-process and on the server.")
    duration: float = Field(20.0, gt=0, description="Seconds of each throughput run.")
    alive: int = Field(1000, ge=1, description="Sessions opened and kept alive on one server.")
    task: str = "train.settings.flashlight_on"
    seed: int = 0
    image_format: str = "jpeg"
    reps: int = Field(12, ge=2, description="Samples of each single-session latency.")


def target_rows(out: dict[str, Any]) -> list[tuple[str, Any, str, bool | None]]:
    """(figure, measured, target, met) for each target; met is None when it was not measured."""
    rows = []
    for key, (way, target) in TARGETS.items():
        v = out.get(key)
        met = None if not isinstance(v, (int, float)) else (v <= target if way == "<=" else v >= target)
        rows.append((key, v, f"{way} {target:g}", met))
    return rows


def _ms(xs: list[float], q: float) -> float:
    return round(_p(xs, q) * 1e3, 1)


async def _drive(steppers: list[Callable[[int], Awaitable[Any]]], seconds: float) -> tuple[int, float, list[float]]:
    """Every stepper steps (its ``i``-th step) until ``seconds`` pass; (steps, seconds taken to the
    last step's end, each step's latency). Steps in flight at the deadline finish and count."""
    lat: list[float] = []
    stop = time.perf_counter() + seconds

    async def worker(step: Callable[[int], Awaitable[Any]]) -> None:
        i = 0
        while time.perf_counter() < stop:
            t = time.perf_counter()
            await step(i)
            lat.append(time.perf_counter() - t)
            i += 1

    t0 = time.perf_counter()
    await asyncio.gather(*(worker(s) for s in steppers))
    return len(lat), time.perf_counter() - t0, lat


async def _bounded(n: int, make: Callable[[int], Awaitable[Any]], limit: int = OPEN_CONCURRENCY) -> list[Any]:
    sem = asyncio.Semaphore(limit)

    async def one(i: int) -> Any:
        async with sem:
            return await make(i)

    return list(await asyncio.gather(*(one(i) for i in range(n))))


# --- in-process -----------------------------------------------------------------------------
async def _inprocess(cfg: EnvBenchConfig) -> dict[str, Any]:
    """``sessions`` SimEnvs on a pool of ``pages``, stepped with ``astep`` from this loop."""
    from actionmap.actions import Scroll
    from sim.env import SimEnv
    from sim.pool import SimPool
    from sim.profiles import get_profile
    from sim.runtime import Runtime
    from transfer.tasks.loader import get_template

    rt = Runtime.get()
    prof = get_profile("default")
    await rt.arun(rt.ensure_browser(prof.dpr))
    pool = SimPool(rt, pages_per_profile=cfg.pages)
    await rt.arun(pool.warm(prof, cfg.pages))
    actions = [Scroll(direction="down"), Scroll(direction="up")]
    inst = get_template(cfg.task).instantiate(cfg.seed)
    envs = [SimEnv(prof, pool=pool, image_format=cfg.image_format, quality=80, screenshots=True)
            for _ in range(cfg.sessions)]
    try:
        await asyncio.gather(*(e.areset(inst) for e in envs))

        async def check(e: SimEnv, i: int) -> None:
            _, info = await e.astep(actions[i % 2])
            if info.error or info.invalid_action:
                raise RuntimeError(f"in-process step failed: {info.error or info.invalid_action}")

        for i in range(2):  # warm-up: every phone loaded into a page and stepped
            await asyncio.gather(*(check(e, i) for e in envs))
        one = envs[0]
        single = []
        for i in range(cfg.reps):
            t = time.perf_counter()
            await check(one, i)
            single.append(time.perf_counter() - t)
        pids = tree_pids(os.getpid())
        cpu0 = tree_cpu_s(os.getpid())
        n, took, lat = await _drive([lambda i, e=e: check(e, i) for e in envs], cfg.duration)
        cpu = tree_cpu_s(os.getpid()) - cpu0
    finally:
        await rt.arun(pool.close())
    return {"steps_per_s_inprocess": round(n / took, 2), "steps_inprocess": n,
            "cpu_ms_per_step_inprocess": round(cpu / max(1, n) * 1e3, 1),
            "step_ms_inprocess_p50": _ms(single, 0.5), "step_ms_inprocess_loaded_p50": _ms(lat, 0.5),
            "inprocess_processes": len(pids)}


# --- over the wire --------------------------------------------------------------------------
async def _open(url: str, cfg: EnvBenchConfig) -> Any:
    from .client import S2REnv

    env = S2REnv(url)
    await env.connect()
    r = await env.reset(task=cfg.task, seed=cfg.seed, max_steps=1000)
    if not r.observation.screenshot:
        raise RuntimeError("a reset over the wire came back without a screenshot")
    return env


async def _step(env: Any, i: int) -> Any:
    from .protocol import S2RAction

    r = await env.step(S2RAction(text=SCROLLS[i % 2]))
    obs = r.observation
    if obs.invalid_action or obs.info.get("error") or not obs.screenshot or r.done:
        raise RuntimeError(f"a step over the wire failed: {obs.invalid_action or obs.info.get('error') or 'done'}")
    return r


async def _close_all(envs: list[Any]) -> None:
    await asyncio.gather(*(e.close() for e in envs), return_exceptions=True)


async def _warm_pages(url: str, cfg: EnvBenchConfig) -> None:
    """One session per page, stepped, then closed: the pages are open and have drawn both screens."""
    envs = await _bounded(cfg.pages, lambda _: _open(url, cfg))
    try:
        for i in range(3):
            await asyncio.gather(*(_step(e, i) for e in envs))
    finally:
        await _close_all(envs)


async def _served(srv: ServerProcess, cfg: EnvBenchConfig) -> dict[str, Any]:
    """Live memory per session, steps/s of ``sessions`` clients, then one-at-a-time latencies."""
    from .client import S2REnv

    out: dict[str, Any] = {}
    await _warm_pages(srv.url, cfg)
    mem0 = settled_memory(srv.pid)
    envs = await _bounded(cfg.sessions, lambda _: _open(srv.url, cfg))
    try:
        await asyncio.gather(*(_step(e, 0) for e in envs))  # each holds its last observation
        mem1 = settled_memory(srv.pid)
        live = stats(srv.url)
        if live["sessions"] != cfg.sessions or live["live"] != cfg.sessions:
            raise RuntimeError(f"expected {cfg.sessions} live sessions, the server has {live}")
        out["server_mb_base"] = mem0.rss_mb
        out["mb_per_session_live"] = round((mem1.rss_mb - mem0.rss_mb) / cfg.sessions, 3)
        out["pss_mb_per_session_live"] = round((mem1.pss_mb - mem0.pss_mb) / cfg.sessions, 3)
        await asyncio.gather(*(_step(e, 1) for e in envs))  # warm-up
        me = os.getpid()
        cpu_srv0, cpu_cli0 = tree_cpu_s(srv.pid), tree_cpu_s(me)
        n, took, lat = await _drive([lambda i, e=e: _step(e, i) for e in envs], cfg.duration)
        cpu_srv, cpu_cli = tree_cpu_s(srv.pid) - cpu_srv0, tree_cpu_s(me) - cpu_cli0
    finally:
        await _close_all(envs)
    out.update(steps_per_s_server=round(n / took, 2), steps_server=n,
               step_ms_loaded_p50=_ms(lat, 0.5), step_ms_loaded_p95=_ms(lat, 0.95),
               cpu_ms_per_step_server=round(cpu_srv / max(1, n) * 1e3, 1),
               cpu_ms_per_step_client=round(cpu_cli / max(1, n) * 1e3, 1))

    # one session at a time: a step, a reset, a fork (connect + reset(fork_of)), over the wire
    env = await _open(srv.url, cfg)
    try:
        steps, resets, forks, fork_msgs, connects = [], [], [], [], []
        for i in range(cfg.reps + 2):
            t = time.perf_counter()
            await _step(env, i)
            if i >= 2:
                steps.append(time.perf_counter() - t)
        for _ in range(cfg.reps + 1):
            t = time.perf_counter()
            await env.reset(task=cfg.task, seed=cfg.seed, max_steps=1000)
            resets.append(time.perf_counter() - t)
        await _step(env, 0)
        for _ in range(cfg.reps + 1):
            assert env.session_id is not None
            twin = S2REnv(srv.url)
            t = time.perf_counter()
            await twin.connect()
            t1 = time.perf_counter()
            r = await twin.reset(fork_of=env.session_id)
            t2 = time.perf_counter()
            if not r.observation.screenshot or r.observation.step != 1:
                raise RuntimeError(f"a fork came back at step {r.observation.step}, not its source's")
            connects.append(t1 - t)
            fork_msgs.append(t2 - t1)
            forks.append(t2 - t)
            await twin.close()
    finally:
        await env.close()
    resets, forks, fork_msgs, connects = resets[1:], forks[1:], fork_msgs[1:], connects[1:]  # first: warm-up
    out.update(step_ms_p50=_ms(steps, 0.5), step_ms_p95=_ms(steps, 0.95),
               reset_ms_p50=_ms(resets, 0.5), reset_ms_p95=_ms(resets, 0.95),
               fork_ms_p50=_ms(forks, 0.5), fork_ms_p95=_ms(forks, 0.95),
               fork_message_ms_p50=_ms(fork_msgs, 0.5), connect_ms_p50=_ms(connects, 0.5))
    return out


async def _alive(srv: ServerProcess, cfg: EnvBenchConfig) -> dict[str, Any]:
    """``alive`` sessions opened on one server whose ``max_live`` is small; memory per sleeping
    session; the oldest (asleep) stepped to show they wake and answer."""
    await _warm_pages(srv.url, cfg)
    mem0 = settled_memory(srv.pid)
    first = min(ALIVE_MAX_LIVE, cfg.alive)
    t0 = time.perf_counter()
    envs = await _bounded(first, lambda _: _open(srv.url, cfg))
    try:
        mem_live = settled_memory(srv.pid)
        envs += await _bounded(cfg.alive - first, lambda _: _open(srv.url, cfg))
        open_s = time.perf_counter() - t0
        mem_all = settled_memory(srv.pid)
        before = stats(srv.url)
        sample = envs[:min(8, len(envs))]  # the oldest: least recently used, so asleep
        asleep = [(await e.state()).hibernated for e in sample]
        woke = 0
        for e in sample:
            r = await _step(e, 0)
            woke += int(r.observation.step == 1 and bool(r.observation.screenshot))
        after = stats(srv.url)
    finally:
        await _close_all(envs)
    hib = cfg.alive - first
    verified = (after["sessions"] == cfg.alive and after["connections"] >= cfg.alive and woke == len(sample)
                and after["wakes"] - before["wakes"] >= sum(asleep))
    return {"sessions_alive_max": after["sessions"] if verified else 0, "alive_verified": verified,
            "alive_asked": cfg.alive, "alive_open_s": round(open_s, 1),
            "alive_hibernated": before["hibernated"], "alive_live": before["live"],
            "alive_sample_asleep": sum(asleep), "alive_sample_woken": woke,
            "server_mb_alive": mem_all.rss_mb, "server_mb_alive_base": mem0.rss_mb,
            "kb_hibernated_text_per_session": round(before["hibernated_bytes"] / max(1, before["hibernated"]) / 1024, 1),
            "mb_per_session_hibernated": round((mem_all.rss_mb - mem_live.rss_mb) / hib, 4) if hib else None,
            "pss_mb_per_session_hibernated": round((mem_all.pss_mb - mem_live.pss_mb) / hib, 4) if hib else None}


def run(cfg: EnvBenchConfig) -> dict[str, Any]:
    """Every figure of ``s2r bench env`` (see the module docstring), with its conditions."""
    from sim.runtime import Runtime

    out: dict[str, Any] = {"sessions": cfg.sessions, "pages": cfg.pages, "duration_s": cfg.duration,
                           "alive_pages": cfg.pages, "alive_max_live": ALIVE_MAX_LIVE, "task": cfg.task,
                           "seed": cfg.seed, "image_format": cfg.image_format, "screenshots": "every step",
                           "actions": "scroll down/up", "cpus": os.cpu_count(), "python": sys.version.split()[0],
                           "load_avg_1m_start": _load()}
    t0 = time.perf_counter()
    try:
        out.update(asyncio.run(_inprocess(cfg)))
    finally:
        Runtime.get().close()  # its browser would otherwise share the CPUs with the server's
    with ServerProcess(pages=cfg.pages, max_live=cfg.sessions + 8, max_sessions=cfg.sessions + 64,
                       image_format=cfg.image_format) as srv:
        out.update(asyncio.run(_served(srv, cfg)))
    out["server_vs_inprocess_ratio"] = round(out["steps_per_s_server"] / out["steps_per_s_inprocess"], 3)
    with ServerProcess(pages=cfg.pages, max_live=ALIVE_MAX_LIVE, max_sessions=cfg.alive + 64,
                       image_format=cfg.image_format) as srv:
        out.update(asyncio.run(_alive(srv, cfg)))
    out["bench_s"] = round(time.perf_counter() - t0, 1)
    out["load_avg_1m_end"] = _load()
    out["targets"] = {k: {"target": t, "measured": v, "met": met} for k, v, t, met in target_rows(out)}
    return out
