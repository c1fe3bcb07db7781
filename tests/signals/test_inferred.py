"""Annotations inferred from gold answers alone (``signals.inferred``) on hand-made streams: where
each answer was stated, what changed it, which subjects the world tracks, the question kinds; and
the suite's own annotations winning where a file has them."""

import json

from promptmem.signals.hindsight import hindsight_keep, hindsight_labels
from promptmem.signals.hindsight_rows import actor_cases
from promptmem.signals.inferred import InferredSuite, infer_streams, subject_phrases, template_words
from promptmem.suites import JsonlSuite
from tests.helpers.paths import DATA

HONEY = "How many jars of honey are left? Reply with a number."
PROJECTOR = "Who has the projector now? Reply with the first name only."
RICE = "How many bags of rice are left? Reply with a number."
ALERT = "At what value does the memory alert fire now? Reply with a number."


def task(i, observation, question=None, answer=None, meta=None):
    raw = {"id": f"t{i}", "observation": observation, "question": question, "answer": answer, "scorer": "exact"}
    return {**raw, "meta": meta} if meta else raw


PANTRY = [
    task(
        0,
        "Pantry check:\n- We have 6 jars of honey left.\n- Theo made risotto for dinner.\n- We have 3 bags of rice left.",
    ),
    task(1, "Greta: the window cleaning is on May 24.", HONEY, "6"),
    task(2, "Leila: We have 4 jars of honey left now.\nNadia: The projector is with Greta.", None),
    task(3, "Theo: Nice weather today.", HONEY, "4"),
    task(4, "Greta: I walked 6 miles today.", PROJECTOR, "Greta"),
]
RICE_STREAM = [task(0, "We have 9 bags of rice left."), task(1, "Chatter about the weather.", RICE, "9")]


def suite_of(tmp_path, *streams) -> JsonlSuite:
    path = tmp_path / "streams.jsonl"
    path.write_text("".join(json.dumps({"stream_id": f"s{i}", "tasks": s}) + "\n" for i, s in enumerate(streams)))
    return JsonlSuite(path)


def inferred(tmp_path, *streams):
    suite = suite_of(tmp_path, *streams)
    plain = suite.streams(len(streams))
    return infer_streams(plain, suite), InferredSuite(suite)


def test_origin_update_and_stale_values_are_read_off_the_gold_answers(tmp_path):
    streams, suite = inferred(tmp_path, PANTRY, RICE_STREAM)
    tasks = streams[0].tasks
    first, second, projector = (suite.evidence(tasks[i]) for i in (1, 3, 4))
    assert (first.stated_in, first.updated_in, first.stale) == (("t0",), (), ())
    assert [(f.value, f.subject) for f in first.needed] == [("6", "honey")]
    assert (second.stated_in, second.updated_in, second.stale) == (("t2",), ("t2",), ("6",))
    assert projector.stated_in == ("t2",) and projector.needed[0].subject == "projector"  # not Greta's own chatter
    labels = {(x.task_id, x.number): x.label for x in hindsight_labels(streams[0], suite)}
    assert (
        labels[("t0", 1)] == "never"
        and labels[("t0", 2)] == "needed"
        and labels[("t2", 1)] == "needed"
        and labels[("t2", 2)] == "needed"
    )
    assert labels[("t4", 1)] == "never"  # "I walked 6 miles" holds 6 and Greta, but not about honey or projector


def test_gold_answers_alone_mark_every_statement_holding_the_value(tmp_path):
    """What the inference fixes: without it the honey question needs "I walked 6 miles" too."""
    suite = suite_of(tmp_path, PANTRY)
    labels = hindsight_labels(suite.streams(1)[0], suite)
    assert {(x.task_id, x.number) for x in labels if x.needed_by} >= {("t0", 2), ("t1", 1)}  # Greta on May 24


def test_subjects_asked_in_any_training_stream_are_tracked_in_every_one(tmp_path):
    streams, suite = inferred(tmp_path, PANTRY, RICE_STREAM)
    tracked = {(x.task_id, x.number) for x in hindsight_labels(streams[0], suite) if x.tracked}
    assert tracked == {("t0", 2), ("t0", 4), ("t2", 1), ("t2", 2)}  # rice: asked in the other stream only
    keep = hindsight_keep(hindsight_labels(streams[0], suite), 800, "stated")
    assert keep["t0"] == [2, 4] and keep["t1"] == []  # risotto and the window cleaning are chatter here


ALERT_STREAM = [
    task(0, "Ops log:\n- The memory alert fires at 90%.\n- Current memory: 85%.\n- The error alert fires at 5%."),
    task(1, "Hana: lunch is here.", ALERT, "90"),
    task(2, "Shift notes:\n- New threshold for the memory alert: 70%.\n- Current memory: 60%.\n- Build 9798 passed."),
    task(3, "Sven: +1", ALERT, "70"),
]
READINGS_STREAM = [
    task(0, "Status:\n- Current memory: 75%.\n- The memory alert threshold is 80%.\n- The CPU alert fires at 95%."),
    task(1, "Mei: The disk alert fires at 85%.", None),
    task(2, "Mei: ack", None),
]


def test_a_subject_is_its_whole_phrase_not_its_rarest_word(tmp_path):
    """The memory alert's phrase is what its question shares with both statements of its value
    ("fire" is only in one): a reading of memory names "memory", the alert's rarest word (other
    alerts make "alert" common), but is not the alert's threshold; other alerts are not it either."""
    streams, suite = inferred(tmp_path, ALERT_STREAM, READINGS_STREAM)
    pairs = [
        (ALERT.lower(), "The memory alert fires at 90%."),
        (ALERT.lower(), "New threshold for the memory alert: 70%."),
    ]
    assert subject_phrases(pairs, frozenset()) == {frozenset({"memory", "alert"})}
    tracked = [{x.text for x in hindsight_labels(s, suite) if x.tracked} for s in streams]
    assert tracked[0] == {"The memory alert fires at 90%.", "New threshold for the memory alert: 70%."}
    assert tracked[1] == {"The memory alert threshold is 80%."}  # asked in the other stream; not "Current memory"
    keep = hindsight_keep(hindsight_labels(streams[1], suite), 800, "stated")
    assert keep == {"t0": [3], "t1": [], "t2": []}


def test_question_kinds_come_from_the_wording_and_give_look_alikes(tmp_path):
    streams, suite = inferred(tmp_path, PANTRY, RICE_STREAM)
    assert template_words(streams) == {"many", "number", "reply"}  # in 2 of the 3 question texts ("left" is generic)
    kinds = {t.id: t.meta.get("kind") for t in streams[0].tasks}
    assert kinds["t1"] == kinds["t3"] == "many+number+reply" and kinds["t4"] == "reply"
    cases = actor_cases(streams[0], suite, 800, "stated")
    assert {case.step.task.id for case in cases} >= {"t1", "t3", "t4"}


def test_a_file_s_own_annotations_win(tmp_path):
    """On an annotated file the inferred target is the stated one: same labels, same keep-lists."""
    suite = JsonlSuite(DATA / "household_train.jsonl")
    streams = suite.streams(3)
    ours = infer_streams(streams, suite)
    for plain, marked in zip(streams, ours):
        own = hindsight_labels(plain, suite)
        assert hindsight_labels(marked, InferredSuite(suite)) == own
        assert hindsight_keep(own, 800, "stated") == hindsight_keep(
            hindsight_labels(marked, InferredSuite(suite)), 800, "stated"
        )
