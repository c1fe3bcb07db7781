"""`promptmem export verifiers`: the package installs, verifiers 0.4.0 loads it by id and runs a
rollout (a scripted OpenAI-compatible server; once the embedded 0.5B behind llama-cpp-python's
server), and the rewards verifiers recorded equal promptmem's own scoring of the same
completions (the eval path's scores, GRPO's role rewards)."""

import json
import os
import subprocess
import sys
from pathlib import Path
from statistics import mean

import dspy
import pytest
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.runner import run_stream
from tests.helpers.fake_openai import FakeOpenAI
from tests.helpers.paths import ROOT

pytest.importorskip("verifiers.v1", reason="verifiers is not installed: pip install -e '.[peers]'")

from promptmem.integrations.verifiers_env import Setup  # noqa: E402 - needs verifiers

ROLLOUT = ROOT / "tests" / "helpers" / "verifiers_rollout.py"


class ReplayEngine:
    """A DSPy engine answering each call with the next recorded reply."""

    supports_response_schema = False
    supported_params = ("temperature", "max_tokens")

    def __init__(self, replies):
        self.replies = list(replies)

    def complete(self, request) -> Response:
        return Response(
            id=None,
            model="replay",
            message=Message.assistant([TextPart(self.replies.pop(0))]),
            finish_reason="stop",
            usage=Usage(input_tokens=0, output_tokens=0),
        )

    def stream(self, request):
        return response_to_events(self.complete(request))


def replay_lm(replies) -> dspy.LM:
    return dspy.LM("replay/policy", engine=ReplayEngine(replies), cache=False)


def export_and_install(tmp_path: Path, *args: str) -> Path:
    """Export with the CLI, pip-install the package (no dependencies: they are ours) into a
    target directory, and return that directory."""
    package, target = tmp_path / "package", tmp_path / "site"
    result = CliRunner().invoke(
        app, ["export", "verifiers", *args, "--name", "promptmem-test-env", "--out", str(package)]
    )
    assert result.exit_code == 0, result.output
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(package)],
        check=True,
        capture_output=True,
    )
    assert (target / "promptmem_test_env" / "promptmem.json").is_file()
    return target


def rollout(target: Path, base_url: str, model: str) -> dict:
    """One rollout through verifiers in a fresh interpreter that sees the installed package."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(target), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, str(ROLLOUT), "promptmem-test-env", base_url, model],
        env=env,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_rewards_equal_promptmem_scoring(target: Path, recorded: dict) -> None:
    assert recorded["ok"] and not recorded["errors"] and recorded["env"] == "MemoryEnv"
    replies = recorded["info"]["replies"]
    assert replies == recorded["branch_replies"]  # one fresh-context branch per call, in order
    setup = Setup(target / "promptmem_test_env")
    stream = setup.streams[recorded["stream"]]
    evaluated = run_stream(
        setup.agent, stream, setup.suite, replay_lm(replies), budget=setup.budget, adapter=setup.adapter
    )
    scores = [r.score for r in evaluated.records if r.score is not None]
    assert recorded["rewards"]["score"] == [pytest.approx(mean(scores)), 1.0]
    rows = setup.trace(recorded["stream"], replay_lm(replies))
    rewards = setup.rewards(recorded["stream"], rows)
    assert recorded["rewards"]["writer"] == [pytest.approx(rewards.writer), setup.writer_weight]
    assert recorded["metrics"]["usable_calls"] == len(rows) <= len(replies) == recorded["metrics"]["turns"]
    assert recorded["metrics"]["questions"] == len(scores)


def facts_reply(request: dict) -> str:
    """The actor names a port; the facts writer keeps one fact about the first service it reads."""
    if "[[ ## facts ## ]]" not in request["messages"][0]["content"]:
        return "[[ ## answer ## ]]\n8080\n\n[[ ## completed ## ]]"
    return (
        '[[ ## facts ## ]]\n[{"subject": "billing-api", "attribute": "port", "value": "8080"}]\n\n[[ ## completed ## ]]'
    )


def test_an_exported_package_runs_a_rollout_whose_rewards_equal_promptmems_scoring(tmp_path):
    target = export_and_install(tmp_path, "--writer", "facts", "--streams", "2", "--tasks", "6", "--seed", "3")
    with FakeOpenAI([], facts_reply) as server:
        recorded = rollout(target, server.url, "scripted")
    check_rewards_equal_promptmem_scoring(target, recorded)
    assert recorded["metrics"]["writes_rewarded"] > 0


def test_export_refuses_what_the_environment_cannot_run(tmp_path):
    for args, words in (
        (["--agent", "mem0"], "keeps its memories in mem0"),
        (["--writer", "mem0"], "one-call writer"),
        (["--name", "no spaces"], "letters, digits and dashes"),
    ):
        result = CliRunner().invoke(app, ["export", "verifiers", *args, "--out", str(tmp_path / "p")])
        assert result.exit_code == 2 and words in " ".join(result.output.split()), result.output
        assert not (tmp_path / "p").exists()


@pytest.mark.local_model
def test_a_rollout_on_the_embedded_model_behind_llama_cpp_server(tmp_path):
    from promptmem.lm.server import llama_server
    from promptmem.lm.specs import local_gguf

    target = export_and_install(tmp_path, "--writer", "facts", "--streams", "1", "--tasks", "4")
    with llama_server(local_gguf("local:qwen2.5-coder-0.5b"), context=4096) as url:
        recorded = rollout(target, url, "qwen2.5-coder-0.5b")
    check_rewards_equal_promptmem_scoring(target, recorded)
