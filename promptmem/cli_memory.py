"""``promptmem memory``: inspect a SQLite notes store (show, history, export: read-only, never a
byte changed) or roll it back (rollback, the one command that writes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

console = Console()

memory_app = typer.Typer(
    help="Inspect a SQLite notes store (a file under OUT/memory/ after `eval --store sqlite`).", no_args_is_help=True
)


@contextmanager
def _refused() -> Iterator:
    """A refused output or a run directory in use, in the block: one red message, exit code 2."""
    from promptmem.files import RunDirError

    try:
        yield
    except RunDirError as err:
        console.print(f"[red]error:[/red] {escape(str(err))}")
        raise typer.Exit(2) from None


@contextmanager
def _held(path: Path, write: bool) -> Iterator:
    """For a store that will be written: the lock of the run directory it belongs to, if any
    (``rundir.run_lock``: refused while a run writes there)."""
    from promptmem.outputs import run_dir_of
    from promptmem.rundir import run_lock

    run = run_dir_of(path) if write else None
    if run is None:
        yield
        return
    with _refused(), run_lock(run):
        yield


@contextmanager
def _store(path: Path, *, write: bool = False) -> Iterator:
    """The store at ``path`` for the block, read-only unless ``write`` (a file that is not a
    promptmem store is refused before anything is opened for writing; a store of a run is
    written only under that run's lock); a store that cannot be read or written is one red
    message and exit code 2."""
    import sqlite3

    from promptmem.memory.sqlite import SQLiteStore, StoreError

    try:
        store = SQLiteStore(path, read_only=True)
        if write:
            store.close()
        with _held(path, write):
            store = SQLiteStore(path) if write else store
            try:
                yield store
            finally:
                store.close()
    except (StoreError, sqlite3.Error) as err:
        message = str(err) if isinstance(err, StoreError) else f"{path}: cannot {'write' if write else 'read'} ({err})"
        console.print(f"[red]error:[/red] {escape(message)}")
        raise typer.Exit(2) from None


@memory_app.command("show")
def memory_show(
    path: Path,
    query: str | None = typer.Option(None, help="Show only notes matching this text."),
    top_k: int = typer.Option(10, min=1, help="How many matches with --query."),
) -> None:
    """Print the current notes (or the best matches for --query)."""
    with _store(path) as store:
        notes = store.search(query, top_k) if query else store.notes()
        title = f"{path}: {len(store.notes())} notes, {store.total_chars()}/{store.budget} chars"
    table = Table("id", "note", title=title)
    for note in notes:
        table.add_row(note.id, note.text)
    console.print(table)


@memory_app.command("history")
def memory_history(path: Path, limit: int = typer.Option(50, min=1, help="Show the last N rows.")) -> None:
    """Print the op history: when, which step, who, what, old -> new, and the verdict."""
    table = Table("seq", "step", "who", "op", "note", "old", "new", "verdict")
    with _store(path) as store:
        rows = store.history(limit)
    for row in rows:
        verdict = "applied" if row["applied"] else f"rejected: {row['reason']}"
        table.add_row(
            str(row["seq"]),
            row["step"] or "",
            row["who"] or "",
            row["kind"],
            row["note_id"] or "",
            row["old_text"] or "",
            (row["new_text"] or "")[:200],
            verdict,
        )
    console.print(table)


@memory_app.command("export")
def memory_export(path: Path, out: Path = typer.Option(..., help="JSON file to write.")) -> None:
    """Write the notes and the full history as JSON (never over the store itself or into a run
    directory)."""
    from promptmem.outputs import write_output

    with _store(path) as store:
        data = {
            "store": str(path),
            "budget": store.budget,
            "notes": [{"id": n.id, "text": n.text} for n in store.notes()],
            "history": store.history(),
        }
    with _refused():
        write_output(out, json.dumps(data, indent=2), "--out", [path])
    console.print(f"[green]wrote[/green] {out}")


@memory_app.command("rollback")
def memory_rollback(path: Path, to: int = typer.Option(..., help="History row (seq) to return to.")) -> None:
    """Make the notes what they were right after history row --to (recorded as RESTORE)."""
    with _store(path, write=True) as store:
        store.rollback(to)
        count = len(store.notes())
    console.print(f"rolled back to seq {to}: {count} notes")
