"""The per-task table of a run and the sim/device disagreements to look at first.

``tasks_table`` gives each task's cells side by side (with its bucket, whether it is in the
headline, a bridge fault, or disagreed on); ``viewer`` picks, for each disagreement, one
representative episode per backend and the path of its trace, for the HTML report's viewer.
"""

from __future__ import annotations

from typing import Any

from transfer.records import EpisodeRecord

from .cells import BACKENDS
from .load import LoadedRun
from .traces import resolve_trace_dir


def _pick_episode(index: dict[tuple[str, str, str], list[EpisodeRecord]], policy: str, backend: str, task: str,
                  want: bool) -> EpisodeRecord | None:
    """A representative episode: counted, with the verdict that matches the task's majority."""
    cands = [r for r in index.get((policy, backend, task), []) if r.counted]
    match = [r for r in cands if bool(r.success) == want]
    pool = match or cands
    return min(pool, key=lambda r: (r.repeat, r.target, r.episode_id)) if pool else None


def _rel_trace(run: LoadedRun, r: EpisodeRecord) -> str | None:
    d = resolve_trace_dir(run.run_dir, r.episode_id, r.trace_path)
    if d is None:
        return None
    try:
        return d.resolve().relative_to(run.run_dir.resolve()).as_posix()
    except ValueError:
        return str(d)


def viewer(run: LoadedRun, agreements: dict[str, dict]) -> list[dict[str, Any]]:
    """Each sim/device disagreement with one representative episode (and its trace) per backend."""
    index: dict[tuple[str, str, str], list[EpisodeRecord]] = {}
    for r in run.records:
        index.setdefault((r.policy, r.backend, r.task_id), []).append(r)
    items = []
    for policy, ag in agreements.items():
        for d in ag["disagreements"]:
            t = d["task_id"]
            sp = d["direction"].startswith("sim pass")
            pair = {"task_id": t, "policy": policy, "direction": d["direction"], "sim_sr": d["sim_sr"],
                    "device_sr": d["device_sr"]}
            for backend, want in (("sim", sp), ("device", not sp)):
                r = _pick_episode(index, policy, backend, t, want)
                pair[backend] = None if r is None else {
                    "episode_id": r.episode_id, "success": r.success, "target": r.target, "repeat": r.repeat,
                    "steps": r.steps, "terminated_by": r.terminated_by, "error": r.error,
                    "trace": _rel_trace(run, r)}
            items.append(pair)
    return sorted(items, key=lambda x: (x["task_id"], x["policy"]))


def tasks_table(run: LoadedRun, cells: dict, policies: list[str], buckets: dict | None, bridge: set[str],
                headline_tasks: set[str], agreements: dict[str, dict]) -> list[dict[str, Any]]:
    """One row per task: its instruction, bucket, flags, and each policy/backend cell."""
    instr: dict[str, str] = {}
    for r in run.records:
        if r.instruction and r.task_id not in instr:
            instr[r.task_id] = r.instruction
    disagree: dict[str, list[str]] = {}
    for p, ag in agreements.items():
        for d in ag["disagreements"]:
            disagree.setdefault(d["task_id"], []).append(p)
    rows = []
    for t in sorted({r.task_id for r in run.records}):
        row: dict[str, Any] = {"task_id": t, "instruction": instr.get(t, ""),
                               "bucket": (buckets or {}).get("assignment", {}).get(t),
                               "in_headline": t in headline_tasks, "bridge_fault": t in bridge,
                               "disagree": sorted(disagree.get(t, [])), "cells": {}}
        for p in policies:
            for b in BACKENDS:
                c = cells.get((p, b), {}).get(t)
                if c is None:
                    continue
                row["cells"][f"{p}/{b}"] = {"k": c.successes, "n": c.counted, "sr": c.sr,
                                            "excluded": c.undetermined + c.infra + c.policy_outages
                                                        + c.no_verdict}
        rows.append(row)
    return rows
