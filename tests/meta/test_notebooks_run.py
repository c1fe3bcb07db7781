"""The proof-of-concept notebooks run top to bottom: part 1 shows the published results (read
from benchmarks/results), part 2 a tiny live run on the embedded models."""

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from benchmarks.tables.learning import distill_worlds, own_worlds
from tests.helpers.paths import ROOT

RESULTS = ROOT / "benchmarks" / "results"
pytestmark = pytest.mark.local_model


def execute(name: str, tmp_path: Path, monkeypatch) -> list[dict]:
    """Run notebooks/<name> in ``tmp_path`` (run directory ``tmp_path/run``); its outputs."""
    monkeypatch.setenv("PROMPTMEM_NB_OUT", str(tmp_path / "run"))
    monkeypatch.setenv("PROMPTMEM_NB_RESULTS", str(RESULTS))
    notebook = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    NotebookClient(
        notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    outputs = [o for cell in notebook.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    return outputs


def texts(outputs: list[dict]) -> str:
    return "\n".join(o.get("text", "") + o.get("data", {}).get("text/markdown", "") for o in outputs)


def images(outputs: list[dict]) -> int:
    return sum("image/png" in o.get("data", {}) for o in outputs)


def test_optimize_notebook_runs(tmp_path, monkeypatch):
    outputs = execute("01_optimize_poc.ipynb", tmp_path, monkeypatch)
    shown = texts(outputs)
    # part 1: the published numbers, read from the results files
    paired = json.loads((RESULTS / "demos.json").read_text())["rows"]["seed + demos"]["paired"]["seed"]
    assert f"wins / losses / ties: {paired['wins']} / {paired['losses']} / {paired['ties']}" in shown
    assert f"-> {paired['verdict']}" in shown
    select = json.loads((RESULTS / "optimize_select.json").read_text())
    assert f"{select['metric_calls']} metric calls" in shown
    assert "| select, warm | `agent.writer.predict` |" in shown  # seed vs evolved, from the results
    household = json.loads((RESULTS / "optimize_select_household.json").read_text())
    assert f"{household['metric_calls']} metric calls" in shown
    # part 2: the live GEPA run and its held-out comparison
    run = tmp_path / "run" / "optimize"
    summary = json.loads((run / "summary.json").read_text())
    assert (run / "program.json").exists() and summary["metric_calls"] >= 1
    assert "| predictor | seed | evolved |" in shown
    assert "| seed |" in (run / "comparison.md").read_text()
    assert images(outputs) >= 5  # four from the results, the live held-out curve


def test_distill_notebook_runs(tmp_path, monkeypatch):
    pytest.importorskip("trl", reason="the distill extra is not installed")
    outputs = execute("02_distill_poc.ipynb", tmp_path, monkeypatch)
    shown = texts(outputs)
    # part 1: the README's worlds table, every world's paired difference, then the earlier runs
    assert distill_worlds() in shown
    for world in own_worlds():
        p = world["paired"]
        assert (
            f"{world['world']} (annotations: {world['annotations']}): {p['diff']:+.3f} [{p['ci_low']:+.3f}, " in shown
        )
    earlier = json.loads((RESULTS / "distill.json").read_text())["comparison"]
    assert "| distill (earlier recipe) | teacher's traces |" in shown
    assert f"| {earlier['teacher']['score']:.3f} | {earlier['student+grpo']['score']:.3f} |" in shown
    hindsight = json.loads((RESULTS / "distill_hindsight_synthetic.json").read_text())["comparison"]
    paired = hindsight["student+grpo"]["paired"]["teacher"]
    assert "| synthetic | needed | 2 streams |" in shown
    assert f"{paired['diff']:+.3f} [{paired['ci_low']:+.3f}, {paired['ci_high']:+.3f}] | {paired['wins']} / " in shown
    # the live run: every stage ran; teacher vs the student after SFT and GRPO, with paired statistics
    run = tmp_path / "run"
    assert (run / "sft" / "model" / "config.json").exists() and (run / "grpo" / "model" / "config.json").exists()
    comparison = json.loads((run / "eval" / "comparison.json").read_text())
    assert set(comparison) == {"teacher", "student+grpo"}
    assert comparison["student+grpo"]["paired"]["teacher"]["questions"] >= 1
    assert "| student+grpo vs teacher |" in shown
    assert images(outputs) >= 2  # teacher vs student per world, the live comparison
