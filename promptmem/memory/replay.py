"""Replaying a store's op trace: the one place the trace's entries are turned back into notes."""

from __future__ import annotations

from promptmem.memory.store import Memory, Note, Snapshot


def replay_entry(notes: dict[str, str], entry: dict) -> str | None:
    """Apply one trace entry to ``notes`` (id -> text) in place; the text it dropped, if any."""
    if not entry["applied"] or entry["kind"] == "NOOP":
        return None
    note_id = entry["result_id"] or entry["note_id"]
    dropped = notes.pop(note_id, None) if entry["kind"] in ("UPDATE", "DELETE") else None
    if entry["kind"] in ("ADD", "UPDATE"):
        notes[note_id] = entry["text"]
    return dropped if dropped != entry["text"] else None


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
