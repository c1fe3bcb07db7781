"""Training files with nothing but gold answers: every optional ground-truth field stripped, as a
user's own streams would come (``promptmem.suites.jsonl``: id, observation, question, answer,
scorer; no meta). Generated synthetic streams are written the same way.

    python -m benchmarks.generate.strip_meta    # benchmarks/data/household_train_stripped.jsonl,
                                       # benchmarks/data/synthetic_train_stripped.jsonl (seed 3000, 12 x 24)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from benchmarks import DATA
from promptmem.scoring import SCORERS
from promptmem.suites import load_streams, make_suite
from promptmem.tasks import Stream


def stripped_line(stream: Stream) -> str:
    """One JSONL line of ``stream`` without any meta; a suite's own scorer (synthetic's: the one
    value named) becomes ``contains``."""
    tasks = [
        {
            "id": t.id,
            "observation": t.observation,
            "question": t.question,
            "answer": list(t.answer),
            "scorer": t.scorer if t.scorer in SCORERS else "contains",
        }
        for t in stream.tasks
    ]
    return json.dumps({"stream_id": stream.id, "tasks": tasks})


def write_stripped(streams: list[Stream], path: Path) -> None:
    path.write_text("".join(stripped_line(stream) + "\n" for stream in streams), encoding="utf-8")
    print(f"wrote {path} ({len(streams)} streams, no meta)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DATA, help="folder for the files")
    parser.add_argument("--synthetic-streams", type=int, default=12)
    parser.add_argument("--synthetic-seed", type=int, default=3000)
    args = parser.parse_args()
    write_stripped(load_streams(DATA / "household_train.jsonl"), args.out / "household_train_stripped.jsonl")
    synthetic = make_suite("synthetic", tasks=24).streams(args.synthetic_streams, seed=args.synthetic_seed)
    write_stripped(synthetic, args.out / "synthetic_train_stripped.jsonl")


if __name__ == "__main__":
    main()
