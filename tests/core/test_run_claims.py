"""A run directory belongs to its run: results without a readable config.json are never adopted,
an option the agent ignores is refused before it is recorded, a run's store changes only under
the run's lock, and no output is written over an input or into a run."""

import json

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import RunDirError
from promptmem.lm.specs import LMConfig
from promptmem.programs.agent import check_writer_taken
from promptmem.rundir import claim_run_dir, run_lock
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.scripted import scripted_lm, typed_ops

LM = LMConfig(spec="dummy/scripted")
CONFIG = EvalConfig(writer="ops", streams=1, tasks=4, store="sqlite")
WIDE = {"COLUMNS": "2000"}


def finished_run(path):
    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api port 3000\nADD owner Priya")})
    evaluate(CONFIG, LM, path, lm=lm, show_progress=False)
    return path


@pytest.mark.parametrize(
    ("damage", "problem"),
    [
        (lambda p: p.unlink(), r"\(no config.json\)"),
        (lambda p: p.write_text('{"eval": {'), "is not valid JSON"),
        (lambda p: p.write_text("{}"), "is not a configuration of this command's runs"),
    ],
)
def test_results_without_a_readable_config_are_refused_never_adopted(tmp_path, damage, problem):
    run = finished_run(tmp_path / "run")
    damage(run / "config.json")
    before = {p: p.read_bytes() for p in run.rglob("*") if p.is_file()}
    other = LMConfig(spec="dummy/another-model")
    with pytest.raises(RunDirError, match=f"holds results of an unknown configuration.*{problem}|{problem}.*unknown"):
        evaluate(CONFIG, other, run, lm=scripted_lm("1", {}), show_progress=False)
    assert {p: p.read_bytes() for p in run.rglob("*") if p.is_file()} == before


def test_a_config_another_process_is_writing_is_not_taken_for_results(tmp_path):
    """Two workers claiming one folder (tune's shared study): the first one's config.json, while
    it is written (files.write_text's temporary file), is no work of an unknown configuration."""
    (tmp_path / ".config.json.x1y2.tmp").write_text("{")
    assert claim_run_dir(tmp_path, {"tune": {"trials": 2}}) == {"tune": {"trials": 2}}
    (tmp_path / "study.db").write_text("")
    (tmp_path / "config.json").unlink()
    with pytest.raises(RunDirError, match="unknown configuration"):
        claim_run_dir(tmp_path, {"tune": {"trials": 2}})


def test_writer_given_to_an_agent_without_one_is_refused_before_the_run(tmp_path, monkeypatch):
    check_writer_taken("seed", "ops")
    check_writer_taken("append-raw", None)  # not given: nothing to refuse
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret-0123456789")
    out = tmp_path / "run"
    with FakeOpenAI([], lambda body: "[[ ## answer ## ]]\n42\n\n[[ ## completed ## ]]") as server:
        args = ["eval", "--agent", "append-raw", "--streams", "1", "--tasks", "4", "--no-baseline"]
        args += ["--lm", "openai/fake-model", "--api-base", server.url, "--out", str(out)]
        refused = CliRunner().invoke(app, [*args, "--writer", "nosuch"], env=WIDE)
        assert refused.exit_code == 2 and "--writer 'nosuch' applies to the seed agent" in refused.output
        assert not out.exists()
        assert CliRunner().invoke(app, args, env=WIDE).exit_code == 0  # the corrected command runs


@pytest.mark.parametrize("command", [["optimize"], ["export", "verifiers"]])
def test_every_command_with_agent_and_writer_refuses_an_ignored_writer(tmp_path, command):
    out = tmp_path / "out"
    args = [*command, "--agent", "append-raw", "--writer", "facts", "--out", str(out)]
    result = CliRunner().invoke(app, args, env=WIDE)
    assert result.exit_code == 2 and "--writer 'facts' applies to the seed agent" in result.output
    assert not out.exists()


def test_rollback_waits_for_the_run_that_holds_the_store(tmp_path):
    run = finished_run(tmp_path / "run")
    (db,) = (run / "memory" / "agent").glob("*.db")
    before = db.read_bytes()
    with run_lock(run):  # a live eval into the run
        result = CliRunner().invoke(app, ["memory", "rollback", str(db), "--to", "1"], env=WIDE)
    assert result.exit_code == 2 and "is in use by another run" in result.output
    assert db.read_bytes() == before
    result = CliRunner().invoke(app, ["memory", "rollback", str(db), "--to", "1"], env=WIDE)
    assert result.exit_code == 0 and "1 notes" in result.output


def test_an_output_never_overwrites_an_input_or_a_file_of_a_run(tmp_path):
    run = finished_run(tmp_path / "run")
    (db,) = (run / "memory" / "agent").glob("*.db")
    store = tmp_path / "copy.db"
    store.write_bytes(db.read_bytes())
    config = (run / "config.json").read_bytes()
    for args, problem in [
        (["memory", "export", str(store), "--out", str(store)], "is an input of this command"),
        (["memory", "export", str(db), "--out", str(run / "config.json")], "is in the run directory"),
        (["memory", "export", str(store), "--out", str(tmp_path)], "is a folder; give a file name"),
        (["report", str(run), "--html", str(run / "config.json")], "is in the run directory"),
        (["report", str(run), "--html", str(run)], "is an input of this command"),
    ]:
        result = CliRunner().invoke(app, args, env=WIDE)
        assert result.exit_code == 2 and problem in result.output and "Traceback" not in result.output, args
    assert (run / "config.json").read_bytes() == config and store.read_bytes() == db.read_bytes()
    export = tmp_path / "new" / "folder" / "notes.json"
    assert CliRunner().invoke(app, ["memory", "export", str(store), "--out", str(export)]).exit_code == 0
    assert len(json.loads(export.read_text())["notes"]) == 2


def test_a_report_names_a_missing_stream_file_or_a_config_field_of_the_wrong_shape(tmp_path):
    run = finished_run(tmp_path / "run")
    page = tmp_path / "page.html"
    (stream,) = (run / "streams" / "agent").glob("*.json")
    stream.rename(tmp_path / "aside.json")
    result = CliRunner().invoke(app, ["report", str(run), "--html", str(page)], env=WIDE)
    assert result.exit_code == 2 and f"{stream} is missing: stream 'synthetic-s0-0'" in result.output
    (tmp_path / "aside.json").rename(stream)
    (run / "config.json").write_text(json.dumps({"eval": [], "lm": {"spec": "x"}}))
    result = CliRunner().invoke(app, ["report", str(run), "--html", str(page)], env=WIDE)
    assert result.exit_code == 2 and "config.json: field eval is missing or of the wrong type" in result.output
    assert not page.exists()


@pytest.mark.parametrize(
    ("option", "names"),
    [
        (["--suite", "os:system"], "--suite 'os:system': os.system is not a suite class"),
        (["--writer", "os:system"], "--writer 'os:system': os.system is not a writer class"),
    ],
)
def test_a_dotted_path_to_something_else_is_refused(tmp_path, option, names):
    result = CliRunner().invoke(app, ["eval", *option, "--out", str(tmp_path / "run")], env=WIDE)
    assert result.exit_code == 2 and names in result.output and not (tmp_path / "run").exists()


@pytest.mark.parametrize(
    ("args", "option"), [(["history", "--limit", "0"], "--limit"), (["show", "--top-k", "-3"], "--top-k")]
)
def test_memory_listing_bounds_are_checked(tmp_path, args, option):
    run = finished_run(tmp_path / "run")
    (db,) = (run / "memory" / "agent").glob("*.db")
    result = CliRunner().invoke(app, ["memory", args[0], str(db), *args[1:]], env=WIDE)
    assert result.exit_code == 2 and option in result.output
