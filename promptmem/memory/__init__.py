"""Agent memory: notes with stable ids edited through ADD / UPDATE / DELETE / NOOP ops under a
budget. ``store`` holds the protocol, the rule book and the in-process store; ``sqlite`` the
persistent store; ``embedding`` and ``ranking`` the retrievers; ``replay`` the op-trace replay."""

from promptmem.memory.store import (OpKind, DEFAULT_IMPORTANCE, OP_KINDS, Note, Op, When, written_note, OpResult, Snapshot, WriteFailed, Memory, EMPTY_NOTES, NO_MATCH, render_notes, NOTE_LINE, shown_ids, note_as_data, format_notes, Retriever, word_overlap, similar_notes, notes_size, NotesView, delete_cap_reasons, check_op, InMemoryStore)
from promptmem.memory.replay import (replay_entry, rollback_to_step)

__all__ = ['OpKind', 'DEFAULT_IMPORTANCE', 'OP_KINDS', 'Note', 'Op', 'When', 'written_note', 'OpResult', 'Snapshot', 'WriteFailed', 'Memory', 'EMPTY_NOTES', 'NO_MATCH', 'render_notes', 'NOTE_LINE', 'shown_ids', 'note_as_data', 'format_notes', 'Retriever', 'word_overlap', 'similar_notes', 'notes_size', 'NotesView', 'delete_cap_reasons', 'check_op', 'InMemoryStore', 'replay_entry', 'rollback_to_step']
