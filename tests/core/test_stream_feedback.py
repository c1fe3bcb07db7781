"""Per-role feedback on a hand-built stream result: each kind of feedback, and only when true."""

from promptmem.feedback import notes_timeline, stream_feedback
from promptmem.runner import StreamResult
from promptmem.suites import SyntheticSuite
from tests.helpers.records import op, record, stream_result

SUITE = SyntheticSuite()


def recalled(service, kind, stated_in=3, updated_in=(), stale=()) -> dict:
    """A synthetic recall question's meta: ``service``'s ``kind``, stated in task ``stated_in``."""
    return dict(
        service=service,
        kind=kind,
        question_type="recall",
        stated_in=stated_in,
        updated_in=list(updated_in),
        stale_values=list(stale),
    )


PORT = recalled("billing-api", "port", 1, [1], ["7000"])


def build() -> StreamResult:
    records = [
        record(0, [op("ADD", "billing-api port 7000", result_id="n1"), op("ADD", "Priya drinks tea", result_id="n2")]),
        record(1, [op("NOOP")]),  # t01 moved billing-api to 8123; the writer kept the old port
        record(2, [op("NOOP")], "Which port does billing-api listen on?", "7000", ["8123"], 0.0, meta=PORT),
        record(
            3,
            [
                op("ADD", "geo-cache region eu-west-1", result_id="n3"),
                op("ADD", "audit-log owner Omar", applied=False, reason="over budget: 900/800"),
            ],
        ),
        record(4, [], "Who owns audit-log?", "Lena", ["Omar"], 0.0, meta=recalled("audit-log", "owner")),
        record(
            5,
            [],
            "Which region is geo-cache in?",
            "us-east-2",
            ["eu-west-1"],
            0.0,
            meta=recalled("geo-cache", "region"),
        ),
        record(
            6,
            [],
            "Which region is geo-cache in?",
            "eu-west-1",
            ["eu-west-1"],
            1.0,
            meta=recalled("geo-cache", "region"),
        ),
    ]
    final = [
        {"id": "n1", "text": "billing-api port 7000"},
        {"id": "n2", "text": "Priya drinks tea"},
        {"id": "n3", "text": "geo-cache region eu-west-1"},
    ]
    return stream_result(records, final)


def test_notes_timeline_replays_the_trace():
    timeline = notes_timeline(build())
    assert timeline[0] == {}
    assert timeline[2] == {"n1": "billing-api port 7000", "n2": "Priya drinks tea"}
    assert "n3" in timeline[4] and len(timeline[4]) == 3


def test_each_feedback_kind_appears_where_it_is_true():
    feedback = stream_feedback(build(), SUITE)
    assert feedback.score == 0.25
    writer, actor = "\n".join(feedback.writer), "\n".join(feedback.actor)
    assert (
        "t02 asked 'Which port does billing-api listen on?': the answer (8123, stated in t01) "
        "was not in the notes; it was never written."
    ) in writer
    assert (
        "t02: the notes still held the stale value 7000 ([n1] billing-api port 7000) after t01 changed it to 8123."
        in writer
    )
    assert "t02: you answered with the stale value 7000; it changed to 8123 in t01." in actor
    assert (
        "the answer (Omar, stated in t03) was not in the notes; writing it was rejected at t03 (over budget: 900/800)"
        in writer
    )
    assert "t05: the notes held the answer (eu-west-1) but you answered 'us-east-2'." in actor
    assert "answered by these notes: [n1] billing-api port 7000; [n2] Priya drinks tea" in writer
    assert "t06" not in writer + actor  # a correct answer earns no feedback
    assert feedback.text("actor") == actor


def test_a_perfect_run_says_so():
    result = build()
    result.records = [r for r in result.records if r.score in (None, 1.0)]
    result.final_notes = [{"id": "n3", "text": "geo-cache region eu-west-1"}]
    feedback = stream_feedback(result, SUITE)
    assert feedback.score == 1.0 and feedback.writer == [] and feedback.actor == []
    assert feedback.text() == "No problems found: every question was answered correctly."


def test_feedback_text_is_capped():
    from promptmem.feedback import StreamFeedback

    feedback = StreamFeedback(0.0, writer=[f"line {i}" for i in range(12)])
    text = feedback.text("writer", max_lines=8)
    assert text.splitlines()[-1] == "(and 4 more like these)" and "line 8" not in text
