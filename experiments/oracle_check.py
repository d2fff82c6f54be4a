"""Run the scripted oracle over a split × seeds × flavors in the sim and report what fails.

Why: the oracle is the proof that every task is solvable from observations alone, and the
yardstick that tells bridge faults from policy faults on a phone. A template the oracle
cannot solve in the sim is either an app bug, a template bug, or a missing solution — this
script finds them. Episodes run through :func:`transfer.runner.run_episode` and are scored
by the real judge, exactly as ``s2r run --policy oracle`` scores them.

Usage::

    python experiments/oracle_check.py --split real59 --seeds 0,1,2 --flavors sim,aosp
    python experiments/oracle_check.py --split train --tasks train.clock.timer_hm --seeds 0 -v

Prints a pass table (split × flavor × seed) and the failures as JSON; ``--json PATH``
writes every outcome.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # runnable as a plain script from anywhere
    sys.path.insert(0, str(ROOT))

from actionmap.observation import Observation  # noqa: E402
from transfer.policies.base import PolicyOutput, StepRecord  # noqa: E402
from transfer.policies.oracle_policy import OraclePolicy  # noqa: E402

from sim.profiles import FLAVORS  # noqa: E402  (every flavor the simulator has)


class OracleOutcome(BaseModel):
    """One oracle episode, with what is needed to tell why it failed."""

    template_id: str
    split: str = ""
    seed: int
    flavor: str
    success: bool | None = None
    side_effects: list[str] = Field(default_factory=list)
    terminated_by: str = "error"
    reason: str = Field("", description="The oracle's abort reason, or the failed checks' details.")
    failed_checks: list[dict[str, Any]] = Field(default_factory=list)
    steps: int = 0
    max_steps: int = 0
    invalid_actions: int = 0
    seconds: float = 0.0
    error: str | None = None
    last_actions: list[dict[str, Any]] = Field(default_factory=list)
    last_screen: list[str] = Field(default_factory=list, description="Texts on the last screen the oracle saw.")

    @property
    def passed(self) -> bool:
        return self.success is True

    @property
    def strict(self) -> bool:
        return self.success is True and not self.side_effects


class RecordingOracle(OraclePolicy):
    """The oracle policy, remembering its actions and the last screen for failure reports."""

    def __init__(self) -> None:
        super().__init__()
        self.actions: list[dict[str, Any]] = []
        self.last_obs: Observation | None = None

    def reset(self, instruction: str, context: dict[str, Any]) -> None:
        super().reset(instruction, context)
        self.actions, self.last_obs = [], None

    def act(self, observation: Observation, history: list[StepRecord]) -> PolicyOutput:
        self.last_obs = observation
        out = super().act(observation, history)
        to_json = getattr(out, "to_json", None)
        self.actions.append(to_json() if to_json else {"invalid": str(out)})
        return out


def _screen_texts(obs: Observation | None) -> list[str]:
    if obs is None:
        return []
    out = []
    for e in obs.elements:
        label = e.text or e.content_desc
        if label:
            rid = e.resource_id.rsplit("/", 1)[-1]
            out.append(f"{label}" + (f" [{rid}]" if rid else "") + (" ✓" if e.checked else ""))
    return out[:80]


def run_one(template_id: str, seed: int, flavor: str, *, pool: Any = None, attempts: int = 2) -> OracleOutcome:
    """One oracle episode on a fresh sim phone; infrastructure errors are retried once."""
    from sim.env import SimEnv
    from transfer.runner import EpisodeSpec, InfraError, run_episode
    from transfer.tasks.loader import get_template

    inst = get_template(template_id).instantiate(seed)
    spec = EpisodeSpec(policy="oracle", policy_spec="oracle", task_id=template_id, seed=seed, backend="sim",
                       target=f"default/{flavor}", split=inst.split)
    base = dict(template_id=template_id, split=inst.split, seed=seed, flavor=flavor, max_steps=inst.max_steps)
    err = ""
    t0 = time.perf_counter()
    for _ in range(max(1, attempts)):
        policy = RecordingOracle()
        env = SimEnv("default", flavor, pool=pool, screenshots=False)  # type: ignore[arg-type]
        try:
            rec = run_episode(env, policy, inst, spec, backend_info={"flavor": flavor, "profile": "default"})
        except InfraError as e:
            err = str(e)
            continue
        finally:
            env.close()
        failed = [c for c in rec.checks if not c.get("passed") and not c.get("undetermined")]
        last = policy.actions[-1] if policy.actions else {}
        reason = last.get("reason", "") if last.get("type") == "abort" else "; ".join(
            f"{c.get('name')}: {c.get('detail') or ''} expected={c.get('expected')!r} actual={c.get('actual')!r}"
            for c in failed)
        return OracleOutcome(**base, success=rec.success, side_effects=rec.side_effects,
                             terminated_by=rec.terminated_by, reason=reason[:1000], failed_checks=failed,
                             steps=rec.steps, invalid_actions=rec.invalid_actions,
                             seconds=time.perf_counter() - t0, last_actions=policy.actions[-6:],
                             last_screen=[] if rec.success else _screen_texts(policy.last_obs))
    return OracleOutcome(**base, error=f"infra: {err}"[:1000], seconds=time.perf_counter() - t0)


def warm_up(pool: Any, workers: int) -> None:
    """Open the pool's pages, and every app once on them, before episodes start.

    Why: pages boot lazily and an app's first render on a page is slow; meanwhile a tap on
    another page may be acknowledged late. ``sim.driver.tap`` waits for the touchStart
    acknowledgement before sending touchEnd, so a late one makes the app's 500 ms long-press
    timer fire and the tap becomes a long press (selection mode instead of opening the item).
    Starting on a warm pool removes the cold-start part of that; the rest is reported.
    """
    from actionmap.actions import OpenApp
    from sim.env import SimEnv

    apps = ("settings", "clock", "contacts", "phone", "messages", "calendar", "files", "calculator")

    def one(i: int) -> None:
        env = SimEnv("default", FLAVORS[i % len(FLAVORS)], pool=pool, screenshots=False)  # type: ignore[arg-type]
        env.reset(None)
        for app in apps:  # every app's code loaded and rendered once on the pages
            env.step(OpenApp(app=app))

    with ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
        list(ex.map(one, range(max(1, workers))))


def check(split: str | None, seeds: Iterable[int], flavors: Sequence[str] = FLAVORS, *, tasks: Sequence[str] | None = None,
          workers: int = 3, pool: Any = None, progress: bool = False) -> list[OracleOutcome]:
    """Every (template × seed × flavor) of ``split`` (or just ``tasks``), run on a thread pool."""
    from transfer.tasks.loader import load_templates

    bad = [f for f in flavors if f not in FLAVORS]
    if bad:
        raise ValueError(f"unknown flavors {bad}; known: {list(FLAVORS)}")
    ids = list(tasks) if tasks else [t.id for t in load_templates(split)]
    jobs = [(tid, s, f) for tid in ids for s in seeds for f in flavors]
    from transfer.oracle.solutions import all_solutions

    all_solutions()  # import every solution module first: solutions._load is not thread-safe
    own_pool = pool is None
    if own_pool:
        from sim.pool import SimPool
        from sim.runtime import Runtime

        pool = SimPool(Runtime.get(), pages_per_profile=max(1, workers))
    warm_up(pool, workers)
    lock = threading.Lock()
    done = [0]

    def one(job: tuple[str, int, str]) -> OracleOutcome:
        out = run_one(*job, pool=pool)
        if progress:
            with lock:
                done[0] += 1
                mark = "ok" if out.strict else ("ok*" if out.passed else "FAIL")
                print(f"[{done[0]}/{len(jobs)}] {mark:4s} {job[0]} seed={job[1]} {job[2]} "
                      f"steps={out.steps}/{out.max_steps} {out.seconds:.1f}s", file=sys.stderr, flush=True)
        return out

    try:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as ex:
            return list(ex.map(one, jobs))
    finally:
        if own_pool:
            pool.rt.run(pool.close())


def pass_table(outcomes: Iterable[OracleOutcome]) -> list[dict[str, Any]]:
    """Rows of (split, flavor, seed): episodes, passed, strict (no side effects), rate, s/episode."""
    groups: dict[tuple[str, str, int], list[OracleOutcome]] = {}
    for o in outcomes:
        groups.setdefault((o.split, o.flavor, o.seed), []).append(o)
    rows = []
    for (split, flavor, seed), os_ in sorted(groups.items()):
        n = len(os_)
        p = sum(o.passed for o in os_)
        rows.append({"split": split, "flavor": flavor, "seed": seed, "episodes": n, "passed": p,
                     "strict": sum(o.strict for o in os_), "rate": p / n if n else 0.0,
                     "mean_s": sum(o.seconds for o in os_) / n if n else 0.0,
                     "mean_steps": sum(o.steps for o in os_) / n if n else 0.0})
    return rows


def failures(outcomes: Iterable[OracleOutcome], *, verbose: bool = False) -> list[dict[str, Any]]:
    """Failed episodes and passed ones with side effects, as JSON-ready dicts."""
    keep = {"template_id", "seed", "flavor", "success", "side_effects", "terminated_by", "reason", "steps",
            "max_steps", "error"}
    if verbose:
        keep |= {"last_actions", "last_screen"}
    return [o.model_dump(include=keep) for o in outcomes if not o.strict]


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--split", default="real59", help="real59 | train | test")
    ap.add_argument("--seeds", default="0", help="comma-separated seeds, e.g. 0,1,2")
    ap.add_argument("--flavors", default="sim,aosp")
    ap.add_argument("--tasks", default="", help="comma-separated template ids, or prefixes ending in '*'")
    ap.add_argument("--workers", type=int, default=3)
    ap.add_argument("--json", type=Path, default=None, help="write every outcome here")
    ap.add_argument("-v", "--verbose", action="store_true", help="failures with the last actions and screen")
    ap.add_argument("-q", "--quiet", action="store_true", help="no per-episode progress lines")
    args = ap.parse_args(argv)

    from transfer.tasks.loader import load_templates

    try:
        seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    except ValueError:
        ap.error(f"--seeds must be comma-separated integers, got {args.seeds!r}")
    flavors = [f.strip() for f in args.flavors.split(",") if f.strip()]
    tasks = None
    if args.tasks:
        known = [t.id for t in load_templates(None)]
        tasks = []
        for pat in (p.strip() for p in args.tasks.split(",") if p.strip()):
            hits = [k for k in known if (k.startswith(pat[:-1]) if pat.endswith("*") else k == pat)]
            if not hits:
                ap.error(f"no template matches {pat!r}")
            tasks.extend(h for h in hits if h not in tasks)
    t0 = time.time()
    outs = check(args.split if not tasks else None, seeds, flavors, tasks=tasks, workers=args.workers,
                 progress=not args.quiet)
    wall = time.time() - t0
    print(f"{'split':8s} {'flavor':6s} {'seed':>4s} {'n':>4s} {'pass':>5s} {'strict':>6s} {'rate':>7s} {'s/ep':>6s} {'steps':>6s}")
    for r in pass_table(outs):
        print(f"{r['split']:8s} {r['flavor']:6s} {r['seed']:4d} {r['episodes']:4d} {r['passed']:5d} {r['strict']:6d} "
              f"{r['rate']:7.1%} {r['mean_s']:6.1f} {r['mean_steps']:6.1f}")
    n, p = len(outs), sum(o.passed for o in outs)
    print(f"total {p}/{n} passed ({p / n if n else 0:.1%}), {sum(o.strict for o in outs)} without side effects; "
          f"wall {wall:.0f} s, {wall / max(1, n):.1f} s/episode with {args.workers} workers")
    fails = failures(outs, verbose=args.verbose)
    if fails:
        print(json.dumps(fails, ensure_ascii=False, indent=1, default=str))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps([o.model_dump() for o in outs], ensure_ascii=False, indent=1, default=str),
                             encoding="utf-8")
    return 0 if p == n else 1


if __name__ == "__main__":
    raise SystemExit(main())
