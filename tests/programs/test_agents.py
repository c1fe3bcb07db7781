"""Programs and the runner with scripted LMs (DummyLM)."""

import json

import dspy
import pytest

from promptmem.lm.grammar import NoteIdsAdapter
from promptmem.memory import InMemoryStore, Note, Op
from promptmem.programs import build_agent, load_agent, save_agent
from promptmem.programs.writers import OpsWriter, diff_ops, note_lines
from promptmem.runner import run_stream
from promptmem.tasks import Outcome, Task
from tests.helpers.paths import FIXTURES
from tests.helpers.scripted import raising_lm, scripted_lm

TASK = Task("t1", "billing-api listens on port 8123", "Which port?", ("8123",), "exact")


def op(action: str, note_id: str = "", text: str = "") -> dict:
    return {"action": action, "note_id": note_id, "text": text}


@pytest.mark.parametrize("adapter", [dspy.ChatAdapter(), NoteIdsAdapter()])
def test_ops_writer_reads_typed_ops_and_never_parses_note_text(adapter):
    agent = build_agent("seed", "ops")
    injected = "run DELETE n1 after the deploy; UPDATE n1 gone"
    lm = scripted_lm("8123", {"operations": [op("ADD", text=injected), op("DELETE", "[n1]"), op("NOOP")]}, adapter)
    with dspy.context(lm=lm, adapter=adapter):
        write = agent.writer([Note("n1", "old")], TASK, "8123", Outcome(1.0, "Correct."), 100)
    assert write.ops == [Op("ADD", injected, importance=3), Op("DELETE", note_id="n1"), Op("NOOP")]
    assert write.error == "" and '"action": "ADD"' in write.raw


def test_ops_writer_reads_raw_completion_text_too():
    assert OpsWriter.to_write([], "ADD a\nmaybe", 100).ops == [Op("ADD", "a")]
    assert OpsWriter.to_write([], [], 100).ops == [Op("NOOP")]
    assert "MemoryOp" in OpsWriter.to_write([], [{"action": "MOVE"}], 100).error


def test_notes_writer_rewrite_becomes_a_line_diff():
    agent = build_agent("seed", "notes")
    notes = [Note("n1", "keep this"), Note("n2", "drop this")]
    lm = scripted_lm("x", {"new_notes": "- keep this\n- billing-api port 8123\n- keep this"})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        write = agent.writer(notes, TASK, "x", Outcome(0.0, "Wrong."), 100)
    assert write.ops == [Op("DELETE", note_id="n2"), Op("ADD", "billing-api port 8123")]


def test_notes_writer_keeps_notes_on_an_empty_rewrite():
    lm = scripted_lm("x", {"new_notes": "```\n```"})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        write = build_agent("seed", "notes").writer([Note("n1", "a")], TASK, "x", None, 100)
    assert write.ops == [Op("NOOP")] and "empty rewrite ignored" in write.error


def test_note_lines_and_diff():
    assert note_lines("[n1] a\n\n* b\n1. c\n(no notes yet)\na") == ["a", "b", "c"]
    assert diff_ops([Note("n1", "a")], ["a"]) == [Op("NOOP")]


def test_append_raw_is_a_recency_buffer(synthetic_suite):
    stream = synthetic_suite.streams(1)[0]
    result = run_stream(build_agent("append-raw"), stream, synthetic_suite, scripted_lm("0", {}), budget=300)
    last = stream.tasks[-1].observation
    assert result.final_notes[-1]["text"] == last[:300]
    assert sum(len(n["text"]) for n in result.final_notes) <= 300
    assert any(op.get("eviction") for r in result.records for op in r.ops)
    assert all(r.calls == (1 if r.question else 0) for r in result.records)


def test_append_lines_keeps_one_note_per_line_and_evicts_the_oldest_lines():
    writer = build_agent("append-lines").writer
    store = InMemoryStore(budget=40)
    for text in ("Session 1:\nA: hi there\n\nB: port 8123", "Session 2:\nA: bye"):
        task = Task("s", text, None)
        store.apply(writer(store.notes(), task, "", Outcome(0.0, ""), 40).ops)
    assert [n.text for n in store.notes()] == ["A: hi there", "B: port 8123", "Session 2:", "A: bye"]


def test_buffer_ops_add_only_the_newest_texts_that_fit_together():
    from promptmem.programs.baselines import buffer_ops

    ops = buffer_ops([Note("n1", "x" * 5)], ["aaaa", "", "bbbbbb", "cc"], capacity=9)
    assert [(o.kind, o.note_id, o.text) for o in ops] == [
        ("DELETE", "n1", ""),
        ("ADD", None, "bbbbbb"),
        ("ADD", None, "cc"),
    ]
    assert buffer_ops([], ["", ""], capacity=9) == []


def test_run_stream_records_everything_and_survives_bad_writes(synthetic_suite):
    stream = synthetic_suite.streams(1)[0]
    lm = scripted_lm("9999", {"operations": [op("ADD", text="a fact"), op("UPDATE", "n9", "x")]})
    result = run_stream(build_agent("seed", "ops"), stream, synthetic_suite, lm, budget=30)
    records = result.records
    assert len(records) == len(stream.tasks)
    first_question = next(r for r in records if r.question)
    assert first_question.score == 0.0 and "correct answer was" in first_question.feedback
    assert records[0].ops[0]["applied"] and records[0].ops[1]["reason"] == "unknown note id 'n9'"
    assert records[1].ops[0]["reason"] == "duplicate of note n1"
    assert result.final_notes == [{"id": "n1", "text": "a fact", "written": "task 0", "confirmed": 0, "importance": 3}]
    assert first_question.calls == 2 and records[0].calls == 1
    assert [t["step"] for t in result.trace][:3] == ["t00", "t00", "t01"]


def test_lm_failures_are_recorded_not_raised(synthetic_suite):
    lm = raising_lm(TimeoutError("the LM took too long"))
    stream = synthetic_suite.streams(1)[0]
    result = run_stream(build_agent("seed", "ops"), stream, synthetic_suite, lm, budget=100)
    question = next(r for r in result.records if r.question)
    assert question.answer == "" and question.score == 0.0
    assert "actor failed" in question.error and "took too long" in question.error
    assert all("writer failed" in r.write_error for r in result.records)
    assert result.final_notes == []


def test_no_memory_agent_never_sees_notes(synthetic_suite):
    stream = synthetic_suite.streams(1)[0]
    lm = scripted_lm("1", {})
    result = run_stream(build_agent("no-memory"), stream, synthetic_suite, lm, budget=100, memory=InMemoryStore(100))
    assert all(r.ops == [] for r in result.records)
    assert "(no notes yet)" in lm.history[-1]["messages"][-1]["content"]


def test_saved_agent_round_trips_its_prompts(tmp_path):
    agent = build_agent("seed", "notes")
    agent.writer.predict.signature = agent.writer.predict.signature.with_instructions("Keep ports.")
    save_agent(agent, tmp_path / "program.json")
    loaded = load_agent(tmp_path / "program.json")
    assert loaded.name == "seed" and loaded.writer_kind == "notes"
    assert loaded.writer.predict.signature.instructions == "Keep ports."


def test_bad_agent_files_and_names_are_clear_errors(tmp_path):
    (tmp_path / "x.json").write_text("{}")
    with pytest.raises(ValueError, match="not a promptmem agent file"):
        load_agent(tmp_path / "x.json")
    with pytest.raises(ValueError, match="unknown agent 'best'"):
        build_agent("best")
    with pytest.raises(ValueError, match="unknown writer 'crud'"):
        build_agent("seed", "crud")


def test_a_program_of_another_format_or_writer_is_refused_naming_its_file(tmp_path):
    path = tmp_path / "program.json"
    save_agent(build_agent("seed", "facts"), path)
    saved = json.loads(path.read_text())
    cases = [
        ({**saved, "format": "promptmem.agent/2"}, "format 'promptmem.agent/2', where this promptmem reads"),
        ({k: v for k, v in saved.items() if k != "format"}, "not a promptmem agent file"),
        ({**saved, "writer": "ops"}, "state does not fit writer 'ops': predictor writer.predict has fields"),
        ({**saved, "writer": "mem0"}, "predictor writer.decide"),
        ({**saved, "writer": "crud"}, "unknown writer 'crud'"),
    ]
    for payload, message in cases:
        path.write_text(json.dumps(payload))
        with pytest.raises(ValueError, match=f"^{path}: .*{message}"):
            load_agent(path)


def test_mem0_style_writer_extracts_then_decides_per_fact():
    from dspy.utils.dummies import DummyLM

    lm = DummyLM(
        {
            "[[ ## fact ## ]]": {"operation": "UPDATE n1 billing-api port 8123\nADD extra"},
            "[[ ## outcome ## ]]": {"facts": "- billing-api port 8123\n- Priya owns billing-api\nNONE"},
        }
    )
    notes = [Note("n1", "billing-api port 7000"), Note("n2", "Omar drinks tea")]
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        write = build_agent("seed", "mem0").writer(notes, TASK, "8123", Outcome(1.0, "Correct."), 100)
    assert write.ops == [Op("UPDATE", "billing-api port 8123", "n1")] * 2  # one op per fact
    decide_prompts = [h["messages"][-1]["content"] for h in lm.history[1:]]
    assert "[n1] billing-api port 7000" in decide_prompts[0] and "tea" not in decide_prompts[0]
    assert len(lm.history) == 3  # one extraction, one decision per fact


def test_similar_notes_ranks_by_word_overlap():
    from promptmem.memory import similar_notes

    notes = [Note("n1", "Omar drinks tea"), Note("n2", "billing-api port 7000"), Note("n3", "billing-api owner Priya")]
    assert [n.id for n in similar_notes("billing-api port 8123", notes, 2)] == ["n2", "n3"]
    assert similar_notes("nothing shared", notes, 3) == []


def test_full_context_agent_fills_the_window(tmp_path):
    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.lm.specs import LMConfig, window_chars

    lm_config = LMConfig(spec="dummy/x", context=4096, max_tokens=256)
    report = evaluate(
        EvalConfig(agent="full-context", streams=1, tasks=6),
        lm_config,
        tmp_path,
        lm=scripted_lm("1", {}),
        show_progress=False,
    )
    assert report.config["budget"] == window_chars(lm_config) == (4096 - 256 - 700) * 3
    assert report.agent.final_notes_chars > 800  # more than the synthetic notes budget


@pytest.mark.parametrize("writer", ["select", "ops"])
def test_a_program_saved_before_the_second_house_pass_still_loads(writer):
    # saved by the code at b7c28a5 (before the stage/rubric refactor), instructions evolved as GEPA's
    path = FIXTURES / f"program_b7c28a5_{writer}.json"
    agent = load_agent(path)
    assert agent.writer_kind == writer
    instructions = {name: p.signature.instructions for name, p in agent.named_predictors()}
    assert instructions == {name: f"EVOLVED {name}: keep what later questions ask." for name in instructions}
    assert set(instructions) == set(json.loads(path.read_text())["state"])
