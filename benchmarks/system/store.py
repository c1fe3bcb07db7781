"""Memory store throughput and retrieval latency: in-memory vs SQLite at 1k, 10k, 100k notes.

For each store and size: build the store (ADD ops in batches of 1,000), then time single-op
applies (each its own transaction in SQLite) for ADD, UPDATE and DELETE, and the latency
of ``render(query)`` with top-5 retrieval (SQLite: FTS5/BM25; in-memory: word overlap).
Writes benchmarks/results/store.json.

    python -m benchmarks.system.store [--sizes 1000,10000,100000] [--ops 500] [--queries 200]
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

from promptmem.memory import InMemoryStore, Op
from promptmem.memory.sqlite import SQLiteStore

WORDS = [f"w{i}" for i in range(5000)]


def note_text(rng: random.Random, i: int) -> str:
    return f"fact {i}: " + " ".join(rng.choices(WORDS, k=8))


def make_store(kind: str, directory: Path, size: int):
    if kind == "in-memory":
        return InMemoryStore(budget=10**12, top_k=5)
    return SQLiteStore(directory / f"store-{size}.db", budget=10**12, top_k=5)


def timed_ops(store, ops: list[Op]) -> float:
    start = time.perf_counter()
    for op in ops:
        assert store.apply([op])[0].applied
    return round(len(ops) / (time.perf_counter() - start), 1)


def measure(kind: str, size: int, args, directory: Path) -> dict:
    rng = random.Random(size)
    store = make_store(kind, directory, size)
    start = time.perf_counter()
    for batch in range(0, size, 1000):
        store.apply([Op("ADD", note_text(rng, i)) for i in range(batch, min(size, batch + 1000))])
    build = time.perf_counter() - start
    ids = [note.id for note in store.notes()]
    adds = [Op("ADD", note_text(rng, size + i)) for i in range(args.ops)]
    row = {"store": kind, "notes": size, "build_seconds": round(build, 2), "add_ops_per_s": timed_ops(store, adds)}
    targets = rng.sample(ids, 2 * args.ops)
    row["update_ops_per_s"] = timed_ops(
        store, [Op("UPDATE", note_text(rng, -i), t) for i, t in enumerate(targets[: args.ops])]
    )
    row["delete_ops_per_s"] = timed_ops(store, [Op("DELETE", note_id=t) for t in targets[args.ops :]])
    latencies = []
    for _ in range(args.queries):
        query = "which " + " ".join(rng.choices(WORDS, k=3)) + "?"
        start = time.perf_counter()
        store.render(query)
        latencies.append((time.perf_counter() - start) * 1000)
    cuts = statistics.quantiles(latencies, n=20)
    row.update(retrieval_p50_ms=round(statistics.median(latencies), 3), retrieval_p95_ms=round(cuts[18], 3), top_k=5)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--ops", type=int, default=500)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--out", default="benchmarks/results/store.json")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in map(int, args.sizes.split(",")):
            for kind in ("in-memory", "sqlite"):
                rows.append(measure(kind, size, args, Path(tmp)))
                print(json.dumps(rows[-1]))
    result = {
        "benchmark": "store",
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "ops_per_measure": args.ops,
        "queries": args.queries,
        "rows": rows,
    }
    Path(args.out).write_text(json.dumps(result, indent=2))
    print(markdown(rows))


def markdown(rows: list[dict]) -> str:
    lines = [
        "| store | notes | ADD ops/s | UPDATE ops/s | DELETE ops/s | retrieval p50 (ms) | p95 (ms) |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r['store']} | {r['notes']:,} | {r['add_ops_per_s']:,.0f} | {r['update_ops_per_s']:,.0f} | "
        f"{r['delete_ops_per_s']:,.0f} | {r['retrieval_p50_ms']:.2f} | {r['retrieval_p95_ms']:.2f} |"
        for r in rows
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
