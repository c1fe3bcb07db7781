"""`pip install .` and `pip install -e .` both expose promptmem.programs and promptmem.distill."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.helpers.paths import ROOT


def test_editable_install_maps_programs_and_distill():
    import promptmem.distill
    import promptmem.programs

    assert Path(promptmem.programs.__file__).parent == ROOT / "programs"
    assert Path(promptmem.distill.__file__).parent == ROOT / "distill"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)], check=True)
    return next(out.glob("promptmem-*.whl"))


def test_wheel_holds_one_top_level_package(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    assert "promptmem/programs/actor.py" in names and "promptmem/distill/__init__.py" in names
    assert {n.split("/")[0] for n in names if not n.startswith("promptmem-")} == {"promptmem"}


def test_installed_wheel_imports_without_torch(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)], check=True
    )
    code = (
        "import sys, promptmem, promptmem.programs, promptmem.distill, promptmem.cli;"
        "assert promptmem.programs.__file__.startswith(sys.argv[1]), promptmem.programs.__file__;"
        "assert 'torch' not in sys.modules; print('ok')"
    )
    result = subprocess.run(
        [sys.executable, "-c", code, str(target)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": ""},
    )
    assert result.stdout.strip() == "ok", result.stderr


def test_ci_runs_the_readme_test_command():
    ci_command = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert f"```bash\n{ci_command}\n```" in (ROOT / "README.md").read_text()


def test_the_license_file_is_the_license_pyproject_declares():
    text = " ".join((ROOT / "LICENSE").read_text().split())
    assert 'license = { text = "Apache-2.0" }' in (ROOT / "pyproject.toml").read_text()
    assert text.startswith("Apache License Version 2.0, January 2004")
    assert "END OF TERMS AND CONDITIONS" in text


def test_a_clone_root_shadowing_an_installed_package_still_finds_programs_and_distill(wheel, tmp_path):
    # The wheel installed into `site`, Python started at the clone's root (the editable install's
    # finder removed): the root's promptmem/ is found first and has no programs/ or distill/.
    site = tmp_path / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(wheel)], check=True
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
