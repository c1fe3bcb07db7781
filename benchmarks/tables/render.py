"""The tables: each results block's renderer by name (``TABLES``), the pages that hold blocks and
a page with every block re-rendered from its file (``render``)."""

from __future__ import annotations

import functools
import re
from pathlib import Path

from benchmarks import ROOT
from benchmarks.tables.common import gain, load, maybe, table
from benchmarks.tables.learning import (
    comparison,
    distill,
    distill_paired,
    distill_sampling,
    distill_training,
    distill_worlds,
    instruction_ceiling,
    instructions,
    optimize,
    proposals,
    window_fidelity,
    writer_choices,
)
from benchmarks.tables.reliability import (
    engine,
    faults,
    faults_inputs,
    grammar,
    hostile,
    oversubscription,
    reliability_line,
    store,
)
from promptmem.report.comparison import paired_table

BLOCK = re.compile(r"(<!-- results:(?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /results -->)", re.DOTALL)


def _recall_score(row: dict) -> str:
    return f"{row['breakdown']['question_type']['recall']['score']:.2f}"


SYNTHETIC_COLUMNS = {
    "model": lambda r: r["model"],
    "agent": lambda r: r["agent"],
    "score": lambda r: f"{r['score']:.3f}",
    "memory gain": lambda r: gain(r["memory_gain"]),
    "notes recall": lambda r: maybe(r.get("notes_recall")),
    "recall score": _recall_score,
    "tokens/task": lambda r: f"{r['tokens_per_task']:.0f}",
    "s/task": lambda r: f"{r['seconds_per_task']:.1f}",
    "failed writes": lambda r: str(r["write_failures"]),
    "rejected ops": lambda r: str(r["rejected_ops"]),
    "final notes (chars)": lambda r: f"{r['final_notes_chars']:.0f}",
}
HEADLINE_COLUMNS = ("model", "agent", "score", "memory gain", "notes recall", "s/task")


def synthetic(name: str, columns=tuple(SYNTHETIC_COLUMNS)):
    """The renderer of a synthetic-suite table from ``name``.json (``benchmarks/experiments/baseline.py``)."""
    return lambda: table(list(columns), [[SYNTHETIC_COLUMNS[c](r) for c in columns] for r in load(name)["rows"]])


def baseline_pairs(name: str) -> str:
    """The paired statistics of a ``benchmarks/experiments/baseline.py`` file: each row against the
    earlier rows of its model."""
    return paired_table(
        [(f"{r['model']}: {r['agent']} vs {a}", s) for r in load(name)["rows"] for a, s in r.get("paired", {}).items()]
    )


def by_kind(name: str) -> str:
    """Each row's score per kind of question (the suite's ``meta.kind``), with the count."""
    rows = load(name)["rows"]
    kinds = sorted({k for r in rows for k in r["breakdown"]["kind"]})
    return table(
        ["model", "agent", *kinds],
        [
            [r["model"], r["agent"], *(f"{c['score']:.2f} ({c['n']})" for c in map(r["breakdown"]["kind"].get, kinds))]
            for r in rows
        ],
    )


LOCOMO_CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")


def locomo(name: str = "locomo") -> str:
    rows = sorted(load(name)["rows"], key=lambda r: -r["f1"])
    judged = any("j" in r for r in rows)
    return table(
        [
            "condition",
            "F1 (1–4)",
            *(["J (1–4)"] if judged else []),
            "BLEU-1",
            "EM",
            *LOCOMO_CATEGORIES,
            "tokens/question",
            "s/question",
        ],
        [
            [
                r["condition"],
                f"{r['f1']:.3f}",
                *([maybe(r.get("j"))] if judged else []),
                f"{r['bleu1']:.3f}",
                f"{r['em']:.3f}",
                *(f"{r['by_category'][c]['f1']:.2f} ({r['by_category'][c]['n']})" for c in LOCOMO_CATEGORIES),
                f"{r['tokens_per_question']:,.0f}",
                f"{r['seconds_per_question']:.1f}",
            ]
            for r in rows
        ],
    )


def distill_blocks(*names: str) -> dict:
    """A distill run's two tables under NAME and NAME_grpo: the comparison and the GRPO steps."""
    return {
        key: functools.partial(render_block, name)
        for name in names
        for key, render_block in ((name, distill_paired), (f"{name}_grpo", distill_training))
    }


def optimize_blocks(*names: str) -> dict:
    """A GEPA run's three tables under NAME, NAME_proposals and NAME_instructions: the held-out
    comparison, the proposal report and the instructions, seed beside optimized."""
    return {
        key: functools.partial(render_block, *args)
        for name in names
        for key, render_block, args in (
            (name, comparison, (name, "test")),
            (f"{name}_proposals", proposals, (name,)),
            (f"{name}_instructions", instructions, (name,)),
        )
    }


TABLES = {
    "headline": synthetic("select_writer_s3000", HEADLINE_COLUMNS),
    "headline_pairs": lambda: baseline_pairs("select_writer_s3000"),
    "household": synthetic("household", HEADLINE_COLUMNS),
    "household_pairs": lambda: baseline_pairs("household"),
    "household_kinds": lambda: by_kind("household"),
    "baseline": synthetic("baseline", [c for c in SYNTHETIC_COLUMNS if c != "notes recall"]),
    "writers": synthetic("writers"),
    "filter_actor": synthetic("filter_actor"),
    "select_writer": synthetic("select_writer"),
    "select_writer_s3000": synthetic("select_writer_s3000"),
    "mem0": synthetic("mem0"),
    "faults": faults,
    "faults_inputs": faults_inputs,
    "reliability_line": reliability_line,
    "hostile": hostile,
    "engine": engine,
    "oversubscription": oversubscription,
    "grammar": grammar,
    "store": store,
    "optimize": optimize,
    "optimize_select": lambda: optimize("optimize_select"),
    "demos": lambda: comparison("demos"),
    "demos_writer": lambda: comparison("demos_writer"),
    "demos_household_stated": lambda: comparison("demos_household_stated"),
    **optimize_blocks(
        "optimize_select_warm",
        "optimize_select_household",
        "optimize_select_1.5b",
        "optimize_select_1.5b_topicrules",
        "optimize_select_1.5b_topicrules_rerun",
    ),
    "instruction_ceiling_synthetic_1.5b": lambda: instruction_ceiling("instruction_ceiling_synthetic_1.5b"),
    "instruction_ceiling_synthetic_1.5b_test": lambda: comparison("instruction_ceiling_synthetic_1.5b", "test"),
    "window_fidelity": window_fidelity,
    "distill": distill,
    "distill_worlds": distill_worlds,
    **distill_blocks(
        "distill_hindsight_synthetic",
        "distill_hindsight_household",
        "distill_hindsight_household_h12",
        "distill_hindsight_household_stated",
        "distill_hindsight_household_stated12",
        "distill_hindsight_synthetic_stated12",
        "distill_hindsight_synthetic_heldgrpo",
        "distill_hindsight_household_heldgrpo",
        "distill_rl_synthetic",
        "distill_rl_synthetic_spread",
    ),
    "writer_choices_household_h12": lambda: writer_choices("writer_choices_household_h12"),
    "writer_choices_household_stated": lambda: writer_choices("writer_choices_household_stated"),
    "writer_choices_synthetic_stated12": lambda: writer_choices("writer_choices_synthetic_stated12"),
    "distill_training": distill_training,
    "distill_sampling": distill_sampling,
    "locomo": locomo,
    "locomo_writers": lambda: locomo("locomo_writers"),
}


def pages() -> list[Path]:
    """The pages that hold results blocks: README.md and the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def render(page: str) -> str:
    """``page`` with every results block re-rendered from its file (unknown names are errors)."""

    def block(match: re.Match) -> str:
        name = match.group("name")
        if name not in TABLES:
            raise KeyError(f"a page names results table {name!r}; known: {', '.join(TABLES)}")
        return match.group(1) + TABLES[name]() + match.group(4)

    return BLOCK.sub(block, page)
