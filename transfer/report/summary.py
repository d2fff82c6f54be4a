"""From a run directory to the transfer summary: one deterministic dict, also summary.json.

The summary is the single source every rendering (Markdown, HTML, the CLI screen, other
commands' one-liners) reads, so the numbers a user sees in any of them agree.

Determinism: records are deduplicated and sorted before anything is computed, every
bootstrap has a fixed seed derived from a label, floats are rounded to 6 decimals and
JSON is written with sorted keys — the same episodes (in any order) give byte-identical
JSON. The only time in it is whatever ``config.json`` holds.

The statistics live in the modules beside this one (:mod:`.cells`, :mod:`.gains`,
:mod:`.agreement`, :mod:`.families`, :mod:`.latency`, :mod:`.per_task`); this module puts
them together in one order and makes the result JSON-safe.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from transfer import stats

from .agreement import agreement, attribute_faults, ppi, rank_consistency, rank_units
from .cells import BACKENDS, THRESHOLD, build_cells, metric_rows
from .families import retention_by_group
from .gains import bucket_table, paired_tasks, sim_gain, transfer_stats
from .latency import latency
from .load import LoadedRun, ReportError, compared_policies, load_run, order_policies, resolve_roles
from .per_task import tasks_table, viewer

SCHEMA = "s2r.transfer.summary/1"


def _clean(x: Any) -> Any:
    """JSON-safe and platform-stable: floats rounded to 6 places, NaN/inf → None."""
    if isinstance(x, bool) or x is None or isinstance(x, (int, str)):
        return x
    if isinstance(x, (float, np.floating)):
        v = float(x)
        return round(v, 6) + 0.0 if math.isfinite(v) else None
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return str(x)


def compute_summary(run: LoadedRun, *, n_boot: int = stats.DEFAULT_BOOTSTRAP, seed: int = stats.DEFAULT_SEED,
                    min_gain: float = stats.MIN_GAIN) -> dict[str, Any]:
    """All statistics of a loaded run, as a JSON-ready dict."""
    if n_boot < 100:
        raise ReportError(f"--bootstrap must be at least 100 replicates for a 95% interval, got {n_boot}")
    notes = list(run.notes)
    policies_seen = {r.policy for r in run.records}
    cfg = resolve_roles(run.cfg, policies_seen, notes)
    policies = order_policies(policies_seen, cfg)
    base, trained, oracle = cfg.base_policy, cfg.trained_policy, cfg.oracle_policy
    for role, name in (("base_policy", base), ("trained_policy", trained), ("oracle_policy", oracle)):
        if name and name not in policies_seen:
            notes.append(f"{role} '{name}' has no episodes in episodes.jsonl")
    if oracle and oracle not in policies_seen:
        oracle = None
    cells = build_cells(run.records)
    cells_t = build_cells(run.records, ("policy", "backend", "target"))

    attribution = attribute_faults(cells, oracle, run.records)
    bridge = {b["task_id"] for b in attribution["bridge_faults"]}

    excluded_total = {"undetermined": 0, "infra": 0, "no_verdict": 0}
    policy_outages = 0
    for r in run.records:
        if not r.counted:
            if r.policy_server_outage and not r.undetermined:
                policy_outages += 1
                continue
            k = "undetermined" if r.undetermined else "infra" if r.error_kind == "infra" else "no_verdict"
            excluded_total[k] += 1

    headline: dict[str, Any] = {"available": False}
    buckets: dict[str, Any] | None = None
    headline_tasks: list[str] = []
    if not base or not trained:
        headline["reason"] = ("config.json names no base_policy and trained_policy (and no policies are named "
                              "'base' and 'trained'), so there is no gain to report")
    elif base == trained:
        headline["reason"] = "base_policy and trained_policy are the same policy"
    else:
        paired = paired_tasks(cells, base, trained)
        headline_tasks = [t for t in paired if t not in bridge]
        all_tasks = sorted({r.task_id for r in run.records})
        if not headline_tasks:
            headline["reason"] = (f"no task has counted episodes for both '{base}' and '{trained}' on both sim and "
                                  "device" + (" (after excluding bridge faults)" if paired else ""))
        else:
            tr = transfer_stats(cells, base, trained, headline_tasks, n_boot, seed, "transfer", min_gain)
            tr.update(available=True, base_policy=base, trained_policy=trained, paired_tasks=len(paired),
                      excluded_bridge_faults=sorted(bridge & set(paired)),
                      unpaired_tasks=len(all_tasks) - len(paired))
            headline = tr
            if bridge & set(paired):
                headline["with_bridge_faults"] = transfer_stats(cells, base, trained, paired, n_boot, seed,
                                                                "transfer/with-bridge-faults", min_gain)
            buckets = bucket_table(cells, base, trained, headline_tasks)
    headline["min_gain"] = min_gain

    candidates = compared_policies(policies, cfg, oracle)
    agreements = {p: agreement(cells, p, n_boot, seed, bridge if p != oracle else set()) for p in policies
                  if cells.get((p, "sim")) and cells.get((p, "device"))}
    summary: dict[str, Any] = {
        "schema": SCHEMA,
        "run": {
            "run_id": cfg.run_id or run.run_dir.name,
            "base_policy": base, "trained_policy": trained, "oracle_policy": oracle,
            "policies": policies,
            "backends": sorted({r.backend for r in run.records}, key=BACKENDS.index),
            "targets": {b: sorted({r.target for r in run.records if r.backend == b}) for b in BACKENDS},
            "tasks": len({r.task_id for r in run.records}),
            "split": run.config.get("split"),
            "repeats": run.config.get("repeats"),
        },
        "config": run.config,
        "input": {
            "episodes": len(run.records), "counted": sum(r.counted for r in run.records),
            "excluded": excluded_total, "policy_server_outages": policy_outages,
            "duplicates_dropped": run.duplicates,
            "malformed_lines": len(run.malformed), "malformed": run.malformed[:20],
        },
        "settings": {"bootstrap": n_boot, "seed": seed, "confidence": stats.CONFIDENCE, "pass_threshold": THRESHOLD,
                     "min_gain": min_gain,
                     "sr_definition": "pooled over counted episodes (Σ successes / Σ counted); equals the mean of "
                                      "per-task success when tasks have equal repeats",
                     "excluded_from_rates": "undetermined verdicts, infra errors (phones, simulator pages, "
                                            "policy-server outages) and episodes without a verdict"},
        "notes": notes,
        "metrics": metric_rows(cells, policies, n_boot, seed),
        "metrics_by_target": metric_rows(cells_t, policies, n_boot, seed, by_target=True),
        "headline": headline,
        "sim_gain": sim_gain(cells, base, trained, n_boot, seed),
        "buckets": buckets,
        "by_family": retention_by_group(run.records, run.config, cells, base, trained, headline, headline_tasks,
                                        n_boot=n_boot, seed=seed, min_gain=min_gain),
        "agreement": agreements,
        "rank_consistency": rank_consistency(rank_units(run, candidates), bridge,
                                             reference=next((p for p in policies if p not in candidates), None)),
        "attribution": attribution,
        "ppi": ppi(cells, candidates, bridge),
        "latency": latency(run),
        "tasks": tasks_table(run, cells, policies, buckets, bridge, set(headline_tasks), agreements),
        "viewer": viewer(run, agreements),
    }
    if bridge:
        summary["metrics_excluding_bridge_faults"] = metric_rows(cells, policies, n_boot, seed, exclude=bridge)
    return _clean(summary)


def summary_json(summary: dict[str, Any]) -> str:
    """The canonical text of summary.json (sorted keys, UTF-8 kept, trailing newline)."""
    return json.dumps(summary, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_text_atomic(path: Path, text: str) -> None:
    """Write via a temporary file so a crash never leaves half a report behind."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def build_summary(run_dir: Path | str, *, bootstrap: int = stats.DEFAULT_BOOTSTRAP, seed: int = stats.DEFAULT_SEED,
                  min_gain: float = stats.MIN_GAIN, write: bool = True) -> dict[str, Any]:
    """Compute the transfer summary of a run directory and (by default) write summary.json."""
    run = load_run(run_dir)
    summary = compute_summary(run, n_boot=bootstrap, seed=seed, min_gain=min_gain)
    if write:
        write_text_atomic(Path(run_dir) / "summary.json", summary_json(summary))
    return summary
