"""The select writer's reward over the future, and the tasks where keep-lists tell apart.

A write's own labels (``hindsight.write_reward``) cannot see eviction: a statement kept at task t
and pushed out of the budgeted notes before its question comes. ``future_reward`` carries the
write forward instead: from the notes the hindsight replay (``hindsight_rows.hindsight_replay``)
holds before t, the sampled keep-list is written, then the next ``horizon`` tasks are written with
the replay's keep-lists (fixed), through the same recency buffer. The reward is

- **found**: the share of the needs at stake that the notes hold when their question comes. A
  need at stake is a statement and a question that needs it (``StatementLabel.needed_by``) coming
  within the horizon, the statement shown at t or held by the notes before t (1.0 when none is);
- minus ``weight`` × **waste**: the budget share taken by the statements the write kept that its
  target does not want (``StatementLabel.wanted``; for "needed": what no question asked) and, from
  the task that superseded them on, by those holding a stale value (any target), on average over
  the horizon's tasks as each comes (the stream's last task: right after the write); a note the
  buffer has evicted costs no more.

Only notes written at or before t are at stake: in a recency buffer a later note survives or not
whatever t kept. The labels read later answers: training streams only, never held-out ones.

``eviction_steps``: the replay's tasks where the notes are (nearly) full, so what a write keeps
evicts the oldest notes and different keep-lists change what survives: GRPO groups there are
rarely flat.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from statistics import mean

from promptmem.memory import InMemoryStore
from promptmem.memory.store import notes_size
from promptmem.signals.hindsight import StatementLabel
from promptmem.signals.hindsight_rows import ReplayStep, hindsight_replay, keep_statements
from promptmem.tasks import Stream, Suite


def needs_at_stake(replay: Sequence[ReplayStep], position: int, end: int) -> list[tuple[StatementLabel, int]]:
    """(statement, index of the question needing it) for every question after ``position`` up to
    ``end`` that needs a statement shown at ``position`` or held by the notes before it."""
    held = {note.text for note in replay[position].before.notes}
    return [
        (label, label.position + need.after)
        for step in replay[: position + 1]
        for label in step.labels
        if label.position == position or label.text in held
        for need in label.needed_by
        if position < label.position + need.after <= end
    ]


def future_reward(
    replay: Sequence[ReplayStep],
    position: int,
    kept: Collection[int],
    budget: int,
    horizon: int,
    weight: float = 0.5,
    target: str = "needed",
) -> float:
    """The reward of keeping the statements numbered ``kept`` at ``replay[position]`` (a replay
    with notes of ``budget`` characters) over the next ``horizon`` tasks (see the module). Numbers
    naming no statement are passed over (the caller penalizes them)."""
    step = replay[position]
    end = min(position + horizon, len(replay) - 1)
    stake = needs_at_stake(replay, position, end)
    memory = InMemoryStore(budget)
    memory.restore(step.before)
    keep_statements(memory, step.task, position, kept)
    costs = waste_from(replay, position, kept, target)
    ours = {note.id for note in memory.notes()} - {note.id for note in step.before.notes}
    found, waste = 0, []
    for later in range(position + 1, end + 1):
        texts = {note.text for note in memory.notes()}
        found += sum(label.text in texts for label, asked in stake if asked == later)
        waste.append(_waste(memory, ours, costs, later))
        keep_statements(memory, replay[later].task, later, replay[later].keep)
    recall = found / len(stake) if stake else 1.0
    return recall - weight * mean(waste or [_waste(memory, ours, costs, position + 1)])


def waste_from(replay: Sequence[ReplayStep], position: int, kept: Collection[int], target: str) -> dict[str, int]:
    """Statement text -> the first task index from which a statement kept at ``position`` is
    waste: at once when ``target`` does not want it, from the task that superseded it when it
    holds a stale value; statements wanted and never superseded are absent."""
    index = {step.task.id: step.position for step in replay}
    costs = {}
    for label in replay[position].labels:
        if label.number in kept and not label.wanted(target):
            costs[label.text] = position + 1
        elif label.number in kept and label.superseded_in in index:
            costs[label.text] = index[label.superseded_in]
    return costs


def _waste(memory: InMemoryStore, ours: set[str], costs: dict[str, int], now: int) -> float:
    """The budget share (at most 1) taken at task ``now`` by the write's notes (ids ``ours``)
    that are waste by then (``waste_from``)."""
    chars = sum(len(note.text) for note in memory.notes() if note.id in ours and costs.get(note.text, now + 1) <= now)
    return min(1.0, chars / memory.budget)


def eviction_steps(replay: Iterable[ReplayStep], budget: int, fill: float = 0.9) -> list[ReplayStep]:
    """The replay's steps that show statements and whose notes before them hold at least ``fill``
    × ``budget`` characters: where a write's keep-list evicts the oldest notes (``fill`` 0:
    every step that shows statements)."""
    return [step for step in replay if step.labels and notes_size(step.before.notes) >= fill * budget]


def eviction_tasks(
    streams: Iterable[Stream], suite: Suite, budget: int, target: str = "needed", fill: float = 0.9
) -> set[tuple[str, str]]:
    """(stream id, task id) of the ``eviction_steps`` of each stream's hindsight replay of ``target``."""
    return {
        (stream.id, step.task.id)
        for stream in streams
        for step in eviction_steps(hindsight_replay(stream, suite, budget, target), budget, fill)
    }
