"""Side-by-side evaluation of several programs (or models) on the same held-out streams.

Each entry is a resumable ``evaluate`` run under ``runs/<label>``; the comparison is written
as ``comparison.json``, ``comparison.md`` and ``comparison.png`` in ``out``
(``promptmem.report.comparison`` renders them). Every row after the first holds, under
``paired``, its paired statistics against each earlier row on the same questions
(``promptmem.stats``: wins, losses, sign test, bootstrap 95% CI over streams).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import dspy

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.lm.specs import LMConfig
from promptmem.report.comparison import row_of, write_comparison
from promptmem.resume import finished_streams
from promptmem.runner import StreamResult
from promptmem.stats import PairedComparison, paired_comparison


@dataclass(frozen=True)
class Entry:
    """One row of a comparison: what to run, with which LM (``lm``: an already built one)."""

    label: str
    config: EvalConfig
    lm_config: LMConfig
    lm: dspy.BaseLM | None = None


def agent_results(run: Path) -> list[StreamResult]:
    """The agent's stream results an ``evaluate`` run directory holds."""
    return finished_streams(run / "streams" / "agent")


def paired_rows(results: dict[str, list[StreamResult]]) -> dict[str, dict[str, PairedComparison]]:
    """For each label after the first, its paired comparison against every earlier label
    (bootstrap seeded with 0 per pair: the numbers do not depend on the order of pairs)."""
    labels = list(results)
    return {
        b: {a: paired_comparison(results[a], results[b], random.Random(0)) for a in labels[:i]}
        for i, b in enumerate(labels)
        if i
    }


def compare(
    entries: Sequence[Entry], out: str | Path, runs: str | Path | None = None, first: str = "program"
) -> dict[str, dict]:
    """Evaluate every entry (resuming finished ones; runs under ``runs``, default ``out``)
    and write the comparison files, with the paired statistics of every pair of entries."""
    out = Path(out)
    runs = Path(runs) if runs else out
    rows = {e.label: row_of(evaluate(e.config, e.lm_config, runs / e.label, lm=e.lm)) for e in entries}
    paired = paired_rows({e.label: agent_results(runs / e.label) for e in entries})
    for label, pairs in paired.items():
        rows[label]["paired"] = {a: stats.to_json() for a, stats in pairs.items()}
    write_comparison(rows, out, first)
    return rows
