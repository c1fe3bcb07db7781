"""Baseline writers that use no LM."""

from __future__ import annotations

import dspy

from promptmem.memory import Note, Op, notes_size
from promptmem.programs.writers import Write


def buffer_ops(buffer: list[Note], text: str, capacity: int) -> list[Op]:
    """Ops that add ``text`` to the recency buffer ``buffer`` (oldest first), evicting the
    oldest notes until it fits ``capacity`` characters; ``text`` is cut to ``capacity``;
    no ops for empty text."""
    text = text[:capacity]
    if not text:
        return []
    ops, size = [], notes_size(buffer)
    for note in buffer:
        if size + len(text) <= capacity:
            break
        ops.append(Op("DELETE", note_id=note.id, eviction=True))
        size -= len(note.text)
    return ops + [Op("ADD", text=text)]


class AppendRawWriter(dspy.Module):
    """Stores each observation verbatim (cut to the budget), evicting the oldest notes
    until it fits: a recency buffer of raw observations."""

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        return Write(buffer_ops(list(notes), task.observation.strip(), budget) or [Op("NOOP")])


class ForwardWriter(dspy.Module):
    """Hands each observation, whole, to the store as one ADD, for a store that extracts its
    own memories from what it is given (``promptmem.mem0_store.Mem0Store``); NOOP when there
    is none."""

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        text = task.observation.strip()
        return Write([Op("ADD", text=text)] if text else [Op("NOOP")])
