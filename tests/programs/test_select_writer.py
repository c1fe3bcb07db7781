"""The select writer: statements cut from an observation, kept word for word by number."""

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from promptmem.memory import InMemoryStore, Note
from promptmem.programs import build_agent
from promptmem.programs.select import statements
from promptmem.tasks import Task

OBSERVATION = (
    "Ticket OPS-334 (day 1):\n- geo-cache is deployed in ap-south-1.\n- Priya owns payments-worker.\n\n"
    "Wiki page 'Team notes 6': feature-flags was upgraded to version 7.2.5. It has 53 open lint warnings."
)


def select_lm(keep: list) -> DummyLM:
    return DummyLM({"[[ ## lines ## ]]": {"keep": keep}})


def write(keep: list, notes=(), budget=800, observation=OBSERVATION):
    with dspy.context(lm=select_lm(keep)):
        return build_agent("seed", "select").writer(list(notes), Task("t1", observation, None), "", None, budget)


def test_statements_are_lines_and_sentences_without_bullets():
    assert statements(OBSERVATION) == [
        "Ticket OPS-334 (day 1):",
        "geo-cache is deployed in ap-south-1.",
        "Priya owns payments-worker.",
        "Wiki page 'Team notes 6': feature-flags was upgraded to version 7.2.5.",
        "It has 53 open lint warnings.",
    ]
    assert statements(" \n\n") == []


def test_the_chosen_statements_are_kept_word_for_word_in_order_and_bad_numbers_are_reported():
    result = write([4, 2, 9, 2, 0])
    assert [(op.kind, op.text) for op in result.ops] == [
        ("ADD", "geo-cache is deployed in ap-south-1."),
        ("ADD", "Wiki page 'Team notes 6': feature-flags was upgraded to version 7.2.5."),
    ]
    assert "[9, 0]" in result.error and result.raw == "[4, 2, 9, 2, 0]"


def test_the_oldest_notes_make_room_and_an_empty_observation_is_a_noop():
    store = InMemoryStore(budget=70)
    store.apply([op for op in write([3]).ops])
    store.apply(write([2], notes=store.notes(), budget=70).ops)
    store.apply(write([4], notes=store.notes(), budget=70).ops)
    assert [n.text for n in store.notes()] == ["Wiki page 'Team notes 6': feature-flags was upgraded to version 7.2.5."]
    assert [op.kind for op in write([1], observation="").ops] == ["NOOP"]


@pytest.mark.parametrize("keep", [[], [7]])
def test_nothing_usable_chosen_is_a_noop(keep):
    assert [op.kind for op in write(keep).ops] == ["NOOP"]


def test_the_writer_never_sees_the_notes_it_cannot_change():
    lm = select_lm([1])
    with dspy.context(lm=lm):
        build_agent("seed", "select").writer([Note("n1", "secret-note")], Task("t1", "a. b.", None), "", None, 800)
    assert "secret-note" not in str(lm.history[-1]["messages"])
