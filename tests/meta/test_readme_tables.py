"""Every result table in README.md and docs/*.md is rendered from benchmarks/results/*.json."""

import pytest

from benchmarks import ROOT
from benchmarks.tables import render as tables


def test_every_pages_tables_equal_their_results_files():
    pages = {path.relative_to(ROOT).as_posix(): path.read_text() for path in tables.pages()}
    assert (
        "<!-- results:headline -->" in pages["README.md"] and len(tables.BLOCK.findall(pages["docs/results.md"])) >= 6
    )
    for name, text in pages.items():
        assert tables.render(text) == text, f"{name} is stale; run: python -m benchmarks.tables"


def test_an_edited_number_or_an_unknown_table_is_caught():
    edited = (ROOT / "docs" / "results.md").read_text().replace("| 0.538 |", "| 0.638 |", 1)
    assert "| 0.638 |" in edited and tables.render(edited) != edited
    with pytest.raises(KeyError, match="nowhere"):
        tables.render("<!-- results:nowhere -->\n| x |\n<!-- /results -->")
