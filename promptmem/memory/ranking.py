"""Retrieval that weighs relevance, recency and importance (the "temporal and intensity
factor" of memory systems): score = relevance·w_rel + recency·w_rec + importance·w_imp, where
relevance is the query's similarity to the note (word overlap, or cosine with embeddings),
recency halves every ``half_life`` tasks since the note was last written or confirmed, and
importance maps the writer's 1-5 onto 0-1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields

from promptmem.memory import Note, word_overlap

Relevance = Callable[[str, Sequence[Note]], list[float]]  # (query, notes) -> one score per note


@dataclass(frozen=True)
class RankWeights:
    relevance: float = 1.0
    recency: float = 0.0
    importance: float = 0.0
    half_life: float = 8.0  # tasks after which recency has halved

    @classmethod
    def parse(cls, text: str) -> RankWeights:
        """``"relevance=1,recency=0.5,importance=0.3,half_life=8"`` (any subset; the rest default)."""
        names = {f.name for f in fields(cls)}
        values = {}
        for part in filter(None, (p.strip() for p in text.split(","))):
            name, _, value = part.partition("=")
            if name.strip() not in names:
                raise ValueError(f"unknown rank weight {name.strip()!r} in {text!r}; known: {', '.join(sorted(names))}")
            try:
                values[name.strip()] = float(value)
            except ValueError:
                raise ValueError(f"rank weight {name.strip()!r} needs a number, got {value!r}") from None
        weights = cls(**values)
        if weights.half_life <= 0:
            raise ValueError(f"half_life must be positive, got {weights.half_life}")
        return weights


class RankedRetriever:
    """A store retriever: the k notes with the highest weighted score (ties: store order)."""

    def __init__(self, weights: RankWeights, relevance: Relevance = word_overlap):
        self.weights, self.relevance = weights, relevance

    def scores(self, query: str, notes: Sequence[Note]) -> list[float]:
        w = self.weights
        now = max((note.confirmed for note in notes), default=0)
        return [
            w.relevance * rel
            + w.recency * 0.5 ** ((now - note.confirmed) / w.half_life)
            + w.importance * (note.importance - 1) / 4
            for rel, note in zip(self.relevance(query, notes), notes)
        ]

    def __call__(self, query: str, notes: Sequence[Note], k: int) -> list[Note]:
        scores = self.scores(query, notes)
        order = sorted(range(len(notes)), key=lambda i: (-scores[i], i))
        return [notes[i] for i in order[:k]]
