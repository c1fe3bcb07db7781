"""The compact GEPA proposer: failure lines, rules checked before they cost a metric call, rules
read off the topic counts, and its resume (scripted LMs)."""

import json

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from promptmem.optimize.proposer import (
    CompactProposer,
    contradiction,
    failure_lines,
    first_sentence,
    rule_problem,
    same_rule,
    shown_mistakes,
    topic_rules,
    usable_rule,
)
from promptmem.roles import ACTOR_ABILITIES, WRITER_ABILITIES, Abilities
from promptmem.signals.topics import distinctive_topics, topic_words


def test_failure_lines_are_distinct_whole_and_the_reflection_lm_sees_them_capped():
    items = [{"Feedback": "t03: missing 8642\nt05: stale 10"}, {"Feedback": " t03: missing 8642\n" + "x" * 500}]
    lines = failure_lines(items)
    assert lines == ["t03: missing 8642", "t05: stale 10", "x" * 500]
    assert shown_mistakes(lines, max_lines=10, max_chars=50) == "t03: missing 8642\nt05: stale 10\n" + "x" * 50
    assert shown_mistakes(lines, max_lines=1, max_chars=50) == "t03: missing 8642"


def test_compact_proposer_appends_one_checked_rule_from_failures_not_traces():
    lm = DummyLM([{"rules": ["Keep every port with its service. Also more."]}], adapter=dspy.JSONAdapter())
    proposer = CompactProposer("lm", lm)
    dataset = {
        "agent.writer.predict": [
            {"Inputs": {"notes": "LONG TRACE " * 200}, "Feedback": "t03: the port 8642 was not in the notes"}
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


def test_the_proposer_drops_duplicate_and_unactionable_rules_before_they_cost_a_metric_call():
    select = Abilities("chooses which numbered statements of the observation to keep", cannot=("update", "rewrite"))
    rules = [
        "Update the notes with the latest information.",  # the select writer cannot update
        "Keep statements that name a service's port.",
        "Keep the statements that name a service port.",  # the same rule again
        "Drop statements about desks and drinks.",
        "Edit the notes.",  # already in the instructions
    ]
    lm = DummyLM([{"rules": rules}], adapter=dspy.JSONAdapter())
    proposer = CompactProposer("lm", lm, {"agent.writer.predict": select})
    feedback = "t09 asked the port of billing: dropped statement [2]\nkept 4 about desks, 2 about drinks; never asked"
    dataset = {"agent.writer.predict": [{"Feedback": feedback}]}
    candidate = {"agent.writer.predict": "Edit the notes."}
    with dspy.context(adapter=dspy.JSONAdapter()):
        first = proposer(candidate, dataset, ["agent.writer.predict"])
        second = proposer(first, dataset, ["agent.writer.predict"])  # the queued survivor, no new call
    assert first == {"agent.writer.predict": "Edit the notes.\nKeep statements that name a service's port."}
    assert second["agent.writer.predict"].endswith("Drop statements about desks and drinks.") and len(lm.history) == 1
    assert "chooses which numbered statements" in json.dumps(lm.history[0]["messages"])
    report = proposer.report(accepted_instructions=[first["agent.writer.predict"]])
    assert report["made"] == 5 and report["distinct"] == 3 and report["tried"] == 2
    assert report["rejected"]["asks for what the step cannot do"]["examples"] == [rules[0]]
    assert report["rejected"]["duplicate of an earlier proposal"]["count"] == 1
    assert report["accepted"] == ["Keep statements that name a service's port."]


def test_rules_that_ask_the_actor_to_change_the_notes_are_refused():
    assert rule_problem("Store every port you see.", "Answer.", ACTOR_ABILITIES).startswith("asks for what")
    assert same_rule("Keep the port of each service.", "keep each service's port") is False
    feedback = ["t09 asked the port of billing 3 tasks later: dropped statement [2] 'billing listens on 8642'"]
    echo = "Dropped statement [2] 'billing listens on 8642' was asked 3 tasks later."
    assert rule_problem(echo, "Edit.", WRITER_ABILITIES, feedback=feedback) == "repeats the feedback, not a rule"
    assert rule_problem("Keep every statement that names a port.", "Edit.", WRITER_ABILITIES, feedback=feedback) == ""
    assert same_rule("Keep the port of each service.", "Keep the port for each service.")


def test_rules_that_name_no_topic_of_the_failures_are_refused():
    feedback = [
        "Dropped 3 statements that later questions needed, about port: 3 (asked 4-7 tasks later).",
        'Kept 9 statements no later question needed, e.g. "the ledger-db build took 7 minutes."',
    ]
    generic = "The writer should only keep relevant and accurate facts about the state of things."
    assert rule_problem(generic, "Edit.", WRITER_ABILITIES, feedback=feedback) == "names no topic of the failures"
    assert rule_problem("Keep every statement about ports.", "Edit.", WRITER_ABILITIES, feedback=feedback) == ""
    assert topic_words("Leave out build times (e.g. of ledger-db).", feedback) == {"build"}  # a name, not a topic
    assert first_sentence("Leave out chatter (e.g. greetings). Keep ports.") == "Leave out chatter (e.g. greetings)."


TOPIC_FEEDBACK = [
    "Dropped 5 statements that later questions needed, about port: 3 (asked 2–7 tasks later); about owner: 2 (asked 4 tasks later).",
    "Kept but pushed out of the budget before their question: 1 statement, about port: 1 (asked 9 tasks later).",
    "Kept 9 statements no later question needed (400 characters), most often about build (4), desk (3), "
    'port (2), which no needed statement mentions; e.g. "the ledger-db build took 7 minutes."',
]


def test_rules_that_point_the_wrong_way_by_the_topic_counts_are_refused():
    assert contradiction("Keep every statement about desks.", TOPIC_FEEDBACK) == "keeps what no question needed (desk)"
    assert contradiction("Leave out statements about ports.", TOPIC_FEEDBACK) == (
        "leaves out what later questions needed (port)"
    )
    assert contradiction("Do not keep build times or owners.", TOPIC_FEEDBACK).endswith("(owner)")
    assert contradiction("Leave out statements about desks and builds.", TOPIC_FEEDBACK) == ""
    assert contradiction("Keep every statement about ports, even beside a desk.", TOPIC_FEEDBACK) == ""
    assert contradiction("Keep each service's port and owner; drop everything else.", TOPIC_FEEDBACK) == ""
    assert contradiction("Leave out builds, keep desks.", TOPIC_FEEDBACK) == "keeps what no question needed (desk)"
    assert rule_problem("Keep every statement about 'desk'.", "Edit.", WRITER_ABILITIES, feedback=TOPIC_FEEDBACK) == (
        "keeps what no question needed (desk)"
    )


def test_topic_rules_are_read_off_the_topic_counts_without_a_reflection_model():
    # port counts 4 needed; "port" among the unneeded topics is a needed kind, so it is not left out
    assert topic_rules(TOPIC_FEEDBACK) == [
        "Keep every statement about port.",
        "Leave out statements about build.",
        "Leave out statements about desk.",
        "Keep every statement about owner.",
    ]
    proposer = CompactProposer("topics")
    dataset = {"agent.writer.predict": [{"Feedback": "\n".join(TOPIC_FEEDBACK)}]}
    first = proposer({"agent.writer.predict": "Edit."}, dataset, ["agent.writer.predict"])
    second = proposer(first, dataset, ["agent.writer.predict"])
    assert second == {
        "agent.writer.predict": "Edit.\nKeep every statement about port.\nLeave out statements about build."
    }
    rejected = proposer({"agent.writer.predict": "Edit."}, dataset, ["agent.writer.predict"])  # GEPA kept the seed
    assert rejected == {"agent.writer.predict": "Edit.\nLeave out statements about desk."}  # the next, not a skip
    report = proposer.report()  # each rule counted once, though the counts were read three times
    assert report["made"] == report["distinct"] == report["tried"] == 3 and report["rejected"] == {}
    assert (
        CompactProposer("topics")(
            {"agent.writer.predict": "Edit."},
            {"agent.writer.predict": [{"Feedback": "t03: wrong"}]},
            ["agent.writer.predict"],
        )
        == {}
    )  # feedback without topic counts: no rule


def test_the_proposer_s_source_of_rules_is_named_not_inferred_from_a_missing_lm():
    lm = DummyLM([{"rules": ["Keep every port."]}])
    assert CompactProposer("lm", lm).rules == "lm" and CompactProposer("topics").rules == "topics"
    with pytest.raises(ValueError, match="rules='lm' needs a reflection_lm"):
        CompactProposer("lm")
    with pytest.raises(ValueError, match="rules='topics' reads the feedback's counts: give no reflection_lm"):
        CompactProposer("topics", lm)
    with pytest.raises(ValueError, match="'judge' is not a source of rules; choose one of lm, topics"):
        CompactProposer("judge", lm)


def test_the_topics_that_set_unneeded_statements_apart_are_counted_without_names_or_twins():
    unneeded = [
        "Diego: the last ledger-db build took 7 minutes.",
        "Keiko: the last geo-cache build took 12 minutes.",
        "the geo-cache dashboard has 12 panels",
        "the billing dashboard has 30 panels",
        "the billing dashboard moved to room Falcon",
        "INFO ledger-db listens on port 9000",
    ]
    needed = ["INFO billing listens on port 8642", "Lena owns geo-cache."]
    # build, minute and took name the same two statements: one is named; names (Diego, ledger-db) and the
    # needed topics are not
    assert distinctive_topics(unneeded, needed) == [("dashboard", 3), ("build", 2), ("panel", 2)]


def test_a_resumed_proposer_carries_on_from_gepas_last_checkpoint(tmp_path):
    state = tmp_path / "proposals.json"
    rules = ["Keep every port with its service.", "Keep every port with its service.", "Keep every date."]
    lm = DummyLM([{"rules": rules}], adapter=dspy.JSONAdapter())
    dataset = {"agent.writer.predict": [{"Feedback": "t03: the port 8642 and the date were not in the notes"}]}
    with dspy.context(adapter=dspy.JSONAdapter()):
        first = CompactProposer("lm", lm, state_path=state)
        first({"agent.writer.predict": "Edit."}, dataset, ["agent.writer.predict"])
        assert CompactProposer("lm", lm, state_path=state).report()["made"] == 0  # killed before GEPA's checkpoint
        first.on_state_saved({"iteration": 1})
        resumed = CompactProposer("lm", lm, state_path=state)
        assert resumed.report() == first.report()
        assert first.report()["made"] == 3 and first.report()["distinct"] == 2 and first.report()["tried"] == 1
        proposal = resumed({"agent.writer.predict": "Edit."}, dataset, ["agent.writer.predict"])
    assert proposal == {"agent.writer.predict": "Edit.\nKeep every date."} and len(lm.history) == 1  # the queued rule
