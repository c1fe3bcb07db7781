"""The careless-user cases of issue #42 (benchmarks/faults/careless.py, counted in
benchmarks/results/faults.json by `python -m benchmarks.faults`) run as the benchmark runs them:
every one clear, no secret printed or written, nothing written outside --out, no traceback."""

import pytest

from benchmarks.faults import cases as fault_cases
from benchmarks.faults.careless import CASES


@pytest.fixture(autouse=True)
def api_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "set by each case")


def test_every_careless_case_is_clear(tmp_path):
    assert all(case in fault_cases.CASES for case in CASES)  # the fault benchmark counts them
    result = fault_cases.fault_cases(tmp_path, CASES)
    unclear = [(r["case"], r["message"]) for r in result["rows"] if not r["handled"]]
    assert unclear == []
    assert result["cases"] == result["clear"] == len(CASES)
    assert result["silent_wrong"] == result["secrets_written"] == result["outside_out"] == result["tracebacks"] == 0
