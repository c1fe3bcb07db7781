"""Hosted LMs against a failing server: a transient fault is retried or recorded and its stream
left unfinished for the next run; an LM that cannot answer at all stops the run with what to
fix; the API key never reaches a run directory."""

import json
import os

import pytest

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.failures import LMUnavailable
from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import optimize
from tests.helpers.fake_openai import KEY, FakeOpenAI, reply
from tests.helpers.gepa_world import CONFIG, reflection_lm


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
            EvalConfig(writer="ops", streams=1, tasks=4, threads=1, baseline=False),
            hosted(server),
            tmp_path,
            show_progress=False,
        )
    records = json.loads((tmp_path / "streams/agent/synthetic-s0-0.json").read_text())["records"]
    assert all(r["error"] == r["write_error"] == "" for r in records)  # two faults, two retries
    assert server.requests == sum(r["calls"] for r in records) + 2
    assert f"Bearer {KEY}" in server.headers[0].get("Authorization", "")
    assert_no_key_in(tmp_path)


ONE_STREAM = EvalConfig(writer="ops", streams=1, tasks=4, threads=1, baseline=False)
STREAM_FILE = "streams/agent/synthetic-s0-0.json"


@pytest.mark.parametrize("fault", ["500", "truncated"])
def test_a_call_that_keeps_failing_is_recorded_and_its_stream_is_retried_by_the_next_run(tmp_path, fault):
    with FakeOpenAI([fault] * 3, reply) as server:
        report = evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
        assert report.agent.failed_calls >= 1 and report.agent.unfinished == 1
        assert "1 streams unfinished" in (tmp_path / "summary.md").read_text()
        assert not (tmp_path / STREAM_FILE).exists()  # not finished: the rerun retries it
        report = evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
    records = json.loads((tmp_path / STREAM_FILE).read_text())["records"]
    assert report.agent.failed_calls == 0 and all(r["error"] == r["write_error"] == "" for r in records)
    assert not list(tmp_path.glob("streams/agent/*.progress.jsonl"))
    assert_no_key_in(tmp_path)


def test_a_server_that_never_answers_finishes_no_stream(tmp_path):
    with FakeOpenAI(["500"] * 500, reply) as server:
        report = evaluate(
            EvalConfig(writer="ops", streams=2, tasks=6, threads=2), hosted(server), tmp_path, show_progress=False
        )
    assert report.agent.unfinished == report.agent.streams == 2 and report.baseline.unfinished == 2
    assert not list(tmp_path.glob("streams/*/*.json"))


@pytest.mark.parametrize(
    ("fault", "fix"),
    [("401", "refused the API key"), ("404", "does not know this model")],
)
def test_a_rejected_key_or_an_unknown_model_stops_the_run_saying_what_to_fix(tmp_path, fault, fix):
    with FakeOpenAI([fault] * 50, reply) as server, pytest.raises(LMUnavailable, match=fix):
        evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
    assert server.requests <= 3  # not one call per task
    assert not list(tmp_path.glob("streams/*/*"))
    assert_no_key_in(tmp_path)


def test_no_api_key_or_a_closed_port_stops_the_run_before_any_stream_is_finished(tmp_path, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY")
    with pytest.raises(LMUnavailable, match="OPENAI_API_KEY"):
        evaluate(ONE_STREAM, LMConfig(spec="openai/gpt-4o-mini"), tmp_path / "nokey", show_progress=False)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    closed = LMConfig(spec="openai/m", api_base="http://user:pw@127.0.0.1:9/v1", timeout=1.0)
    with pytest.raises(LMUnavailable, match="nothing answers") as err:
        evaluate(ONE_STREAM, closed, tmp_path / "closed", show_progress=False)
    assert "user:pw" not in str(err.value)
    assert not list(tmp_path.glob("*/streams/*/*"))
    assert "user:pw" not in (tmp_path / "closed" / "config.json").read_text()


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


def test_the_cli_exits_non_zero_with_the_fix_or_the_failed_calls(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from promptmem.cli import app

    run = ["eval", "--streams", "1", "--tasks", "4", "--no-baseline", "--lm", "openai/fake-model"]
    monkeypatch.delenv("OPENAI_API_KEY")
    result = CliRunner().invoke(app, [*run, "--out", str(tmp_path / "nokey")])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output and "Traceback" not in result.output
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(["500"] * 500, reply) as server:
        result = CliRunner().invoke(app, [*run, "--api-base", server.url, "--out", str(tmp_path / "down")])
    assert result.exit_code == 1 and "LM calls failed; 1 streams unfinished" in result.output


@pytest.mark.parametrize("fault", ["400", "422"])
def test_a_refused_request_stops_the_run_with_the_providers_message_and_finishes_nothing(tmp_path, fault):
    with FakeOpenAI([fault] * 50, reply) as server:
        with pytest.raises(LMUnavailable, match=f"fake {fault} for Bearer .*refused the request as invalid") as err:
            evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
        assert server.requests <= 3 and KEY not in str(err.value)
        assert not list(tmp_path.glob("streams/*/*"))
        server.faults.clear()  # the provider fixed: the rerun runs every stream, none was saved as finished
        report = evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
    records = json.loads((tmp_path / STREAM_FILE).read_text())["records"]
    assert report.agent.failed_calls == 0 and all(r["error"] == r["write_error"] == "" for r in records)
    assert_no_key_in(tmp_path)


def test_a_max_tokens_no_call_can_meet_is_refused_before_the_run(tmp_path):
    from typer.testing import CliRunner

    from promptmem.cli import app

    with pytest.raises(ValueError, match="max-tokens: -5"):
        LMConfig(spec="openai/fake-model", max_tokens=-5)
    out = tmp_path / "run"
    args = ["eval", "--lm", "openai/fake-model", "--max-tokens", "-5", "--out", str(out)]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "2000"})
    assert result.exit_code == 2 and "--max-tokens" in result.output and not out.exists()


def test_the_cli_prints_a_refused_request_or_key_redacted_and_exits_2(tmp_path):
    from typer.testing import CliRunner

    from promptmem.cli import app

    for fault in ("400", "401"):
        with FakeOpenAI([fault] * 50, reply) as server:
            args = ["eval", "--streams", "1", "--tasks", "4", "--no-baseline", "--lm", "openai/fake-model"]
            args += ["--api-base", server.url, "--out", str(tmp_path / fault)]
            result = CliRunner().invoke(app, args, env={"COLUMNS": "2000"})
        assert result.exit_code == 2 and f"fake {fault} for Bearer [redacted]" in result.output, result.output
        assert KEY not in result.output and not list(tmp_path.glob(f"{fault}/streams/*/*"))


def test_failed_calls_have_a_column_in_summary_md(tmp_path):
    with FakeOpenAI(["500"] * 3, reply) as server:
        report = evaluate(ONE_STREAM, hosted(server), tmp_path, show_progress=False)
    lines = (tmp_path / "summary.md").read_text().splitlines()
    header = next(line for line in lines if line.startswith("| agent"))
    row = next(line for line in lines if line.startswith(f"| {report.agent.agent} "))
    column = [c.strip() for c in header.split("|")].index("failed LM calls")
    assert int(row.split("|")[column]) == report.agent.failed_calls >= 1


def test_judge_stops_on_a_failing_server_keeping_its_verdicts_and_goes_on_when_rerun(tmp_path):
    from typer.testing import CliRunner

    from promptmem.cli import app
    from tests.helpers.scripted import scripted_lm, typed_ops

    def verdict(body: dict) -> str:
        return "[[ ## label ## ]]\nCORRECT\n\n[[ ## completed ## ]]"

    run = tmp_path / "run"
    lm = scripted_lm("3000", {"operations": typed_ops("NOOP")})
    evaluate(EvalConfig(writer="ops", streams=2, tasks=6), LMConfig(spec="dummy/x"), run, lm=lm, show_progress=False)
    with FakeOpenAI(["ok"] + ["500"] * 3, verdict) as server:
        args = ["judge", str(run), "--lm", "openai/fake-model", "--api-base", server.url]
        stopped = CliRunner().invoke(app, args, env={"COLUMNS": "2000"})
        assert stopped.exit_code == 2 and "judge_cache.json: rerun to go on" in stopped.output, stopped.output
        assert KEY not in stopped.output and len(json.loads((run / "judge_cache.json").read_text())) == 1
        done = CliRunner().invoke(app, args, env={"COLUMNS": "2000"})
    assert done.exit_code == 0 and "J = 1.000" in done.output
    assert_no_key_in(run)
