"""evaluate() and the CLI with scripted LMs: run directory, report, resume."""

import json

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import RunDirError
from promptmem.lm.specs import LMConfig
from tests.helpers.scripted import raising_lm, scripted_lm, typed_ops

CONFIG = EvalConfig(suite="synthetic", agent="seed", writer="ops", streams=3, seed=11, tasks=8, threads=2)
LM = LMConfig(spec="dummy/scripted")


def test_evaluate_writes_a_complete_run_directory(tmp_path):
    report = evaluate(
        CONFIG, LM, tmp_path, lm=scripted_lm("3000", {"operations": typed_ops("NOOP")}), show_progress=False
    )
    for name in ("config.json", "report.json", "summary.md", "learning_curve.png"):
        assert (tmp_path / name).stat().st_size > 0
    assert len(list((tmp_path / "streams" / "agent").glob("*.json"))) == 3
    assert len(list((tmp_path / "streams" / "no-memory").glob("*.json"))) == 3
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["agent"]["agent"] == "seed" and saved["baseline"]["agent"] == "no-memory"
    assert saved["memory_gain"] == pytest.approx(saved["agent"]["score"] - saved["baseline"]["score"], abs=1e-3)
    assert len(saved["agent"]["learning_curve"]) == 8
    assert set(saved["agent"]["breakdown"]) == {"question_type", "kind"}
    assert report.agent.cost.calls_per_task > report.baseline.cost.calls_per_task
    assert "Memory gain" in (tmp_path / "summary.md").read_text()


def test_rerun_resumes_from_saved_streams(tmp_path):
    first = evaluate(
        CONFIG, LM, tmp_path, lm=scripted_lm("3000", {"operations": typed_ops("NOOP")}), show_progress=False
    )
    (tmp_path / "report.json").unlink()
    lm = raising_lm(AssertionError("a resumed run must not call the LM again"))
    second = evaluate(CONFIG, LM, tmp_path, lm=lm, show_progress=False)
    assert second.to_json() == first.to_json()


def test_a_run_directory_refuses_another_configuration(tmp_path):
    evaluate(CONFIG, LM, tmp_path, lm=scripted_lm("1", {"operations": typed_ops("NOOP")}), show_progress=False)
    other = EvalConfig(**{**CONFIG.__dict__, "writer": "notes"})
    with pytest.raises(RunDirError, match=r"differs in: eval\.writer\)"):
        evaluate(other, LM, tmp_path, lm=scripted_lm("1", {}), show_progress=False)


def test_a_setting_added_after_a_run_counts_as_its_default(tmp_path):
    """A run directory written before a setting existed resumes while the setting keeps its
    default, and is refused once the setting is changed."""
    evaluate(CONFIG, LM, tmp_path, lm=scripted_lm("1", {"operations": typed_ops("NOOP")}), show_progress=False)
    stored = json.loads((tmp_path / "config.json").read_text())
    del stored["eval"]["retriever"], stored["lm"]["timeout"]  # as if written by an older version
    (tmp_path / "config.json").write_text(json.dumps(stored))
    lm = raising_lm(AssertionError("a resumed run must not call the LM again"))
    evaluate(CONFIG, LM, tmp_path, lm=lm, show_progress=False)
    assert json.loads((tmp_path / "config.json").read_text())["eval"]["retriever"] == "lexical"
    (tmp_path / "config.json").write_text(json.dumps(stored))
    other = EvalConfig(**{**CONFIG.__dict__, "retriever": "embedding"})
    with pytest.raises(RunDirError, match=r"differs in: eval\.retriever\)"):
        evaluate(other, LM, tmp_path, lm=lm, show_progress=False)


def test_a_run_resumes_with_other_threads_and_timeouts(tmp_path):
    """Settings of pace (threads, timeouts) may change between a run and its resumption: the
    finished streams are kept, and the config records the new values."""
    evaluate(CONFIG, LM, tmp_path, lm=scripted_lm("1", {"operations": typed_ops("NOOP")}), show_progress=False)
    faster = LMConfig(**{**LM.__dict__, "threads": 2, "timeout": 30.0})
    lm = raising_lm(AssertionError("a resumed run must not call the LM again"))
    evaluate(EvalConfig(**{**CONFIG.__dict__, "threads": 1}), faster, tmp_path, lm=lm, show_progress=False)
    assert json.loads((tmp_path / "config.json").read_text())["lm"]["threads"] == 2
    other = LMConfig(**{**LM.__dict__, "threads": 2, "max_tokens": LM.max_tokens + 1})
    with pytest.raises(RunDirError, match=r"differs in: lm\.max_tokens\)"):
        evaluate(CONFIG, other, tmp_path, lm=lm, show_progress=False)


def test_jsonl_suite_end_to_end(tmp_path):
    data = tmp_path / "s.jsonl"
    data.write_text(
        json.dumps(
            {
                "stream_id": "mine",
                "tasks": [
                    {"id": "a", "observation": "The code is 42.", "question": None},
                    {"id": "b", "observation": "", "question": "Code?", "answer": "42", "scorer": "numeric"},
                ],
            }
        )
    )
    config = EvalConfig(suite="jsonl", data=str(data), agent="append-raw", streams=5)
    report = evaluate(config, LM, tmp_path / "run", lm=scripted_lm("42", {}), show_progress=False)
    assert report.agent.streams == 1 and report.agent.score == 1.0


def test_cli_reports_bad_input_clearly(tmp_path):
    runner = CliRunner()
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"stream_id": "x", "tasks": [{"id": "a", "question": "q"}]}\n')
    result = runner.invoke(app, ["eval", "--suite", "jsonl", "--data", str(bad), "--out", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "line 1" in result.output and "needs a gold answer" in result.output
    result = runner.invoke(app, ["eval", "--agent", "nope", "--out", str(tmp_path / "r2")])
    assert result.exit_code == 2 and "unknown agent 'nope'" in result.output


def test_cli_lists_suites_and_models():
    runner = CliRunner()
    assert "synthetic" in runner.invoke(app, ["suites"]).output
    assert "local:qwen2.5-coder-1.5b" in runner.invoke(app, ["models"]).output
    assert "eval" in runner.invoke(app, ["--help"]).output


def test_sqlite_store_with_retrieval_and_the_memory_commands(tmp_path):
    config = EvalConfig(**{**CONFIG.__dict__, "streams": 1, "store": "sqlite", "top_k": 2})
    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api port 3000\nADD owner Priya\nADD drinks tea")})
    report = evaluate(config, LM, tmp_path / "run", lm=lm, show_progress=False)
    (db,) = (tmp_path / "run" / "memory" / "agent").glob("*.db")
    assert report.agent.final_notes_chars == len("billing-api port 3000owner Priyadrinks tea")
    actor_prompts = [
        h["messages"][-1]["content"] for h in lm.history if "[[ ## outcome" not in h["messages"][-1]["content"]
    ]
    assert any("[n1] billing-api port 3000" in p and "drinks tea" not in p for p in actor_prompts)
    runner = CliRunner()
    shown = runner.invoke(app, ["memory", "show", str(db), "--query", "port"])
    assert "billing-api port 3000" in shown.output and "Priya" not in shown.output
    history = runner.invoke(app, ["memory", "history", str(db)])
    assert "rejected" in history.output and "duplicate" in history.output
    export = tmp_path / "export.json"
    assert runner.invoke(app, ["memory", "export", str(db), "--out", str(export)]).exit_code == 0
    assert len(json.loads(export.read_text())["notes"]) == 3
    assert runner.invoke(app, ["memory", "rollback", str(db), "--to", "1"]).exit_code == 0
    assert "1 notes" in runner.invoke(app, ["memory", "show", str(db)]).output
    assert runner.invoke(app, ["memory", "show", str(tmp_path / "none.db")]).exit_code == 2


def test_in_memory_retrieval_shows_only_matching_notes(tmp_path):
    config = EvalConfig(**{**CONFIG.__dict__, "streams": 1, "top_k": 1, "baseline": False})
    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000\nADD Priya drinks tea")})
    evaluate(config, LM, tmp_path, lm=lm, show_progress=False)
    actor_prompts = [
        h["messages"][-1]["content"] for h in lm.history if "[[ ## outcome" not in h["messages"][-1]["content"]
    ]
    assert any("[n1] billing-api listens on port 3000" in p for p in actor_prompts)
    assert not any("drinks tea" in p for p in actor_prompts)


def test_the_terminal_shows_results_as_tables_not_markdown_source(tmp_path, capsys):
    from promptmem import cli

    summary = tmp_path / "summary.md"
    summary.write_text(
        "# run\n\n| agent | score |\n|---|---|\n| seed | 0.5 |\n\n![learning curve](learning_curve.png)\n"
    )
    cli.show_markdown(summary)
    shown = capsys.readouterr().out
    assert "seed" in shown and "0.5" in shown
    assert "|---|" not in shown and "learning_curve.png" not in shown
