"""Answer scorers. Each takes (prediction, golds) and returns a score in [0, 1].

The score is the best match over all acceptable gold answers.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable, Sequence

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans({c: " " for c in string.punctuation if c not in ".-"})
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def normalize(text: str) -> str:
    """Lowercase, drop articles and most punctuation, squeeze spaces (SQuAD style).

    Dots and hyphens inside tokens survive ("3.4.1", "eu-west-2"); trailing ones do not.
    """
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCT))
    tokens = (token.strip(".-") for token in text.split())
    return " ".join(token for token in tokens if token)


def exact(prediction: str, golds: Sequence[str]) -> float:
    pred = normalize(prediction)
    return float(any(pred == normalize(gold) for gold in golds))


def contains(prediction: str, golds: Sequence[str]) -> float:
    """1 when a normalized gold answer appears as a whole-token run in the prediction."""
    pred = f" {normalize(prediction)} "
    return float(any(normalize(gold) and f" {normalize(gold)} " in pred for gold in golds))


def token_f1(prediction: str, gold: str) -> float:
    pred_tokens, gold_tokens = normalize(prediction).split(), normalize(gold).split()
    common = sum((Counter(pred_tokens) & Counter(gold_tokens)).values())
    if common == 0:
        return float(pred_tokens == gold_tokens)
    precision, recall = common / len(pred_tokens), common / len(gold_tokens)
    return 2 * precision * recall / (precision + recall)


def f1(prediction: str, golds: Sequence[str]) -> float:
    return max((token_f1(prediction, gold) for gold in golds), default=0.0)


def _first_number(text: str) -> float | None:
    match = _NUMBER.search(text)
    return float(match.group().replace(",", "")) if match else None


def numeric(prediction: str, golds: Sequence[str], rel_tol: float = 1e-6) -> float:
    """1 when the first number in the prediction equals a gold number (relative tolerance)."""
    pred = _first_number(prediction)
    if pred is None:
        return 0.0
    for gold in golds:
        value = _first_number(gold)
        if value is not None and abs(pred - value) <= rel_tol * max(1.0, abs(value)):
            return 1.0
    return 0.0


def unscorable(scorer: str, gold: str) -> str:
    """Why ``scorer`` can never match the gold answer ``gold`` ("" when it can)."""
    if scorer == "numeric" and _first_number(gold) is None:
        return f"{gold!r} holds no number, which the numeric scorer compares"
    return ""


SCORERS: dict[str, Callable[[str, Sequence[str]], float]] = {
    "exact": exact,
    "f1": f1,
    "contains": contains,
    "numeric": numeric,
}


def score_answer(scorer: str, prediction: str, golds: Sequence[str]) -> float:
    """Score with the named scorer; an unknown name is a ValueError listing the known ones."""
    try:
        return SCORERS[scorer](prediction, golds)
    except KeyError:
        raise ValueError(f"unknown scorer {scorer!r}; known: {', '.join(SCORERS)}") from None
