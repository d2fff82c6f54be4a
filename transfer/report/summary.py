"""From a run directory to the transfer summary: one deterministic dict, also summary.json.

The summary is the single source every rendering (Markdown, HTML, the CLI screen, other
commands' one-liners) reads, so the numbers a user sees in any of them agree.

Determinism: records are deduplicated and sorted before anything is computed, every
bootstrap has a fixed seed derived from a label, floats are rounded to 6 decimals and
JSON is written with sorted keys — the same episodes (in any order) give byte-identical
JSON. The only time in it is whatever ``config.json`` holds.
"""

from __future__ import annotations

import json
import math
import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, ValidationError

from transfer import stats
from transfer.records import EpisodeRecord

from .families import retention_by_group
from .traces import load_trace, resolve_trace_dir, step_latency_ms

SCHEMA = "s2r.transfer.summary/1"
BACKENDS = ("sim", "device")
THRESHOLD = 0.5
"""Per-task success rate at or above which a policy "passes" a task (majority over repeats)."""


class ReportError(Exception):
    """Input the report cannot be built from; the message says what and where."""


class RunConfig(BaseModel):
    """The keys of config.json the report reads; everything else is carried through as is."""

    model_config = ConfigDict(extra="allow")
    run_id: str = ""
    base_policy: str | None = None
    trained_policy: str | None = None
    oracle_policy: str | None = None


@dataclass
class LoadedRun:
    run_dir: Path
    config: dict[str, Any]
    cfg: RunConfig
    records: list[EpisodeRecord]
    malformed: list[dict[str, Any]] = field(default_factory=list)
    duplicates: int = 0
    notes: list[str] = field(default_factory=list)


# ---------------------------------------------------------------------------- loading


def _prefer(a: EpisodeRecord, b: EpisodeRecord) -> EpisodeRecord:
    """Which of two records of one slot to keep, independent of file order."""
    ka = (a.counted, a.finished_at, a.model_dump_json())
    kb = (b.counted, b.finished_at, b.model_dump_json())
    return a if ka >= kb else b


def load_run(run_dir: Path | str) -> LoadedRun:
    """Read config.json and episodes.jsonl; malformed lines are skipped and reported."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ReportError(f"run directory not found: {run_dir}")
    notes: list[str] = []
    cfg_path = run_dir / "config.json"
    config: dict[str, Any] = {}
    if cfg_path.exists():
        try:
            config = json.loads(cfg_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ReportError(f"{cfg_path} is not valid JSON: {e}") from e
        if not isinstance(config, dict):
            raise ReportError(f"{cfg_path} must hold a JSON object, found {type(config).__name__}")
    else:
        notes.append("config.json is missing; policy roles were inferred from policy names")
    try:
        cfg = RunConfig.model_validate(config)
    except ValidationError as e:
        raise ReportError(f"{cfg_path}: {e.errors()[0]['loc']}: {e.errors()[0]['msg']}") from e

    ep_path = run_dir / "episodes.jsonl"
    if not ep_path.exists():
        raise ReportError(f"no episodes.jsonl in {run_dir}: nothing to report")
    malformed: list[dict[str, Any]] = []
    by_id: dict[str, EpisodeRecord] = {}
    duplicates = 0
    with ep_path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = EpisodeRecord.model_validate_json(line)
            except ValidationError as e:
                err = e.errors()[0]
                where = ".".join(str(x) for x in err.get("loc", ())) or "line"
                malformed.append({"line": lineno, "error": f"{where}: {err.get('msg', 'invalid')}"[:200]})
                continue
            if rec.episode_id in by_id:
                duplicates += 1
                rec = _prefer(by_id[rec.episode_id], rec)
            by_id[rec.episode_id] = rec
    if not by_id:
        detail = f"; first problem: line {malformed[0]['line']}: {malformed[0]['error']}" if malformed else ""
        raise ReportError(f"{ep_path} holds no valid episode records{detail}")
    records = sorted(by_id.values(), key=lambda r: (r.task_id, r.policy, r.backend, r.target, r.repeat, r.seed,
                                                    r.episode_id))
    return LoadedRun(run_dir, config, cfg, records, malformed, duplicates, notes)


# ---------------------------------------------------------------------------- cells


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
    cells: dict[tuple, dict[str, Cell]] = {}
    for r in records:
        k = tuple(getattr(r, a) for a in key)
        cells.setdefault(k, {}).setdefault(r.task_id, Cell()).add(r)
    return cells


def _seed(base: int, label: str) -> int:
    """An independent, reproducible seed per statistic (no dependence on call order)."""
    return (base + zlib.crc32(label.encode("utf-8"))) % (2**32)


def _passes(sr: float | None) -> bool | None:
    return None if sr is None else sr >= THRESHOLD


def _order_policies(names: Iterable[str], cfg: RunConfig) -> list[str]:
    """Each policy of the run once: base, trained, oracle first, then the rest by name.

    One policy may hold two roles — ``--policy trained=oracle`` makes the trained policy the
    oracle too — and must still be one row, one column and one legend entry, not two.
    """
    names = set(names)
    first = [p for p in dict.fromkeys((cfg.base_policy, cfg.trained_policy, cfg.oracle_policy)) if p and p in names]
    return first + sorted(names - set(first))


def _candidates(policies: list[str], cfg: RunConfig, oracle: str | None) -> list[str]:
    """The policies compared with each other (ranks, PPI): all but a pure reference oracle.

    The oracle is left out as a reference, unless it is also the base or trained policy of
    the run: then it is one of the candidates the run was made to compare.
    """
    return [p for p in policies if p != oracle or p in (cfg.base_policy, cfg.trained_policy)]


def _resolve_roles(cfg: RunConfig, policies: set[str], notes: list[str]) -> RunConfig:
    """Fill base/trained/oracle from conventional names when config.json does not say."""
    upd: dict[str, str] = {}
    for role, name in (("base_policy", "base"), ("trained_policy", "trained"), ("oracle_policy", "oracle")):
        if getattr(cfg, role) is None and name in policies:
            upd[role] = name
            notes.append(f"{role} not set in config.json; using the policy named '{name}'")
    return cfg.model_copy(update=upd) if upd else cfg


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
    boot = stats.cluster_bootstrap_ratio(num, den, n_boot=n_boot, seed=_seed(seed, label))
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


def _metrics(cells: dict, policies: list[str], n_boot: int, seed: int, exclude: set[str] = frozenset(),
             by_target: bool = False) -> list[dict[str, Any]]:
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


# ---------------------------------------------------------------------------- headline, buckets


def _paired_tasks(cells: dict, base: str, trained: str) -> list[str]:
    keys = [(base, "sim"), (trained, "sim"), (base, "device"), (trained, "device")]
    sets = []
    for k in keys:
        sets.append({t for t, c in cells.get(k, {}).items() if c.counted})
    return sorted(set.intersection(*sets)) if sets else []


def _transfer(cells: dict, base: str, trained: str, tasks: list[str], n_boot: int, seed: int,
              label: str, min_gain: float) -> dict[str, Any]:
    keys = [(base, "sim"), (trained, "sim"), (base, "device"), (trained, "device")]
    s = np.array([[cells[k][t].successes for k in keys] for t in tasks], dtype=float)
    n = np.array([[cells[k][t].counted for k in keys] for t in tasks], dtype=float)
    res = stats.paired_transfer(s, n, n_boot=n_boot, seed=_seed(seed, label), min_gain=min_gain).to_dict()
    res["counts"] = {c: {"k": int(s[:, i].sum()), "n": int(n[:, i].sum())}
                     for i, c in enumerate(stats.TRANSFER_COLUMNS)}
    return res


def _sim_gain(cells: dict, base: str | None, trained: str | None, n_boot: int, seed: int) -> dict[str, Any]:
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
    w = stats.task_weights(len(tasks), n_boot, np.random.default_rng(_seed(seed, "sim_gain")))
    reps = (w @ k) / (w @ n)
    ci = stats.percentile_ci
    return {"available": True, "base_policy": base, "trained_policy": trained, "n_tasks": len(tasks),
            "n_boot": n_boot, "seed": seed, "episodes": {"base": int(n[:, 0].sum()), "trained": int(n[:, 1].sum())},
            "sr": {"base": {"value": float(point[0]), "ci": ci(reps[:, 0]), "k": int(k[:, 0].sum()),
                            "n": int(n[:, 0].sum())},
                   "trained": {"value": float(point[1]), "ci": ci(reps[:, 1]), "k": int(k[:, 1].sum()),
                               "n": int(n[:, 1].sum())}},
            "gain": {"value": float(point[1] - point[0]), "ci": ci(reps[:, 1] - reps[:, 0])}}


def _buckets(cells: dict, base: str, trained: str, tasks: list[str]) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- agreement, ranks, attribution


def _agreement(cells: dict, policy: str, n_boot: int, seed: int, exclude: set[str]) -> dict[str, Any]:
    sim, dev = cells.get((policy, "sim"), {}), cells.get((policy, "device"), {})
    tasks = sorted(t for t in set(sim) & set(dev) if sim[t].counted and dev[t].counted and t not in exclude)
    sp = [bool(_passes(sim[t].sr)) for t in tasks]
    dp = [bool(_passes(dev[t].sr)) for t in tasks]
    ag = stats.agreement_table(sp, dp).to_dict()
    ag["kappa_ci"] = (list(ci) if (ci := stats.kappa_bootstrap_ci(sp, dp, n_boot=n_boot,
                                                                   seed=_seed(seed, f"kappa/{policy}"))) and
                      ag["kappa"] is not None else None)
    ag["policy"] = policy
    ag["disagreements"] = [
        {"task_id": t, "sim_sr": sim[t].sr, "device_sr": dev[t].sr,
         "direction": "sim pass, device fail" if a else "sim fail, device pass"}
        for t, a, b in zip(tasks, sp, dp) if a != b
    ]
    return ag


def _rank_units(run: LoadedRun, policies: list[str]) -> list[tuple[str, dict, dict]]:
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


def _rank_consistency(units: list[tuple[str, dict, dict]], exclude: set[str],
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


def _attribution(cells: dict, oracle: str | None, records: list[EpisodeRecord]) -> dict[str, Any]:
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
          if _passes(s) and not _passes(d)]
    sf = [{"task_id": t, "oracle_sim_sr": s, "oracle_device_sr": d} for t, (s, d) in rows.items()
          if not _passes(s) and _passes(d)]
    both = [{"task_id": t, "oracle_sim_sr": s, "oracle_device_sr": d} for t, (s, d) in rows.items()
            if not _passes(s) and not _passes(d)]
    out.update(available=True, oracle_policy=oracle, oracle_tasks=len(tasks), bridge_faults=bf, sim_faults=sf,
               oracle_fails_both=both,
               reason="" if tasks else f"the oracle '{oracle}' has no task with counted episodes on both backends",
               rule="A bridge fault is a task the oracle passes in sim but fails on the device (per-task success "
                    f"≥ {THRESHOLD:g} = pass): the device failure is the bridge's or the phone's, not the policy's. "
                    "Headline numbers exclude these tasks; figures with them are given alongside. A sim fault is "
                    "the reverse (the oracle fails only in sim); tasks the oracle fails on both backends point at "
                    "the task or its judge. Only bridge faults are excluded.")
    return out


def _ppi(cells: dict, policies: list[str], exclude: set[str]) -> list[dict[str, Any]]:
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


# ---------------------------------------------------------------------------- latency


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


def _latency(run: LoadedRun) -> dict[str, Any]:
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


# ---------------------------------------------------------------------------- tasks, viewer


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


def _viewer(run: LoadedRun, agreements: dict[str, dict]) -> list[dict[str, Any]]:
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


def _tasks_table(run: LoadedRun, cells: dict, policies: list[str], buckets: dict | None, bridge: set[str],
                 headline_tasks: set[str], agreements: dict[str, dict]) -> list[dict[str, Any]]:
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


# ---------------------------------------------------------------------------- the summary


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
    cfg = _resolve_roles(run.cfg, policies_seen, notes)
    policies = _order_policies(policies_seen, cfg)
    base, trained, oracle = cfg.base_policy, cfg.trained_policy, cfg.oracle_policy
    for role, name in (("base_policy", base), ("trained_policy", trained), ("oracle_policy", oracle)):
        if name and name not in policies_seen:
            notes.append(f"{role} '{name}' has no episodes in episodes.jsonl")
    if oracle and oracle not in policies_seen:
        oracle = None
    cells = build_cells(run.records)
    cells_t = build_cells(run.records, ("policy", "backend", "target"))

    attribution = _attribution(cells, oracle, run.records)
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
        paired = _paired_tasks(cells, base, trained)
        headline_tasks = [t for t in paired if t not in bridge]
        all_tasks = sorted({r.task_id for r in run.records})
        if not headline_tasks:
            headline["reason"] = (f"no task has counted episodes for both '{base}' and '{trained}' on both sim and "
                                  "device" + (" (after excluding bridge faults)" if paired else ""))
        else:
            tr = _transfer(cells, base, trained, headline_tasks, n_boot, seed, "transfer", min_gain)
            tr.update(available=True, base_policy=base, trained_policy=trained, paired_tasks=len(paired),
                      excluded_bridge_faults=sorted(bridge & set(paired)),
                      unpaired_tasks=len(all_tasks) - len(paired))
            headline = tr
            if bridge & set(paired):
                headline["with_bridge_faults"] = _transfer(cells, base, trained, paired, n_boot, seed,
                                                           "transfer/with-bridge-faults", min_gain)
            buckets = _buckets(cells, base, trained, headline_tasks)
    headline["min_gain"] = min_gain

    candidates = _candidates(policies, cfg, oracle)
    agreements = {p: _agreement(cells, p, n_boot, seed, bridge if p != oracle else set()) for p in policies
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
        "metrics": _metrics(cells, policies, n_boot, seed),
        "metrics_by_target": _metrics(cells_t, policies, n_boot, seed, by_target=True),
        "headline": headline,
        "sim_gain": _sim_gain(cells, base, trained, n_boot, seed),
        "buckets": buckets,
        "by_family": retention_by_group(run.records, run.config, cells, base, trained, headline, headline_tasks,
                                        n_boot=n_boot, seed=seed, min_gain=min_gain),
        "agreement": agreements,
        "rank_consistency": _rank_consistency(_rank_units(run, candidates), bridge,
                                              reference=next((p for p in policies if p not in candidates), None)),
        "attribution": attribution,
        "ppi": _ppi(cells, candidates, bridge),
        "latency": _with_model_latency(_latency(run), run),
        "tasks": _tasks_table(run, cells, policies, buckets, bridge, set(headline_tasks), agreements),
        "viewer": _viewer(run, agreements),
    }
    if bridge:
        summary["metrics_excluding_bridge_faults"] = _metrics(cells, policies, n_boot, seed, exclude=bridge)
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
