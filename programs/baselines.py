"""Baseline writers that use no LM."""

from __future__ import annotations

import dspy

from promptmem.memory import Op
from promptmem.programs.writers import Write


class AppendRawWriter(dspy.Module):
    """Stores each observation verbatim (cut to the budget), evicting the oldest notes
    until it fits: a recency buffer of raw observations."""

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        text = task.observation.strip()[:budget]
        if not text:
            return Write([Op("NOOP")])
        ops, size = [], sum(len(note.text) for note in notes)
        for note in notes:
            if size + len(text) <= budget:
                break
            ops.append(Op("DELETE", note_id=note.id))
            size -= len(note.text)
        return Write(ops + [Op("ADD", text=text)])
