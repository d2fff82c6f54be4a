"""Build the bundled ``base`` micro-policy checkpoint: behaviour cloning on a few oracle demos.

``base`` is the policy *before* training in the simulator: it has seen one oracle
demonstration of each of 24 of the ``train`` templates for two epochs, a stand-in for a
pretrained model with a little competence. ``experiments/make_trained.sh`` starts from it.
Deterministic for a given seed; demos are cached in ``runs/demos/`` (re-running is fast).

    python experiments/make_base.py --out transfer/checkpoints/base
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="transfer/checkpoints/base")
    ap.add_argument("--templates", type=int, default=24, help="How many train templates to demonstrate.")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--epochs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default="runs/demos/oracle-sim.jsonl.gz")
    args = ap.parse_args()

    from transfer.train.bc import make_bc_checkpoint

    res = make_bc_checkpoint(out=Path(args.out), init="scratch", split="train", templates=args.templates,
                             seeds=args.seeds, epochs=args.epochs, lr=1e-2, batch=16, seed=args.seed,
                             cache=Path(args.cache),
                             command=" ".join(["python experiments/make_base.py", *sys.argv[1:]]))
    print(json.dumps(res))


if __name__ == "__main__":
    main()
