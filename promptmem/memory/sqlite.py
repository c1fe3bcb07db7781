"""Memory persisted in one SQLite file, with full-text retrieval and an audit history.

WAL journal; each ``apply`` batch is one transaction, so a crash mid-batch leaves the
notes exactly as before the batch. Every op, applied or rejected, is kept in ``history``
with who/when/old/new text, so a store can be audited and rolled back
(``state_at``/``rollback``). With ``top_k`` set, ``render(query)`` shows only the
``top_k`` notes that best match the query (FTS5, BM25 ranking, or a ``retriever``).
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import time
from collections.abc import Sequence
from contextlib import contextmanager
from pathlib import Path

from promptmem.memory import (
    DEFAULT_IMPORTANCE,
    EMPTY_NOTES,
    NO_MATCH,
    Note,
    Op,
    OpResult,
    Retriever,
    Snapshot,
    When,
    check_op,
    delete_cap_reasons,
    format_notes,
    render_notes,
    written_note,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (id TEXT PRIMARY KEY, text TEXT NOT NULL,
                                  created REAL NOT NULL, updated REAL NOT NULL);
CREATE INDEX IF NOT EXISTS notes_by_text ON notes(text);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(text, tokenize='porter unicode61');
CREATE TABLE IF NOT EXISTS history (seq INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL,
    step TEXT, who TEXT, kind TEXT NOT NULL, note_id TEXT, old_text TEXT, new_text TEXT,
    applied INTEGER NOT NULL, reason TEXT);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
_WORD = re.compile(r"\w+")
# when each note was written (added to files made before they existed)
NOTE_TIME_COLUMNS = {
    "written": "TEXT NOT NULL DEFAULT ''",
    "confirmed": "INTEGER NOT NULL DEFAULT 0",
    "importance": f"INTEGER NOT NULL DEFAULT {DEFAULT_IMPORTANCE}",
}
NOTE_COLUMNS = "id, text, written, confirmed, importance"
BUSY_SECONDS = 30.0
TABLES = {"notes", "notes_fts", "history", "meta"}


class StoreError(ValueError):
    """A file that is not a promptmem notes store, or one that cannot be read or written."""


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot change ``path`` or add files beside it (unless a writer left a
    WAL file there, which SQLite then needs); a file that is not a promptmem store is a
    ``StoreError``."""
    if not path.is_file():
        raise StoreError(f"{path}: no such store")
    mode = "mode=ro" if path.with_name(path.name + "-wal").exists() else "immutable=1"
    conn = sqlite3.connect(f"{path.resolve().as_uri()}?{mode}", uri=True, check_same_thread=False)
    try:
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master")}
    except sqlite3.DatabaseError as err:
        conn.close()
        raise StoreError(f"{path}: not a readable SQLite file ({err})") from err
    if not TABLES <= tables:
        conn.close()
        raise StoreError(
            f"{path}: a SQLite file, but not a promptmem notes store (it lacks the tables "
            f"{', '.join(sorted(TABLES - tables))}); `promptmem memory` reads the stores that "
            "`promptmem eval --store sqlite` writes under OUT/memory/"
        )
    return conn


class SQLiteStore:
    """The memory protocol over one SQLite file (see module docstring).

    ``budget`` and the id counter are stored in the file; reopening a store keeps them.
    ``restore`` is recorded in the history as a RESTORE row (nothing is ever erased).
    ``read_only`` opens an existing store for reading without changing a byte of it (a file
    that is not a store is a ``StoreError``).
    """

    def __init__(
        self,
        path: str | Path,
        budget: int = 800,
        top_k: int | None = None,
        who: str = "writer",
        retriever: Retriever | None = None,
        show_time: bool = False,
        max_deletes: int | None = None,
        read_only: bool = False,
    ):
        self.path, self.top_k, self.who, self.retriever = Path(path), top_k, who, retriever
        self.show_time, self.max_deletes = show_time, max_deletes
        self._lock = threading.RLock()
        if read_only:
            self.conn = _read_only(self.path)
            self.budget = int(self._meta("budget"))
            return
        # another process may hold the write lock: wait for it (up to BUSY_SECONDS) rather than fail
        self.conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=BUSY_SECONDS)
        self.conn.execute("PRAGMA journal_mode=WAL")
        self.conn.execute("PRAGMA synchronous=NORMAL")
        with self._transaction():  # one process at a time creates or migrates the schema
            for statement in filter(str.strip, SCHEMA.split(";")):
                self.conn.execute(statement)
            present = {row[1] for row in self.conn.execute("PRAGMA table_info(notes)")}
            for column, kind in NOTE_TIME_COLUMNS.items():
                if column not in present:
                    self.conn.execute(f"ALTER TABLE notes ADD COLUMN {column} {kind}")
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('next_id', '1')")
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('chars', '0')")
            self.conn.execute("INSERT OR IGNORE INTO meta VALUES ('budget', ?)", (str(budget),))
        self.budget = int(self._meta("budget"))

    # -- NotesView, for the shared rule book --------------------------------------------
    def text_of(self, note_id: str | None) -> str | None:
        rows = self._rows("SELECT text FROM notes WHERE id = ?", (note_id,))
        return rows[0][0] if rows else None

    def id_with_text(self, text: str) -> str | None:
        rows = self._rows("SELECT id FROM notes WHERE text = ?", (text,))
        return rows[0][0] if rows else None

    def total_chars(self) -> int:
        return int(self._meta("chars"))

    # -- the memory protocol ------------------------------------------------------------
    def notes(self) -> list[Note]:
        return [Note(*row) for row in self._rows(f"SELECT {NOTE_COLUMNS} FROM notes ORDER BY updated, rowid")]

    def render(self, query: str | None = None) -> str:
        if self.top_k is None or not query:
            return render_notes(self.notes(), self.show_time)
        if not self._rows("SELECT 1 FROM notes LIMIT 1"):
            return EMPTY_NOTES
        found = self.retriever(query, self.notes(), self.top_k) if self.retriever else self.search(query, self.top_k)
        return format_notes(found, self.show_time) or NO_MATCH

    def search(self, query: str, k: int) -> list[Note]:
        """The k notes best matching ``query`` (BM25 over the query's words, OR-ed)."""
        words = {w.lower() for w in _WORD.findall(query)}
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in sorted(words))
        rows = self._rows(
            "SELECT notes.id, notes.text, written, confirmed, importance FROM notes_fts "
            "JOIN notes ON notes.rowid = notes_fts.rowid "
            "WHERE notes_fts MATCH ? ORDER BY bm25(notes_fts) LIMIT ?",
            (match, k),
        )
        return [Note(*row) for row in rows]

    def apply(self, ops: Sequence[Op], *, step: str = "", when: When = When()) -> list[OpResult]:
        capped = delete_cap_reasons(ops, self.max_deletes)
        with self._transaction():
            return [self._apply_one(op, step, when, cap) for op, cap in zip(ops, capped)]

    def _note(self, note_id: str | None) -> Note | None:
        rows = self._rows(f"SELECT {NOTE_COLUMNS} FROM notes WHERE id = ?", (note_id,))
        return Note(*rows[0]) if rows else None

    def _apply_one(self, op: Op, step: str, when: When, capped: str = "") -> OpResult:
        reason = capped or check_op(op, self, self.budget)
        old_note = self._note(op.note_id) if op.kind in ("UPDATE", "DELETE") else None
        old = old_note.text if old_note else None
        note_id, text, now = op.note_id, op.text.strip(), time.time()
        if not reason and op.kind == "ADD":
            note = written_note(op, self._new_id(), None, when)
            note_id = note.id
            rowid = self.conn.execute(
                "INSERT INTO notes (id, text, created, updated, written, confirmed, "
                "importance) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (note_id, text, now, now, note.written, note.confirmed, note.importance),
            ).lastrowid
            self.conn.execute("INSERT INTO notes_fts (rowid, text) VALUES (?, ?)", (rowid, text))
        elif not reason and op.kind == "UPDATE":
            note = written_note(op, note_id, old_note, when)
            self.conn.execute(
                "UPDATE notes SET text = ?, updated = ?, written = ?, confirmed = ?, importance = ? WHERE id = ?",
                (text, now, note.written, note.confirmed, note.importance, note_id),
            )
            self.conn.execute(
                "UPDATE notes_fts SET text = ? WHERE rowid = (SELECT rowid FROM notes WHERE id = ?)", (text, note_id)
            )
        elif not reason and op.kind == "DELETE":
            self.conn.execute("DELETE FROM notes_fts WHERE rowid = (SELECT rowid FROM notes WHERE id = ?)", (note_id,))
            self.conn.execute("DELETE FROM notes WHERE id = ?", (note_id,))
        if not reason and op.kind != "NOOP":
            delta = len(text if op.kind != "DELETE" else "") - len(old or "")
            self._set_meta("chars", self.total_chars() + delta)
        self._record(step, op.kind, note_id, old, text or None, not reason, reason, now)
        if reason:
            return OpResult(op, False, reason)
        return OpResult(op, True, note_id=note_id if op.kind != "NOOP" else None)

    def snapshot(self) -> Snapshot:
        with self._lock:
            count = self._rows("SELECT COUNT(*) FROM history")[0][0]
            return Snapshot(tuple(self.notes()), int(self._meta("next_id")), count)

    def restore(self, snapshot: Snapshot) -> None:
        with self._transaction():
            self._replace_notes(snapshot.notes, snapshot.next_id)
            state = json.dumps({"notes": [[n.id, n.text] for n in snapshot.notes], "next_id": snapshot.next_id})
            self._record("", "RESTORE", None, None, state, True, "", time.time())

    @property
    def trace(self) -> list[dict]:
        """Every op result so far, in the same shape as ``InMemoryStore.trace``."""
        rows = self._rows(
            "SELECT step, kind, note_id, new_text, applied, reason FROM history WHERE kind != 'RESTORE' ORDER BY seq"
        )
        return [
            {
                "step": step,
                "kind": kind,
                "text": text or "",
                "note_id": None if kind == "ADD" else note_id,
                "applied": bool(applied),
                "reason": reason or "",
                "result_id": note_id if applied and kind != "NOOP" else None,
            }
            for step, kind, note_id, text, applied, reason in rows
        ]

    # -- audit and rollback ---------------------------------------------------------------
    def history(self, limit: int | None = None) -> list[dict]:
        """History rows, newest last (the last ``limit`` rows if given)."""
        with self._lock:
            rows = self.conn.execute("SELECT * FROM history ORDER BY seq DESC LIMIT ?", (limit or -1,))
            names, found = [d[0] for d in rows.description], rows.fetchall()
        return [dict(zip(names, row)) for row in reversed(found)]

    def state_at(self, seq: int) -> list[Note]:
        """The notes as they were right after history row ``seq``, replayed from history."""
        notes: dict[str, str] = {}
        rows = self._rows(
            "SELECT kind, note_id, new_text FROM history WHERE applied = 1 AND seq <= ? ORDER BY seq", (seq,)
        )
        for kind, note_id, text in rows:
            if kind in ("ADD", "UPDATE"):
                notes[note_id] = text
            elif kind == "DELETE":
                notes.pop(note_id, None)
            elif kind == "RESTORE":
                notes = dict(json.loads(text)["notes"])
        return [Note(i, t) for i, t in notes.items()]

    def rollback(self, seq: int) -> None:
        """Make the notes what they were after history row ``seq`` (recorded as RESTORE); a
        ``seq`` the history does not hold is a ``StoreError`` that says which it holds."""
        first, last = self._rows("SELECT MIN(seq), MAX(seq) FROM history")[0]
        if not self._rows("SELECT 1 FROM history WHERE seq = ?", (seq,)):
            held = f"rows {first} to {last}" if first is not None else "no rows"
            raise StoreError(f"{self.path}: history row {seq} does not exist (the history holds {held})")
        self.restore(Snapshot(tuple(self.state_at(seq)), int(self._meta("next_id")), 0))

    def close(self) -> None:
        self.conn.close()

    # -- internals ------------------------------------------------------------------------
    @contextmanager
    def _transaction(self):
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """A read, under the lock (one connection serves every thread)."""
        with self._lock:
            return self.conn.execute(sql, params).fetchall()

    def _meta(self, key: str) -> str:
        return self._rows("SELECT value FROM meta WHERE key = ?", (key,))[0][0]

    def _set_meta(self, key: str, value: int) -> None:
        self.conn.execute("UPDATE meta SET value = ? WHERE key = ?", (str(value), key))

    def _new_id(self) -> str:
        next_id = int(self._meta("next_id"))
        self._set_meta("next_id", next_id + 1)
        return f"n{next_id}"

    def _record(self, step, kind, note_id, old, new, applied, reason, at) -> None:
        self.conn.execute(
            "INSERT INTO history (at, step, who, kind, note_id, old_text, new_text, "
            "applied, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (at, step, self.who, kind, note_id, old, new, int(applied), reason),
        )

    def _replace_notes(self, notes: Sequence[Note], next_id: int) -> None:
        now = time.time()
        self.conn.execute("DELETE FROM notes")
        self.conn.execute("DELETE FROM notes_fts")
        self.conn.executemany(
            "INSERT INTO notes (id, text, created, updated, written, confirmed, importance) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(n.id, n.text, now, now, n.written, n.confirmed, n.importance) for n in notes],
        )
        self.conn.execute("INSERT INTO notes_fts (rowid, text) SELECT rowid, text FROM notes")
        self._set_meta("next_id", next_id)
        self._set_meta("chars", sum(len(n.text) for n in notes))
