"""Agent memory: notes with stable ids, edited only through ADD / UPDATE / DELETE / NOOP ops.

The store enforces the budget, so a writer cannot grow the notes past it: an op that
would exceed the budget is rejected with its reason, and the notes stay as they were.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Literal, Protocol, runtime_checkable

OpKind = Literal["ADD", "UPDATE", "DELETE", "NOOP"]
DEFAULT_IMPORTANCE = 3
OP_KINDS: tuple[str, ...] = ("ADD", "UPDATE", "DELETE", "NOOP")


@dataclass(frozen=True)
class Note:
    """A note and when it was made: ``written`` labels the task where its text last changed
    (a task position or a session date), ``confirmed`` is the position of its last write or
    confirmation (an UPDATE to the same text), ``importance`` 1-5 as the writer rated it.
    Notes compare by id and text only."""

    id: str
    text: str
    written: str = field(default="", compare=False)
    confirmed: int = field(default=0, compare=False)
    importance: int = field(default=DEFAULT_IMPORTANCE, compare=False)


@dataclass(frozen=True)
class Op:
    """One memory edit. ADD needs ``text``; UPDATE needs ``note_id`` and ``text`` (the same
    text confirms the note); DELETE needs ``note_id``; NOOP needs nothing. ``importance``
    (1-5) rates an ADD or UPDATE; None keeps the note's (or the default). ``eviction`` marks a
    DELETE that a writer's code makes to stay within the budget (not the model's choice)."""

    kind: OpKind
    text: str = ""
    note_id: str | None = None
    importance: int | None = None
    eviction: bool = False


@dataclass(frozen=True)
class When:
    """When ops are applied: the task's position in its stream and its label for the actor."""

    position: int = 0
    label: str = ""


def written_note(op: Op, note_id: str, old: Note | None, when: When) -> Note:
    """The note an applied ADD or UPDATE leaves: same text keeps ``written`` (a confirmation)."""
    text = op.text.strip()
    importance = (
        min(5, max(1, op.importance)) if op.importance is not None else (old.importance if old else DEFAULT_IMPORTANCE)
    )
    written = old.written if old is not None and old.text == text else when.label
    return Note(note_id, text, written, when.position, importance)


@dataclass(frozen=True)
class OpResult:
    """The store's verdict on one op: ``applied`` or not, and why (always set when not)."""

    op: Op
    applied: bool
    reason: str = ""
    note_id: str | None = None

    def to_json(self) -> dict:
        op = {
            k: v for k, v in asdict(self.op).items() if (k != "importance" or v is not None) and (k != "eviction" or v)
        }
        return {**op, "applied": self.applied, "reason": self.reason, "result_id": self.note_id}


@dataclass(frozen=True)
class Snapshot:
    """An opaque copy of a store's state, for ``restore``."""

    notes: tuple[Note, ...]
    next_id: int
    trace_len: int


class WriteFailed(RuntimeError):
    """A store could not make a write; ``results`` are those of the ops applied before it."""

    def __init__(self, message: str, results: Sequence[OpResult] = ()):
        super().__init__(message)
        self.results = list(results)


@runtime_checkable
class Memory(Protocol):
    """The memory protocol every store implements.

    ``notes`` lists the notes least recently written first (an UPDATE moves a note to the
    end). ``apply`` applies ops in order and returns one result per op (a store that derives
    its notes from what it is given, like mem0's, returns one per note it wrote); a rejected op
    changes nothing; a write that cannot be made at all (an external memory's LM call failed)
    raises ``WriteFailed``; ``when`` dates the notes it writes. ``render`` formats the notes
    for a prompt (``query`` lets a retrieving store choose what to show; with ``show_time``
    each note says when it was written). ``trace`` is the JSON-serializable list of every op
    result so far.
    """

    budget: int
    trace: list[dict]

    def notes(self) -> list[Note]: ...

    def apply(self, ops: Sequence[Op], *, step: str = "", when: When = When()) -> list[OpResult]: ...

    def render(self, query: str | None = None) -> str: ...

    def snapshot(self) -> Snapshot: ...

    def restore(self, snapshot: Snapshot) -> None: ...


EMPTY_NOTES = "(no notes yet)"
NO_MATCH = "(no notes match this question)"
_WORD = re.compile(r"\w+")


def render_notes(notes: Sequence[Note], times: bool = False) -> str:
    """``[id] text`` one per line, or a placeholder when there are none."""
    return format_notes(notes, times) or EMPTY_NOTES


NOTE_LINE = re.compile(r"^\[([^\]\s]+)\] ", re.MULTILINE)  # a line of format_notes: "[id] ..."


def shown_ids(text: object) -> list[str]:
    """The note ids in notes rendered by ``format_notes``, in order."""
    return NOTE_LINE.findall(text) if isinstance(text, str) else []


def note_as_data(text: str) -> str:
    """``text`` as shown in a prompt: verbatim, unless one of its lines reads like a note line
    (``[id] ...``); then as one quoted JSON string, so it cannot pass for another note."""
    return json.dumps(text, ensure_ascii=False) if NOTE_LINE.search(text) else text


def format_notes(notes: Sequence[Note], times: bool = False) -> str:
    """``[id] text`` one per line ("" for none; text through ``note_as_data``); with ``times``,
    ``[id] (label) text`` for notes that know when they were written."""
    return "\n".join(
        f"[{note.id}] " + (f"({note.written}) " if times and note.written else "") + note_as_data(note.text)
        for note in notes
    )


Retriever = Callable[[str, Sequence[Note], int], list[Note]]  # (query, notes, k) -> top-k notes


@lru_cache(maxsize=1 << 17)
def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def word_overlap(text: str, notes: Sequence[Note]) -> list[float]:
    """Each note's Jaccard overlap with ``text``'s words (0 when none is shared)."""
    words = _words(text)
    return [len(words & w) / len(words | w) if words & (w := _words(note.text)) else 0.0 for note in notes]


def similar_notes(text: str, notes: Sequence[Note], k: int) -> list[Note]:
    """The k notes sharing the most words with ``text`` (Jaccard overlap), best first;
    notes sharing no word are never returned."""
    scored = [(score, i) for i, score in enumerate(word_overlap(text, notes)) if score > 0]
    return [notes[i] for _, i in sorted(scored, key=lambda s: (-s[0], s[1]))[:k]]


def notes_size(notes: Sequence[Note]) -> int:
    return sum(len(note.text) for note in notes)


class NotesView(Protocol):
    """The three questions the rule book asks of a store's current notes."""

    def text_of(self, note_id: str | None) -> str | None: ...

    def id_with_text(self, text: str) -> str | None: ...

    def total_chars(self) -> int: ...


def delete_cap_reasons(ops: Sequence[Op], cap: int | None) -> list[str]:
    """Per op, why a store's DELETE cap rejects it ("" if it does not): every DELETE of one
    write past the first ``cap`` (None: no cap); budget evictions are not counted."""
    reasons, deletes = [], 0
    for op in ops:
        chosen = op.kind == "DELETE" and not op.eviction
        deletes += chosen
        over = cap is not None and chosen and deletes > cap
        reasons.append(f"over the cap of {cap} DELETEs per write" if over else "")
    return reasons


def check_op(op: Op, notes: NotesView, budget: int) -> str:
    """Why ``op`` must be rejected given the current ``notes``, or "" if it may be
    applied. The one rule book every store enforces."""
    text = op.text.strip()
    if op.kind not in OP_KINDS:
        return f"unknown op kind {op.kind!r}"
    if op.kind == "NOOP":
        return ""
    old = notes.text_of(op.note_id) if op.kind in ("UPDATE", "DELETE") else None
    if op.kind in ("UPDATE", "DELETE") and old is None:
        return f"unknown note id {op.note_id!r}"
    if op.kind == "DELETE":
        return ""
    if not text:
        return f"{op.kind} with empty text"
    duplicate = notes.id_with_text(text)
    if duplicate is not None and duplicate != op.note_id:
        return f"duplicate of note {duplicate}"
    new_size = notes.total_chars() - len(old or "") + len(text)
    if new_size > budget:
        return f"over budget: notes would be {new_size}/{budget} chars"
    return ""


@dataclass
class InMemoryStore:
    """Process-local memory, the default for evaluation and optimization loops.
    With ``top_k``, ``render(query)`` shows the ``retriever``'s top-k notes for the query
    (default: the notes sharing most words with it); with ``show_time``, when each was written."""

    budget: int = 600
    top_k: int | None = None  # with a query, render only the top-k most similar notes
    retriever: Retriever = similar_notes
    show_time: bool = False
    max_deletes: int | None = None  # DELETEs past this many in one write are rejected
    _notes: dict[str, Note] = field(default_factory=dict)
    _next_id: int = 1
    trace: list[dict] = field(default_factory=list)
    _ids_by_text: dict[str, str] = field(default_factory=dict)  # indexes for the rule book
    _chars: int = 0

    def notes(self) -> list[Note]:
        return list(self._notes.values())

    def text_of(self, note_id: str | None) -> str | None:
        note = self._notes.get(note_id)
        return note.text if note else None

    def id_with_text(self, text: str) -> str | None:
        return self._ids_by_text.get(text)

    def total_chars(self) -> int:
        return self._chars

    def render(self, query: str | None = None) -> str:
        if self.top_k is None or not query or not self._notes:
            return render_notes(self.notes(), self.show_time)
        return format_notes(self.retriever(query, self.notes(), self.top_k), self.show_time) or NO_MATCH

    def apply(self, ops: Sequence[Op], *, step: str = "", when: When = When()) -> list[OpResult]:
        capped = delete_cap_reasons(ops, self.max_deletes)
        results = [self._apply_one(op, when, cap) for op, cap in zip(ops, capped)]
        self.trace.extend({"step": step, **result.to_json()} for result in results)
        return results

    def _apply_one(self, op: Op, when: When, capped: str = "") -> OpResult:
        reason = capped or check_op(op, self, self.budget)
        if reason:
            return OpResult(op, False, reason)
        if op.kind == "NOOP":
            return OpResult(op, True)
        old = self._notes.get(op.note_id) if op.kind == "UPDATE" else None
        if op.kind in ("UPDATE", "DELETE"):
            self._drop(op.note_id)
        if op.kind == "DELETE":
            return OpResult(op, True, note_id=op.note_id)
        note_id = op.note_id if op.kind == "UPDATE" else self._new_id()
        self._put(written_note(op, note_id, old, when))
        return OpResult(op, True, note_id=note_id)

    def _put(self, note: Note) -> None:
        self._notes[note.id] = note
        self._ids_by_text[note.text] = note.id
        self._chars += len(note.text)

    def _drop(self, note_id: str) -> None:
        note = self._notes.pop(note_id)
        del self._ids_by_text[note.text]
        self._chars -= len(note.text)

    def _new_id(self) -> str:
        note_id = f"n{self._next_id}"
        self._next_id += 1
        return note_id

    def snapshot(self) -> Snapshot:
        return Snapshot(tuple(self._notes.values()), self._next_id, len(self.trace))

    def restore(self, snapshot: Snapshot) -> None:
        self._notes, self._ids_by_text, self._chars = {}, {}, 0
        for note in snapshot.notes:
            self._put(note)
        self._next_id = snapshot.next_id
        del self.trace[snapshot.trace_len :]
