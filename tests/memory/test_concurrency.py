"""Shared stores and studies: two processes, threads, the embedder's lazy load."""

import json
import multiprocessing
import sys
import threading
from pathlib import Path

from promptmem.memory import Op
from promptmem.memory.sqlite import SQLiteStore
from tests.helpers.concurrent_workers import tune_worker, write_notes

SPAWN = multiprocessing.get_context("spawn")


def run_processes(target, args_list):
    procs = [SPAWN.Process(target=target, args=args) for args in args_list]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=300)
    assert [proc.exitcode for proc in procs] == [0] * len(procs)


def assert_consistent(store: SQLiteStore, adds: int):
    notes = store.notes()
    history = store.history()
    assert len(notes) == len({n.id for n in notes}) == adds
    assert store.total_chars() == sum(len(n.text) for n in notes)
    assert sum(1 for r in history if r["kind"] == "ADD" and r["applied"]) == adds
    assert all(r["applied"] for r in history)
    assert {n.text for n in store.state_at(history[-1]["seq"])} == {n.text for n in notes}  # history replays


def test_two_processes_writing_one_store_lose_no_op(tmp_path):
    path = str(tmp_path / "shared.db")
    run_processes(write_notes, [(path, "a", 150), (path, "b", 150)])
    assert_consistent(SQLiteStore(path), adds=300)


def test_threads_sharing_one_store_lose_no_op(tmp_path):
    store = SQLiteStore(tmp_path / "m.db", budget=10**7)
    errors = []

    def work(who):
        try:
            for i in range(100):
                store.apply([Op("ADD", f"{who} fact {i}")], step=f"{who}-{i}")
                store.render(f"{who} fact")
                store.notes()
        except Exception as err:  # noqa: BLE001 - collected and asserted below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(w,)) for w in "abcd"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert_consistent(store, adds=400)


def test_the_embedder_loads_once_under_threads(monkeypatch):
    import numpy as np

    import promptmem.memory.embedding as embedding

    loads = []

    class SlowModel:
        def __init__(self, *args, **kwargs):
            loads.append(1)
            threading.Event().wait(0.2)

        def encode(self, texts, **kwargs):
            return np.ones((len(texts), 3)) / np.sqrt(3)

    fake = type(sys)("sentence_transformers")
    fake.SentenceTransformer = SlowModel
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake)
    monkeypatch.setattr(embedding, "model_dir", lambda: Path("."))
    retriever = embedding.EmbeddingRetriever()
    from promptmem.memory import Note

    notes = [Note("n1", "a"), Note("n2", "b")]
    threads = [threading.Thread(target=retriever, args=("q", notes, 1)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert loads == [1]


def test_two_tune_workers_share_one_study(tmp_path):
    run_processes(tune_worker, [(str(tmp_path), 2), (str(tmp_path), 2)])
    import optuna

    study = optuna.load_study(study_name="promptmem-tune", storage=f"sqlite:///{tmp_path / 'study.db'}")
    numbers = sorted(t.number for t in study.trials)
    assert numbers == [0, 1, 2, 3] and all(t.state.name == "COMPLETE" for t in study.trials)
    assert all((tmp_path / "trials" / str(n) / "eval" / "report.json").exists() for n in numbers)
    assert json.loads((tmp_path / "best.json").read_text())["trials"] >= 3
