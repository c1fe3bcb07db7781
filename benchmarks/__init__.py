"""The benchmarks behind every published number, by kind (benchmarks/README.md); each script
runs as a module from the repository root: ``python -m benchmarks.experiments.baseline --help``."""

from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent  # the repository root
DATA = HERE / "data"  # the streams experiments and recipes read
RESULTS = HERE / "results"  # one JSON file per published table
