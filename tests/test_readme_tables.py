"""Every result table in the README is rendered from benchmarks/results/*.json."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def tables():
    spec = importlib.util.spec_from_file_location("readme_tables", ROOT / "benchmarks" / "readme_tables.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_tables_equal_their_results_files():
    module = tables()
    readme = (ROOT / "README.md").read_text()
    assert len(module.BLOCK.findall(readme)) >= 6
    assert module.render(readme) == readme, "run: python benchmarks/readme_tables.py"


def test_an_edited_number_or_an_unknown_table_is_caught():
    module = tables()
    readme = (ROOT / "README.md").read_text()
    assert module.render(readme.replace("| 0.538 |", "| 0.638 |", 1)) != readme.replace("| 0.538 |", "| 0.638 |", 1)
    with pytest.raises(KeyError, match="nowhere"):
        module.render("<!-- results:nowhere -->\n| x |\n<!-- /results -->")
