"""LoCoMo answer scoring, following the official evaluation (snap-research/locomo,
task_eval/evaluation.py): normalized, Porter-stemmed token F1; category 1 (multi-hop)
splits the gold on commas and averages each part's best F1 over the comma-split
prediction; category 3 (open-domain) scores against the gold before the first ';';
category 5 (adversarial) scores 1 when the answer says the information is not available.
Also EM (normalized equality) and BLEU-1, as reported by the Mem0 paper.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from functools import lru_cache
from statistics import mean

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
ABSTAIN_MARKERS = ("no information available", "not mentioned")
_ARTICLES = re.compile(r"\b(a|an|the|and)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """Official normalization: drop commas, lowercase, drop punctuation and a/an/the/and."""
    text = str(text).replace(",", "").lower().translate(_PUNCT)
    return " ".join(_ARTICLES.sub(" ", text).split())


@lru_cache(maxsize=1)
def _stemmer():
    from nltk.stem import PorterStemmer

    return PorterStemmer()


def _stems(text: str) -> list[str]:
    stem = _stemmer().stem
    return [stem(word) for word in normalize_answer(text).split()]


def f1_score(prediction: str, gold: str) -> float:
    pred, ref = _stems(prediction), _stems(gold)
    common = sum((Counter(pred) & Counter(ref)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(ref)
    return 2 * precision * recall / (precision + recall)


def f1_multi(prediction: str, gold: str) -> float:
    predictions = [p.strip() for p in prediction.split(",")]
    return mean(max(f1_score(p, g.strip()) for p in predictions) for g in gold.split(","))


def category_gold(gold: str, category: int) -> str:
    return gold.split(";")[0].strip() if category == 3 else gold


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """The official per-category F1 (category 5: 1.0 for an abstention, else 0.0)."""
    if category == 5:
        return float(any(marker in prediction.lower() for marker in ABSTAIN_MARKERS))
    gold = category_gold(gold, category)
    return f1_multi(prediction, gold) if category == 1 else f1_score(prediction, gold)


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def bleu1(prediction: str, gold: str) -> float:
    """Sentence BLEU with unigram weights (smoothing method 1), on normalized tokens."""
    from nltk.translate.bleu_score import SmoothingFunction, sentence_bleu

    pred, ref = normalize_answer(prediction).split(), normalize_answer(gold).split()
    if not pred or not ref:
        return 0.0
    return sentence_bleu([ref], pred, weights=(1, 0, 0, 0), smoothing_function=SmoothingFunction().method1)
