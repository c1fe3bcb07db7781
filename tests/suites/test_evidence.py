"""Suites own their ground truth: ``evidence`` / ``stated`` on synthetic, jsonl and LoCoMo, and
the feedback and rewards built on them work off synthetic too."""

import json

import pytest

from promptmem.feedback import stream_feedback
from promptmem.memory import Note
from promptmem.signals.reward_terms import discovery
from promptmem.suites import JsonlFormatError, SyntheticSuite
from promptmem.tasks import Evidence, Fact
from tests.helpers.records import add, stream_result, task_record
from tests.helpers.streams import CRM, jsonl_suite, locomo_suite


def test_synthetic_evidence_points_at_the_snippets_that_stated_and_changed_the_fact():
    suite = SyntheticSuite(tasks=24)
    questions = 0
    for stream in suite.streams(3, seed=5):
        by_id = {t.id: t for t in stream.tasks}
        for task in stream.tasks:
            for fact in suite.stated(task):
                assert fact.value in task.observation and fact.subject in task.observation
            evidence = suite.evidence(task)
            if not task.is_question:
                assert evidence is None
                continue
            questions += 1
            assert evidence.needed == (Fact(task.answer[0], task.meta["service"]),)
            (origin,) = evidence.stated_in
            assert origin <= task.id and task.answer[0] in by_id[origin].observation
            assert evidence.current == (origin == task.id) == (task.meta["question_type"] == "current")
            assert bool(evidence.stale) == bool(evidence.updated_in) and not evidence.partial
            if evidence.updated_in:
                assert evidence.updated_in[-1] == origin
    assert questions > 30
    task = suite.streams(1)[0].tasks[0]
    keys = [f for f in task.meta["facts"] if f["type"] != "distractor"]
    assert suite.stated(task) == tuple(Fact(f["value"], f["service"]) for f in keys)


def test_jsonl_evidence_and_stated_come_from_the_documented_meta_fields(tmp_path):
    suite = jsonl_suite(tmp_path)
    t1, t2, t3, t4, t5, t6 = suite.streams(1)[0].tasks
    assert suite.evidence(t1) is None and suite.evidence(t3) is None
    assert suite.stated(t1) == (Fact("email", "Ana"),) and suite.stated(t2) == ()
    assert suite.evidence(t4) == Evidence(
        needed=(Fact("phone", "Ana"), Fact("by phone", "Ana")), stated_in=("t3",), updated_in=("t3",), stale=("email",)
    )
    assert suite.evidence(t5) == Evidence(needed=(Fact("4417"),), stated_in=("t5",), current=True)
    assert suite.evidence(t6) == Evidence(needed=(Fact("Paris"),))  # no meta: any gold answer, origin unknown


@pytest.mark.parametrize(
    "meta, message",
    [
        ({"stale": "email"}, "tasks[3] (id 't4').meta.stale: must be a list of strings"),
        ({"revealed_in": "t9"}, "tasks[3] (id 't4').meta.revealed_in: 't9' is not this task or an earlier one"),
        ({"updated_in": [3]}, "tasks[3] (id 't4').meta.updated_in: must be a task id or a list of task ids"),
        ({"current": "yes"}, "tasks[3] (id 't4').meta.current: must be true or false"),
        ({"subject": 7}, "tasks[3] (id 't4').meta.subject: must be a string"),
        ({"states": [{"value": 4}]}, "tasks[3] (id 't4').meta.states: must be a list of"),
    ],
)
def test_a_malformed_meta_field_names_file_line_task_and_field(tmp_path, meta, message):
    stream = json.loads(json.dumps(CRM))
    stream["tasks"][3]["meta"] = meta
    with pytest.raises(JsonlFormatError) as err:
        jsonl_suite(tmp_path, stream)
    assert f"{tmp_path / 'streams.jsonl'}, line 1, {message}" in str(err.value)


def test_locomo_evidence_names_the_sessions_of_the_evidence_turns(tmp_path):
    suite = locomo_suite(tmp_path)
    tasks = {t.id: t for t in suite.streams(1)[0].tasks}
    assert [suite.evidence(tasks[i]) for i in ("s01", "s02", "q002")] == [None, None, None]  # q002: adversarial
    assert suite.evidence(tasks["q000"]) == Evidence(needed=(Fact("Lisbon"),), stated_in=("s01",), partial=True)
    assert suite.evidence(tasks["q001"]).stated_in == ("s01", "s02")
    assert suite.evidence(tasks["q003"]) == Evidence(needed=(Fact("painting"),), partial=True)  # category 3 gold
    assert all(suite.stated(t) == () for t in tasks.values())


def test_jsonl_feedback_names_the_origin_and_the_stale_value_in_the_notes(tmp_path):
    suite = jsonl_suite(tmp_path)
    t1, t2, t3, t4, t5, t6 = suite.streams(1)[0].tasks
    records = [
        task_record(t1, 0, [add("Ana prefers email", "n1")]),
        task_record(t2, 1),
        task_record(t3, 2),
        task_record(t4, 3, answer="email", score=0.0),
        task_record(t5, 4, answer="4471", score=0.0),
        task_record(t6, 5, answer="Rome", score=0.0),
    ]
    feedback = stream_feedback(stream_result(records), suite)
    writer, actor = "\n".join(feedback.writer), "\n".join(feedback.actor)
    assert (
        "t4 asked 'How does Ana want to be contacted?': the answer (phone, stated in t3) was not "
        "in the notes; it was never written."
    ) in writer
    assert (
        "t4: the notes still held the stale value email ([n1] Ana prefers email) after t3 changed it to phone."
        in writer
    )
    assert "t4: you answered with the stale value email; it changed to phone in t3." in actor
    assert "t6 asked 'Which city?': the answer (Paris) was not in the notes; it was never written." in writer
    assert "t5" not in writer  # the answer was in its own observation: not the writer's miss


def test_locomo_feedback_credits_partial_answers_and_skips_adversarial(tmp_path):
    suite = locomo_suite(tmp_path)
    tasks = suite.streams(1)[0].tasks  # s01 q000 s02 q001 q002 q003
    records = [
        task_record(tasks[0], 0),
        task_record(tasks[1], 1, answer="Porto", score=0.0),
        task_record(tasks[2], 2, [add("Ben has a cat; Ana lives in Lisbon", "n1")]),
        task_record(tasks[3], 3, answer="a dog", score=0.2),
        task_record(tasks[4], 4, answer="a cat", score=0.0),
    ]
    feedback = stream_feedback(stream_result(records), suite)
    assert (
        "q000 asked 'Where did Ana move?': the answer (Lisbon, stated in s01) was not in the notes"
        in feedback.writer[0]
    )
    assert feedback.actor == ["q001: the notes held the answer (cat, Lisbon) but you answered 'a dog'."]
    assert "q002" not in "\n".join(feedback.writer + feedback.actor)


def test_discovery_reads_the_facts_a_jsonl_task_states(tmp_path):
    suite = jsonl_suite(tmp_path)
    t3 = suite.streams(1)[0].tasks[2]
    old, new = [Note("n1", "Ana prefers email")], [Note("n1", "Ana prefers phone")]
    assert discovery(old, new, t3, suite) == 1.0
    assert discovery(new, new, t3, suite) == 0.0
    assert discovery(old, [Note("n1", "phone preferred")], t3, suite) == 0.0  # the subject is missing
