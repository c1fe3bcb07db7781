"""What every results table shares: reading ``benchmarks/results/NAME.json`` and writing
Markdown cells and tables (``benchmarks.tables.render`` puts them in the pages)."""

from __future__ import annotations

import json

from benchmarks import RESULTS


def load(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def gain(x: float) -> str:
    return f"{x:+.3f}"


def maybe(x, fmt: str = "{:.3f}") -> str:
    return "–" if x is None else fmt.format(x)


def first(examples: list[str]) -> str:
    """The first example as a table cell; empty when there is none."""
    return cell(examples[0]) if examples else ""


def cell(text: str) -> str:
    """``text`` as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")
