"""The run directory: ids become safe file names, nothing is written outside --out, one run at a
time holds it, a refused run leaves it reusable, files read back are named in their errors, and
no credential is written."""

import json
import os
import threading

import pytest

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import RunDirError, safe_name
from promptmem.lm.specs import LMConfig
from promptmem.redact import redact
from promptmem.rundir import run_lock
from tests.helpers.scripted import raising_lm, scripted_lm, typed_ops

LM = LMConfig(spec="dummy/scripted")
NASTY_IDS = ["../../../escaped", "a/b", "/abs", "*", "nul\x00id", "x" * 300, "ünïcødé ☃", "Conv-1", "conv-1", ".."]


def writer_lm():
    return scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")})


def streams_file(path, ids):
    task = {"id": "t1", "observation": "billing-api listens on port 3000", "question": "Port?", "answer": "3000"}
    path.write_text("".join(json.dumps({"stream_id": i, "tasks": [task, {**task, "id": "t2"}]}) + "\n" for i in ids))
    return path


def test_safe_names_are_stable_distinct_and_stay_in_their_folder():
    names = [safe_name(i) for i in NASTY_IDS]
    assert len(set(names)) == len(NASTY_IDS) and len({n.lower() for n in names}) == len(NASTY_IDS)
    assert names == [safe_name(i) for i in NASTY_IDS]
    for name in names:
        assert "/" not in name and "\x00" not in name and not set("*?[]") & set(name)
        assert not name.startswith(".") and len(name) <= 64
    assert safe_name("synthetic-s0-0") == "synthetic-s0-0" and safe_name("conv-26") == "conv-26"
    assert safe_name("Conv-1") != "conv-1"  # case never tells two names apart


def test_hostile_stream_ids_write_nothing_outside_out(tmp_path):
    data = streams_file(tmp_path / "streams.jsonl", NASTY_IDS)
    out = tmp_path / "deep" / "er" / "run"
    before = {p for p in tmp_path.rglob("*")}
    config = EvalConfig(writer="ops", suite="jsonl", data=str(data), streams=len(NASTY_IDS), store="sqlite", threads=1)
    report = evaluate(config, LM, out, lm=writer_lm(), show_progress=False)
    written = {p for p in tmp_path.rglob("*")} - before
    assert all(out in p.parents or p == out or p in out.parents for p in written)
    assert len(list((out / "streams" / "agent").glob("*.json"))) == len(NASTY_IDS)
    dbs = list((out / "memory" / "agent").glob("*.db"))
    assert len(dbs) == len(NASTY_IDS)  # "*" deleted no other stream's memory
    assert report.agent.streams == len(NASTY_IDS) and set(report.agent.per_stream) == set(NASTY_IDS)


def test_duplicate_stream_ids_are_refused_by_every_suite(tmp_path):
    from promptmem.suites.locomo import LocomoFormatError, load_locomo

    conversation = {
        "sample_id": "conv-1",
        "conversation": {"session_1": [{"speaker": "A", "text": "hi"}], "session_1_date_time": "today"},
        "qa": [{"question": "Who?", "answer": "A", "evidence": ["D1:1"], "category": 4}],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([conversation, conversation]))
    with pytest.raises(LocomoFormatError, match=r"locomo.json: conversations #0 and #1 share the sample_id 'conv-1'"):
        load_locomo(path)
    with pytest.raises(ValueError, match="line 2.*'a' already used on line 1"):
        evaluate(EvalConfig(suite="jsonl", data=str(streams_file(tmp_path / "d.jsonl", ["a", "a"]))), LM, tmp_path)


def test_a_second_run_into_the_same_out_is_refused_while_the_first_runs(tmp_path):
    holding, release = threading.Event(), threading.Event()

    def first():
        with run_lock(tmp_path):
            holding.set()
            release.wait(10)

    thread = threading.Thread(target=first)
    thread.start()
    holding.wait(10)
    try:
        with pytest.raises(RunDirError, match=f"in use by another run \\(process {os.getpid()}\\)"):
            evaluate(EvalConfig(writer="ops", streams=1, tasks=2), LM, tmp_path, lm=writer_lm(), show_progress=False)
    finally:
        release.set()
        thread.join()
    evaluate(EvalConfig(writer="ops", streams=1, tasks=2), LM, tmp_path, lm=writer_lm(), show_progress=False)


def test_a_refused_run_leaves_its_directory_to_the_corrected_command(tmp_path):
    from promptmem.lm.embedded import LocalModelError

    with pytest.raises(LocalModelError):
        evaluate(
            EvalConfig(writer="ops", streams=1, tasks=2),
            LMConfig(spec="local:smollm2-135"),
            tmp_path,
            show_progress=False,
        )
    assert not tmp_path.joinpath("config.json").exists()
    (tmp_path / "config.json").write_text(json.dumps({"lm": {"spec": "local:smollm2-135"}}))  # an older refusal
    evaluate(EvalConfig(writer="ops", streams=1, tasks=2), LM, tmp_path, lm=writer_lm(), show_progress=False)
    assert json.loads((tmp_path / "config.json").read_text())["lm"]["spec"] == LM.spec


@pytest.mark.parametrize(
    ("option", "error"),
    [
        ({"store": "sqlit"}, r"store: 'sqlit' is not one of memory \| sqlite"),
        ({"retriever": "embeding"}, r"retriever: 'embeding' is not one of lexical \| embedding"),
        ({"rank": "recency=x"}, "needs a number"),
        ({"suite": "jsonl"}, "needs --data"),
        ({"agent": "missing.json"}, "missing.json"),
    ],
)
def test_every_option_is_checked_before_out_is_touched(tmp_path, option, error):
    out = tmp_path / "run"
    with pytest.raises(ValueError, match=error):
        evaluate(EvalConfig(streams=1, tasks=2, **option), LM, out, lm=writer_lm(), show_progress=False)
    assert not out.exists()


def test_path_errors_name_the_path(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(RunDirError, match="--out .*file is a file, not a folder"):
        evaluate(
            EvalConfig(writer="ops", streams=1, tasks=2), LM, tmp_path / "file", lm=writer_lm(), show_progress=False
        )
    with pytest.raises(RunDirError, match="cannot write to --out .*file/run"):
        evaluate(
            EvalConfig(writer="ops", streams=1, tasks=2),
            LM,
            tmp_path / "file" / "run",
            lm=writer_lm(),
            show_progress=False,
        )
    data = streams_file(tmp_path / "two.jsonl", ["a", "b"])
    with pytest.raises(ValueError, match=r"--seed 5 is past the last stream of .*two.jsonl"):
        evaluate(EvalConfig(writer="ops", suite="jsonl", data=str(data), seed=5), LM, tmp_path / "r", lm=writer_lm())
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize("content", ['{"records": [', "{}", "[]", '{"records": [{}]}'])
def test_a_damaged_stream_file_is_named_with_how_to_redo_it(tmp_path, content):
    config = EvalConfig(writer="ops", streams=2, tasks=3, baseline=False)
    evaluate(config, LM, tmp_path, lm=writer_lm(), show_progress=False)
    damaged = tmp_path / "streams" / "agent" / "synthetic-s0-1.json"
    damaged.write_text(content)
    with pytest.raises(
        RunDirError, match=f"{damaged} .*delete it and rerun the run's command to run that stream again"
    ):
        evaluate(config, LM, tmp_path, lm=writer_lm(), show_progress=False)
    damaged.unlink()
    evaluate(config, LM, tmp_path, lm=writer_lm(), show_progress=False)


def test_a_damaged_config_is_named(tmp_path):
    config = EvalConfig(writer="ops", streams=1, tasks=2)
    evaluate(config, LM, tmp_path, lm=writer_lm(), show_progress=False)
    (tmp_path / "config.json").write_text('{"eval": {')
    with pytest.raises(RunDirError, match=f"{tmp_path / 'config.json'} is not valid JSON.*unknown configuration"):
        evaluate(config, LM, tmp_path, lm=raising_lm(AssertionError("no call")), show_progress=False)


def test_credentials_never_reach_the_run_directory(tmp_path):
    lm = LMConfig(spec="openai/x", api_base="https://user:sk-secret@host.example/v1?api_key=sk-secret&region=eu")
    evaluate(EvalConfig(writer="ops", streams=1, tasks=2), lm, tmp_path, lm=writer_lm(), show_progress=False)
    for path in tmp_path.rglob("*"):
        assert not path.is_file() or b"sk-secret" not in path.read_bytes(), path
    assert json.loads((tmp_path / "config.json").read_text())["lm"]["api_base"] == "https://host.example/v1?region=eu"
    assert redact("failed to connect to u:p@127.0.0.1:9") == "failed to connect to 127.0.0.1:9"
    assert redact("at 12:30@home") == "at 12:30@home"


def test_report_writes_into_a_missing_folder_and_names_a_damaged_run(tmp_path):
    from typer.testing import CliRunner

    from promptmem.cli import app

    run = tmp_path / "run"
    evaluate(EvalConfig(writer="ops", streams=1, tasks=4), LM, run, lm=writer_lm(), show_progress=False)
    page = tmp_path / "new" / "folder" / "page.html"
    result = CliRunner().invoke(app, ["report", str(run), "--html", str(page)])
    assert result.exit_code == 0 and page.stat().st_size > 0
    (run / "streams" / "agent" / "synthetic-s0-0.json").write_text("{}")
    result = CliRunner().invoke(app, ["report", str(run), "--html", str(page)])
    assert result.exit_code == 2 and "synthetic-s0-0.json is not a finished stream" in result.output.replace("\n", "")
    assert "Traceback" not in result.output
