"""Hybrid memory: a recency buffer of raw observations beside the LM writer's notes, one budget."""

import json

import pytest

from promptmem.memory import InMemoryStore
from promptmem.programs import build_agent, load_agent, save_agent
from promptmem.programs.hybrid import RAW_PREFIX, is_raw
from promptmem.runner import run_stream
from tests.helpers.scripted import scripted_lm, typed_ops


def test_buffer_and_writer_share_one_budget_and_the_writer_never_touches_the_buffer(synthetic_suite):
    (stream,) = synthetic_suite.streams(1, seed=5)
    agent = build_agent("seed", "ops", buffer_share=0.5)
    # the writer tries to delete n1 (the first buffer note) and adds a fact every step
    lm = scripted_lm("8642", {"operations": typed_ops("DELETE n1\nADD billing-api listens on port 8642")})
    memory = InMemoryStore(600)
    result = run_stream(agent, stream, synthetic_suite, lm, budget=600, memory=memory)
    raw = [n for n in memory.notes() if is_raw(n)]
    own = [n for n in memory.notes() if not is_raw(n)]
    assert raw and sum(len(n.text) for n in raw) <= 300  # the buffer keeps to its share
    assert raw[-1].text.startswith(f"{RAW_PREFIX}{stream.tasks[-1].id})")  # the newest observation is kept
    assert [n.text for n in own] == ["billing-api listens on port 8642"]
    assert all("op(s) on notes outside the writer's own dropped" in r.write_error for r in result.records)
    assert sum(len(n.text) for n in memory.notes()) <= 600


def test_the_writer_is_shown_its_own_notes_and_its_share_of_the_budget(synthetic_suite):
    (stream,) = synthetic_suite.streams(1, seed=5)
    lm = scripted_lm("x", {"operations": typed_ops("ADD keep this")})
    run_stream(build_agent("seed", "ops", buffer_share=0.25), stream, synthetic_suite, lm, budget=800)
    writer_prompts = [
        c["messages"][-1]["content"] for c in lm.history if "[[ ## outcome ## ]]" in c["messages"][-1]["content"]
    ]
    assert "at most 600 characters" in writer_prompts[-1] and RAW_PREFIX not in writer_prompts[-1]


def test_buffer_share_is_saved_with_the_program_and_refused_where_it_means_nothing(tmp_path):
    path = tmp_path / "program.json"
    save_agent(build_agent("seed", "notes", buffer_share=0.3), path)
    assert json.loads(path.read_text())["buffer_share"] == 0.3
    loaded = load_agent(path)
    assert loaded.buffer_share == 0.3 and loaded.writer.share == 0.3
    with pytest.raises(ValueError, match="buffer-share applies to the seed agent"):
        build_agent("append-raw", buffer_share=0.3)
    with pytest.raises(ValueError, match="between 0 and 1"):
        build_agent("seed", "ops", buffer_share=1.0)
