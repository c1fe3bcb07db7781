"""How close labels read off gold answers alone come to the annotated ones, before any training on
them: every statement of every training stream labelled three ways and compared per statement with
the annotated ``stated`` labels (``signals.hindsight``):

- **gold only**: the training file with every meta field stripped, labelled as it is (a question
  needs any earlier statement holding a gold answer; nothing tracked: the ``needed`` keep-lists);
- **inferred**: the same stripped file with the annotations inferred from the gold answers
  (``signals.inferred``, the ``inferred`` target);
- **annotated**: the world's own annotations (the ``stated`` target), the reference.

Per world: precision and recall of the statements each marks needed, superseded and kept (the
target's keep-list rule), the keep-lists that differ from the annotated ones, statements kept per
write, and the actor's cases (questions whose answer the hindsight notes hold) with how many have
a newer look-alike. No model calls; seconds.

    python -m benchmarks.experiments.inferred_labels    # benchmarks/results/inferred_labels.json
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from benchmarks import DATA, RESULTS
from benchmarks.generate.strip_meta import write_stripped
from promptmem.signals.hindsight import hindsight_keep, hindsight_labels
from promptmem.signals.hindsight_rows import actor_cases
from promptmem.signals.inferred import InferredSuite, infer_streams
from promptmem.suites import JsonlSuite, make_suite

OUT = RESULTS / "inferred_labels.json"


def annotated_world(name: str) -> tuple[list, object]:
    """(the 12 training streams, their annotated suite)."""
    if name == "synthetic":
        suite = make_suite("synthetic", tasks=24)
        return suite.streams(12, seed=3000), suite
    suite = JsonlSuite(DATA / f"{name}_train{'_annotated' if name == 'oncall' else ''}.jsonl")
    return suite.streams(12), suite


def _precision_recall(found: set, truth: set) -> dict:
    hit = len(found & truth)
    return {
        "marked": len(found),
        "annotated": len(truth),
        "precision": round(hit / len(found), 3) if found else None,
        "recall": round(hit / len(truth), 3) if truth else None,
    }


def labelling(streams: list, suite, target: str) -> dict:
    """Per statement key (stream, task, number): the label sets, keep-lists and actor cases."""
    needed, superseded, kept, keeps, cases = set(), set(), set(), {}, []
    for stream in streams:
        labels = hindsight_labels(stream, suite)
        keep = hindsight_keep(labels, suite.notes_budget, target)
        for label in labels:
            key = (stream.id, label.task_id, label.number)
            needed |= {key} if label.needed_by else set()
            superseded |= {key} if label.superseded_in else set()
            kept |= {key} if label.number in keep[label.task_id] else set()
        keeps.update({(stream.id, task): tuple(numbers) for task, numbers in keep.items()})
        cases += actor_cases(stream, suite, suite.notes_budget, target)
    return {"needed": needed, "superseded": superseded, "kept": kept, "keeps": keeps, "cases": cases}


def compare(found: dict, truth: dict) -> dict:
    writes = len(truth["keeps"])
    return {
        **{kind: _precision_recall(found[kind], truth[kind]) for kind in ("needed", "superseded", "kept")},
        "keep_lists_differing": sum(found["keeps"][key] != truth["keeps"][key] for key in truth["keeps"]),
        "writes": writes,
        "kept_per_write": round(sum(map(len, found["keeps"].values())) / writes, 3),
        "actor_cases": len(found["cases"]),
        "actor_lookalike": sum(case.lookalike for case in found["cases"]),
    }


def world_result(name: str, folder: Path) -> dict:
    streams, suite = annotated_world(name)
    write_stripped(streams, folder / f"{name}.jsonl")
    stripped = JsonlSuite(folder / f"{name}.jsonl")
    plain = stripped.streams(len(streams))
    truth = labelling(streams, suite, "stated")
    return {
        "streams": len(streams),
        "statements": sum(len(hindsight_labels(s, suite)) for s in streams),
        "annotated": compare(truth, truth),
        "gold_only": compare(labelling(plain, stripped, "needed"), truth),
        "inferred": compare(labelling(infer_streams(plain, stripped), InferredSuite(stripped), "stated"), truth),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", default="synthetic,household,oncall")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        result = {name: world_result(name, Path(folder)) for name in args.worlds.split(",")}
    args.out.write_text(json.dumps({"benchmark": "inferred_labels", "worlds": result}, indent=1))
    for name, world in result.items():
        for way in ("gold_only", "inferred"):
            row = world[way]
            print(
                f"{name:9} {way:9} kept P/R {row['kept']['precision']}/{row['kept']['recall']}  "
                f"needed P/R {row['needed']['precision']}/{row['needed']['recall']}  "
                f"superseded P/R {row['superseded']['precision']}/{row['superseded']['recall']}  "
                f"differing {row['keep_lists_differing']}/{row['writes']}  kept/write {row['kept_per_write']} "
                f"(annotated {world['annotated']['kept_per_write']})  lookalike {row['actor_lookalike']}/{row['actor_cases']} "
                f"(annotated {world['annotated']['actor_lookalike']}/{world['annotated']['actor_cases']})"
            )


if __name__ == "__main__":
    main()
