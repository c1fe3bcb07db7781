"""Warm-started GEPA windows: each starts from the reference run's notes at its position."""

from dataclasses import asdict

import dspy

from promptmem.optimize.gepa import StreamProgram
from promptmem.optimize.windows import cut_windows
from promptmem.programs import build_agent
from promptmem.runner import run_stream
from promptmem.suites import make_suite
from tests.helpers.scripted import scripted_lm


def test_a_warm_window_starts_from_exactly_the_reference_runs_notes(tmp_path):
    suite = make_suite("synthetic", tasks=12)
    stream = suite.streams(1, seed=5)[0]
    agent = build_agent("append-raw")
    lm = scripted_lm("8080", {})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        windows = cut_windows([stream], 4, suite=suite, budget=300, reference=agent, cache=tmp_path)
        prefix = run_stream(agent, stream.__class__(stream.id, stream.tasks[:4]), suite, lm, budget=300)
        run = StreamProgram(agent, suite, 300)(
            stream=windows[1].stream, start=windows[1].notes, position=windows[1].position
        ).result
    assert [w.position for w in windows] == [0, 4, 8] and windows[0].notes == () and windows[1].notes
    assert [asdict(n) for n in windows[1].notes] == prefix.final_notes  # ids, texts and times
    assert run.initial_notes == prefix.final_notes and run.records[0].position == 4
    again = cut_windows([stream], 4, suite=suite, budget=300, reference=agent, cache=tmp_path)  # read back
    assert [w.notes for w in again] == [w.notes for w in windows]


def test_cold_windows_start_from_no_notes():
    suite = make_suite("synthetic", tasks=10)
    windows = cut_windows(suite.streams(2, seed=1), 4, suite=suite, budget=300)
    assert windows and all(w.notes == () for w in windows)
    assert all(any(t.is_question for t in w.stream.tasks) for w in windows)
