"""LoCoMo: the loader (on the dev file and on hand-made files) and the official scoring."""

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from promptmem.suites import LocomoFormatError, LocomoSuite, load_locomo
from promptmem.suites.locomo_scoring import bleu1, exact_match, f1_score, locomo_f1, normalize_answer
from tests.helpers.paths import ROOT
from tests.helpers.streams import TINY, write_locomo

DEV = Path(os.environ.get("LOCOMO_DEV", ROOT.parent / "shared/data/locomo/locomo_dev2.json"))
needs_dev = pytest.mark.skipif(not DEV.is_file(), reason=f"LoCoMo dev file not found at {DEV} (set LOCOMO_DEV)")


def test_sessions_in_order_and_questions_after_their_last_evidence(tmp_path):
    (stream,) = load_locomo(write_locomo(tmp_path))
    assert [t.id for t in stream.tasks] == ["s01", "q000", "s02", "q001", "q002", "q003"]
    first = stream.tasks[0]
    assert first.question is None and first.observation.startswith("Session 1 (8 May 2023):\nAna: I moved")
    assert "Ben: I adopted a cat. [shares a photo: a photo of a cat]" in stream.tasks[2].observation
    adversarial = stream.tasks[4]
    assert adversarial.answer == ("a cat",) and adversarial.meta["headline"] is False
    (at_end,) = load_locomo(write_locomo(tmp_path), questions_at_end=True)
    assert [t.id for t in at_end.tasks] == ["s01", "s02", "q000", "q001", "q002", "q003"]


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda c: c.pop("conversation"), "conversation tiny.conversation: missing or not an object"),
        (lambda c: c["conversation"].update(session_1="oops"), "tiny.conversation.session_1: must be a list"),
        (lambda c: c["conversation"]["session_1"][1].pop("text"), "session_1[1]: each turn needs"),
        (lambda c: c["qa"][1].update(category=7), "tiny.qa[1].category: 7 is not one of [1, 2, 3, 4, 5]"),
        (lambda c: c["qa"][0].pop("answer"), "tiny.qa[0].answer: missing"),
        (lambda c: c["qa"][0].update(answer=" "), "tiny.qa[0].answer: is empty"),
        (lambda c: c.pop("qa"), "tiny.qa: missing or not a list"),
    ],
)
def test_malformed_files_name_the_conversation_and_field(tmp_path, mutate, message):
    conv = json.loads(json.dumps(TINY))
    mutate(conv)
    with pytest.raises(LocomoFormatError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_locomo(write_locomo(tmp_path, [conv]))


def test_unreadable_files(tmp_path):
    with pytest.raises(LocomoFormatError, match="cannot read"):
        load_locomo(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("[{")
    with pytest.raises(LocomoFormatError, match="not valid JSON"):
        load_locomo(tmp_path / "bad.json")


@needs_dev
def test_dev_file_counts_and_placement():
    suite = LocomoSuite(DEV)
    streams = suite.streams(10)
    assert [s.id for s in streams] == ["conv-26", "conv-30"]
    for stream in streams:
        sessions = [t for t in stream.tasks if t.question is None]
        assert len(sessions) == 19
        seen_session = 0
        for task in stream.tasks:
            if task.question is None:
                seen_session = task.meta["session"]
            else:  # every question comes after the session of its last evidence turn
                assert task.meta["evidence_session"] <= seen_session
    categories = Counter(t.meta["category_name"] for t in streams[0].tasks if t.question)
    assert categories == {"single-hop": 70, "adversarial": 47, "temporal": 37, "multi-hop": 32, "open-domain": 13}
    assert sum(1 for t in streams[1].tasks if t.question) == 105


@pytest.mark.parametrize(
    "prediction, gold, category, expected",
    [
        ("The dogs running!", "dog runs", 4, 1.0),  # normalized and Porter-stemmed
        ("in Lisbon and Porto", "Lisbon", 2, 0.5),  # 3 tokens: "and" is dropped like an article
        ("cat, Lisbon", "Lisbon, cat", 1, 1.0),  # multi-hop: per gold part, best prediction part
        ("cat", "cat, Lisbon", 1, 0.5),
        ("psychology", "Psychology; counseling maybe", 3, 1.0),  # open-domain: gold before ';'
        ("No information available.", "a cat", 5, 1.0),  # adversarial: abstention scores
        ("That is not mentioned in the conversation", "a cat", 5, 1.0),
        ("a cat", "a cat", 5, 0.0),
        ("", "Lisbon", 4, 0.0),
    ],
)
def test_official_scoring_rules(prediction, gold, category, expected):
    assert locomo_f1(prediction, gold, category) == expected


def test_em_bleu_and_suite_outcome(tmp_path):
    assert normalize_answer("The cat, and a dog.") == "cat dog"
    assert exact_match("the Cat", "cat") == 1.0 and f1_score("cats", "cat") == 1.0
    assert bleu1("red car", "red car") == 1.0 and 0 < bleu1("red", "red car") < 1
    suite = LocomoSuite(write_locomo(tmp_path))
    task = suite.streams(1)[0].tasks[1]
    outcome = suite.score(task, "Lisbon")
    assert outcome.score == 1.0 and outcome.metrics == {"f1": 1.0, "bleu1": 1.0, "em": 1.0}
    assert "Expected: Lisbon" in suite.score(task, "Paris").feedback


def test_llm_judge_scores_a_run_and_resumes(tmp_path):
    from dspy.utils.dummies import DummyLM
    from typer.testing import CliRunner

    from promptmem.cli import app
    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.judgments import judge_run
    from promptmem.lm.specs import LMConfig

    data = write_locomo(tmp_path)
    answers = DummyLM({"[[ ## question ## ]]": {"answer": "Lisbon"}})
    evaluate(
        EvalConfig(suite="locomo", data=str(data), agent="no-memory", streams=1),
        LMConfig(spec="dummy/x"),
        tmp_path / "run",
        lm=answers,
        show_progress=False,
    )
    judge = DummyLM({"Where did Ana move": {"label": "CORRECT"}, "[[ ## question ## ]]": {"label": "WRONG"}})
    report = judge_run(tmp_path / "run", judge)
    assert report["j"] == pytest.approx(1 / 3, abs=1e-4)  # 3 headline questions, one judged correct
    assert report["breakdown"]["category_name=single-hop"] == {"n": 1, "j": 1.0}
    assert "category_name=adversarial" not in report["breakdown"]
    calls = len(judge.history)
    assert judge_run(tmp_path / "run", judge)["j"] == report["j"] and len(judge.history) == calls
    result = CliRunner().invoke(app, ["judge", str(tmp_path / "nothing"), "--lm", "openai/x"])
    assert result.exit_code == 2 and "no finished streams" in " ".join(result.output.split())


def test_question_sample_is_evenly_spaced_and_keeps_every_session(tmp_path):
    (stream,) = load_locomo(write_locomo(tmp_path), questions=2)
    assert [t.id for t in stream.tasks] == ["s01", "q000", "s02", "q002"]
    (everything,) = load_locomo(write_locomo(tmp_path), questions=10)
    assert len(everything.tasks) == 6


def test_a_file_nested_too_deep_is_named_not_a_traceback(tmp_path):
    from promptmem.suites import LocomoFormatError, load_locomo

    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(LocomoFormatError, match="deep.json: nested too deep to read"):
        load_locomo(path)
