"""Feedback a selection writer can act on: dropped statements a later question needed, kept ones
pushed out of the budget, kept ones no question needed, aggregated by the question's kind."""

import dspy
from dspy.utils.dummies import DummyLM

from promptmem.programs import build_agent
from promptmem.runner import StreamResult, run_stream
from promptmem.signals.select_feedback import feedback_topics, selection_feedback
from promptmem.suites import SyntheticSuite
from promptmem.tasks import Stream, Task
from tests.helpers.records import add, op, stream_result, task_record
from tests.helpers.streams import jsonl_suite


def question(i, observation, service, kind, stated_in, answer):
    meta = {"service": service, "kind": kind, "stated_in": stated_in, "updated_in": [], "stale_values": []}
    return Task(f"t{i:02d}", observation, f"Which {kind} for {service}?", (answer,), "synthetic", meta)


STREAM = Stream(
    "s",
    (
        Task("t00", "Ops log, day 1:\nINFO billing-api listens on port 8642\nINFO Priya sits at desk A-12", None),
        Task("t01", "Chat in #ops:\nOmar: Lena owns geo-cache.\nLena: Omar always orders chai.", None),
        Task("t02", "Ops log, day 3:\nINFO the geo-cache dashboard has 12 panels", None),
        question(3, "", "billing-api", "port", 0, "8642"),
        question(4, "", "geo-cache", "owner", 1, "Lena"),
    ),
)


def delete(note_id):
    return op("DELETE", note_id=note_id, result_id=note_id)


def result_of(ops_by_task) -> StreamResult:
    return stream_result([task_record(task, 0, ops_by_task.get(task.id, [])) for task in STREAM.tasks])


def test_a_dropped_statement_is_quoted_with_the_question_that_needed_it_and_when():
    result = result_of(
        {
            "t00": [add("Ops log, day 1:", "n1"), add("INFO Priya sits at desk A-12", "n2")],  # drops the port
            "t01": [add("Omar: Lena owns geo-cache.", "n3"), add("Lena: Omar always orders chai.", "n4")],
        }
    )
    lines = selection_feedback(STREAM, result, SyntheticSuite())
    assert lines == [
        "Dropped 1 statement that later questions needed, about port: 1 (asked 3 tasks later).",
        "Kept 3 statements no later question needed (73 characters), e.g. "
        '"Ops log, day 1:"; "INFO Priya sits at desk A-12"; "Lena: Omar always orders chai.".',
        't00: dropped [2] "INFO billing-api listens on port 8642"; t03 asked "Which port for billing-api?" 3 tasks later.',
    ]


def test_a_kept_statement_pushed_out_names_the_unneeded_notes_that_stayed():
    result = result_of(
        {
            "t00": [add("INFO billing-api listens on port 8642", "n1"), add("INFO Priya sits at desk A-12", "n2")],
            "t01": [add("Omar: Lena owns geo-cache.", "n3")],
            "t02": [delete("n1"), add("INFO the geo-cache dashboard has 12 panels", "n4")],  # evicts the port
        }
    )
    lines = selection_feedback(STREAM, result, SyntheticSuite())
    assert (
        lines[0]
        == "Kept but pushed out of the budget before their question: 1 statement, about port: 1 (asked 3 tasks later)."
    )
    assert lines[-1] == (
        't00: kept [2] "INFO billing-api listens on port 8642", but it was pushed out of the budget at t02 '
        'before t03 asked "Which port for billing-api?" 3 tasks later; right after, the notes held 70 '
        'characters no later question needed, e.g. "INFO the geo-cache dashboard has 12 panels".'
    )
    assert not any("dropped" in line.lower() for line in lines)


def test_a_writer_that_keeps_exactly_what_was_needed_gets_no_lines():
    result = result_of(
        {"t00": [add("INFO billing-api listens on port 8642", "n1")], "t01": [add("Omar: Lena owns geo-cache.", "n2")]}
    )
    assert selection_feedback(STREAM, result, SyntheticSuite()) == []


def test_the_feedback_reads_a_select_writer_run():
    suite = SyntheticSuite(tasks=12)
    stream = suite.streams(1, seed=2)[0]
    with dspy.context(lm=DummyLM({"[[ ## lines ## ]]": {"keep": [1]}})):  # keeps the header line only
        result = run_stream(build_agent("seed", "select"), stream, suite, dspy.settings.lm, budget=200, act=False)
    lines = selection_feedback(stream, result, suite)
    assert lines[0].startswith("Dropped ") and "statements no later question needed" in lines[1]
    assert any(": dropped [" in line for line in lines)
    # the topics come from the kept statements that state no fact the world tracks (here the headers)
    chatter = next(line for line in lines if line.startswith("Of those, "))
    assert "most often about" in chatter and "most often about" not in lines[1]
    needed, unneeded = feedback_topics(lines)  # the counts read back, as the proposer reads them
    assert "day" in unneeded
    assert set(needed) <= {"port", "owner", "region", "version"} and sum(needed.values()) == int(lines[0].split()[1])


def test_gepa_shows_a_select_writer_its_statements_first_and_other_writers_nothing_new():
    from promptmem.optimize.gepa import continual_metric, recall_metric

    result = result_of({"t00": [add("INFO Priya sits at desk A-12", "n1")]})
    gold = dspy.Example(stream=STREAM).with_inputs("stream")
    select = dspy.Prediction(result=result, suite=SyntheticSuite(), selects=True)
    writer = recall_metric(gold, select, pred_name="agent.writer.predict").feedback.splitlines()
    assert (
        writer[0]
        == "Dropped 2 statements that later questions needed, about port: 1 (asked 3 tasks later); about owner: 1 (asked 3 tasks later)."
    )
    assert 't00: dropped [2] "INFO billing-api listens on port 8642"' in "\n".join(writer)
    other = dspy.Prediction(result=result, suite=SyntheticSuite(), selects=False)
    assert "dropped" not in continual_metric(gold, other, pred_name="agent.writer.predict").feedback.lower()


def test_kept_statements_that_state_no_tracked_fact_are_counted_apart_where_the_suite_lists_facts(tmp_path):
    tasks = [
        {
            "id": "t1",
            "observation": "Pantry check:\n| honey | 6 | top |\nAlso: Leila borrowed the projector.",
            "question": None,
            "meta": {"states": [{"value": "6", "subject": "honey"}, {"value": "Leila", "subject": "projector"}]},
        },
        {"id": "t2", "observation": "", "question": "How much honey?", "answer": ["6"], "meta": {"subject": "honey"}},
    ]
    suite = jsonl_suite(tmp_path, {"stream_id": "p", "tasks": tasks})
    stream = suite.streams(1)[0]
    kept = [
        add("Pantry check:", "n1"),
        add("| honey | 6 | top |", "n2"),
        add("Also: Leila borrowed the projector.", "n3"),
    ]
    result = stream_result([task_record(stream.tasks[0], 0, kept), task_record(stream.tasks[1], 0)], stream_id="p")
    assert selection_feedback(stream, result, suite) == [
        'Kept 2 statements no later question needed (48 characters), e.g. "Pantry check:"; '
        '"Also: Leila borrowed the projector.".',
        'Of those, 1 statement states no fact this world keeps track of (13 characters), e.g. "Pantry check:".',
    ]
