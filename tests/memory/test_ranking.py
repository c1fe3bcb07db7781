"""Time-aware notes: ranking by relevance, recency and importance; times shown to the actor."""

import sqlite3

import pytest

from promptmem.memory import InMemoryStore, Note, Op, When
from promptmem.memory.ranking import RankedRetriever, RankWeights
from promptmem.memory.sqlite import SQLiteStore

QUERY = "Which port does billing-api listen on?"
NOTES = [
    Note("n1", "billing-api port 7000", "task 1", 1, 3),
    Note("n2", "billing-api port 8123", "task 9", 9, 3),
    Note("n3", "Lena drinks espresso", "task 10", 10, 5),
    Note("n4", "billing-api owner Priya", "task 2", 2, 5),
]


def ids(notes):
    return [n.id for n in notes]


def test_relevance_alone_ranks_by_word_overlap():
    assert ids(RankedRetriever(RankWeights())(QUERY, NOTES, 3)) == ["n1", "n2", "n4"]


def test_recency_puts_the_newer_of_two_equally_relevant_notes_first():
    ranked = ids(RankedRetriever(RankWeights(recency=0.5, half_life=4))(QUERY, NOTES, 4))
    assert ranked[0] == "n2" and ranked.index("n2") < ranked.index("n1")
    assert ranked[1] == "n3"  # the newest note, relevant or not: recency alone is worth 0.5 here


def test_importance_lifts_a_rated_note():
    weights = RankWeights(importance=0.5)
    assert ids(RankedRetriever(weights)(QUERY, NOTES, 1)) == ["n4"]
    assert RankedRetriever(weights).scores(QUERY, NOTES)[2] == pytest.approx(0.5)  # no overlap, importance 5


def test_weights_parse_and_bad_ones_are_clear_errors():
    assert RankWeights.parse("recency=0.5, importance=0.25") == RankWeights(1.0, 0.5, 0.25, 8.0)
    with pytest.raises(ValueError, match="unknown rank weight 'recent'"):
        RankWeights.parse("recent=1")
    with pytest.raises(ValueError, match="needs a number"):
        RankWeights.parse("recency=high")
    with pytest.raises(ValueError, match="half_life must be positive"):
        RankWeights.parse("half_life=0")


@pytest.mark.parametrize(
    "make", [lambda tmp: InMemoryStore(800, show_time=True), lambda tmp: SQLiteStore(tmp / "m.db", 800, show_time=True)]
)
def test_the_actor_sees_when_a_note_was_written_and_confirming_keeps_it(tmp_path, make):
    store = make(tmp_path)
    store.apply([Op("ADD", "billing-api port 8123", importance=5)], when=When(3, "7 May 2023"))
    store.apply([Op("UPDATE", "billing-api port 8123", "n1")], when=When(6, "9 May 2023"))
    (note,) = store.notes()
    assert (note.written, note.confirmed, note.importance) == ("7 May 2023", 6, 5)
    assert store.render(QUERY) == "[n1] (7 May 2023) billing-api port 8123"
    store.apply([Op("UPDATE", "billing-api port 9000", "n1", importance=9)], when=When(8, "task 8"))
    assert (store.notes()[0].written, store.notes()[0].importance) == ("task 8", 5)  # clamped to 1-5


def test_a_store_file_from_before_note_times_opens_and_gains_them(tmp_path):
    path = tmp_path / "old.db"
    conn = sqlite3.connect(path)
    conn.executescript(
        "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, created REAL NOT NULL, "
        "updated REAL NOT NULL); INSERT INTO notes VALUES ('n1', 'kept', 0, 0);"
    )
    conn.close()
    store = SQLiteStore(path, 800)
    assert [(n.id, n.text, n.importance) for n in store.notes()] == [("n1", "kept", 3)]
