"""Paired statistics for two runs on the same streams: per-question wins, losses and ties, a
two-sided exact sign test, and a bootstrap 95% confidence interval of the score difference that
resamples whole streams (questions of one stream share its notes, so they are not independent).

A difference is called a gain only when its interval lies above 0; greedy local-model output is
not bit-stable between runs, so one or two questions of a few dozen are within noise.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from statistics import mean

from promptmem.metrics import headline_records
from promptmem.runner import StreamResult

Key = tuple[str, str]  # (stream id, task id)


@dataclass(frozen=True)
class PairedComparison:
    """Run b against run a on the questions both scored (``questions``, over ``streams``).

    ``mean_a`` / ``mean_b``: the mean over streams of each stream's mean question score (the
    headline score's definition), on the shared questions; ``diff`` = mean_b - mean_a;
    ``wins`` / ``losses`` / ``ties``: questions b scored higher / lower / the same; ``p``: the
    two-sided sign test of wins against losses; ``ci_low`` / ``ci_high``: the bootstrap interval
    of ``diff``; ``gain``: the interval lies above 0 (a loss: below 0; else within noise)."""

    questions: int
    streams: int
    mean_a: float
    mean_b: float
    diff: float
    wins: int
    losses: int
    ties: int
    p: float
    ci_low: float
    ci_high: float
    gain: bool

    @property
    def verdict(self) -> str:
        return "gain" if self.gain else "loss" if self.ci_high < 0 else "within noise"

    def to_json(self) -> dict:
        return {**asdict(self), "verdict": self.verdict}


def question_scores(results: Sequence[StreamResult]) -> dict[Key, float]:
    """Every headline question's score, keyed by (stream id, task id)."""
    return {(result.stream_id, r.task_id): r.score for result in results for r in headline_records(result.records)}


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the chance under a fair coin of a split of ``wins + losses``
    at least as uneven as this one (ties are left out before); 1.0 when there is none."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def bootstrap_ci(
    diffs: Sequence[float], rng: random.Random, resamples: int = 10_000, level: float = 0.95
) -> tuple[float, float]:
    """Percentile interval of the mean of ``diffs`` (one per stream), resampling them with
    replacement ``resamples`` times with ``rng``; (0, 0) for no streams. Means are rounded to
    12 places: a resample whose differences cancel is 0, not float noise on either side."""
    if not diffs:
        return 0.0, 0.0
    n = len(diffs)
    means = sorted(round(sum(rng.choices(diffs, k=n)) / n, 12) for _ in range(resamples))
    tail = (1 - level) / 2 * (resamples - 1)
    return means[math.floor(tail)], means[math.ceil(resamples - 1 - tail)]


def compare_scores(
    a: Mapping[Key, float], b: Mapping[Key, float], rng: random.Random, resamples: int = 10_000
) -> PairedComparison:
    """``PairedComparison`` of per-question scores keyed by (stream id, task id); questions
    only one side scored are left out."""
    shared = [key for key in a if key in b]
    by_stream: dict[str, list[Key]] = defaultdict(list)
    for key in shared:
        by_stream[key[0]].append(key)
    mean_a = [mean(a[k] for k in keys) for keys in by_stream.values()]
    mean_b = [mean(b[k] for k in keys) for keys in by_stream.values()]
    wins = sum(b[k] > a[k] for k in shared)
    losses = sum(b[k] < a[k] for k in shared)
    low, high = bootstrap_ci([y - x for x, y in zip(mean_a, mean_b)], rng, resamples)
    a_score, b_score = (mean(m) if m else 0.0 for m in (mean_a, mean_b))
    return PairedComparison(
        questions=len(shared),
        streams=len(by_stream),
        mean_a=round(a_score, 4),
        mean_b=round(b_score, 4),
        diff=round(b_score - a_score, 4),
        wins=wins,
        losses=losses,
        ties=len(shared) - wins - losses,
        p=round(sign_test(wins, losses), 4),
        ci_low=round(low, 4),
        ci_high=round(high, 4),
        gain=low > 0,
    )


def paired_comparison(
    a: Sequence[StreamResult], b: Sequence[StreamResult], rng: random.Random, resamples: int = 10_000
) -> PairedComparison:
    """Run b against run a, two agents' results on the same streams (see ``PairedComparison``)."""
    return compare_scores(question_scores(a), question_scores(b), rng, resamples)
