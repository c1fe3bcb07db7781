"""The suite, writer and agent registries: construction, refusals that say what was wrong, and
help text built from them."""

import pytest

from promptmem.memory.replay import replay_steps
from promptmem.programs.agent import (
    AGENTS,
    WRITERS,
    agent_help,
    build_agent,
    load_agent,
    make_writer,
    one_call_writers,
    save_agent,
    writer_help,
)
from promptmem.roles import OneCallWriter
from promptmem.suites import SUITES, SuiteOptions, build_suite
from promptmem.suites.hostile import HostileSuite


def test_suites_build_from_the_options_they_take(tmp_path):
    assert len(build_suite("synthetic", SuiteOptions(tasks=5)).streams(1)[0].tasks) == 5
    assert isinstance(build_suite("synthetic", SuiteOptions(hostile=0.5)), HostileSuite)
    with pytest.raises(ValueError, match="the jsonl suite needs --data"):
        build_suite("jsonl", SuiteOptions())
    with pytest.raises(
        ValueError, match=r"--questions-at-end does not apply to the synthetic suite \(it takes --tasks\)"
    ):
        build_suite("synthetic", SuiteOptions(questions_at_end=True))
    with pytest.raises(ValueError, match="unknown suite 'nope'; known: synthetic, jsonl, locomo"):
        build_suite("nope")
    assert [name for name, suite in SUITES.items() if suite.from_file] == ["jsonl", "locomo"]


def test_dotted_paths_that_do_not_resolve_say_which_option_asked():
    with pytest.raises(ValueError, match="--suite 'no_such_module:X': cannot import no_such_module"):
        build_suite("no_such_module:X")
    with pytest.raises(ValueError, match="--writer 'promptmem.roles:Nope': module promptmem.roles has no 'Nope'"):
        make_writer("promptmem.roles:Nope")
    with pytest.raises(ValueError, match="unknown writer 'crud'"):
        build_agent("seed", "crud")


def test_help_names_every_registered_writer_and_agent():
    assert all(f"{name}: {entry.about}" in writer_help() for name, entry in WRITERS.items())
    assert all(f"{name}: {entry.about}" in agent_help() for name, entry in AGENTS.items())
    assert one_call_writers() == ["ops", "facts", "notes"]
    assert "select" not in writer_help(one_call=True) and "pkg.module:Class" in writer_help(one_call=True)
    assert all(isinstance(make_writer(name), OneCallWriter) for name in one_call_writers())


def test_every_agent_builds_and_a_dotted_writer_saves_and_loads(tmp_path):
    for name in AGENTS:
        assert build_agent(name).name == name
    agent = build_agent("seed", "promptmem.programs.writers:NotesWriter")
    save_agent(agent, tmp_path / "program.json")
    loaded = load_agent(tmp_path / "program.json")
    assert loaded.writer_kind == "promptmem.programs.writers:NotesWriter"
    assert type(loaded.writer).__name__ == "NotesWriter"


def test_one_replay_gives_each_step_its_notes_and_effect():
    trace = [
        {"step": "t0", "kind": "ADD", "text": " a ", "note_id": None, "result_id": "n2", "applied": True},
        {"step": "t1", "kind": "UPDATE", "text": "b", "note_id": "n1", "result_id": "n1", "applied": True},
        {"step": "t1", "kind": "DELETE", "text": "", "note_id": "n2", "result_id": "n2", "applied": False},
    ]
    steps = replay_steps(trace, ["t0", "t1", "t2"], {"n1": "old"})
    assert [s.before for s in steps] == [{"n1": "old"}, {"n1": "old", "n2": "a"}, {"n2": "a", "n1": "b"}]
    assert (steps[1].written, steps[1].dropped, steps[1].notes_after) == (("b",), ("old",), 2)
