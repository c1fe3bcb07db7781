"""`promptmem memory`: show, history and export never change a byte of the file they read (nor
add files beside it); a file that is not a promptmem store is refused with a clear message;
rollback accepts only a row the history holds."""

import hashlib
import sqlite3

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.memory import Op
from promptmem.memory.sqlite import SQLiteStore, StoreError

runner = CliRunner()


def store(path):
    notes = SQLiteStore(path, budget=500)
    for text in ("billing-api listens on port 3000", "Priya owns billing-api", "ledger-db runs in eu-west-1"):
        notes.apply([Op("ADD", text)], step=text[:5])
    notes.apply([Op("DELETE", note_id="n1")], step="t4")
    notes.close()
    return path


def said(result) -> str:
    """The command's output as one line (Rich wraps long messages)."""
    return " ".join(result.output.split())


def files_of(folder):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}


@pytest.mark.parametrize("command", [["show"], ["show", "--query", "port"], ["history"], ["export", "--out", "OUT"]])
def test_reading_commands_change_nothing(tmp_path, command):
    folder = tmp_path / "stores"
    folder.mkdir()
    path = store(folder / "m.db")
    foreign = folder / "app.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE things (a)")
    before = files_of(folder)
    args = [a.replace("OUT", str(tmp_path / "export.json")) for a in command]
    result = runner.invoke(app, ["memory", args[0], str(path), *args[1:]])
    assert result.exit_code == 0, result.output
    refused = runner.invoke(app, ["memory", args[0], str(foreign), *args[1:]])
    assert refused.exit_code == 2 and "not a promptmem notes store" in said(refused)
    assert files_of(folder) == before  # same files, same bytes: no tables added, no WAL switch
    path.chmod(0o444)  # a read-only store is read all the same
    assert runner.invoke(app, ["memory", args[0], str(path), *args[1:]]).exit_code == 0


@pytest.mark.parametrize("content", [b"not a database at all", b"SQLite format 3\x00" + b"\x00" * 200])
def test_a_file_that_is_not_a_readable_store_is_one_clear_error(tmp_path, content):
    damaged = tmp_path / "m.db"
    damaged.write_bytes(content)
    for command in ("show", "history", "rollback"):
        args = ["--to", "1"] if command == "rollback" else []
        result = runner.invoke(app, ["memory", command, str(damaged), *args])
        assert result.exit_code == 2 and str(damaged) in result.output.replace("\n", "")
        assert "Traceback" not in result.output
    assert damaged.read_bytes() == content


def test_a_truncated_store_is_one_clear_error(tmp_path):
    path = store(tmp_path / "m.db")
    path.write_bytes(path.read_bytes()[:3000])
    result = runner.invoke(app, ["memory", "show", str(path)])
    assert result.exit_code == 2 and "not a readable SQLite file" in said(result)


@pytest.mark.parametrize("to", ["0", "-1", "999"])
def test_rollback_accepts_only_a_row_the_history_holds(tmp_path, to):
    path = store(tmp_path / "m.db")
    result = runner.invoke(app, ["memory", "rollback", str(path), "--to", to])
    assert result.exit_code == 2 and f"history row {to} does not exist (the history holds rows 1 to 4)" in said(result)
    assert len(SQLiteStore(path, read_only=True).notes()) == 2
    assert runner.invoke(app, ["memory", "rollback", str(path), "--to", "1"]).exit_code == 0
    assert len(SQLiteStore(path, read_only=True).notes()) == 1
    with pytest.raises(StoreError):
        SQLiteStore(path).rollback(0)
