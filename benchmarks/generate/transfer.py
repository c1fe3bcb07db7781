"""Training files for the transfer experiment (issue 39, item 6): leave one world out, train a
student on the other worlds' gold-answers-only training streams together, compare it with the
1.5B teacher on the world it never saw (``recipes/transfer_to_<world>.yaml``).

    python -m benchmarks.generate.transfer   # benchmarks/data/transfer_without_{household,synthetic,oncall}.jsonl

Each file interleaves the other worlds' training files stream by stream (one of each world in
turn, in ``WORLDS`` order), so that the first streams a recipe takes (``hindsight_streams: 12``:
6 of each; ``train_streams: 2``: one of each traced) come from every world. The lines are the
source files' own, unchanged: no meta, stream ids distinct across worlds (household-train-…,
synthetic-s3000-…, oncall-train-…).

Every world can be left out: household and on-call are held out on their held-out files, synthetic
on its generated held-out streams (``test_suite: synthetic``, scored by its own scorer, as the
synthetic results are).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import DATA

WORLDS = {  # each world's training file of gold answers only (strip_meta.py, oncall.py)
    "household": "household_train_stripped.jsonl",
    "synthetic": "synthetic_train_stripped.jsonl",
    "oncall": "oncall_train.jsonl",
}


def interleaved(files: list[Path]) -> list[str]:
    """The lines of ``files`` taken one file at a time in turn (the first line of each, then the
    second, …); a shorter file's turn is skipped once it runs out."""
    sources = [path.read_text(encoding="utf-8").splitlines() for path in files]
    return [lines[i] for i in range(max(map(len, sources), default=0)) for lines in sources if i < len(lines)]


def write_transfer(left_out: str, source: Path = DATA, out: Path = DATA) -> Path:
    """``out/transfer_without_<left_out>.jsonl``: every other world's training streams from
    ``source``, interleaved."""
    files = [source / name for world, name in WORLDS.items() if world != left_out]
    path = out / f"transfer_without_{left_out}.jsonl"
    lines = interleaved(files)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    print(f"wrote {path} ({len(lines)} streams from {', '.join(f.name for f in files)})")
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=DATA, help="folder for the files")
    args = parser.parse_args()
    for world in WORLDS:
        write_transfer(world, out=args.out)


if __name__ == "__main__":
    main()
