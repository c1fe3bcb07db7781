#!/usr/bin/env bash
# The GPU check of the distill path (benchmarks/system/gpu_check.py): SFT and GRPO steps in bf16 on a
# student made on the spot, timed, then `promptmem distill`'s hindsight pipeline end to end on
# one training and one held-out stream; meant to finish in under 8 minutes on one GPU. Without a
# GPU it is a smoke test on CPU with the embedded Qwen2.5-0.5B student (1 SFT and 1 GRPO step,
# 6-task streams; tens of minutes on 2 cores).
#
# For a machine with torch, transformers, peft and accelerate but no network: run on a machine
# with network, for the GPU machine's Python version (here 3.11),
#   pip download ".[distill]" --dest wheels --python-version 3.11 --only-binary=:all:
# and bring `wheels/` along (trl, datasets and pyarrow for training; DSPy and its dependencies
# for the pipeline stage, which is recorded as skipped without them); then
#   bash benchmarks/system/gpu_check.sh [WHEELS_DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."  # the repository root
WHEELS="${1:-wheels}"
OUT_DIR="${2:-${OUT:-runs/gpu-check}}"
if ! python -c "import trl, datasets" 2>/dev/null; then
  python -m pip install --no-index --find-links "$WHEELS" trl datasets
fi
if ! python -c "import dspy" 2>/dev/null; then
  python -m pip install --no-index --find-links "$WHEELS" -e . >/dev/null ||
    echo "promptmem's dependencies are not in $WHEELS: the pipeline stage will be skipped"
fi
python -m pip install --no-deps --no-build-isolation -e . >/dev/null
if python -c "import torch, sys; sys.exit(not torch.cuda.is_available())"; then
  nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || true
  timeout 480 python -m benchmarks.system.gpu_check --out "$OUT_DIR"
else
  echo "no GPU: the CPU smoke test with the 0.5B student"
  timeout 3600 python -m benchmarks.system.gpu_check --out "$OUT_DIR" --student qwen-0.5b \
    --rows 8 --sft-steps 1 --grpo-steps 1 --pipeline-tasks 6
fi
