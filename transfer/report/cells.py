"""Per-task counts of a run and the SR/PR/FC/USE tables built from them.

A *cell* is one (policy, backend[, target]) and task: how many episodes it has, how many
count (have a verdict), and their successes, progress, false completes and side effects.
Every statistic of the summary is computed over cells, so what counts as an episode — and
what is excluded (undetermined, infra, a model server's outage, no verdict) — is decided here
once. :func:`metric_rows` gives the policy × backend rates with Wilson and task-cluster
bootstrap intervals.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from transfer import stats
from transfer.records import EpisodeRecord

BACKENDS = ("sim", "device")
THRESHOLD = 0.5
"""Per-task success rate at or above which a policy "passes" a task (majority over repeats)."""


@dataclass
class Cell:
    """Counts of one (policy, backend[, target], task)."""

    total: int = 0
    counted: int = 0
    successes: int = 0
    progress: float = 0.0
    false_complete: int = 0
    side_effects: int = 0
    undetermined: int = 0
    infra: int = 0
    policy_outages: int = 0
    no_verdict: int = 0
    bridge_errors: int = 0
    steps: int = 0
    invalid_actions: int = 0

    def add(self, r: EpisodeRecord) -> None:
        self.total += 1
        if r.error_kind == "bridge":
            self.bridge_errors += 1
        if not r.counted:
            if r.undetermined:
                self.undetermined += 1
            elif r.policy_server_outage:  # the model server, not the phone: a column of its own
                self.policy_outages += 1
            elif r.error_kind == "infra":
                self.infra += 1
            else:
                self.no_verdict += 1
            return
        self.counted += 1
        self.successes += int(bool(r.success))
        self.progress += min(1.0, max(0.0, float(r.progress) if math.isfinite(r.progress) else 0.0))
        self.false_complete += int(r.false_complete)
        self.side_effects += int(bool(r.side_effects))
        self.steps += r.steps
        self.invalid_actions += r.invalid_actions

    @property
    def sr(self) -> float | None:
        return self.successes / self.counted if self.counted else None


def build_cells(records: Iterable[EpisodeRecord], key: tuple[str, ...] = ("policy", "backend")) -> dict:
    """``{(record attributes named by key): {task id: Cell}}``."""
    cells: dict[tuple, dict[str, Cell]] = {}
    for r in records:
        k = tuple(getattr(r, a) for a in key)
        cells.setdefault(k, {}).setdefault(r.task_id, Cell()).add(r)
    return cells


def seed_for(base: int, label: str) -> int:
    """An independent, reproducible seed per statistic (no dependence on call order)."""
    return (base + zlib.crc32(label.encode("utf-8"))) % (2**32)


def passes(sr: float | None) -> bool | None:
    """Whether a task's success rate is a pass (:data:`THRESHOLD`); None without counted episodes."""
    return None if sr is None else sr >= THRESHOLD


# ---------------------------------------------------------------------------- metric tables


def _metric_row(backend: str, policy: str, tasks: dict[str, Cell], n_boot: int, seed: int,
                target: str | None = None) -> dict[str, Any]:
    ids = sorted(tasks)
    cs = [tasks[t] for t in ids]
    tot = Cell()
    for c in cs:
        for f in ("total", "counted", "successes", "false_complete", "side_effects", "undetermined", "infra",
                  "policy_outages", "no_verdict", "bridge_errors", "steps", "invalid_actions"):
            setattr(tot, f, getattr(tot, f) + getattr(c, f))
        tot.progress += c.progress
    row: dict[str, Any] = {
        "backend": backend, "policy": policy,
        "episodes": tot.total, "counted": tot.counted,
        "tasks": sum(1 for c in cs if c.counted),
        "excluded": {"undetermined": tot.undetermined, "infra": tot.infra, "no_verdict": tot.no_verdict},
        "policy_server_outages": tot.policy_outages,
        "bridge_errors": tot.bridge_errors,
    }
    if target is not None:
        row["target"] = target
    n = tot.counted
    if n == 0:
        for m in ("sr", "pr", "fc", "use"):
            row[m] = {"value": None, "wilson": None, "bootstrap": None}
        row["mean_steps"] = None
        row["invalid_per_episode"] = None
        return row
    kept = [c for c in cs if c.counted]
    num = np.array([[c.successes, c.progress, c.false_complete, c.side_effects] for c in kept], dtype=float)
    den = np.array([c.counted for c in kept], dtype=float)
    label = f"metrics/{backend}/{target or ''}/{policy}"
    boot = stats.cluster_bootstrap_ratio(num, den, n_boot=n_boot, seed=seed_for(seed, label))
    vals = {"sr": tot.successes / n, "pr": tot.progress / n, "fc": tot.false_complete / n, "use": tot.side_effects / n}
    ks = {"sr": tot.successes, "fc": tot.false_complete, "use": tot.side_effects}
    for i, m in enumerate(("sr", "pr", "fc", "use")):
        wil = stats.wilson_interval(ks[m], n) if m in ks else None
        row[m] = {"value": vals[m], "wilson": list(wil) if wil else None,
                  "bootstrap": list(boot[i]) if boot[i] else None}
        if m in ks:
            row[m]["k"] = ks[m]
    row["n"] = n
    row["mean_steps"] = tot.steps / n
    row["invalid_per_episode"] = tot.invalid_actions / n
    return row


def metric_rows(cells: dict, policies: list[str], n_boot: int, seed: int, exclude: set[str] = frozenset(),
                by_target: bool = False) -> list[dict[str, Any]]:
    """SR/PR/FC/USE per backend × policy (× target with ``by_target``), leaving out ``exclude``d tasks."""
    rows = []
    for backend in BACKENDS:
        for policy in policies:
            if by_target:
                targets = sorted({k[2] for k in cells if k[0] == policy and k[1] == backend})
                for tg in targets:
                    tasks = {t: c for t, c in cells[(policy, backend, tg)].items() if t not in exclude}
                    if tasks:
                        rows.append(_metric_row(backend, policy, tasks, n_boot, seed, target=tg))
                continue
            tasks = {t: c for t, c in cells.get((policy, backend), {}).items() if t not in exclude}
            if tasks:
                rows.append(_metric_row(backend, policy, tasks, n_boot, seed))
    return rows
