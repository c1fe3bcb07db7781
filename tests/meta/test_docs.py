"""The docs site builds with every link and anchor resolving; the README stays short and its
links resolve too."""

import os
import re
import subprocess
import sys
from pathlib import Path

from markdown.extensions.toc import slugify

from tests.helpers.paths import ROOT

LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_docs_build_strict(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert (tmp_path / "site" / "results" / "index.html").exists()


def anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
    return {slugify(title, "-") for title in re.findall(r"^#+ (.+)$", text, flags=re.MULTILINE)}


def test_the_readme_is_short_and_its_links_resolve():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.encode()) <= 15_000
    local = [link for link in LINK.findall(readme) if "://" not in link]
    assert any(link.startswith("docs/") for link in local)
    for link in local:
        path, _, anchor = link.partition("#")
        target = ROOT / path if path else ROOT / "README.md"
        assert target.exists(), f"README links to {link}: no such file"
        assert not anchor or anchor in anchors(target), f"README links to {link}: no such heading"
