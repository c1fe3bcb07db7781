"""Replaying a store's op trace: the one place the trace's entries are turned back into notes."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from promptmem.memory.store import Memory, Note, Snapshot


def replay_entry(notes: dict[str, str], entry: dict) -> str | None:
    """Apply one trace entry to ``notes`` (id -> text) in place, as the store applied it (the
    text stripped, an updated note moved last); the text it dropped, if any."""
    if not entry["applied"] or entry["kind"] == "NOOP":
        return None
    note_id = entry["result_id"] or entry["note_id"]
    text = entry["text"].strip()
    dropped = notes.pop(note_id, None) if entry["kind"] in ("UPDATE", "DELETE") else None
    if entry["kind"] in ("ADD", "UPDATE"):
        notes[note_id] = text
    return dropped if dropped != text else None


@dataclass(frozen=True)
class StepReplay:
    """One step of a replayed trace: the notes (id -> text) before its ops, the texts its
    applied ADDs and UPDATEs wrote, the texts they dropped, and how many notes it left."""

    step: str
    before: dict[str, str]
    written: tuple[str, ...]
    dropped: tuple[str, ...]
    notes_after: int


def replay_steps(trace: Iterable[dict], steps: Sequence[str], start: Mapping[str, str] = {}) -> list[StepReplay]:
    """``trace`` replayed over the notes ``start`` holds, one ``StepReplay`` per id in
    ``steps`` (in that order; a step without entries changes nothing)."""
    by_step: dict[str, list[dict]] = {}
    for entry in trace:
        by_step.setdefault(entry["step"], []).append(entry)
    notes, replayed = dict(start), []
    for step in steps:
        before, written, dropped = dict(notes), [], []
        for entry in by_step.get(step, []):
            lost = replay_entry(notes, entry)
            dropped += [lost] if lost else []
            if entry["applied"] and entry["kind"] in ("ADD", "UPDATE"):
                written.append(entry["text"])
        replayed.append(StepReplay(step, before, tuple(written), tuple(dropped), len(notes)))
    return replayed


def rollback_to_step(store: Memory, step: str) -> None:
    """Make ``store``'s notes what they were right after ``step``'s ops (a task id in its
    trace), replaying the trace; the trace (and a SQLite history) keeps everything after."""
    trace = list(store.trace)
    last = max((i for i, entry in enumerate(trace) if entry["step"] == step), default=None)
    if last is None:
        raise ValueError(f"step {step!r} is not in this store's trace")
    notes: dict[str, str] = {}
    for entry in trace[: last + 1]:
        replay_entry(notes, entry)
    store.restore(Snapshot(tuple(Note(i, t) for i, t in notes.items()), store.snapshot().next_id, len(trace)))
