"""Where the tests find the repository's files."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository root
DATA = ROOT / "benchmarks" / "data"  # the committed worlds (household, on-call)
FIXTURES = ROOT / "tests" / "fixtures"  # data files of the tests' own
