"""Every result table in README.md and docs/*.md is rendered from benchmarks/results/*.json."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tables():
    sys.path.insert(0, str(ROOT / "benchmarks"))  # its sibling modules, as when run as a script
    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "benchmarks" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_pages_tables_equal_their_results_files():
    module = tables()
    pages = {path.relative_to(ROOT).as_posix(): path.read_text() for path in module.pages()}
    assert (
        "<!-- results:headline -->" in pages["README.md"] and len(module.BLOCK.findall(pages["docs/results.md"])) >= 6
    )
    for name, text in pages.items():
        assert module.render(text) == text, f"{name} is stale; run: python benchmarks/readme_tables.py"


def test_an_edited_number_or_an_unknown_table_is_caught():
    module = tables()
    edited = (ROOT / "docs" / "results.md").read_text().replace("| 0.538 |", "| 0.638 |", 1)
    assert "| 0.638 |" in edited and module.render(edited) != edited
    with pytest.raises(KeyError, match="nowhere"):
        module.render("<!-- results:nowhere -->\n| x |\n<!-- /results -->")
