#!/usr/bin/env bash
# Paired real-subset evaluation: the same policies and task instances on the simulator and on
# phones. DEVICE: all (every attached phone), SERIAL[,SERIAL], or vdevice:N (virtual phones).
# Usage: experiments/paired_real59.sh OUT [DEVICE] [REPEATS]
set -euo pipefail
OUT="${1:?run directory}"
DEVICE="${2:-all}"
REPEATS="${3:-3}"
s2r paired --out "$OUT" --device "$DEVICE" --split real59 --repeats "$REPEATS" --resume \
  --policy base=micro:base --policy trained=micro:trained --policy oracle=oracle
s2r report "$OUT"
