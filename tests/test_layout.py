"""The package's shape: imports only go down the layers pyproject declares, and ruff passes."""

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def test_imports_only_go_down_the_layers(tmp_path):
    # import-linter reads one folder per package; programs/ and distill/ live at the root and
    # install as promptmem.programs and promptmem.distill, so the check runs on that shape.
    tree = tmp_path / "promptmem"
    shutil.copytree(ROOT / "promptmem", tree, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("programs", "distill"):
        shutil.copytree(ROOT / name, tree / name, ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run(
        [str(BIN / "lint-imports"), str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(BIN)},
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def test_ruff_lint_and_format_pass():
    for command in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run([str(BIN / "ruff"), *command], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, f"ruff {' '.join(command)}:\n{result.stdout[-3000:]}{result.stderr[-1000:]}"
