"""docs/development.md stays true: its layout map names every module, its layers are
pyproject's, and its three extension examples (a suite, a writer, an LM backend) run as
written, from a folder outside the package."""

import re
import runpy
import sys
from pathlib import Path

import pytest

from promptmem.lm import specs
from promptmem.programs import agent
from promptmem.roles import OneCallWriter
from promptmem.suites import SuiteOptions, build_suite, registry
from tests.helpers.paths import ROOT

DOC = (ROOT / "docs" / "development.md").read_text()
FILES = dict(re.findall(r"<!-- file: (\S+) -->\n```python\n(.*?)```", DOC, re.S))


@pytest.fixture
def outside(tmp_path, monkeypatch):
    """The doc's files in ``tmp_path``, which is on the path and current; afterwards the
    registries and ``sys.modules`` are as they were."""
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    saved = dict(registry.SUITES), dict(agent.WRITERS), list(specs.BACKENDS)
    yield tmp_path
    registry.SUITES.clear()
    registry.SUITES.update(saved[0])
    agent.WRITERS.clear()
    agent.WRITERS.update(saved[1])
    specs.BACKENDS[:] = saved[2]
    for name in FILES:
        sys.modules.pop(name.removesuffix(".py"), None)


def run_example(folder: Path, name: str) -> dict:
    """Run the doc's ``try_<name>.py`` as a script; its globals."""
    return runpy.run_path(str(folder / f"try_{name}.py"), run_name="__main__")


def test_the_doc_has_the_three_examples():
    assert set(FILES) == {f"{p}{n}.py" for n in ("my_suite", "my_writer", "my_backend") for p in ("", "try_")}


def test_a_suite_from_outside_runs_by_name_and_by_path(outside):
    run = run_example(outside, "my_suite")
    assert run["report"].agent.questions == 6  # 2 streams, 3 lockers each
    assert registry.SUITES["lockers"].about and not registry.SUITES["lockers"].from_file
    by_path = build_suite("my_suite:LockerSuite", SuiteOptions(tasks=4))
    assert len(by_path.streams(1)[0].tasks) == 4
    with pytest.raises(ValueError, match="--questions does not apply to the lockers suite"):
        build_suite("lockers", SuiteOptions(questions=3))


def test_a_writer_from_outside_runs_saves_and_loads(outside):
    run = run_example(outside, "my_writer")
    assert run["report"].agent.questions > 0
    saved = next((outside / "runs" / "one-line" / "streams" / "agent").glob("*.json")).read_text()
    assert "billing-api listens on port 8123" in saved  # the writer's note
    loaded = agent.load_agent(outside / "one-line.json")
    assert loaded.writer_kind == "my_writer:OneLineWriter" and isinstance(loaded.writer, OneCallWriter)


def test_an_lm_backend_from_outside_serves_its_specs(outside):
    run = run_example(outside, "my_backend")
    assert run["report"].agent.questions > 0
    backend = specs.backend_for("ollama:qwen2.5:1.5b")
    assert backend.name == "ollama" and not specs.is_local("ollama:qwen2.5:1.5b")
    assert specs.make_lm(specs.LMConfig(spec="ollama:qwen2.5:1.5b")).model == "ollama_chat/qwen2.5:1.5b"


def test_every_in_process_engine_meets_the_engine_protocol(tmp_path):
    from promptmem.integrations.verifiers_env import TurnEngine
    from promptmem.lm.engine import Engine
    from promptmem.lm.hf_engine import TransformersEngine
    from promptmem.lm.llama_cpp import LlamaCppEngine

    (tmp_path / "config.json").write_text("{}")  # engines load their model on the first call: none is loaded
    engines = [LlamaCppEngine(tmp_path / "m.gguf"), TransformersEngine(tmp_path), TurnEngine(None, None)]
    assert [type(e).__name__ for e in engines if not isinstance(e, Engine)] == []
    assert not isinstance(object(), Engine)


def test_the_layout_map_names_every_module():
    listed = set(re.findall(r"^- `([\w/]+\.py)`: ", DOC, re.M))
    modules = {
        path.relative_to(ROOT).as_posix()
        for folder in ("promptmem", "programs", "distill")
        for path in (ROOT / folder).rglob("*.py")
        if "__pycache__" not in path.parts
    }
    assert listed == modules, (
        f"docs/development.md's layout map lacks {sorted(modules - listed)} and names {sorted(listed - modules)}"
    )


def test_the_layers_are_pyproject_s():
    pyproject = (ROOT / "pyproject.toml").read_text()
    contract = re.search(r"\[tool\.importlinter\].*?\nlayers = \[\n(.*?)\n\]", pyproject, re.S).group(1)
    declared = re.findall(r'^\s*"([^"]+)",?$', contract, re.M)
    shown = re.search(r"<!-- layers -->\n```\n(.*?)```", DOC, re.S).group(1).splitlines()
    assert shown == declared, "docs/development.md's layers differ from pyproject.toml's:\n" + "\n".join(declared)
