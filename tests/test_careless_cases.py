"""The careless-user cases of issue #42 (benchmarks/careless_cases.py, counted in
benchmarks/results/faults.json by faults.py) run as the benchmark runs them: every one clear, no
secret printed or written, nothing written outside --out, no traceback."""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def cases(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # the benchmark's sibling modules
    monkeypatch.setenv("OPENAI_API_KEY", "set by each case")
    import fault_cases

    yield fault_cases
    for name in ("fault_cases", "careless_cases", "fault_bench"):
        sys.modules.pop(name, None)


def test_every_careless_case_is_clear(tmp_path, cases):
    from careless_cases import CASES

    assert all(case in cases.CASES for case in CASES)  # faults.py counts them
    result = cases.fault_cases(tmp_path, CASES)
    unclear = [(r["case"], r["message"]) for r in result["rows"] if not r["handled"]]
    assert unclear == []
    assert result["cases"] == result["clear"] == len(CASES)
    assert result["silent_wrong"] == result["secrets_written"] == result["outside_out"] == result["tracebacks"] == 0
