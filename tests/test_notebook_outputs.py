"""Committed notebook outputs read as text: no ANSI escape codes (progress bars, colours)."""

import json
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
ESCAPE = json.dumps("\x1b[")[1:-1]  # ESC [ as JSON writes it: \u001b[


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_committed_outputs_hold_no_ansi_escape_codes(path):
    cells = json.loads(path.read_text())["cells"]
    dirty = [i for i, cell in enumerate(cells) if ESCAPE in json.dumps(cell.get("outputs", []))]
    assert not dirty, f"{path.name}: ANSI escape codes in the outputs of cells {dirty}"
