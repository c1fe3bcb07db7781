"""Notes recall: did the notes shown for a question hold its answer (with its subject, without a
stale value, as retrieval shows them)?"""

from promptmem.memory import InMemoryStore, Op
from promptmem.recall import notes_recall
from promptmem.tasks import Evidence, Fact

PORT = Evidence(needed=(Fact("8642", "billing-api"),), stated_in=("t03",), stale=("8641",))


def shown(store: InMemoryStore, question: str = "Which port does billing-api listen on?") -> str:
    return store.render(question)


def test_recall_credits_the_value_with_its_subject_and_no_stale_value():
    store = InMemoryStore(500)
    store.apply([Op("ADD", "billing-api listens on port 8642")])
    assert notes_recall(PORT, shown(store)) == 1.0
    store.apply([Op("ADD", "billing-api used port 8641 before")])  # a stale value is still there
    assert notes_recall(PORT, shown(store)) == 0.0
    other = InMemoryStore(500)
    other.apply([Op("ADD", "auth-api listens on port 8642")])  # right value, wrong subject
    assert notes_recall(PORT, shown(other)) == 0.0
    assert notes_recall(PORT, "billing-api port 86420") == 0.0  # whole words only


def test_recall_after_a_delete_is_zero():
    store = InMemoryStore(500)
    (added,) = store.apply([Op("ADD", "billing-api listens on port 8642")])
    store.apply([Op("DELETE", note_id=added.note_id)])
    assert notes_recall(PORT, shown(store)) == 0.0


def test_recall_sees_only_what_retrieval_shows():
    store = InMemoryStore(2000, top_k=1)
    store.apply(
        [
            Op("ADD", "billing-api listens on port 8642"),
            Op("ADD", "Which port does billing-api listen on? Nobody asked that yet on port day"),
        ]
    )
    assert "8642" not in shown(store)  # the matching-words decoy wins the single slot
    assert notes_recall(PORT, shown(store)) == 0.0
    store.top_k = 2
    assert notes_recall(PORT, shown(store)) == 1.0


def test_recall_is_none_where_memory_is_not_needed_and_partial_for_free_text():
    assert notes_recall(None, "anything") is None
    assert notes_recall(Evidence(needed=(Fact("8642"),), current=True), "") is None
    free = Evidence(needed=(Fact("a pottery class in May"),), partial=True)
    assert notes_recall(free, "Ana took a pottery class") == 0.6  # 3 of its 5 words
