"""Hindsight labels of the statements a selection writer is shown (needed / superseded / never)
on hand-made streams of each suite with evidence; the hindsight keep-list; the dense reward."""

import pytest

from promptmem.signals.hindsight import (
    Need,
    StatementLabel,
    by_task,
    hindsight_keep,
    hindsight_labels,
    statement_holds,
    write_reward,
)
from promptmem.suites import SyntheticSuite
from promptmem.tasks import Fact, Stream, Task
from tests.helpers.streams import jsonl_suite, locomo_suite


def table(labels) -> dict:
    """(task id, number) -> (label, [(question id, after, kind)], superseded_in)."""
    return {
        (x.task_id, x.number): (x.label, [(n.question_id, n.after, n.kind) for n in x.needed_by], x.superseded_in)
        for x in labels
    }


def synthetic_question(i, observation, service, kind, stated_in, updated_in=(), stale=(), answer="", current=False):
    meta = {
        "service": service,
        "kind": kind,
        "stated_in": stated_in,
        "updated_in": list(updated_in),
        "stale_values": list(stale),
        "question_type": "current" if current else "recall",
    }
    return Task(f"t{i:02d}", observation, f"What {kind} for {service}?", (answer,), "synthetic", meta)


def test_synthetic_statements_are_needed_superseded_or_never():
    stream = Stream(
        "s",
        (
            Task("t00", "Ops log, day 1:\nINFO billing-api listens on port 8642\nINFO Priya sits at desk A-12", None),
            Task("t01", "Chat in #ops:\nOmar: billing-api has moved to port 9100.\nLena: Omar owns geo-cache.", None),
            synthetic_question(2, "Ticket OPS-1 (day 3):\n- the geo-cache dashboard has 12 panels.", "billing-api",
                               "port", 1, [1], ["8642"], "9100"),
            synthetic_question(3, "Wiki page 'Team notes 4': ledger-db runs version 1.2.3.", "geo-cache", "owner", 1,
                               answer="Omar"),
            synthetic_question(4, "ledger-db is deployed in eu-west-1.", "ledger-db", "region", 4, answer="eu-west-1",
                               current=True),
        ),
    )  # fmt: skip
    labels = table(hindsight_labels(stream, SyntheticSuite()))
    assert labels == {
        ("t00", 1): ("never", [], ""),
        ("t00", 2): ("superseded", [], "t01"),  # port 8642, changed in t01
        ("t00", 3): ("never", [], ""),
        ("t01", 1): ("never", [], ""),
        ("t01", 2): ("needed", [("t02", 1, "port")], ""),
        ("t01", 3): ("needed", [("t03", 2, "owner")], ""),
        ("t02", 1): ("never", [], ""),
        ("t02", 2): ("never", [], ""),
        ("t03", 1): ("never", [], ""),  # asked nowhere: the version is never asked
        ("t04", 1): ("never", [], ""),  # its question is about its own observation: no memory needed
    }


def test_jsonl_labels_follow_the_documented_meta_and_fall_back_to_any_earlier_task(tmp_path):
    suite = jsonl_suite(tmp_path)
    labels = table(hindsight_labels(suite.streams(1)[0], suite))
    assert labels == {
        ("t1", 1): ("superseded", [], "t3"),
        ("t2", 1): ("never", [], ""),
        ("t2", 2): ("needed", [("t6", 4, "")], ""),  # no revealed_in: any earlier statement holding it
        ("t3", 1): ("needed", [("t4", 1, "contact")], ""),
        ("t5", 1): ("never", [], ""),  # current: the question reads its own observation
    }


def test_locomo_labels_credit_statements_of_the_evidence_sessions_holding_the_answer_words(tmp_path):
    suite = locomo_suite(tmp_path)
    stream = suite.streams(1)[0]  # s01 q000 s02 q001 q002 q003 (q003: no evidence)
    labels = table(hindsight_labels(stream, suite))
    assert labels == {
        ("s01", 1): ("never", [], ""),  # the session header
        ("s01", 2): ("needed", [("q000", 1, "single-hop"), ("q001", 3, "multi-hop")], ""),
        ("s01", 3): ("never", [], ""),
        ("s01", 4): ("never", [], ""),
        ("s02", 1): ("never", [], ""),
        ("s02", 2): ("needed", [("q001", 1, "multi-hop")], ""),  # half of "cat, Lisbon"; q002 is adversarial
        ("s02", 3): ("needed", [("q001", 1, "multi-hop")], ""),  # the shared photo's caption: "a photo of a cat"
    }


def test_a_free_text_answer_needs_half_of_its_content_words():
    assert statement_holds("Ben: I adopted a cat.", Fact("a cat and a dog"), partial=True)
    assert not statement_holds("Ben: I adopted a parrot.", Fact("a cat"), partial=True)  # "a" does not count
    assert not statement_holds("port 8642", Fact("8642", "billing-api"))


def label(task_id, position, number, chars, afters=(), superseded_in="") -> StatementLabel:
    needs = tuple(Need("q", "?", after, "port") for after in afters)
    return StatementLabel(task_id, position, number, "x" * chars, needs, superseded_in)


def test_the_hindsight_keep_list_takes_most_needs_per_character_while_it_fits_the_budget():
    labels = [
        label("t0", 0, 1, 30, [5]),  # needed until position 5
        label("t0", 0, 2, 20, [2, 3]),  # twice as many needs: first
        label("t0", 0, 3, 5),  # never needed
        label("t1", 1, 1, 40, [1]),  # 10 characters left: dropped
        label("t1", 1, 2, 10, [4]),  # fits exactly
        label("t3", 3, 1, 20, [1]),  # t0's second statement was last needed at 3: its room is free
    ]
    assert hindsight_keep(labels, budget=60) == {"t0": [1, 2], "t1": [2], "t3": [1]}
    assert hindsight_keep(labels, budget=25) == {"t0": [2], "t1": [], "t3": [1]}


def test_the_keep_list_of_a_synthetic_stream_holds_every_recall_answer_under_a_roomy_budget():
    suite = SyntheticSuite(tasks=24)
    stream = suite.streams(1, seed=11)[0]
    labels = hindsight_labels(stream, suite)
    keep, grouped = hindsight_keep(labels, budget=10_000), by_task(labels)
    kept = [x for task_id, numbers in keep.items() for x in grouped[task_id] if x.number in numbers]
    for position, task in enumerate(stream.tasks):
        evidence = suite.evidence(task)
        if evidence and not evidence.current:
            held = [x.text for x in kept if x.position < position]
            assert any(statement_holds(text, evidence.needed[0]) for text in held), task.id
    assert {x.label for x in labels} == {"needed", "superseded", "never"}


@pytest.mark.parametrize(
    "kept, reward",
    [
        ({1, 2}, 1.0),  # both needed statements, nothing else
        ({1, 3}, 0.5 - 0.5 * 40 / 100),  # half the needed; 40 of 100 characters never needed
        ({3, 4}, 0.0 - 0.5 * 60 / 100),  # superseded statements are waste too
        (set(), 0.0),
    ],
)
def test_the_dense_write_reward(kept, reward):
    labels = [
        label("t0", 0, 1, 10, [3]),
        label("t0", 0, 2, 10, [5]),
        label("t0", 0, 3, 40),
        label("t0", 0, 4, 20, superseded_in="t2"),
    ]
    assert write_reward(labels, kept, budget=100) == pytest.approx(reward)


def test_a_write_with_nothing_needed_is_judged_by_its_waste_alone():
    labels = [label("t0", 0, 1, 300), label("t0", 0, 2, 20)]
    assert write_reward(labels, set(), budget=100) == 1.0
    assert write_reward(labels, {1}, budget=100, weight=0.25) == 0.75  # waste capped at the whole budget


PANTRY = {
    "stream_id": "pantry",
    "tasks": [
        {
            "id": "t1",
            "observation": "Pantry check:\n| honey | 6 | top |\n| nutmeg | 3 | top |\nAlso: Leila borrowed the projector.",
            "question": None,
            "meta": {"states": [{"value": "6", "subject": "honey"}, {"value": "Leila", "subject": "projector"}]},
        },
        {
            "id": "t2",
            "observation": "Nadia walked 5300 steps today. There are 4 bags of rice in the pantry.",
            "question": None,
            "meta": {"states": [{"value": "4", "subject": "rice"}]},
        },
        {
            "id": "t3",
            "observation": "",
            "question": "How many jars of honey are left?",
            "answer": ["6"],
            "meta": {"subject": "honey", "revealed_in": "t1"},
        },
    ],
}


def test_tracked_statements_state_a_listed_fact_and_the_stated_target_keeps_them_all(tmp_path):
    suite = jsonl_suite(tmp_path, PANTRY)
    labels = hindsight_labels(suite.streams(1)[0], suite)
    tracked = {(x.task_id, x.number): (x.label, x.tracked) for x in labels}
    assert tracked == {
        ("t1", 1): ("never", False),  # the header
        ("t1", 2): ("needed", True),  # honey: asked in t3
        ("t1", 3): ("never", False),  # nutmeg: in the same table, but not a fact the world tracks
        ("t1", 4): ("never", True),  # the projector: tracked, never asked
        ("t2", 1): ("never", False),
        ("t2", 2): ("never", True),
    }
    assert hindsight_keep(labels, budget=800) == {"t1": [2], "t2": []}  # t3 shows no statement
    assert hindsight_keep(labels, budget=800, target="stated") == {"t1": [2, 4], "t2": [2]}
    first = by_task(labels)["t1"]
    assert write_reward(first, {2, 4}, budget=100, target="stated") == 1.0
    assert write_reward(first, {2}, budget=100, target="stated") == 0.5  # half the wanted, no waste
    projector = len(first[3].text)
    assert write_reward(first, {2, 4}, budget=100) == pytest.approx(1.0 - 0.5 * projector / 100)  # waste for needed
