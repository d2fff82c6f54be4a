"""The oracle solves every real59 template in the sim, in every flavor, judged by the real judge.

Why: the oracle is the proof that each of the 59 tasks is solvable from observations alone,
and the yardstick that later separates bridge faults from policy faults on a phone. Every
real59 template runs for seed 0 in the ``sim``, ``aosp`` and ``google`` flavors through
``transfer.runner.run_episode`` (via ``experiments/oracle_check.py``) on a thread pool of 3
over one SimPool with three pages. A failure prints the template, flavor, the oracle's abort
reason or the failed checks, and its last actions and screen.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sim.profiles import FLAVORS

ROOT = Path(__file__).resolve().parent.parent
WORKERS = 3


def _oracle_check() -> ModuleType:
    name = "oracle_check"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "experiments" / "oracle_check.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def test_every_real59_template_has_a_solution() -> None:
    from transfer.oracle.solutions import all_solutions
    from transfer.tasks.loader import load_templates

    ids = [t.id for t in load_templates("real59")]
    assert len(ids) == 59
    missing = sorted(set(ids) - set(all_solutions()))
    assert not missing, f"real59 templates without an oracle solution: {missing}"


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_oracle_solves_real59_seed0_every_flavor() -> None:
    pytest.importorskip("playwright")
    from sim.pool import SimPool
    from sim.runtime import Runtime

    oc = _oracle_check()
    pool = SimPool(Runtime.get(), pages_per_profile=WORKERS)
    try:
        outs = oc.check("real59", [0], FLAVORS, workers=WORKERS, pool=pool)
    finally:
        pool.rt.run(pool.close())
    assert len(outs) == 59 * len(FLAVORS)
    assert {o.flavor for o in outs} == set(FLAVORS) == {"sim", "aosp", "google"}
    # every episode was really run and judged (no infrastructure errors hidden as passes)
    assert all(o.error is None for o in outs), [o.template_id for o in outs if o.error]
    assert all(o.steps >= 1 for o in outs)
    # every outcome, passed ones included: a pass with side effects is a failure too (failures() keeps
    # everything that is not a strict pass)
    failed = oc.failures(outs, verbose=True)
    assert not failed, f"{len(failed)} oracle failures:\n" + json.dumps(failed, ensure_ascii=False, indent=1)[:20000]
    assert all(o.success is True and o.side_effects == [] for o in outs)
    # query tasks end with an Answer, operate tasks with Complete, in each flavor
    kinds = {(o.template_id, o.flavor): o.terminated_by for o in outs}
    assert len(kinds) == 59 * len(FLAVORS)
    from transfer.tasks.loader import load_templates

    for t in load_templates("real59"):
        for flavor in FLAVORS:
            assert kinds[t.id, flavor] == ("answer" if t.kind == "query" else "complete"), (t.id, flavor)
