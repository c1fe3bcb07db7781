"""Demonstrations labelled in hindsight on training streams: the second lever of optimize."""

import json

from promptmem.optimize.demos import hindsight_demos, with_demos
from promptmem.programs import build_agent, load_agent, save_agent
from promptmem.programs.select import statements
from promptmem.signals.hindsight import by_task, hindsight_keep, hindsight_labels
from promptmem.suites import make_suite


def test_writer_demos_keep_what_later_questions_needed_and_actor_demos_hold_the_answer():
    suite = make_suite("synthetic", tasks=24)
    streams = suite.streams(3, seed=11)
    demos = hindsight_demos(streams, suite, suite.notes_budget, k=4)
    assert len(demos["writer"]) == 4 and len(demos["actor"]) == 4
    keep = {}
    for stream in streams:
        keep.update(
            {(stream.id, t): n for t, n in hindsight_keep(hindsight_labels(stream, suite), suite.notes_budget).items()}
        )
    for demo in demos["writer"]:
        shown = demo.lines.splitlines()
        assert shown[0].startswith("[1] ") and 0 < len(demo.keep) < len(shown)
        assert demo.keep in keep.values()
    for demo in demos["actor"]:
        assert demo.answer.lower() in demo.notes.lower() and demo.question


def test_demos_ride_on_the_select_writer_and_the_actor_and_survive_save_and_load(tmp_path):
    suite = make_suite("synthetic", tasks=16)
    demos = hindsight_demos(suite.streams(2, seed=3), suite, suite.notes_budget, k=2)
    agent = with_demos(build_agent("seed", writer="select"), demos)
    assert len(agent.writer.predict.demos) == 2 and len(agent.actor.predict.demos) == 2
    assert build_agent("seed", writer="select").writer.predict.demos == []  # a copy, not the original
    save_agent(agent, tmp_path / "p.json")
    loaded = load_agent(tmp_path / "p.json")
    assert [d["keep"] for d in loaded.writer.predict.demos] == [d.keep for d in demos["writer"]]
    assert json.loads((tmp_path / "p.json").read_text())["writer"] == "select"


def test_no_writer_demos_for_writers_without_numbered_statements():
    suite = make_suite("synthetic", tasks=16)
    demos = hindsight_demos(suite.streams(1, seed=3), suite, suite.notes_budget, k=2)
    assert with_demos(build_agent("seed", writer="ops"), demos).writer.predict.demos == []
    assert statements("a. b.") == ["a.", "b."] and by_task([]) == {}
