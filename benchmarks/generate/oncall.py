"""Write the on-call world (``promptmem.suites.oncall``, a third world: an ops team's pager, tickets,
runbooks, alerts, status page and freeze dates) to JSONL: training streams from one seed,
held-out streams from another. The files carry gold answers only; ``--annotated`` also writes
copies with the ground-truth meta, to measure inferred labels against.

    python -m benchmarks.generate.oncall --annotated   # benchmarks/data/oncall_train.jsonl (seed 1, 12 streams),
                                              # benchmarks/data/oncall_heldout.jsonl (seed 2, 8 streams),
                                              # and oncall_{train,heldout}_annotated.jsonl
    promptmem eval --suite jsonl --data benchmarks/data/oncall_heldout.jsonl --streams 8 ...
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import DATA
from promptmem.suites.oncall import write_oncall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--train-streams", type=int, default=12)
    parser.add_argument("--heldout-streams", type=int, default=8)
    parser.add_argument("--train-seed", type=int, default=1)
    parser.add_argument("--heldout-seed", type=int, default=2)
    parser.add_argument("--annotated", action="store_true", help="also write *_annotated.jsonl with the meta")
    parser.add_argument("--out", type=Path, default=DATA, help="folder for the files")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    splits = (("train", args.train_seed, args.train_streams), ("heldout", args.heldout_seed, args.heldout_streams))
    for split, seed, n in splits:
        for annotate in (False, True) if args.annotated else (False,):
            path = args.out / f"oncall_{split}{'_annotated' if annotate else ''}.jsonl"
            write_oncall(path, n, seed, prefix=f"oncall-{split}", annotate=annotate)
            print(f"wrote {path} ({n} streams, seed {seed})")


if __name__ == "__main__":
    main()
