"""One redaction (promptmem.redact) for every error message, record, log line and traceback:
API keys from the environment and --api-base, userinfo in URLs, Bearer tokens, sk- keys and
query-string keys never reach a run's files or the console."""

import json
import logging

import pytest
import typer
from typer.testing import CliRunner

from promptmem.cli_app import App
from promptmem.evaluate import EvalConfig, evaluate
from promptmem.lm.specs import LMConfig
from promptmem.redact import HIDDEN, redact, remember_url
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.scripted import scripted_lm, typed_ops

KEY = "pm-env-key-0123456789abcdef"  # no sk- shape: found only because the environment holds it


@pytest.fixture(autouse=True)
def env_key(monkeypatch):
    monkeypatch.setenv("ACME_API_KEY", KEY)


@pytest.mark.parametrize(
    ("text", "gone", "kept"),
    [
        (f"provider said: invalid key {KEY}", KEY, "provider said: invalid key"),
        ("connect to http://user:hunter2secret@127.0.0.1:9/v1 failed", "hunter2secret", "127.0.0.1:9/v1 failed"),
        ("see https://tok3nXYZ@api.example.com/v1", "tok3nXYZ", "api.example.com/v1"),
        ("Authorization: Bearer abc.def-123_XYZ", "abc.def-123_XYZ", "Authorization: Bearer"),
        ("key sk-proj-AbCdEf0123456789 rejected", "sk-proj-AbCdEf0123456789", "rejected"),
        ("GET https://h.example/v1?key=s3cr3tval&region=eu", "s3cr3tval", "region=eu"),
        ("called with api_key=s3cr3tval, model=m", "s3cr3tval", "model=m"),
        ('{"api_key": "s3cr3tval", "model": "m"}', "s3cr3tval", '"model": "m"'),
    ],
)
def test_each_kind_of_secret_is_taken_out_and_the_rest_kept(text, gone, kept):
    assert gone not in redact(text) and kept in redact(text)


def test_ordinary_text_is_left_alone():
    ordinary = ("at 12:30@home", "KeyError: 'x'", "tokens: 5", "task-0123456789 done", "max_tokens must be > 0")
    for text in (*ordinary, "max_tokens=-5 is invalid", "author=me, signal=3, keys=2"):
        assert redact(text) == text


def test_a_whole_url_loses_its_credentials_and_secret_parameters():
    url = "https://user:sk-secret@host.example/v1?api_key=sk-secret&region=eu"
    assert redact(url) == "https://host.example/v1?region=eu"
    assert redact({"lm": {"api_base": url}, "n": [url, 3]}) == {
        "lm": {"api_base": "https://host.example/v1?region=eu"},
        "n": ["https://host.example/v1?region=eu", 3],
    }


def test_the_password_of_an_api_base_stays_secret_wherever_it_turns_up():
    remember_url("http://someone:pw-long-enough-42@127.0.0.1:8/v1")
    assert redact("the server said pw-long-enough-42 is wrong") == f"the server said {HIDDEN} is wrong"
    assert redact("http://someone:pw-long-enough-42@127.0.0.1:8/v1") == "http://127.0.0.1:8/v1"
    assert redact("see http://someone:pw-long-enough-42@127.0.0.1:8/v1") == "see http://127.0.0.1:8/v1"


def test_an_error_quoting_a_key_is_recorded_redacted_in_the_stream_files(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret-0123456789")
    secrets = (KEY, "p4ssw0rd", "qwerty123")
    echo = f"cannot comply: key {KEY} at http://u:p4ssw0rd@h.example/v1?key=qwerty123"
    config = EvalConfig(writer="ops", streams=1, tasks=4, baseline=False)
    with FakeOpenAI([], lambda body: echo) as server:  # unparseable: each task's own failure
        lm = LMConfig(spec="openai/fake-model", api_base=server.url, timeout=5.0)
        evaluate(config, lm, tmp_path, show_progress=False)
    records = json.loads(next(tmp_path.glob("streams/agent/*.json")).read_text())["records"]
    assert any(r["error"] or r["write_error"] for r in records)
    for path in tmp_path.rglob("*"):
        data = path.read_bytes() if path.is_file() else b""
        assert not any(secret.encode() in data for secret in secrets), path


def test_a_cli_error_is_printed_redacted(tmp_path):
    from promptmem.cli import app

    data = tmp_path / f"{KEY}.jsonl"  # a message that names the file quotes the key
    args = ["eval", "--suite", "jsonl", "--data", str(data), "--out", str(tmp_path / "r")]
    result = CliRunner().invoke(app, args, env={"COLUMNS": "2000"})
    assert result.exit_code == 2 and "no such file" in result.output and KEY not in result.output


def test_an_uncaught_error_prints_a_redacted_traceback_without_locals(capsys):
    app = App()

    @app.command()
    def boom(api_base: str = "http://user:hunter2secret@127.0.0.1:9/v1") -> None:
        raise RuntimeError(f"cannot reach {api_base} with {KEY}")

    with pytest.raises(SystemExit) as exit_:
        app(["--api-base", "http://user:hunter2secret@127.0.0.1:9/v1"])
    err = capsys.readouterr().err
    assert exit_.value.code == 1 and "Traceback" in err and "RuntimeError: cannot reach" in err
    assert "hunter2secret" not in err and KEY not in err


def test_judge_on_an_unreachable_lm_says_so_without_the_credential_or_a_traceback(tmp_path, monkeypatch):
    from promptmem.cli import app

    run = tmp_path / "run"
    lm = scripted_lm("3000", {"operations": typed_ops("NOOP")})
    evaluate(EvalConfig(writer="ops", streams=1, tasks=4), LMConfig(spec="dummy/x"), run, lm=lm, show_progress=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-planted-secret-0123456789")
    base = "http://user:hunter2secret@127.0.0.1:9/v1"
    result = CliRunner().invoke(app, ["judge", str(run), "--lm", "openai/m", "--api-base", base])
    assert result.exit_code == 2 and "nothing answers" in result.output, result.output
    assert "hunter2secret" not in result.output and not isinstance(result.exception, RuntimeError)
    monkeypatch.delenv("OPENAI_API_KEY")
    result = CliRunner().invoke(app, ["judge", str(run), "--lm", "openai/m"])
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output


def test_log_lines_are_redacted_by_the_filter_and_in_the_command_line_process(caplog):
    from promptmem.redact import RedactingFilter, redact_log_records

    handler = logging.StreamHandler()
    handler.addFilter(RedactingFilter())
    record = logging.LogRecord("litellm", logging.WARNING, __file__, 1, "retrying with %s", (KEY,), None)
    assert handler.filter(record) and KEY not in record.getMessage()
    redact_log_records()  # what the command line's App does first
    with caplog.at_level(logging.WARNING):
        logging.getLogger("litellm").warning("retrying with %s", KEY)
    assert "retrying with" in caplog.text and KEY not in caplog.text


def test_typer_exit_passes_through_the_app():
    app = App()

    @app.command()
    def done() -> None:
        raise typer.Exit(3)

    with pytest.raises(SystemExit) as exit_:
        app([])
    assert exit_.value.code == 3


def test_a_failed_reflection_call_is_logged_redacted():
    from promptmem.optimize.proposer import CompactProposer
    from tests.helpers.scripted import raising_lm

    proposer = CompactProposer("lm", raising_lm(ValueError(f"provider echoed {KEY}")))
    dataset = {"agent.writer.predict": [{"Inputs": {}, "Feedback": "t03: the port 8642 was not in the notes"}]}
    assert proposer({"agent.writer.predict": "Edit the notes."}, dataset, ["agent.writer.predict"]) == {}
    (entry,) = proposer.log
    assert entry["reason"].startswith("reflection call failed: ") and KEY not in entry["reason"]
