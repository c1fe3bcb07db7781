"""Training rows labelled in hindsight, no model: the select writer's SFT rows (its own prompt,
the hindsight keep-list), their mix with the teacher's, the actor's questions over the notes a
writer that knew the future holds (look-alikes marked), rejection sampling of answers, and the
dense GRPO writer reward."""

import json

import dspy
import pytest
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events
from dspy.utils.dummies import DummyLM

from promptmem.lm.specs import HF_PREFIX, adapter_for
from promptmem.programs import build_agent
from promptmem.signals.hindsight import by_task, hindsight_keep, hindsight_labels, write_reward
from promptmem.signals.hindsight_rows import actor_cases, mixed_writer_rows, sample_actor_rows, writer_rows
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.role_rewards import RewardSettings, RoleRewards, check_writer_reward
from promptmem.signals.traces import TraceRow, trace_stream
from promptmem.suites import SyntheticSuite, make_suite
from promptmem.tasks import Stream, Task
from tests.helpers.scripted import ACTOR_KEY

STUDENT = adapter_for(HF_PREFIX)
LINES_KEY = "[[ ## lines ## ]]"  # only the select writer's prompts show numbered lines


def question(i, service, kind, value, stated_in):
    meta = {"service": service, "kind": kind, "stated_in": stated_in, "updated_in": [], "stale_values": []}
    return Task(f"t{i:02d}", "", f"Which {kind} does {service} use?", (value,), "synthetic", meta)


PORTS = Stream(
    "ports",
    (
        Task("t00", "Ops log:\nINFO billing-api listens on port 8642\nINFO Priya sits at desk A-12", None),
        Task("t01", "Chat: geo-cache listens on port 9100.", None),
        question(2, "billing-api", "port", "8642", 0),  # its note is older; geo-cache's port note is newer
        question(3, "geo-cache", "port", "9100", 1),  # its note is the newest
    ),
)


def test_writer_rows_show_the_select_writer_its_own_prompt_and_target_the_hindsight_keep_list():
    suite = make_suite("synthetic", tasks=16)
    stream = suite.streams(1, seed=5)[0]
    agent = build_agent("seed", writer="select")
    teacher = DummyLM({LINES_KEY: {"keep": [1]}, ACTOR_KEY: {"answer": "x"}})
    with dspy.context(lm=teacher, adapter=dspy.ChatAdapter()):
        traced = {r.task_id: r for r in trace_stream(agent, stream, suite, suite.notes_budget, STUDENT)}
    rows = writer_rows(agent, [stream], suite, suite.notes_budget, STUDENT)
    keep = hindsight_keep(hindsight_labels(stream, suite), suite.notes_budget)
    assert rows and all(keep[r.task_id] for r in rows)  # a task with nothing needed later has no row
    signature = agent.writer.predict.signature
    for row in rows:
        twin = traced[row.task_id]
        assert row.prompt == twin.prompt and row.predictor == twin.predictor == "writer.predict"
        assert (row.role, row.position, row.budget) == ("writer", twin.position, twin.budget)  # notes: the replay's
        assert STUDENT.parse(signature, row.completion) == {"keep": keep[row.task_id]}
    with pytest.raises(ValueError, match="select writer"):
        writer_rows(build_agent("seed", writer="ops"), [stream], suite, 800, STUDENT)


def row(stream_id: str, task_id: str, completion: str = "") -> TraceRow:
    return TraceRow(
        "writer", "writer.predict", stream_id, 0, [], completion, None, "", [], 1, 800, 0.0, task_id=task_id
    )


def test_writer_rows_mix_one_target_per_prompt_by_the_share():
    teacher = [row("s", f"t{i}", "teacher") for i in range(40)]
    ours = [row("s", f"t{i}", "hindsight") for i in range(0, 40, 2)]  # tasks with something needed later
    assert mixed_writer_rows(teacher, ours, 0.0) == teacher
    assert mixed_writer_rows(teacher, ours, 1.0) == ours
    mixed = mixed_writer_rows(teacher, ours, 0.5)
    assert mixed == mixed_writer_rows(teacher, ours, 0.5)  # seeded
    targets = {r.task_id: r.completion for r in mixed}
    assert len(targets) == len(mixed)  # one target per prompt
    drawn = [targets.get(f"t{i}") for i in range(0, 40, 2)]
    assert 4 <= drawn.count("hindsight") <= 16 and drawn.count("teacher") + drawn.count("hindsight") == 20
    assert all(targets[f"t{i}"] == "teacher" for i in range(1, 40, 2) if f"t{i}" in targets)


def test_actor_cases_hold_the_answer_and_mark_a_newer_lookalike_nearer_the_question():
    cases = actor_cases(PORTS, SyntheticSuite(), budget=800)
    assert [(c.step.task.id, c.lookalike) for c in cases] == [("t02", True), ("t03", False)]
    assert [n.text for n in cases[0].step.before.notes] == [
        "INFO billing-api listens on port 8642",
        "Chat: geo-cache listens on port 9100.",
    ]
    assert cases[0].step.notes.splitlines()[0].endswith("INFO billing-api listens on port 8642")
    suite = make_suite("synthetic", tasks=24)
    found = [c for s in suite.streams(3, seed=11) for c in actor_cases(s, suite, suite.notes_budget)]
    assert any(c.lookalike for c in found) and not all(c.lookalike for c in found)
    for case in found:
        assert case.step.task.answer[0].lower() in case.step.notes.lower()


class AnswerEngine:
    """A DSPy engine that answers every call with ``answer`` (chat format) and appends each
    call's temperature and seed to ``calls``."""

    def __init__(self, answer: str, calls: list):
        self.answer, self.calls = answer, calls

    def complete(self, request):
        self.calls.append((request.config.temperature, request.config.seed))
        text = f"[[ ## answer ## ]]\n{self.answer}\n\n[[ ## completed ## ]]"
        message = Message.assistant([TextPart(text)])
        return Response(id=None, model="test", message=message, finish_reason="stop", usage=Usage(0, 0))

    def stream(self, request):
        return response_to_events(self.complete(request))


def test_rejection_sampling_keeps_only_right_answers_with_the_notes_shown():
    agent, suite = build_agent("seed", writer="select"), SyntheticSuite()
    cases = actor_cases(PORTS, suite, budget=800)
    calls = []
    lm = dspy.LM("test/answers", engine=AnswerEngine("9100", calls), cache=False, temperature=0.0)  # right for t03
    rows = sample_actor_rows(Pipeline(agent, suite, lm, STUDENT, dspy.ChatAdapter()), cases, samples=3)
    assert [(r.task_id, r.role, r.predictor, r.score) for r in rows] == [("t03", "actor", "actor.predict", 1.0)]
    # t02: the greedy answer and two samples, all wrong; t03: right at once
    assert calls == [(0.0, None), (1.0, 1), (1.0, 2), (0.0, None)]
    user = rows[0].prompt[-1]["content"]
    assert cases[1].step.notes in user and "Which port does geo-cache use?" in user
    assert json.loads(rows[0].completion) == {"answer": "9100"}
    assert rows[0].notes == [[n.id, n.text] for n in cases[1].step.before.notes]


def test_the_dense_grpo_writer_reward_is_write_reward_on_the_rows_task():
    suite = make_suite("synthetic", tasks=16)
    stream = suite.streams(1, seed=5)[0]
    agent = build_agent("seed", writer="select")
    rows = writer_rows(agent, [stream], suite, suite.notes_budget, STUDENT)
    settings = RewardSettings(writer_reward="hindsight", waste_weight=0.25)
    rewards = RoleRewards(Pipeline(agent, suite, None, STUDENT), rows, [stream], settings)
    labels = by_task(hindsight_labels(stream, suite))
    first = rows[0]
    shown = len(labels[first.task_id])
    for kept in ([1], list(range(1, shown + 1)), json.loads(first.completion)["keep"]):
        expected = write_reward(labels[first.task_id], set(kept), first.budget, 0.25)
        assert rewards(None, [json.dumps({"keep": kept})], [0]) == [pytest.approx(expected)]
    assert rewards.reward(first, first.completion) > rewards.reward(first, json.dumps({"keep": [shown + 1]}))
    assert rewards.reward(first, "no json here") == -0.5  # unreadable: the parse penalty
    with_unknown = write_reward(labels[first.task_id], {1}, first.budget, 0.25) - 0.5
    assert rewards.reward(first, json.dumps({"keep": [1, shown + 5]})) == pytest.approx(with_unknown)


def test_writer_rewards_are_checked_against_the_writer():
    check_writer_reward(build_agent("seed", writer="select"), "hindsight")
    check_writer_reward(build_agent("seed", writer="ops"), "recall")
    with pytest.raises(ValueError, match="needs the select writer"):
        check_writer_reward(build_agent("seed", writer="ops"), "hindsight")
    with pytest.raises(ValueError, match="one-call writer"):
        check_writer_reward(build_agent("seed", writer="select"), "recall")
    with pytest.raises(ValueError, match="one of recall, credit, hindsight"):
        check_writer_reward(build_agent("seed", writer="select"), "vibes")
