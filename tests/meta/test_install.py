"""The README's test command installs everything the tests use: nothing may be missing, and no
test may be skipped for a dependency that command provides (conftest turns such skips into
failures; this test names the missing packages at once)."""

import re
from importlib import metadata

import pytest
from packaging.requirements import Requirement

from promptmem.lm.embedded import LOCAL_MODELS, model_path
from tests.helpers.paths import ROOT


def readme_test_extras() -> set[str]:
    """The extras of the README's `pip install -e ".[...]" && python -m pytest` command."""
    (extras,) = re.findall(r'pip install -e "\.\[([\w,]+)\]" && python -m pytest', (ROOT / "README.md").read_text())
    return set(extras.split(","))


def test_readme_install_command_provides_every_requirement_of_its_extras():
    extras = readme_test_extras()
    assert {"local", "distill", "embed", "dev"} <= extras
    missing = []
    for line in metadata.requires("promptmem"):
        requirement = Requirement(line)
        if requirement.marker and not any(requirement.marker.evaluate({"extra": e}) for e in extras | {""}):
            continue
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            missing.append(f"{requirement} (not installed)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{requirement} (found {version})")
    assert not missing, f"the README's install command should have provided: {missing}"


def test_every_embedded_model_is_installed_and_verified():
    for name in LOCAL_MODELS:
        assert model_path(name).stat().st_size == LOCAL_MODELS[name].size


def test_a_skip_for_a_missing_extra_is_reported_as_a_failure():
    from tests.helpers.skips import fail_if_skipped_for_a_missing_dependency

    report = pytest.TestReport(
        "t.py::x", ("t.py", 0, "x"), {}, "skipped", ("t.py", 1, "Skipped: the distill extra is not installed"), "setup"
    )
    fail_if_skipped_for_a_missing_dependency(report)
    assert report.failed and "README's install command" in str(report.longrepr)
    other = pytest.TestReport("t.py::y", ("t.py", 0, "y"), {}, "skipped", ("t.py", 1, "Skipped: no GPU"), "setup")
    fail_if_skipped_for_a_missing_dependency(other)
    assert other.skipped
