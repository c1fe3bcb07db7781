"""The package's shape: imports only go down the layers pyproject declares, ruff passes, and
promptmem.programs / promptmem.distill import from Python started at the root of a clone."""

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


def test_a_clone_root_shadowing_an_installed_package_still_finds_programs_and_distill(tmp_path):
    # A regular install into `site`, Python started at the clone's root (the editable install's
    # finder removed): the root's promptmem/ is found first and has no programs/ or distill/.
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(ROOT)], check=True
    )
    code = (
        "import sys; sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in repr(f).lower()];"
        "import promptmem, promptmem.programs.agent, promptmem.distill.students;"
        "print(promptmem.__file__); print(promptmem.programs.__file__); print(promptmem.distill.__file__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(site), "PATH": "", "HOME": str(tmp_path)},
    )
    assert result.returncode == 0, result.stderr
    package, programs, distill = result.stdout.split()
    assert Path(package) == ROOT / "promptmem" / "__init__.py"
    assert Path(programs) == ROOT / "programs" / "__init__.py"
    assert Path(distill) == ROOT / "distill" / "__init__.py"
