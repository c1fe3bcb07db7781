"""Cheaper, cleaner learning signals: prefix reuse accounting, notes recall, the recall
objective and the compact GEPA proposer (scripted LMs; the real engine is in test_local_model)."""

import json

import dspy
from dspy.utils.dummies import DummyLM

from promptmem.lm.llama_cpp import reused_prefix
from promptmem.memory import InMemoryStore, Op
from promptmem.optimize.proposer import CompactProposer, failure_lines, usable_rule
from promptmem.recall import notes_recall
from promptmem.tasks import Evidence, Fact


def test_reused_prefix_follows_llama_cpp_rule():
    assert reused_prefix([], [1, 2, 3]) == 0
    assert reused_prefix([1, 2, 9, 9], [1, 2, 3]) == 2
    assert reused_prefix([1, 2, 3, 4], [1, 2, 3]) == 2  # whole prompt cached: one token re-evaluated
    assert reused_prefix([1, 2, 3], [1, 2, 3, 4, 5]) == 3


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


def test_failure_lines_are_distinct_and_capped():
    items = [{"Feedback": "t03: missing 8642\nt05: stale 10"}, {"Feedback": "t03: missing 8642\n" + "x" * 500}]
    assert failure_lines(items, max_lines=10, max_chars=50) == ["t03: missing 8642", "t05: stale 10", "x" * 50]
    assert failure_lines(items, max_lines=1, max_chars=50) == ["t03: missing 8642"]


def test_compact_proposer_appends_one_checked_rule_from_failures_not_traces():
    lm = DummyLM([{"rule": "Keep every port with its service. Also more."}], adapter=dspy.JSONAdapter())
    proposer = CompactProposer(lm)
    dataset = {
        "agent.writer.predict": [
            {"Inputs": {"notes": "LONG TRACE " * 200}, "Feedback": "t03: 8642 was not in the notes"}
        ],
        "agent.actor.predict": [{"Inputs": {}, "Feedback": ""}],
    }
    candidate = {"agent.writer.predict": "Edit the notes.", "agent.actor.predict": "Answer."}
    with dspy.context(adapter=dspy.JSONAdapter()):
        out = proposer(candidate, dataset, ["agent.writer.predict", "agent.actor.predict"])
    assert out == {"agent.writer.predict": "Edit the notes.\nKeep every port with its service."}
    prompt = json.dumps(lm.history[-1]["messages"])
    assert "8642 was not in the notes" in prompt and "LONG TRACE" not in prompt
    assert "the writer" in prompt


def test_unusable_rules_are_rejected():
    assert usable_rule("ADD x | UPDATE n1 y | DELETE n2", "Edit.") is None  # ops, not a rule
    assert usable_rule("Edit the notes.", "Edit the notes.") is None  # nothing new
    assert usable_rule("word " * 100, "Edit.") is None  # too long for one rule
    assert usable_rule("  ", "Edit.") is None
    assert usable_rule("Record each value with its service.", "Edit.") == "Record each value with its service."
