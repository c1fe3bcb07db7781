"""What only the SQLite store promises: persistence, atomic batches, history, retrieval."""

import subprocess
import sys
import textwrap

from promptmem.memory import Op
from promptmem.memory.sqlite import SQLiteStore


def run_python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True)


def test_notes_persist_across_processes(tmp_path):
    db = tmp_path / "m.db"
    result = run_python(f"""
        from promptmem.memory import Op
        from promptmem.memory.sqlite import SQLiteStore
        SQLiteStore({str(db)!r}, budget=123).apply([Op("ADD", "billing-api port 8123")], step="t1")
    """)
    assert result.returncode == 0, result.stderr
    store = SQLiteStore(db, budget=999)  # the file's budget wins
    assert store.budget == 123
    assert [(n.id, n.text) for n in store.notes()] == [("n1", "billing-api port 8123")]
    assert store.apply([Op("ADD", "x")])[0].note_id == "n2"


def test_a_crash_mid_batch_applies_nothing(tmp_path):
    db = tmp_path / "m.db"
    SQLiteStore(db).apply([Op("ADD", "before the crash")])
    result = run_python(f"""
        import os
        from promptmem.memory import Op
        from promptmem.memory.sqlite import SQLiteStore
        store = SQLiteStore({str(db)!r})
        record, calls = store._record, []
        def crash_on_second(*args):
            calls.append(args)
            if len(calls) == 2:
                os._exit(9)  # the process dies inside the transaction
            record(*args)
        store._record = crash_on_second
        store.apply([Op("ADD", "first of batch"), Op("DELETE", note_id="n1"), Op("ADD", "third")])
    """)
    assert result.returncode == 9
    store = SQLiteStore(db)
    assert [n.text for n in store.notes()] == ["before the crash"]
    assert len(store.history()) == 1
    assert store.apply([Op("ADD", "after")])[0].note_id == "n2"  # the id counter rolled back too


def test_history_keeps_everything_and_rolls_back(tmp_path):
    store = SQLiteStore(tmp_path / "m.db", who="ops-writer")
    store.apply([Op("ADD", "owner Priya")], step="t1")
    store.apply([Op("UPDATE", "owner Omar", "n1"), Op("DELETE", note_id="n7")], step="t2")
    store.apply([Op("ADD", "port 8123")], step="t3")
    rows = store.history()
    assert [(r["step"], r["kind"], r["applied"]) for r in rows] == [
        ("t1", "ADD", 1),
        ("t2", "UPDATE", 1),
        ("t2", "DELETE", 0),
        ("t3", "ADD", 1),
    ]
    assert rows[1]["old_text"] == "owner Priya" and rows[1]["new_text"] == "owner Omar"
    assert rows[2]["reason"] == "unknown note id 'n7'" and rows[0]["who"] == "ops-writer"
    assert [n.text for n in store.state_at(rows[0]["seq"])] == ["owner Priya"]
    store.rollback(rows[0]["seq"])
    assert [(n.id, n.text) for n in store.notes()] == [("n1", "owner Priya")]
    assert store.history()[-1]["kind"] == "RESTORE" and len(store.history()) == 5
    assert store.apply([Op("ADD", "new")])[0].note_id == "n3"  # ids are never reused
    assert store.total_chars() == len("owner Priya") + len("new")


def test_fts_retrieval_shows_the_best_matching_notes(tmp_path):
    store = SQLiteStore(tmp_path / "m.db", budget=10_000, top_k=2)
    store.apply(
        [
            Op("ADD", t)
            for t in [
                "billing-api listens on port 8123",
                "Priya owns billing-api",
                "geo-cache runs version 1.2.3",
                "Omar drinks espresso",
                "auth-gateway listens on port 9000",
            ]
        ]
    )
    shown = store.render("Which port does billing-api listen on?")
    assert shown.splitlines()[0] == "[n1] billing-api listens on port 8123"
    assert len(shown.splitlines()) == 2 and "espresso" not in shown
    assert store.search("versions", 1)[0].text == "geo-cache runs version 1.2.3"  # stemmed
    assert store.search("?!", 3) == [] and SQLiteStore(tmp_path / "m.db").render("x").count("\n") == 4
