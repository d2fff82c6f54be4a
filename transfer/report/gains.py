"""What training bought: trained minus base, in the simulator and on the device.

The transfer headline (sim gain, device gain, their retention, with a paired task bootstrap
over the tasks both policies ran on both backends), the simulator-only gain, and the buckets
that split the headline's tasks by what training did to them in the simulator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from transfer import stats

from .cells import THRESHOLD, seed_for


def paired_tasks(cells: dict, base: str, trained: str) -> list[str]:
    """The tasks with counted episodes of both policies on both backends."""
    keys = [(base, "sim"), (trained, "sim"), (base, "device"), (trained, "device")]
    sets = []
    for k in keys:
        sets.append({t for t, c in cells.get(k, {}).items() if c.counted})
    return sorted(set.intersection(*sets)) if sets else []


def transfer_stats(cells: dict, base: str, trained: str, tasks: list[str], n_boot: int, seed: int,
                   label: str, min_gain: float) -> dict[str, Any]:
    """Sim gain, device gain and retention over ``tasks`` (paired task bootstrap, seeded by ``label``)."""
    keys = [(base, "sim"), (trained, "sim"), (base, "device"), (trained, "device")]
    s = np.array([[cells[k][t].successes for k in keys] for t in tasks], dtype=float)
    n = np.array([[cells[k][t].counted for k in keys] for t in tasks], dtype=float)
    res = stats.paired_transfer(s, n, n_boot=n_boot, seed=seed_for(seed, label), min_gain=min_gain).to_dict()
    res["counts"] = {c: {"k": int(s[:, i].sum()), "n": int(n[:, i].sum())}
                     for i, c in enumerate(stats.TRANSFER_COLUMNS)}
    return res


def sim_gain(cells: dict, base: str | None, trained: str | None, n_boot: int, seed: int) -> dict[str, Any]:
    """Trained minus base success in the simulator alone, with a paired task bootstrap CI.

    The reference study's first claim is a sim-side gain on a held-out split, measured with
    no phone at all; the transfer headline cannot give it (it needs device cells). Every task
    with counted sim episodes for both policies is used; replicates resample task ids and keep
    a task's two cells together, as :func:`stats.paired_transfer` does for four.
    """
    if not base or not trained or base == trained:
        return {"available": False, "reason": "needs two different base and trained policies"}
    a, b = cells.get((base, "sim"), {}), cells.get((trained, "sim"), {})
    tasks = sorted(t for t in set(a) & set(b) if a[t].counted and b[t].counted)
    if not tasks:
        return {"available": False, "base_policy": base, "trained_policy": trained,
                "reason": f"no task has counted sim episodes for both '{base}' and '{trained}'"}
    k = np.array([[a[t].successes, b[t].successes] for t in tasks], dtype=float)
    n = np.array([[a[t].counted, b[t].counted] for t in tasks], dtype=float)
    point = k.sum(0) / n.sum(0)
    w = stats.task_weights(len(tasks), n_boot, np.random.default_rng(seed_for(seed, "sim_gain")))
    reps = (w @ k) / (w @ n)
    ci = stats.percentile_ci
    return {"available": True, "base_policy": base, "trained_policy": trained, "n_tasks": len(tasks),
            "n_boot": n_boot, "seed": seed, "episodes": {"base": int(n[:, 0].sum()), "trained": int(n[:, 1].sum())},
            "sr": {"base": {"value": float(point[0]), "ci": ci(reps[:, 0]), "k": int(k[:, 0].sum()),
                            "n": int(n[:, 0].sum())},
                   "trained": {"value": float(point[1]), "ci": ci(reps[:, 1]), "k": int(k[:, 1].sum()),
                               "n": int(n[:, 1].sum())}},
            "gain": {"value": float(point[1] - point[0]), "ci": ci(reps[:, 1] - reps[:, 0])}}


def bucket_table(cells: dict, base: str, trained: str, tasks: list[str]) -> dict[str, Any]:
    """The headline's tasks by what training did in sim (:data:`stats.BUCKETS`), with each bucket's rates."""
    keys = [(base, "sim"), (trained, "sim"), (base, "device"), (trained, "device")]
    assign: dict[str, str] = {}
    for t in tasks:
        assign[t] = stats.bucket_of(cells[keys[0]][t].sr, cells[keys[1]][t].sr, THRESHOLD)
    rows = []
    for name in (*stats.BUCKETS, "All"):
        members = [t for t in tasks if name == "All" or assign[t] == name]
        row: dict[str, Any] = {"bucket": name, "n_tasks": len(members)}
        for col, k in zip(stats.TRANSFER_COLUMNS, keys):
            kk = sum(cells[k][t].successes for t in members)
            nn = sum(cells[k][t].counted for t in members)
            row[col] = {"value": kk / nn if nn else None, "k": kk, "n": nn}
        for side, (a, b) in (("gain_sim", ("sim_base", "sim_trained")),
                             ("gain_device", ("device_base", "device_trained"))):
            va, vb = row[a]["value"], row[b]["value"]
            row[side] = None if va is None or vb is None else vb - va
        rows.append(row)
    regressions = [t for t in tasks if cells[keys[0]][t].sr >= THRESHOLD > cells[keys[1]][t].sr]
    return {"rules": stats.bucket_rules(THRESHOLD), "threshold": THRESHOLD, "rows": rows, "assignment": assign,
            "regressions": regressions}
