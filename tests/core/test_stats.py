"""Paired statistics: the sign test and the stream bootstrap against known values, and the
paired comparison of two runs keyed by (stream id, task id)."""

import random

import pytest

from promptmem.runner import StreamResult, TaskRecord
from promptmem.stats import bootstrap_ci, compare_scores, paired_comparison, sign_test
from tests.helpers.records import record


@pytest.mark.parametrize(
    "wins, losses, p",
    [
        (9, 1, 22 / 1024),  # 2 * (C(10,0) + C(10,1)) / 2**10; scipy.stats.binomtest(9, 10).pvalue
        (13, 7, 2 * 137980 / 2**20),  # 0.2632, the select writer's 13 wins and 7 losses
        (0, 6, 2 / 64),
        (5, 5, 1.0),
        (1, 0, 1.0),
        (0, 0, 1.0),
    ],
)
def test_the_sign_test_matches_the_exact_binomial_tail(wins, losses, p):
    assert sign_test(wins, losses) == pytest.approx(p)


def test_the_bootstrap_of_equal_differences_is_that_difference():
    assert bootstrap_ci([0.25] * 6, random.Random(0), resamples=500) == (0.25, 0.25)
    assert bootstrap_ci([], random.Random(0)) == (0.0, 0.0)


def test_the_bootstrap_of_two_streams_spans_the_extreme_resamples():
    # the mean of 2 draws from {0, 1} is 0 or 1 with chance 1/4 each: both outside the middle 95%
    assert bootstrap_ci([0.0, 1.0], random.Random(1)) == (0.0, 1.0)


def test_the_bootstrap_is_reproducible_and_bounded_by_the_streams():
    diffs = [0.1, 0.3, 0.2, 0.15, 0.25, 0.05]
    low, high = bootstrap_ci(diffs, random.Random(7))
    assert (low, high) == bootstrap_ci(diffs, random.Random(7))
    assert 0.05 <= low < sum(diffs) / len(diffs) < high <= 0.3
    assert low > 0.1 and high < 0.25  # a mean of 6 draws is rarely near an extreme


def test_compare_scores_pairs_questions_by_stream_and_task():
    a = {("s1", "t1"): 1.0, ("s1", "t2"): 0.0, ("s2", "t1"): 0.5, ("s2", "t5"): 1.0}
    b = {("s1", "t1"): 1.0, ("s1", "t2"): 1.0, ("s2", "t1"): 0.0, ("s3", "t1"): 1.0}
    result = compare_scores(a, b, random.Random(0), resamples=200)
    assert (result.questions, result.streams, result.wins, result.losses, result.ties) == (3, 2, 1, 1, 1)
    assert (result.mean_a, result.mean_b, result.diff, result.p) == (0.5, 0.5, 0.0, 1.0)
    assert result.ci_low == -0.5 and result.ci_high == 0.5  # per-stream differences +0.5 and -0.5
    assert not result.gain and result.to_json()["verdict"] == "within noise"


def test_a_consistent_gain_over_streams_is_called_a_gain_and_a_drop_a_loss():
    a = {(f"s{i}", f"t{j}"): 0.0 for i in range(6) for j in range(4)}
    b = {key: float(key[1] != "t0") for key in a}  # b wins 3 of 4 questions on every stream
    gain = compare_scores(a, b, random.Random(0))
    assert (gain.wins, gain.losses, gain.ties, gain.diff) == (18, 0, 6, 0.75)
    assert gain.gain and (gain.ci_low, gain.ci_high) == (0.75, 0.75) and gain.p < 1e-5
    loss = compare_scores(b, a, random.Random(0))
    assert not loss.gain and loss.verdict == "loss" and loss.diff == -0.75


def test_an_interval_whose_lower_end_is_a_cancelling_resample_is_not_a_gain():
    """Six streams of 21 questions (a held-out distill comparison): resamples where +3/21 and
    three -1/21 cancel are 0, so the interval starts at 0 and does not exclude it."""
    a_right, b_right = (13, 16, 8, 15, 15, 15), (16, 15, 11, 15, 15, 20)
    a = {(f"s{i}", j): float(j < right) for i, right in enumerate(a_right) for j in range(21)}
    b = {(f"s{i}", j): float(j < right) for i, right in enumerate(b_right) for j in range(21)}
    result = compare_scores(a, b, random.Random(0))
    assert (result.diff, result.ci_low, result.ci_high) == (0.0794, 0.0, 0.1667)
    assert not result.gain and result.verdict == "within noise"


def scored(task_id, score, headline=True) -> TaskRecord:
    """A step's record: a question (``score`` not None) or an observation; outside the headline
    score where ``headline`` is False."""
    question = None if score is None else "q?"
    return record(
        0, question=question, answer="", score=score, task_id=task_id, meta={"headline": False} if not headline else {}
    )


def test_paired_comparison_reads_headline_questions_of_stream_results():
    a = [StreamResult("s1", "seed", [scored("t0", None), scored("t1", 0.0), scored("t2", 1.0, headline=False)], [], [])]
    b = [
        StreamResult(
            "s1", "optimized", [scored("t0", None), scored("t1", 1.0), scored("t2", 0.0, headline=False)], [], []
        )
    ]
    result = paired_comparison(a, b, random.Random(0), resamples=100)
    assert (result.questions, result.wins, result.losses, result.diff) == (1, 1, 0, 1.0)
    assert set(result.to_json()) >= {"questions", "streams", "diff", "p", "ci_low", "ci_high", "gain", "verdict"}


def test_the_comparison_pairs_every_later_run_with_each_earlier_one(tmp_path):
    from promptmem.comparison import agent_results, paired_rows
    from promptmem.files import write_json
    from promptmem.report.comparison import labelled_pairs, paired_table

    scores = {"seed": [0.0, 0.0, 1.0], "optimized": [1.0, 1.0, 1.0], "student": [1.0, 0.0, 1.0]}
    for label, values in scores.items():
        records = [scored(f"t{i}", v) for i, v in enumerate(values)]
        path = tmp_path / label / "streams" / "agent" / "s1.json"
        path.parent.mkdir(parents=True)
        write_json(path, StreamResult("s1", label, records, [], []).to_json())
    results = {label: agent_results(tmp_path / label) for label in scores}
    paired = paired_rows(results)
    assert {b: list(pairs) for b, pairs in paired.items()} == {"optimized": ["seed"], "student": ["seed", "optimized"]}
    assert (paired["student"]["optimized"].losses, paired["student"]["optimized"].diff) == (1, round(-1 / 3, 4))
    rows = {b: {"paired": {a: s.to_json() for a, s in pairs.items()}} for b, pairs in paired.items()}
    table = paired_table(labelled_pairs(rows))
    assert "| optimized vs seed | 3 | +0.667 | [+0.667, +0.667] | 2 / 0 / 1 | 0.500 | gain |" in table


def test_the_held_split_separates_the_writers_misses_from_the_actors():
    from dataclasses import replace

    from promptmem.metrics import HeldSplit, held_split, summarize

    recalled = [
        replace(scored("t0", 1.0), notes_recall=1.0, ops=[{"applied": True}, {"applied": False}]),
        replace(scored("t1", 0.0), notes_recall=1.0, ops=[{"applied": True}, {"applied": True}]),
        replace(scored("t2", 0.0), notes_recall=0.0),
        scored("t3", 1.0),  # memory not needed: no recall
        replace(scored("t4", 0.0, headline=False), notes_recall=1.0),
    ]
    assert held_split(recalled) == HeldSplit(held=2, missed=1, score_when_held=0.5, score_when_missed=0.0)
    assert held_split([scored("t0", 1.0)]) is None
    summary = summarize([StreamResult("s1", "seed", recalled, [], [])])
    assert summary.held == held_split(recalled) and summary.applied_ops_per_task == 0.6  # 3 applied ops, 5 tasks
