"""The embedded llama.cpp model, for real: a short synthetic stream through `promptmem eval`."""

import json

import pytest
from typer.testing import CliRunner

from promptmem.cli import app

pytestmark = pytest.mark.local_model


def test_eval_on_the_embedded_model_writes_a_run_directory(tmp_path):
    out = tmp_path / "run"
    result = CliRunner().invoke(app, [
        "eval", "--lm", "local:qwen2.5-coder-0.5b", "--agent", "seed", "--writer", "ops",
        "--streams", "1", "--tasks", "5", "--seed", "4242", "--threads", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    report = json.loads((out / "report.json").read_text())
    agent, baseline = report["agent"], report["baseline"]
    assert agent["questions"] == baseline["questions"] > 0
    assert agent["actor_failures"] == 0  # JSON-schema decoding: every answer parses
    assert agent["cost"]["prompt_tokens_per_task"] > 100 and agent["cost"]["seconds_per_task"] > 0
    (stream,) = (out / "streams" / "agent").glob("*.json")
    records = json.loads(stream.read_text())["records"]
    assert len(records) == 5 and all(r["write_raw"] for r in records)
    # one writer call per task, one actor call per question
    assert sum(r["calls"] for r in records) == 5 + agent["questions"]
    assert any(op["applied"] and op["kind"] == "ADD" for r in records for op in r["ops"])
    assert (out / "learning_curve.png").stat().st_size > 1000
