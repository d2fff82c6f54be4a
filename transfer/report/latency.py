"""Step latency per backend: the environment's time per step and each policy's model time.

Per-step timings come from the traces when a run kept them (``traces/<episode>/steps.jsonl``),
else from each episode's mean step time; a model server's round trip and the tokens it
reported are shown beside them per policy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transfer.records import EpisodeRecord

from .cells import BACKENDS
from .load import LoadedRun
from .traces import load_trace, step_latency_ms


def _record_step_ms(r: EpisodeRecord) -> float | None:
    t = r.timings or {}
    for k in ("mean_step_ms", "step_ms_mean", "per_step_ms", "step_ms"):
        v = t.get(k)
        if isinstance(v, (int, float)) and v >= 0:
            return float(v)
    if r.steps <= 0:
        return None
    for k, scale in (("total_ms", 1.0), ("wall_ms", 1.0), ("duration_ms", 1.0), ("episode_ms", 1.0),
                     ("total_s", 1000.0), ("wall_s", 1000.0), ("duration_s", 1000.0)):
        v = t.get(k)
        if isinstance(v, (int, float)) and v >= 0:
            return float(v) * scale / r.steps
    if r.started_at > 0 and r.finished_at > r.started_at:
        return (r.finished_at - r.started_at) * 1000.0 / r.steps
    return None


def _step_latency(run: LoadedRun) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for backend in BACKENDS:
        recs = [r for r in run.records if r.backend == backend]
        if not recs:
            continue
        per_step: list[float] = []
        for r in recs:
            tr = load_trace(run.run_dir, r.episode_id, r.trace_path)
            per_step.extend(v for v in (step_latency_ms(row) for row in tr.steps) if v is not None)
        if per_step:
            samples, source = per_step, "per-step timings from traces/<episode>/steps.jsonl"
        else:
            samples = [v for v in (_record_step_ms(r) for r in recs) if v is not None]
            source = "mean step time per episode, from episode timings"
        if not samples:
            out[backend] = {"n": 0, "source": "no timings recorded"}
            continue
        a = np.asarray(samples, dtype=float)
        q = np.percentile(a, [5, 25, 50, 75, 95, 99])
        out[backend] = {"n": int(a.size), "source": source, "mean_ms": float(a.mean()), "p5_ms": float(q[0]),
                        "p25_ms": float(q[1]), "p50_ms": float(q[2]), "p75_ms": float(q[3]), "p95_ms": float(q[4]),
                        "p99_ms": float(q[5]), "min_ms": float(a.min()), "max_ms": float(a.max())}
    return out


def _with_model_latency(lat: dict[str, Any], run: LoadedRun) -> dict[str, Any]:
    """Each backend's step latency gets ``model``: per policy, its time per step (a model
    server's round trip) beside the environment's, and the tokens its server reported."""
    for backend, entry in lat.items():
        models = _model_latency([r for r in run.records if r.backend == backend])
        if models:
            entry["model"] = models
    return lat


def _model_latency(records: list[EpisodeRecord]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for pol in sorted({r.policy for r in records}):
        recs = [r for r in records if r.policy == pol]
        ms = [float(v) for r in recs for v in (r.policy_step_ms or [])]
        row: dict[str, Any] = {"n": len(ms)}
        if ms:
            a = np.asarray(ms, dtype=float)
            q = np.percentile(a, [50, 95])
            row.update(mean_ms=float(a.mean()), p50_ms=float(q[0]), p95_ms=float(q[1]))
        toks: dict[str, int] = {}
        for r in recs:
            for k, v in (r.tokens or {}).items():
                toks[k] = toks.get(k, 0) + int(v)
        if toks:
            row["tokens"] = {**toks, "total_tokens": toks.get("prompt_tokens", 0) + toks.get("completion_tokens", 0)}
        if ms or toks:
            out[pol] = row
    return out


def latency(run: LoadedRun) -> dict[str, Any]:
    """The ``latency`` section of summary.json."""
    return _with_model_latency(_step_latency(run), run)
