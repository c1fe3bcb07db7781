#!/usr/bin/env bash
# The GPU check of the distill path: SFT and GRPO steps in bf16 on a student made on the spot,
# timed (benchmarks/gpu_check.py), meant to finish in under 8 minutes on one GPU.
#
# For a machine with torch, transformers, peft and accelerate but no network: run on a machine
# with network, for the GPU machine's Python version (here 3.11),
#   pip download trl datasets --dest wheels --python-version 3.11 --only-binary=:all:
# and bring `wheels/` along (pyarrow is the bulk of it); then
#   bash benchmarks/gpu_check.sh [WHEELS_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
WHEELS="${1:-wheels}"
OUT_DIR="${2:-${OUT:-runs/gpu-check}}"
if ! python -c "import trl, datasets" 2>/dev/null; then
  python -m pip install --no-index --find-links "$WHEELS" trl datasets
fi
python -m pip install --no-deps --no-build-isolation -e . >/dev/null
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
timeout 480 python benchmarks/gpu_check.py --out "$OUT_DIR"
