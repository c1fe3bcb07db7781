"""Baseline writers that use no LM."""

from __future__ import annotations

import dspy

from promptmem.memory import Note, Op, notes_size
from promptmem.roles import Write


def buffer_ops(buffer: list[Note], texts: list[str], capacity: int) -> list[Op]:
    """Ops that add ``texts`` (in order) to the recency buffer ``buffer`` (oldest first),
    evicting the oldest notes until they fit ``capacity`` characters. Each text is cut to
    ``capacity``; when together they exceed it, only the newest that fit are added; empty
    texts are skipped, and no texts give no ops."""
    kept, size = [], 0
    for text in reversed([text[:capacity] for text in texts if text]):
        if size + len(text) > capacity:
            break
        kept.insert(0, text)
        size += len(text)
    if not kept:
        return []
    ops, size = [], size + notes_size(buffer)
    for note in buffer:
        if size <= capacity:
            break
        ops.append(Op("DELETE", note_id=note.id, eviction=True))
        size -= len(note.text)
    return ops + [Op("ADD", text=text) for text in kept]


class AppendRawWriter(dspy.Module):
    """Stores each observation verbatim (cut to the budget), evicting the oldest notes
    until it fits: a recency buffer of raw observations. With ``per_line``, each non-empty
    line of an observation is its own note (a LoCoMo turn), so retrieval chooses among lines."""

    def __init__(self, per_line: bool = False):
        super().__init__()
        self.per_line = per_line

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        text = task.observation.strip()
        texts = [line.strip() for line in text.splitlines()] if self.per_line else [text]
        return Write(buffer_ops(list(notes), texts, budget) or [Op("NOOP")])


class ForwardWriter(dspy.Module):
    """Hands each observation, whole, to the store as one ADD, for a store that extracts its
    own memories from what it is given (``promptmem.integrations.mem0.Mem0Store``); NOOP when there
    is none."""

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        text = task.observation.strip()
        return Write([Op("ADD", text=text)] if text else [Op("NOOP")])
