"""The machine and the engine: the README's first command on a fresh clone, the GPU check of the
distill path, seconds per GEPA metric call, per generated token under a grammar and per store
operation (``python -m benchmarks.system.NAME --help``; ``bash benchmarks/system/gpu_check.sh``)."""
