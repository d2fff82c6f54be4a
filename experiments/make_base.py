"""Build the bundled ``base`` micro-policy checkpoint: behaviour cloning on a few oracle demos.

``base`` is a policy with *some* competence — it has seen one demonstration of a small subset
of the ``train`` templates — so that GRPO in the simulator has something to improve, as a
pretrained VLM does in the reference study. Deterministic for a given seed.

    python experiments/make_base.py --out transfer/checkpoints/base
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="transfer/checkpoints/base")
    ap.add_argument("--templates", type=int, default=24, help="How many train templates to demonstrate.")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import random

    import torch

    from sim.pool import SimPool
    from sim.runtime import Runtime
    from transfer.policies.micro import MicroPolicy
    from transfer.tasks.loader import get_template, load_templates
    from transfer.train.bc import collect_demos, train_bc

    torch.manual_seed(args.seed)
    from transfer.oracle.solutions import solution_for

    ids = sorted(t.id for t in load_templates("train") if solution_for(t.id) is not None)
    random.Random(args.seed).shuffle(ids)
    chosen = sorted(ids[: args.templates])
    insts = [get_template(t).instantiate(s) for t in chosen for s in range(args.seeds)]
    pool = SimPool(Runtime.get(), pages_per_profile=2)
    t0 = time.time()
    demos, stats = collect_demos(insts, pool=pool)
    pol = MicroPolicy()
    losses = train_bc(pol.net, demos, epochs=args.epochs, seed=args.seed)
    digest = pol.save(args.out, meta={"made_by": "experiments/make_base.py", "templates": chosen,
                                       "seeds": args.seeds, "epochs": args.epochs, "bc_losses": losses,
                                       "demo_stats": stats})
    print(json.dumps({"out": args.out, "hash": digest, "demos": len(demos), **stats, "losses": losses,
                      "seconds": round(time.time() - t0, 1)}))


if __name__ == "__main__":
    main()
