"""Committed notebooks are executed (users open them first) and their outputs read as text:
no ANSI escape codes (progress bars, colours), no temporary paths, a file small enough to open."""

import json
import re
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ESCAPE = json.dumps("\x1b[")[1:-1]  # ESC [ as JSON writes it: \u001b[
TEMPORARY = re.compile(r"/tmp/|/var/folders/|\\Temp\\|pytest-of-")
MAX_BYTES = 300_000


def outputs(path: Path) -> list[tuple[int, str]]:
    cells = json.loads(path.read_text())["cells"]
    return [(i, json.dumps(cell.get("outputs", []))) for i, cell in enumerate(cells)]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_outputs_hold_no_ansi_escape_codes(path):
    dirty = [i for i, text in outputs(path) if ESCAPE in text]
    assert not dirty, f"{path.name}: ANSI escape codes in the outputs of cells {dirty}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_notebooks_are_executed_with_no_temporary_paths(path):
    cells = json.loads(path.read_text())["cells"]
    code = [cell for cell in cells if cell["cell_type"] == "code"]
    assert all(cell["outputs"] or cell["execution_count"] for cell in code), f"{path.name}: not executed"
    assert not [c for c in code for o in c["outputs"] if o["output_type"] == "error"], f"{path.name}: an error"
    leaked = [i for i, text in outputs(path) if TEMPORARY.search(text)]
    assert not leaked, f"{path.name}: temporary paths in the outputs of cells {leaked}"
    assert path.stat().st_size <= MAX_BYTES, f"{path.name}: {path.stat().st_size} bytes"
