"""The package's shape: imports only go down the layers pyproject declares, names are imported
from the module that defines them, and ruff passes."""

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.helpers.paths import ROOT

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


PACKAGE_DIRS = {"promptmem.programs": ROOT / "programs", "promptmem.distill": ROOT / "distill"}


def module_file(name: str) -> Path | None:
    """The file of module ``name`` (``promptmem.programs`` and ``promptmem.distill`` live at the root)."""
    prefix = next((p for p in PACKAGE_DIRS if name == p or name.startswith(p + ".")), "promptmem")
    path = PACKAGE_DIRS.get(prefix, ROOT / "promptmem").joinpath(*name[len(prefix) :].split(".")[1:])
    return next((f for f in (path.with_suffix(".py"), path / "__init__.py") if f.is_file()), None)


def top_level_imports(path: Path) -> set[str]:
    """The names ``path`` binds by importing them (at module level)."""
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
    return names


def test_names_are_imported_from_the_module_that_defines_them():
    # a package's __init__ may re-export its public names; a module is no go-between for names
    # it imports itself (e.g. claim_run_dir lives in promptmem.rundir, not promptmem.evaluate)
    through = []
    for path in sorted(p for folder in (ROOT / "promptmem", *PACKAGE_DIRS.values()) for p in folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("promptmem.")):
                continue
            source = module_file(node.module)
            if source is None or source.name == "__init__.py":
                continue
            imported = top_level_imports(source)
            through += [
                f"{path.relative_to(ROOT)}:{node.lineno}: {alias.name} through {node.module}"
                for alias in node.names
                if alias.name in imported
            ]
    assert not through, "import these from where they are defined:\n" + "\n".join(through)


def test_ruff_lint_and_format_pass():
    for command in (["check", "."], ["format", "--check", "."]):
        result = subprocess.run([str(BIN / "ruff"), *command], cwd=ROOT, capture_output=True, text=True)
        assert result.returncode == 0, f"ruff {' '.join(command)}:\n{result.stdout[-3000:]}{result.stderr[-1000:]}"


def test_programs_and_distill_imports_sort_with_promptmems():
    # programs/ and distill/ install as promptmem.programs and promptmem.distill: ruff keeps
    # their imports in the first-party block, not in a block of their own
    # (checked as a file outside the package: inside it, ruff counts promptmem.* as its own)
    source = "import dspy\n\nfrom promptmem.cli import app\nfrom promptmem.distill.pipeline import distill\nfrom promptmem.programs.agent import build_agent\n"
    result = subprocess.run(
        [str(BIN / "ruff"), "check", "--select", "I", "--stdin-filename", str(ROOT / "tests" / "example.py"), "-"],
        cwd=ROOT,
        input=source,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout[-2000:]


BENCHMARK_KINDS = {"experiments", "faults", "generate", "system", "tables"}


def test_benchmarks_are_packages_by_kind_run_as_modules():
    # benchmarks/ holds folders by kind (and its data and results), no loose scripts; each folder
    # of scripts is a package, so every script runs as `python -m benchmarks.KIND.NAME`
    top = {p.name for p in (ROOT / "benchmarks").iterdir() if p.name != "__pycache__"}
    assert top == BENCHMARK_KINDS | {"data", "results", "__init__.py", "README.md"}
    for kind in BENCHMARK_KINDS:
        assert (ROOT / "benchmarks" / kind / "__init__.py").is_file(), kind
    pages = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "notebooks").glob("*.ipynb")]
    scripts = [*(ROOT / "benchmarks").rglob("*.py"), *(ROOT / "benchmarks").rglob("*.sh")]
    by_path = [p.relative_to(ROOT) for p in pages + scripts if re.search(r"python3? benchmarks/", p.read_text())]
    assert not by_path, f"run benchmarks as modules (python -m benchmarks...), not by path: {by_path}"


def sys_path_edits(source: str) -> list[str]:
    """Where ``source`` changes the import path: ``sys.path`` assigned or mutated,
    ``monkeypatch.syspath_prepend``, ``site.addsitedir`` (line: what)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names = []
        if isinstance(node, ast.Call):
            names = [ast.unparse(node.func)]
        elif isinstance(node, ast.Assign | ast.AugAssign):
            names = [ast.unparse(t) for t in (node.targets if isinstance(node, ast.Assign) else [node.target])]
        found += [
            f"{node.lineno}: {name}"
            for name in names
            if name == "sys.path" or name.startswith("sys.path.") or name.endswith(("syspath_prepend", "addsitedir"))
        ]
    return found


# tests that stand a temporary folder (tmp_path) for a user's own package, put on the path by
# monkeypatch for the test alone: a plugin module, model part packages
USER_PACKAGES = {"tests/meta/test_extensions.py", "tests/lm/test_model_assembly.py"}


def test_no_file_in_tests_or_benchmarks_edits_sys_path():
    # tests import the benchmarks as `benchmarks...` (pytest's pythonpath in pyproject), the
    # benchmarks import the tests' harness as `tests...` (run from the root with python -m)
    example = "import sys\nsys.path.insert(0, 'x')\nsys.path += ['y']\nmonkeypatch.syspath_prepend('z')\n"
    assert len(sys_path_edits(example)) == 3
    edits = []
    for path in (p for folder in ("tests", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))):
        name = path.relative_to(ROOT).as_posix()
        found = sys_path_edits(path.read_text())
        if name in USER_PACKAGES:
            found = [edit for edit in found if not edit.endswith(": monkeypatch.syspath_prepend")]
        edits += [f"{name}:{edit}" for edit in found]
    assert not edits, "import through the repository root instead:\n" + "\n".join(edits)


TEST_FOLDERS = {"core", "cli", "lm", "memory", "suites", "signals", "report", "optimize", "programs", "distill"}
TEST_FOLDERS |= {"integrations", "meta", "helpers", "fixtures"}


def test_tests_mirror_the_packages_and_share_through_helpers():
    # a folder per package (core: promptmem/'s own modules), meta/ for the repository's checks,
    # helpers/ for what tests share; every folder of code is a package, so `tests.helpers...`
    # imports from the root and two folders may hold files of the same name
    tests = ROOT / "tests"
    folders = {p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert folders == TEST_FOLDERS
    assert not sorted(p.name for p in tests.glob("*.py") if p.name not in ("__init__.py", "conftest.py"))
    for folder in TEST_FOLDERS - {"fixtures"}:
        assert (tests / folder / "__init__.py").is_file(), folder
    # a test module imports no other test module nor the conftest: what two files need is a helper
    borrowed = []
    for path in sorted(tests.rglob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                borrowed += [
                    f"{path.relative_to(ROOT)}:{node.lineno}: {name}"
                    for name in names
                    if name.split(".")[-1].startswith("test_") or name.split(".")[-1] == "conftest"
                ]
    assert not borrowed, "move what test modules share to tests/helpers/:\n" + "\n".join(borrowed)
