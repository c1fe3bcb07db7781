"""Role rewards: writer credit by local re-rollout, discovery (ground truth or LM judge), TRL shape."""

import re

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from promptmem.memory import InMemoryStore, Note, Op
from promptmem.programs.judge import DiscoveryJudge
from promptmem.programs.writers import OpsWriter
from promptmem.roles import Write
from promptmem.signals.reward_terms import WriterState, actor_reward, discovery, writer_credit
from promptmem.suites import SyntheticSuite
from promptmem.suites.synthetic import KEY_KINDS
from promptmem.tasks import Task

SUITE = SyntheticSuite()


def oracle_actor(notes: str, task) -> str:
    """Answers from the notes alone: the last value of the asked kind next to the service."""
    kind, service = task.meta["kind"], task.meta["service"]
    found = [v for line in notes.splitlines() if service in line for v in re.findall(KEY_KINDS[kind].pattern, line)]
    return found[-1] if found else "unknown"


def ops(text: str) -> Write:
    return OpsWriter.to_write([], text, 800)


@pytest.fixture(scope="module")
def state_and_fact():
    stream, question = next(
        (s, t)
        for s in SUITE.streams(10, seed=21)
        for t in s.tasks
        if t.question and t.meta["question_type"] == "recall"
    )
    stated = question.meta["stated_in"]
    memory = InMemoryStore(800)
    memory.apply([Op("ADD", "Omar drinks tea")])
    state = WriterState(
        memory.snapshot(),
        800,
        stream.tasks[stated],
        tuple(stream.tasks[stated + 1 : question.meta["position"] + 1]),
        baseline=0.25,
    )
    return state, f"{question.meta['service']} {question.meta['kind']} {question.answer[0]}"


def test_storing_the_needed_fact_beats_noop_and_garbage_is_penalized(state_and_fact):
    state, fact = state_and_fact
    store = writer_credit(state, ops(f"ADD {fact}"), oracle_actor, SUITE)
    noop = writer_credit(state, ops("NOOP"), oracle_actor, SUITE)
    garbage = writer_credit(state, ops("please remember things"), oracle_actor, SUITE)
    assert store > noop
    assert garbage == pytest.approx(noop - 0.5)
    assert writer_credit(state, Write(error="unreadable"), oracle_actor, SUITE) == pytest.approx(noop - 0.5)


def test_every_completion_of_a_group_starts_from_the_same_snapshot(state_and_fact):
    state, fact = state_and_fact
    first = writer_credit(state, ops(f"ADD {fact}"), oracle_actor, SUITE)
    writer_credit(state, ops("DELETE n1\nADD something else"), oracle_actor, SUITE)
    assert writer_credit(state, ops(f"ADD {fact}"), oracle_actor, SUITE) == first  # nothing leaked
    assert [n.text for n in state.snapshot.notes] == ["Omar drinks tea"]


def test_discovery_counts_additions_and_corrections_not_paraphrase():
    task = next(
        t
        for s in SUITE.streams(5, seed=2)
        for t in s.tasks
        if len([f for f in t.meta["facts"] if f["type"] != "distractor"]) == 1
    )
    (fact,) = [f for f in task.meta["facts"] if f["type"] != "distractor"]
    service, value = fact["service"], fact["value"]
    said = [Note("n1", f"{service} has {value}")]
    assert discovery([], said, task, SUITE) == 1.0
    assert discovery(said, [Note("n2", f"for {service}: {value} (noted)")], task, SUITE) == 0.0  # paraphrase
    assert discovery([Note("n1", f"{service} has 0.0.0-stale")], said, task, SUITE) == 1.0  # correction
    assert discovery(said, [], task, SUITE) == 0.0
    assert actor_reward(1.0, [], said, task, SUITE, weight=0.5) == 1.5
    assert actor_reward(0.0, said, said, task, SUITE) == 0.0


def test_discovery_judge_off_synthetic():
    """Where the suite states nothing about the task, the LM judge decides; an edit with no
    new content word is 0 without asking it (no LM is configured, so a call would raise)."""
    task = Task(id="t3", observation="Ana: I moved to Lisbon in May.", question=None)
    before = [Note("n1", "Ana lives in Porto"), Note("n2", "Ana prefers email")]
    assert discovery(before, before, task, SUITE) == 0.0  # no judge: nothing known
    judge = DiscoveryJudge()
    assert discovery(before, [before[1], before[0]], task, SUITE, judge) == 0.0  # reorder
    assert discovery(before, [Note("n3", "Email is what Ana prefers")], task, SUITE, judge) == 0.0  # paraphrase
    assert discovery(before, before[:1], task, SUITE, judge) == 0.0  # deletion
    moved = [Note("n1", "Ana lives in Lisbon since May"), before[1]]
    with dspy.context(lm=DummyLM([{"discovery": "major"}] * 2)):
        assert discovery(before, moved, task, SUITE, judge) == 1.0
        assert actor_reward(1.0, before, moved, task, SUITE, weight=0.5, judge=judge) == 1.5
