"""`--agent mem0`: the real mem0ai 2.2.1 behind promptmem's memory protocol, its LLM a scripted
OpenAI-compatible server (tests/helpers/fake_openai.py), its embedder the packaged MiniLM; and once on
the embedded 0.5B model, served to mem0 by llama-cpp-python's server."""

import json
import urllib.error
import urllib.request
from contextlib import contextmanager

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.evaluate import EvalConfig, evaluate
from promptmem.integrations import mem0 as mem0_store
from promptmem.lm.specs import LMConfig
from promptmem.memory import Op, When, WriteFailed
from tests.helpers.fake_openai import FakeOpenAI

try:
    mem0_store.mem0_memory_class()  # imports mem0 with telemetry off, as the store does
except ImportError:
    pytest.skip("mem0ai is not installed: pip install -e '.[peers]'", allow_module_level=True)

MEMORIES = {"billing-api": "billing-api listens on port 8080", "Ana": "Ana owns the payments-worker service"}
STREAM = {
    "stream_id": "ops-1",
    "tasks": [
        {"id": "t1", "observation": "The billing-api service listens on port 8080.", "question": None},
        {"id": "t2", "observation": "Ana owns the payments-worker service.", "question": None},
        {
            "id": "t3",
            "observation": "",
            "question": "Which port does billing-api listen on?",
            "answer": "8080",
            "scorer": "contains",
        },
    ],
}


class Scripted:
    """The fake server's replies: mem0's extraction call gets ``{"memory": [...]}`` for the
    observation it carries, the actor (DSPy's chat format) answers 8080; both are kept."""

    def __init__(self):
        self.extractions, self.actor_prompts = [], []

    def __call__(self, body: dict) -> str:
        system, user = body["messages"][0]["content"], body["messages"][-1]["content"]
        if "Memory Extractor" in system:
            self.extractions.append(body)
            new = user.split("## New Messages")[1]
            return json.dumps({"memory": [{"id": "0", "text": text} for key, text in MEMORIES.items() if key in new]})
        self.actor_prompts.append(user)
        return "[[ ## answer ## ]]\n8080\n\n[[ ## completed ## ]]"


@pytest.fixture(autouse=True)
def openai_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)


def run(tmp_path, server, **config):
    data = tmp_path / "streams.jsonl"
    data.write_text(json.dumps(STREAM) + "\n")
    report = evaluate(
        EvalConfig(suite="jsonl", data=str(data), agent="mem0", baseline=False, threads=1, **config),
        LMConfig(spec="openai/fake-model", api_base=server.url),
        tmp_path / "run",
        show_progress=False,
    )
    return report, json.loads((tmp_path / "run/streams/agent/ops-1.json").read_text())


def test_observations_go_to_mem0_and_its_search_gives_the_actor_its_notes(tmp_path):
    script = Scripted()
    with FakeOpenAI([], script) as server:
        report, result = run(tmp_path, server, top_k=1)
    t1, t2, t3 = result["records"]
    assert t1["ops"] == [
        {
            "kind": "ADD",
            "text": MEMORIES["billing-api"],
            "note_id": None,
            "applied": True,
            "reason": "",
            "result_id": "n1",
        }
    ]
    assert t2["ops"][0]["result_id"] == "n2" and t2["notes_count"] == 2
    assert [op["kind"] for op in t3["ops"]] == ["NOOP"]  # no observation: nothing sent to mem0
    # one extraction call per observation, in JSON mode, with mem0 2.x's long system prompt
    assert len(script.extractions) == 2 and server.requests == 3
    assert all(b["response_format"] == {"type": "json_object"} for b in script.extractions)
    assert len(script.extractions[0]["messages"][0]["content"]) > 30_000
    # mem0's call counts in its step's cost (the fake server reports 10 prompt tokens a call)
    assert (t1["calls"], t1["prompt_tokens"]) == (1, 10)
    # Memory.search(question, top_k=1) chose the actor's notes
    (prompt,) = script.actor_prompts
    assert f"[n1] {MEMORIES['billing-api']}" in prompt and "[n2]" not in prompt
    assert t3["score"] == 1.0 and t3["write_error"] == "" and report.agent.score == 1.0
    assert [n["text"] for n in result["final_notes"]] == list(MEMORIES.values())
    stream_dir = tmp_path / "run/memory/agent/ops-1"
    assert (stream_dir / "history.db").is_file() and (stream_dir / "qdrant").is_dir()


def test_a_failing_extraction_call_is_a_write_error_and_the_stream_goes_on(tmp_path):
    script = Scripted()
    with FakeOpenAI(["500"] * 3, script) as server:  # the OpenAI client's request and its two retries
        report, result = run(tmp_path, server)
    t1, t2, t3 = result["records"]
    assert t1["write_error"].startswith("memory write failed: mem0: LLMError") and t1["ops"] == []
    assert t2["write_error"] == "" and t2["ops"][0]["text"] == MEMORIES["Ana"]
    assert t3["score"] == 1.0 and [n["text"] for n in result["final_notes"]] == [MEMORIES["Ana"]]
    assert report.agent.write_failures == 1


def test_the_store_rolls_back_to_a_snapshot_and_releases_its_files(tmp_path):
    with FakeOpenAI([], Scripted()) as server:
        endpoint = mem0_store.Endpoint("fake-model", server.url, "test-key")
        for _ in range(2):  # reopening the directory works: the first store let go of qdrant's lock
            store = mem0_store.Mem0Store.open(tmp_path / "s", "stream 1", endpoint, budget=100)
            store.apply([Op("ADD", "The billing-api service listens on port 8080.")], step="t1")
            snapshot = store.snapshot()
            results = store.apply(
                [Op("ADD", "Ana owns the payments-worker service."), Op("DELETE", note_id="n1")],
                step="t2",
                when=When(1, "task 1"),
            )
            assert [(r.op.kind, r.applied, r.note_id) for r in results] == [
                ("ADD", True, "n2"),
                ("DELETE", False, None),
            ]
            assert store.notes()[1].written == "task 1"
            store.restore(snapshot)
            assert [n.id for n in store.notes()] == ["n1"] and len(store.trace) == 1
            assert store.render() == f"[n1] {MEMORIES['billing-api']}"
            assert len(store._memory.get_all(filters={"run_id": "stream_1"})["results"]) == 1
            store.close()


def test_the_store_reports_the_adds_made_before_a_failure(tmp_path):
    with FakeOpenAI(["ok"] + ["500"] * 3, Scripted()) as server:
        store = mem0_store.Mem0Store.open(tmp_path / "s", "s", mem0_store.Endpoint("m", server.url, "k"), budget=100)
        with pytest.raises(WriteFailed) as failed:
            store.apply([Op("ADD", "billing-api listens on 8080"), Op("ADD", "Ana owns payments-worker")], step="t1")
        store.close()
    assert [r.note_id for r in failed.value.results] == ["n1"] and len(store.trace) == 1


def test_options_of_promptmems_own_stores_and_non_openai_specs_are_refused(tmp_path):
    for config, lm, problem in [
        (EvalConfig(agent="mem0", store="sqlite", rank="relevance=1"), "openai/m", "--store, --rank"),
        (EvalConfig(agent="mem0"), "anthropic/claude", "OpenAI-compatible"),
        (EvalConfig(agent="mem0"), "hosted_vllm/m", "OpenAI-compatible"),
    ]:  # no --api-base
        with pytest.raises(ValueError, match=problem):
            evaluate(config, LMConfig(spec=lm), tmp_path, show_progress=False)
    assert not (tmp_path / "config.json").exists()  # refused before the run directory is claimed


def test_the_llm_endpoint_comes_up_with_the_first_store_only(tmp_path, monkeypatch):
    started = []

    @contextmanager
    def server(*args, **kwargs):
        started.append(args)
        yield "http://127.0.0.1:9/v1"

    monkeypatch.setattr(mem0_store, "llama_server", server)
    monkeypatch.setattr(mem0_store.Mem0Store, "open", classmethod(lambda cls, *args, **kwargs: args))
    with mem0_store.mem0_stores(LMConfig(spec="local:qwen2.5-coder-0.5b"), tmp_path, budget=100):
        pass
    assert started == []
    with mem0_store.mem0_stores(LMConfig(spec="local:qwen2.5-coder-0.5b"), tmp_path, budget=100) as make:
        make("s1"), make("s2")
    assert len(started) == 1


@pytest.mark.local_model
def test_eval_agent_mem0_on_the_embedded_model(tmp_path, monkeypatch):
    """The 0.5B model answers as the actor in process and serves mem0 through llama-cpp-python's
    server, which is up during the run and gone after it."""
    served, real_server = [], mem0_store.llama_server

    @contextmanager
    def recorded_server(*args, **kwargs):
        with real_server(*args, **kwargs) as url:
            served.append(url)
            yield url

    monkeypatch.setattr(mem0_store, "llama_server", recorded_server)
    out = tmp_path / "run"
    command = ["eval", "--lm", "local:qwen2.5-coder-0.5b", "--agent", "mem0", "--streams", "1", "--tasks", "4"]
    command += ["--seed", "4242", "--no-baseline", "--out", str(out)]
    result = CliRunner().invoke(app, command)
    assert result.exit_code == 0, (result.output, result.exception)
    (url,) = served
    with pytest.raises(urllib.error.URLError):  # stopped with the run
        urllib.request.urlopen(f"{url}/models", timeout=5)
    (stream,) = (out / "streams" / "agent").glob("*.json")
    records = json.loads(stream.read_text())["records"]
    assert all(r["write_error"] == "" for r in records)  # JSON mode: every extraction parses
    assert records[0]["calls"] == 1 and records[0]["prompt_tokens"] > 7000  # mem0's one call, its long prompt
    assert any(op["applied"] and op["kind"] == "ADD" and op["text"] for r in records for op in r["ops"])
    assert json.loads(stream.read_text())["final_notes"]
    assert (out / "memory" / "agent" / stream.stem / "qdrant").is_dir()
    rerun = CliRunner().invoke(app, command)  # resumed with every stream finished: no server to start
    assert rerun.exit_code == 0 and len(served) == 1, rerun.output
