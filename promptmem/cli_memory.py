"""``promptmem memory``: inspect a SQLite notes store (show, history, export, rollback)."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from promptmem.files import write_json

console = Console()

memory_app = typer.Typer(
    help="Inspect a SQLite notes store (a file under OUT/memory/ after `eval --store sqlite`).", no_args_is_help=True
)


def _open_store(path: Path):
    from promptmem.memory.sqlite import SQLiteStore

    if not path.is_file():
        console.print(f"[red]error:[/red] {path}: no such store")
        raise typer.Exit(2)
    return SQLiteStore(path)


@memory_app.command("show")
def memory_show(
    path: Path,
    query: str | None = typer.Option(None, help="Show only notes matching this text."),
    top_k: int = typer.Option(10, help="How many matches with --query."),
) -> None:
    """Print the current notes (or the best matches for --query)."""
    store = _open_store(path)
    notes = store.search(query, top_k) if query else store.notes()
    table = Table("id", "note", title=f"{path}: {len(store.notes())} notes, {store.total_chars()}/{store.budget} chars")
    for note in notes:
        table.add_row(note.id, note.text)
    console.print(table)


@memory_app.command("history")
def memory_history(path: Path, limit: int = typer.Option(50, help="Show the last N rows.")) -> None:
    """Print the op history: when, which step, who, what, old -> new, and the verdict."""
    table = Table("seq", "step", "who", "op", "note", "old", "new", "verdict")
    for row in _open_store(path).history(limit):
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
    """Write the notes and the full history as JSON."""
    store = _open_store(path)
    write_json(
        out,
        {
            "store": str(path),
            "budget": store.budget,
            "notes": [{"id": n.id, "text": n.text} for n in store.notes()],
            "history": store.history(),
        },
    )
    console.print(f"[green]wrote[/green] {out}")


@memory_app.command("rollback")
def memory_rollback(path: Path, to: int = typer.Option(..., help="History row (seq) to return to.")) -> None:
    """Make the notes what they were right after history row --to (recorded as RESTORE)."""
    store = _open_store(path)
    store.rollback(to)
    console.print(f"rolled back to seq {to}: {len(store.notes())} notes")
