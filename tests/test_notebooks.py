"""The proof-of-concept notebooks run top to bottom on the embedded model (tiny settings)."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.local_model


def test_optimize_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMPTMEM_NB_OUT", str(tmp_path / "run"))
    notebook = nbformat.read(ROOT / "notebooks" / "01_optimize_poc.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert (tmp_path / "run" / "optimize" / "program.json").exists()
    assert any("| predictor | seed | evolved |" in o.get("data", {}).get("text/markdown", "") for o in outputs)


def test_distill_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("trl", reason="the distill extra is not installed")
    monkeypatch.setenv("PROMPTMEM_NB_OUT", str(tmp_path / "run"))
    notebook = nbformat.read(ROOT / "notebooks" / "02_distill_poc.ipynb", as_version=4)
    NotebookClient(
        notebook, timeout=1800, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    comparison = json.loads((tmp_path / "run" / "eval" / "comparison.json").read_text())
    assert set(comparison) == {"teacher", "student", "student+sft", "student+grpo"}
