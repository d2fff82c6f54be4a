"""Does the simulator tell the truth about the device? Agreement, ranks, attribution, PPI.

Per policy, whether a task passes in sim and on the device (Cohen's kappa, the disagreeing
tasks); whether sim ranks the candidate policies (or checkpoints) as the device does (Pearson
r, MMRV); which sim/device differences the oracle attributes to the bridge rather than the
policy; and prediction-powered estimates of device SR from sim episodes.
"""

from __future__ import annotations

from typing import Any

from transfer import stats
from transfer.records import EpisodeRecord

from .cells import THRESHOLD, build_cells, passes, seed_for
from .load import LoadedRun


def agreement(cells: dict, policy: str, n_boot: int, seed: int, exclude: set[str]) -> dict[str, Any]:
    """Per-task pass/fail agreement of ``policy`` in sim and on the device, and the tasks that disagree."""
    sim, dev = cells.get((policy, "sim"), {}), cells.get((policy, "device"), {})
    tasks = sorted(t for t in set(sim) & set(dev) if sim[t].counted and dev[t].counted and t not in exclude)
    sp = [bool(passes(sim[t].sr)) for t in tasks]
    dp = [bool(passes(dev[t].sr)) for t in tasks]
    ag = stats.agreement_table(sp, dp).to_dict()
    ag["kappa_ci"] = (list(ci) if (ci := stats.kappa_bootstrap_ci(sp, dp, n_boot=n_boot,
                                                                   seed=seed_for(seed, f"kappa/{policy}"))) and
                      ag["kappa"] is not None else None)
    ag["policy"] = policy
    ag["disagreements"] = [
        {"task_id": t, "sim_sr": sim[t].sr, "device_sr": dev[t].sr,
         "direction": "sim pass, device fail" if a else "sim fail, device pass"}
        for t, a, b in zip(tasks, sp, dp) if a != b
    ]
    return ag


def rank_units(run: LoadedRun, policies: list[str]) -> list[tuple[str, dict, dict]]:
    """The candidates sim should rank: each policy, or each checkpoint of a policy run with several.

    A policy whose records carry more than one ``checkpoint_hash`` is split into
    ``name@hash`` units, so one run over a training curve gives a rank comparison.
    """
    ck = build_cells(run.records, ("policy", "checkpoint_hash", "backend"))
    units = []
    for p in policies:
        hashes = sorted({k[1] for k in ck if k[0] == p}, key=lambda h: (h is not None, h or ""))
        for h in hashes:
            name = p if len(hashes) == 1 else f"{p}@{(h or 'none')[:12]}"
            units.append((name, ck.get((p, h, "sim"), {}), ck.get((p, h, "device"), {})))
    return units


def rank_consistency(units: list[tuple[str, dict, dict]], exclude: set[str],
                      reference: str | None = None) -> dict[str, Any]:
    """Pearson r and MMRV of sim vs device SR over the candidates with episodes on both.

    ``reference`` names an oracle left out of ``units``; the reason text says so, so the count
    it gives is the candidates the run has, with the reference named apart.
    """
    pts = []
    for p, sim, dev in units:
        tasks = [t for t in sorted(set(sim) & set(dev)) if sim[t].counted and dev[t].counted and t not in exclude]
        if not tasks:
            continue
        s = sum(sim[t].successes for t in tasks) / sum(sim[t].counted for t in tasks)
        d = sum(dev[t].successes for t in tasks) / sum(dev[t].counted for t in tasks)
        pts.append({"policy": p, "sim_sr": s, "device_sr": d, "tasks": len(tasks)})
    out: dict[str, Any] = {"policies": pts, "unit": "policy, or policy@checkpoint when a policy ran several "
                                                    "checkpoints; the oracle is left out (a reference, not a "
                                                    "candidate) unless it is also the base or trained policy"}
    if len(pts) < 3:
        besides = f" besides the oracle '{reference}' (a reference, not ranked)" if reference else ""
        out.update(available=False, pearson_r=None, mmrv=None,
                   reason=f"needs ≥ 3 policies or checkpoints with both sim and device episodes; this run has "
                          f"{len(pts)}{besides}")
        return out
    xs, ys = [p["sim_sr"] for p in pts], [p["device_sr"] for p in pts]
    r = stats.pearson_r(xs, ys)
    out.update(available=True, pearson_r=r, mmrv=stats.mmrv(xs, ys),
               reason="" if r is not None else "Pearson r undefined: one backend gives every policy the same SR")
    return out


def attribute_faults(cells: dict, oracle: str | None, records: list[EpisodeRecord]) -> dict[str, Any]:
    """Bridge faults (the oracle passes in sim, fails on the device), sim faults, and tasks it fails on both."""
    bridge_eps: dict[str, dict[str, int]] = {}
    for r in records:
        if r.error_kind == "bridge":
            bridge_eps.setdefault(r.task_id, {}).setdefault(r.backend, 0)
            bridge_eps[r.task_id][r.backend] += 1
    out: dict[str, Any] = {"bridge_error_episodes": bridge_eps}
    if not oracle:
        out.update(available=False, bridge_faults=[], sim_faults=[], oracle_fails_both=[],
                   reason="no oracle_policy in config.json: sim/device differences cannot be attributed to the bridge")
        return out
    sim, dev = cells.get((oracle, "sim"), {}), cells.get((oracle, "device"), {})
    tasks = sorted(t for t in set(sim) & set(dev) if sim[t].counted and dev[t].counted)
    rows = {t: (sim[t].sr, dev[t].sr) for t in tasks}
    bf = [{"task_id": t, "oracle_sim_sr": s, "oracle_device_sr": d} for t, (s, d) in rows.items()
          if passes(s) and not passes(d)]
    sf = [{"task_id": t, "oracle_sim_sr": s, "oracle_device_sr": d} for t, (s, d) in rows.items()
          if not passes(s) and passes(d)]
    both = [{"task_id": t, "oracle_sim_sr": s, "oracle_device_sr": d} for t, (s, d) in rows.items()
            if not passes(s) and not passes(d)]
    out.update(available=True, oracle_policy=oracle, oracle_tasks=len(tasks), bridge_faults=bf, sim_faults=sf,
               oracle_fails_both=both,
               reason="" if tasks else f"the oracle '{oracle}' has no task with counted episodes on both backends",
               rule="A bridge fault is a task the oracle passes in sim but fails on the device (per-task success "
                    f"≥ {THRESHOLD:g} = pass): the device failure is the bridge's or the phone's, not the policy's. "
                    "Headline numbers exclude these tasks; figures with them are given alongside. A sim fault is "
                    "the reverse (the oracle fails only in sim); tasks the oracle fails on both backends point at "
                    "the task or its judge. Only bridge faults are excluded.")
    return out


def ppi(cells: dict, policies: list[str], exclude: set[str]) -> list[dict[str, Any]]:
    """Prediction-powered device SR per policy: sim-only tasks corrected by the paired ones."""
    out = []
    for p in policies:
        sim, dev = cells.get((p, "sim"), {}), cells.get((p, "device"), {})
        sim_tasks = sorted(t for t, c in sim.items() if c.counted and t not in exclude)
        paired = [t for t in sim_tasks if t in dev and dev[t].counted]
        only = [t for t in sim_tasks if t not in set(paired)]
        res = stats.ppi_mean([sim[t].sr for t in only], [sim[t].sr for t in paired], [dev[t].sr for t in paired])
        if res is None:
            continue
        d = res.to_dict()
        d["policy"] = p
        out.append(d)
    return out
