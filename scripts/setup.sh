#!/usr/bin/env bash
# One-shot set-up on a fresh machine: virtual environment, the package, a CPU build of torch,
# and a Chromium that Playwright can drive. Safe to re-run; it skips what is already done.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${VENV:-.venv}"
PY="${PYTHON:-}"
if [ -z "$PY" ]; then
  for c in python3.13 python3.12 python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then PY="$c"; break; fi
  done
fi
[ -n "$PY" ] || { echo "s2r needs Python >= 3.11" >&2; exit 1; }

stamp="$VENV/.s2r-installed"
want="$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$VENV/bin/s2r" ]; then
  exit 0
fi

[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
PIP=("$VENV/bin/python" -m pip install --disable-pip-version-check -q)

# torch: prefer the CPU build (a plain `pip install torch` pulls a multi-GB CUDA build).
if ! "$VENV/bin/python" -c 'import torch' >/dev/null 2>&1; then
  # The CPU index is asked once, briefly (no retries): where it cannot be reached, pip goes on with
  # the configured wheel sources at once instead of waiting a minute on retries.
  CPU_IDX=(--index-url https://download.pytorch.org/whl/cpu --retries 0 --timeout 10)
  "${PIP[@]}" --no-index "torch==2.13.0" 2>/dev/null \
    || "${PIP[@]}" "torch==2.13.0" "${CPU_IDX[@]}" 2>/dev/null \
    || "${PIP[@]}" "torch>=2.2" "${CPU_IDX[@]}" 2>/dev/null \
    || "${PIP[@]}" "torch>=2.2"
fi
"${PIP[@]}" -e ".[test]"
# verl's agent loop for experiments/trainers/verl_agent_loop.py and its test. verl pins an older
# transformers and pulls its whole training stack (vLLM, wandb ...); its agent-loop API imports with
# s2r's stack plus these, so they come without dependencies (a real verl run uses verl's own env).
if ! "$VENV/bin/python" -c 'import verl.experimental.agent_loop.agent_loop' >/dev/null 2>&1; then
  "${PIP[@]}" --no-deps "verl==0.9.1" "tensordict==0.10.0" "pyvers>=0.1,<0.2" "omegaconf>=2.2,<2.4" \
    "hydra-core==1.3.8" "antlr4-python3-runtime==4.9.3" "codetiming==1.4.0" 2>/dev/null
fi

can_apt() { [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; }
# Best effort: install from the package lists as they are, else refresh them and retry.
apt_try() {
  export DEBIAN_FRONTEND=noninteractive
  (apt-get install -y -qq "$@" >/dev/null 2>&1 \
    || (apt-get update -qq >/dev/null && apt-get install -y -qq "$@" >/dev/null 2>&1)) || true
}

# Chromium for Playwright: a system Chromium where there is one; apt-get as root; else Playwright's.
if ! "$VENV/bin/python" -c 'from sim.browser import find_chromium; import sys; sys.exit(0 if find_chromium() else 1)'; then
  if can_apt; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null && apt-get install -y -qq chromium fonts-noto-cjk fonts-noto-color-emoji >/dev/null
  else
    "$VENV/bin/python" -m playwright install chromium
  fi
fi
# The headless shell (what Playwright itself runs for headless Chromium): leaner pages than the
# full browser. Optional: s2r falls back to the full browser without it.
if can_apt && [ -z "${S2R_CHROMIUM:-}" ] && ! command -v chromium-headless-shell >/dev/null 2>&1; then
  apt_try chromium-headless-shell
fi
# Fonts for text in any script (CJK, emoji) where we may install them.
if can_apt && command -v fc-list >/dev/null 2>&1 && ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
  apt_try fonts-noto-cjk fonts-noto-color-emoji
fi
echo "$want" > "$stamp"
