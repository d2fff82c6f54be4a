#!/usr/bin/env bash
# The exact commands that reproduce the bundled `trained` checkpoint from `base`, all in the
# simulator on the `train` split (templates never in real59):
#   1. behaviour cloning of oracle demos: every train template with an oracle solution, instance
#      seeds 0-3, recorded in each app flavor (sim, aosp and google: domain randomization over app
#      structure and wording), 12 epochs, starting from base's weights (demos cached in runs/demos/);
#   2. GRPO from that, with group-normalized dense rewards from forked identical states, episodes
#      drawn from all three flavors.
# The result ($OUT/grpo/final) holds model.pt, meta.json (with the command), train_log.jsonl
# (BC epochs then GRPO iterations) and curve.png. Pass --bundle to copy it to
# transfer/checkpoints/trained.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-runs/train-micro}"
S2R="${S2R:-.venv/bin/s2r}"
"$S2R" train bc --init transfer/checkpoints/base --out "$OUT/bc" --split train --seeds 4 --epochs 12 \
  --lr 0.01 --batch 16 --seed 0 --flavors sim,aosp,google --cache runs/demos/oracle-sim.jsonl.gz
"$S2R" train grpo --init "$OUT/bc" --out "$OUT/grpo" --split train \
  --iters 5 --batch 2 --group 4 --lr 0.001 --kl 0.02 --seed 0 --flavors sim,aosp,google --workers 2 --pages 3 --max-steps 12
if [[ "${2:-}" == "--bundle" ]]; then
  rm -rf transfer/checkpoints/trained && cp -r "$OUT/grpo/final" transfer/checkpoints/trained
  "${PYTHON:-.venv/bin/python}" - "$OUT" <<'PY'
import json, sys
from pathlib import Path
meta = Path("transfer/checkpoints/trained/meta.json")
m = json.loads(meta.read_text())
bc = json.loads(Path(sys.argv[1], "bc", "meta.json").read_text())
m.update(made_by=f"experiments/make_trained.sh {sys.argv[1]} --bundle", bc_command=bc.get("command"),
         bc_demo_stats=bc.get("demo_stats"))
meta.write_text(json.dumps(m, indent=2, sort_keys=True))
PY
fi
echo "trained checkpoint: $OUT/grpo/final"
