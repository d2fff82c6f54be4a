#!/usr/bin/env bash
# The exact command that reproduces the bundled `trained` checkpoint from `base`:
# GRPO in the simulator on the `train` split (templates never in real59), with domain
# randomization over both flavors. Writes checkpoints, train_log.jsonl and curve.png.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-runs/train-micro}"
s2r train grpo --init transfer/checkpoints/base --out "$OUT" --split train \
  --iters 16 --batch 4 --group 6 --lr 0.003 --kl 0.01 --seed 0 --flavors sim,aosp --workers 4 --max-steps 10
echo "trained checkpoint: $OUT/final   (copy to transfer/checkpoints/trained to bundle it)"
