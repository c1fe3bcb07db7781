"""Keyed facts: upsert per (subject, attribute), staleness, eviction, both stores."""

import dspy
import pytest

from promptmem.lm.grammar import NoteIdsAdapter
from promptmem.memory import InMemoryStore, Note, Op, When
from promptmem.memory.sqlite import SQLiteStore
from promptmem.programs import build_agent
from promptmem.programs.facts import FactsWriter, KeyFact, parse_fact_note, upsert_ops
from promptmem.tasks import Task
from tests.helpers.scripted import scripted_lm

TASK = Task("t1", "payments-worker is now owned by Kwame", None, (), "exact")


class FixedText:
    """An engine whose every completion is ``text``, cut at a token limit."""

    def __init__(self, text):
        self.text = text

    def complete(self, request):
        from dspy.lm15 import Message, Response, TextPart, Usage

        return Response(
            id=None,
            model="fixed",
            message=Message.assistant([TextPart(self.text)]),
            finish_reason="length",
            usage=Usage(input_tokens=1, output_tokens=1),
        )

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def fixed_text_lm(text):
    return dspy.LM("fixed/text", engine=FixedText(text), cache=False)


def fact(subject, attribute, value, importance=3):
    return KeyFact(subject=subject, attribute=attribute, value=value, importance=importance)


def test_a_changed_value_replaces_the_stale_one_in_its_subjects_note():
    notes = [Note("n1", "payments-worker: owner = Priya; port = 8080"), Note("n2", "a raw note")]
    ops = upsert_ops(notes, [fact("Payments-Worker", "Owner", "Kwame"), fact("geo-cache", "region", "us-east-2")], 800)
    assert ops == [
        Op("UPDATE", "payments-worker: owner = Kwame; port = 8080", "n1", 3),
        Op("ADD", "geo-cache: region = us-east-2", None, 3),
    ]
    restated = upsert_ops(notes, [fact("payments-worker", "port", "8080", 5)], 800)
    assert restated == [Op("UPDATE", notes[0].text, "n1", 5)]  # a confirmation, rated
    assert upsert_ops(notes, [], 800) == [Op("NOOP")]


def test_separators_in_model_text_cannot_break_a_note():
    (op,) = upsert_ops([], [fact("a: b", "x=y", "1; 2"), fact("", "port", "1")], 800)
    assert op.text == "a b: x y = 1 2" and parse_fact_note(op.text) == ("a b", {"x y": "1 2"})


def test_past_the_budget_the_least_recently_written_subjects_go_first():
    notes = [Note("n1", "old: a = 1"), Note("n2", "mid: a = 2"), Note("n3", "raw observation text")]
    ops = upsert_ops(notes, [fact("new", "port", "8080"), fact("mid", "a", "3")], budget=46)
    assert ops == [
        Op("DELETE", note_id="n1", eviction=True),
        Op("ADD", "new: port = 8080", None, 3),
        Op("UPDATE", "mid: a = 3", "n2", 3),
    ]
    store = InMemoryStore(46)
    store.apply([Op("ADD", n.text) for n in notes])
    assert all(r.applied for r in store.apply(ops))


@pytest.mark.parametrize(
    "make_store", [lambda tmp: InMemoryStore(800), lambda tmp: SQLiteStore(tmp / "m.db", 800, top_k=1)]
)
def test_facts_writer_upserts_on_both_stores_and_history_keeps_the_old_value(tmp_path, make_store):
    store = make_store(tmp_path)
    agent = build_agent("seed", "facts")
    for position, owner in ((1, "Priya"), (2, "Kwame")):
        lm = scripted_lm(
            "x",
            {
                "facts": [
                    {"subject": "payments-worker", "attribute": "owner", "value": owner},
                    {"subject": "Lena", "attribute": "drink", "value": "espresso"},
                ]
            },
            NoteIdsAdapter(),
        )
        with dspy.context(lm=lm, adapter=NoteIdsAdapter()):
            store.apply(
                agent.writer(store.notes(), TASK, None, None, store.budget).ops,
                step=owner,
                when=When(position, f"task {position}"),
            )
    assert [n.text for n in store.notes()] == ["payments-worker: owner = Kwame", "Lena: drink = espresso"]
    assert [(n.written, n.confirmed) for n in store.notes()] == [("task 2", 2), ("task 1", 2)]  # Lena confirmed
    assert "Kwame" in store.render("Who owns payments-worker?")
    if isinstance(store, SQLiteStore):
        ((old, new),) = store.conn.execute(
            "SELECT old_text, new_text FROM history WHERE kind = 'UPDATE' AND old_text != new_text"
        )
        assert (old, new) == ("payments-worker: owner = Priya", "payments-worker: owner = Kwame")


def test_unreadable_facts_are_a_failed_write_not_a_crash():
    write = FactsWriter.to_write([], '[{"subject": "x"}]', 800)
    assert write.ops == [] and "KeyFact" in write.error
    assert FactsWriter.to_write([], "[]", 800).ops == [Op("NOOP")]


def test_an_output_cut_at_the_token_limit_keeps_its_complete_facts():
    cut = (
        '{"facts": [{"subject": "geo-cache", "attribute": "region", "value": "us-east-2"}, '
        '{"subject": "billing-api", "attribute": "port", "value": "80'
    )
    with dspy.context(lm=fixed_text_lm(cut), adapter=NoteIdsAdapter()):
        write = build_agent("seed", "facts").writer([], TASK, None, None, 800)
    assert write.ops == [Op("ADD", "geo-cache: region = us-east-2", None, 3)]
    assert "kept 1 readable item" in write.error
