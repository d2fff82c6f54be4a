"""``s2r bench policy``: do phones stay busy while a model thinks?

A VLM takes a second or more per step, so evaluation speed with a real model comes from many
phones stepping while each waits for its reply. This benchmark serves the stand-in model with
an injected latency, steps ``phones`` simulated phones through the real OpenAI adapter (one
screenshot per step, encoded once, over kept-alive connections, no page held while waiting),
and measures in the same run the same pool stepping without a model. ``ideal_steps_per_s`` is
``min(phones / latency, capacity)``; ``utilisation`` is the measured rate over that.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

# one step of the simulator benchmark's cycle (sim.bench), as the model would write it
_CYCLE = [
    '{"name": "mobile_use", "arguments": {"action": "open", "text": "Settings"}}',
    '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [500, 90]}}',
    '{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [500, 700], "coordinate2": [500, 300]}}',
    '{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Back"}}',
    '{"name": "mobile_use", "arguments": {"action": "system_button", "button": "Home"}}',
]


class _CycleResponder:
    """Replies with the benchmark cycle, one action per request, as tool calls."""

    def __init__(self) -> None:
        self.i = 0
        self.lock = threading.Lock()

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        with self.lock:
            self.i += 1
            return f"Next step.\n<tool_call>\n{_CYCLE[self.i % len(_CYCLE)]}\n</tool_call>"


def _median(xs: list[float]) -> float:
    s = sorted(xs)
    return s[len(s) // 2] if s else 0.0


def _model_phase(pool: Any, server: Any, phones: int, seconds: float) -> dict[str, Any]:
    """``phones`` threads, each a phone and its policy: ask the model, step, repeat."""
    from sim.env import SimEnv

    from .openai_policy import OpenAIPolicy

    envs = [SimEnv(pool=pool, screenshots=True) for _ in range(phones)]
    obs0 = [e.reset() for e in envs]
    split: dict[str, list[float]] = {"encode_ms": [], "client_ms": [], "server_ms": [], "page_ms": [], "step_ms": []}
    done_at: list[float] = []
    lock = threading.Lock()
    start = time.perf_counter()
    # every phone asks at once at the start: rates are taken after that first wave has stepped
    warm = min(seconds / 3, server.latency + 2.0)
    stop = start + warm + seconds

    def worker(env: Any, obs: Any) -> None:
        pol = OpenAIPolicy(server.url, server.model, concurrency=phones, timeout=30 + 2 * server.latency)
        pol.reset("Open the settings.", {})
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            action = pol.act(obs, [])
            t1 = time.perf_counter()
            if not hasattr(action, "to_json"):  # an outage or a parse error: nothing to step
                continue
            obs, _ = env.step(action)
            t2 = time.perf_counter()
            c = pol.last_call
            server_s = c.get("server_s", 0.0)
            with lock:
                done_at.append(t2)
                split["encode_ms"].append(c.get("encode_s", 0.0) * 1e3)
                split["server_ms"].append(server_s * 1e3)
                split["client_ms"].append(max(0.0, c.get("request_s", 0.0) - server_s) * 1e3)
                split["page_ms"].append((t2 - t1) * 1e3)
                split["step_ms"].append((t2 - t0) * 1e3)

    ths = [threading.Thread(target=worker, args=(e, o), daemon=True, name=f"bench-phone{i}")
           for i, (e, o) in enumerate(zip(envs, obs0))]
    for th in ths:
        th.start()
    for th in ths:
        th.join()
    window = [t for t in done_at if start + warm <= t <= stop]
    out: dict[str, Any] = {"steps": len(done_at), "steps_per_s": round(len(window) / seconds, 2)}
    out["step_split_ms_p50"] = {k: round(_median(v), 1) for k, v in split.items()}
    out["step_split_ms_mean"] = {k: round(sum(v) / max(1, len(v)), 1) for k, v in split.items()}
    return out


def run(latency: float = 1.0, phones: int = 32, pages: int = 2, seconds: float = 15.0) -> dict[str, Any]:
    """Measure capacity (no model) and then the same pool with a model answering after ``latency`` s."""
    from sim.bench import _throughput
    from sim.pool import SimPool
    from sim.profiles import get_profile
    from sim.runtime import Runtime

    from actionmap.actions import Key, OpenApp, Scroll, Tap

    from .standin import StandInServer

    if latency < 0 or phones < 1 or pages < 1 or seconds <= 0:
        raise ValueError("latency must be >= 0, phones and pages >= 1, seconds > 0")
    rt = Runtime.get()
    prof = get_profile("default")
    rt.run(rt.ensure_browser(prof.dpr))
    pool = SimPool(rt, pages_per_profile=pages)
    cycle = [OpenApp(app="settings"), Tap(point=(500, 90)), Scroll(direction="down"), Key(key="back"),
             Key(key="home")]
    try:
        _throughput(pool, cycle, phones, min(3.0, seconds), True)  # warm the pages
        capacity, _ = _throughput(pool, cycle, phones, seconds, True)
        server = StandInServer(latency=latency, responder=_CycleResponder()).start()
        try:
            model = _model_phase(pool, server, phones, seconds)
        finally:
            server.stop()
    finally:
        rt.run(pool.close())
    ideal = min(phones / latency, capacity) if latency > 0 else capacity
    return {"latency_s": latency, "phones": phones, "pages": pages, "seconds": seconds, "cpus": os.cpu_count(),
            "steps_per_s": model["steps_per_s"], "sim_capacity_steps_per_s": capacity,
            "ideal_steps_per_s": round(ideal, 2), "utilisation": round(model["steps_per_s"] / ideal, 3) if ideal else 0,
            "steps": model["steps"], "step_split_ms_p50": model["step_split_ms_p50"],
            "step_split_ms_mean": model["step_split_ms_mean"],
            "split_note": "encode: prompt + image data URL; client: the HTTP round trip less the server's own time "
                          "(JSON, sockets, client threads, backoff); server: the model server's time (latency "
                          "included); page: the simulator step (waiting for a page included)"}
