"""Write the household world (``promptmem.suites.household``, a second world unlike the synthetic
one) to JSONL: training streams from one seed, held-out streams from another.

    python -m benchmarks.generate.household    # benchmarks/data/household_train.jsonl (seed 1),
                                      # benchmarks/data/household_heldout.jsonl (seed 2), 12 streams each
    promptmem eval --suite jsonl --data benchmarks/data/household_heldout.jsonl --streams 12 ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import DATA
from promptmem.suites.household import write_household


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=12, help="streams per file")
    parser.add_argument("--train-seed", type=int, default=1)
    parser.add_argument("--heldout-seed", type=int, default=2)
    parser.add_argument("--out", type=Path, default=DATA, help="folder for the two files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for split, seed in (("train", args.train_seed), ("heldout", args.heldout_seed)):
        path = args.out / f"household_{split}.jsonl"
        write_household(path, args.streams, seed, prefix=f"household-{split}")
        print(f"wrote {path} ({args.streams} streams, seed {seed})")


if __name__ == "__main__":
    main()
