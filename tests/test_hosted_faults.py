"""Hosted LMs against a failing server: every fault is retried or recorded, never a crash, and
the API key never reaches a run directory."""

import json
import os

import pytest
from fake_openai import FakeOpenAI
from test_optimize import CONFIG, reflection_lm

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import optimize

KEY = "sk-planted-secret-0123456789"


def reply(body: dict) -> str:
    """A writer that adds one note, an actor that answers 42 (DSPy's chat format)."""
    if "[[ ## outcome ## ]]" in body["messages"][-1]["content"]:
        ops = [{"action": "ADD", "note_id": "", "text": "billing-api listens on port 42"}]
        return f"[[ ## operations ## ]]\n{json.dumps(ops)}\n\n[[ ## completed ## ]]"
    return "[[ ## answer ## ]]\n42\n\n[[ ## completed ## ]]"


@pytest.fixture(autouse=True)
def planted_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)


def hosted(server) -> LMConfig:
    return LMConfig(spec="openai/fake-model", api_base=server.url, timeout=1.0)


def assert_no_key_in(path):
    leaks = [p for p in path.rglob("*") if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == []


@pytest.mark.parametrize("fault", ["429", "500", "timeout", "drop"])
def test_a_transient_fault_is_retried_and_the_run_finishes(tmp_path, fault):
    with FakeOpenAI([fault, fault], reply, hang=2.0) as server:
        evaluate(
            EvalConfig(streams=1, tasks=4, threads=1, baseline=False), hosted(server), tmp_path, show_progress=False
        )
    records = json.loads((tmp_path / "streams/agent/synthetic-s0-0.json").read_text())["records"]
    assert all(r["error"] == r["write_error"] == "" for r in records)  # two faults, two retries
    assert server.requests == sum(r["calls"] for r in records) + 2
    assert f"Bearer {KEY}" in server.headers[0].get("Authorization", "")
    assert_no_key_in(tmp_path)


@pytest.mark.parametrize("fault", ["500", "truncated"])
def test_a_call_that_keeps_failing_is_recorded_and_the_stream_goes_on(tmp_path, fault):
    with FakeOpenAI([fault] * 3, reply) as server:
        report = evaluate(
            EvalConfig(streams=1, tasks=4, threads=1, baseline=False), hosted(server), tmp_path, show_progress=False
        )
    records = json.loads((tmp_path / "streams/agent/synthetic-s0-0.json").read_text())["records"]
    assert records[0]["write_error"].startswith("writer failed: LM")
    assert records[-1]["score"] is not None and (tmp_path / "report.json").exists()
    assert report.agent.write_failures >= 1
    assert_no_key_in(tmp_path)


def test_optimize_goes_on_through_server_faults(tmp_path):
    faults = ["ok"] * 3 + ["500", "truncated", "429", "drop"] * 4
    with FakeOpenAI(faults, reply, hang=2.0) as server:
        summary = optimize(
            CONFIG, hosted(server), LMConfig(spec="dummy/reflect"), tmp_path, reflection_lm=reflection_lm()
        )
    assert summary["metric_calls"] > 0 and (tmp_path / "program.json").exists()
    assert server.requests > len(faults)
    assert_no_key_in(tmp_path)
    assert os.environ["OPENAI_API_KEY"] == KEY
