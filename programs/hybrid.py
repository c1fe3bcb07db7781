"""Hybrid memory: a recency buffer of raw observations and an LM writer's notes share one
budget, so what the writer misses survives for a while (a floor under its judgment).

Buffer notes are ordinary notes whose text starts with ``RAW_PREFIX`` and the task id; the
buffer keeps the newest observations within ``share`` of the budget, evicting the oldest.
The LM writer sees only its own notes, with the rest of the budget as its limit; an op it
aims at any other id (a buffer note, or one the buffer adds in the same write) is dropped
with the reason in ``Write.error``.
"""

from __future__ import annotations

import dspy

from promptmem.memory import Note
from promptmem.programs.baselines import buffer_ops
from promptmem.roles import Abilities, Write

RAW_PREFIX = "(observed in "


def is_raw(note: Note) -> bool:
    return note.text.startswith(RAW_PREFIX)


class HybridWriter(dspy.Module):
    """``writer`` (an LM writer) over ``1 - share`` of the budget, plus a recency buffer of raw
    observations over ``share`` of it. Buffer ops come first, so the writer's ops are checked
    by the store against what the buffer left."""

    def __init__(self, writer: dspy.Module, share: float):
        super().__init__()
        if not 0 < share < 1:
            raise ValueError(f"the buffer share must be between 0 and 1 (exclusive), got {share}")
        self.writer, self.share = writer, share

    @property
    def abilities(self) -> Abilities:
        """The inner writer's, over its share of the budget (the buffer is code, not a choice)."""
        return self.writer.abilities

    def forward(self, notes, task, answer, outcome, budget) -> Write:
        raw = [note for note in notes if is_raw(note)]
        capacity = int(budget * self.share)
        observation = " ".join(task.observation.split())
        buffered = buffer_ops(raw, [f"{RAW_PREFIX}{task.id}) {observation}"], capacity) if observation else []
        own = [note for note in notes if not is_raw(note)]
        write = self.writer(own, task, answer, outcome, budget - capacity)
        own_ids = {note.id for note in own}
        kept = [op for op in write.ops if op.kind in ("ADD", "NOOP") or op.note_id in own_ids]
        dropped = len(write.ops) - len(kept)
        note = f"{dropped} op(s) on notes outside the writer's own dropped" if dropped else ""
        return Write(buffered + kept, write.error, write.raw).with_error(note)
