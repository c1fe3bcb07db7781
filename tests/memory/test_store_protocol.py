import json

import pytest

from promptmem.memory import EMPTY_NOTES, InMemoryStore, Memory, Op
from promptmem.memory.sqlite import SQLiteStore


@pytest.fixture(params=["in-memory", "sqlite"])
def make_store(request, tmp_path):
    """Both stores must behave the same under the protocol."""
    if request.param == "in-memory":
        return lambda budget: InMemoryStore(budget=budget)
    return lambda budget: SQLiteStore(tmp_path / "notes.db", budget=budget)


def test_crud_ops_and_ids_are_stable(make_store):
    store = make_store(100)
    results = store.apply([Op("ADD", "alpha port 1"), Op("ADD", "beta port 2")])
    assert [r.note_id for r in results] == ["n1", "n2"]
    store.apply([Op("UPDATE", "alpha port 3", "n1"), Op("DELETE", note_id="n2"), Op("ADD", "gamma")])
    assert [(n.id, n.text) for n in store.notes()] == [("n1", "alpha port 3"), ("n3", "gamma")]
    assert isinstance(store, Memory)


def test_rejected_ops_say_why_and_change_nothing(make_store):
    store = make_store(20)
    store.apply([Op("ADD", "0123456789")])
    results = store.apply(
        [
            Op("ADD", "this is far too long for the budget"),
            Op("UPDATE", "x", "n9"),
            Op("DELETE", note_id=None),
            Op("ADD", "   "),
            Op("ADD", "0123456789"),
            Op("NOOP"),
        ]
    )
    assert [r.applied for r in results] == [False, False, False, False, False, True]
    assert results[0].reason == "over budget: notes would be 45/20 chars"
    assert "unknown note id 'n9'" in results[1].reason
    assert "empty text" in results[3].reason
    assert results[4].reason == "duplicate of note n1"
    assert [n.text for n in store.notes()] == ["0123456789"]


def test_update_counts_only_the_difference_against_the_budget(make_store):
    store = make_store(10)
    store.apply([Op("ADD", "aaaaaaaaaa")])
    assert store.apply([Op("UPDATE", "bbbbbbbbbb", "n1")])[0].applied
    assert not store.apply([Op("UPDATE", "bbbbbbbbbbb", "n1")])[0].applied


def test_render_snapshot_restore_and_trace_is_json(make_store):
    store = make_store(100)
    assert store.render() == EMPTY_NOTES
    store.apply([Op("ADD", "one")], step="t00")
    snap = store.snapshot()
    store.apply([Op("ADD", "two"), Op("DELETE", note_id="n1")], step="t01")
    assert store.render() == "[n2] two"
    store.restore(snap)
    assert store.render() == "[n1] one"
    store.apply([Op("ADD", "three")])
    assert store.notes()[-1].id == "n2"  # ids continue from the snapshot
    json.dumps(store.trace)
    assert store.trace[0] == {
        "step": "t00",
        "kind": "ADD",
        "text": "one",
        "note_id": None,
        "applied": True,
        "reason": "",
        "result_id": "n1",
    }


@pytest.mark.parametrize("kind", ["in-memory", "sqlite"])
def test_top_k_render_says_when_nothing_matches(kind, tmp_path):
    from promptmem.memory import NO_MATCH

    store = (
        InMemoryStore(budget=500, top_k=1)
        if kind == "in-memory"
        else SQLiteStore(tmp_path / "n.db", budget=500, top_k=1)
    )
    assert store.render("anything") == EMPTY_NOTES
    store.apply([Op("ADD", "billing-api port 8123"), Op("ADD", "Priya owns geo-cache")])
    assert store.render("Who owns geo-cache?") == "[n2] Priya owns geo-cache"
    assert store.render("zebra") == NO_MATCH
    assert store.render(None).count("\n") == 1  # no query: every note
