import json

import pytest

from promptmem.suites import JsonlFormatError, JsonlSuite, load_streams

GOOD = {
    "stream_id": "s1",
    "tasks": [
        {"id": "a", "observation": "The vault code is 4417.", "question": None},
        {
            "id": "b",
            "observation": "",
            "question": "What is the vault code?",
            "answer": "4417",
            "scorer": "numeric",
            "meta": {"category": "recall"},
        },
        {"id": "c", "observation": "", "question": "Which city?", "answer": ["Paris", "paris, france"]},
    ],
}


def write(tmp_path, *lines):
    path = tmp_path / "streams.jsonl"
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line) for line in lines) + "\n")
    return path


def test_loads_streams_and_scores_with_each_tasks_scorer(tmp_path):
    suite = JsonlSuite(write(tmp_path, GOOD, "", {**GOOD, "stream_id": "s2"}))
    streams = suite.streams(10)
    assert [s.id for s in streams] == ["s1", "s2"]
    observe, numeric, city = streams[0].tasks
    assert observe.question is None and observe.answer == ()
    assert suite.score(numeric, "code 4417").score == 1.0
    assert suite.score(city, "Paris, France").score == 1.0
    wrong = suite.score(city, "Rome")
    assert wrong.score == 0.0 and "Paris | paris, france" in wrong.feedback


@pytest.mark.parametrize(
    "line, message",
    [
        ('{"stream_id": "s", "tasks": [', "line 2: not valid JSON"),
        ([1, 2], "line 2: must be a JSON object"),
        ({"tasks": [{"id": "a"}]}, "line 2, stream_id: must be a non-empty string"),
        ({"stream_id": "x", "tasks": []}, "line 2, tasks: must be a non-empty list"),
        ({"stream_id": "x", "tasks": [{"observation": "o"}]}, "line 2, tasks[0].id: must be a non-empty string"),
        (
            {"stream_id": "x", "tasks": [{"id": "a", "question": "q?"}]},
            "tasks[0] (id 'a').answer: a task with a question needs a gold answer",
        ),
        (
            {"stream_id": "x", "tasks": [{"id": "a", "question": "q?", "answer": ["b", " "]}]},
            "line 2, tasks[0] (id 'a').answer: holds an empty answer, which no answer can match",
        ),
        (
            {"stream_id": "x", "tasks": [{"id": "a", "question": "q?", "answer": ""}]},
            "line 2, tasks[0] (id 'a').answer: holds an empty answer",
        ),
        (
            {"stream_id": "x", "tasks": [{"id": "a", "question": "q?", "answer": 3}]},
            "tasks[0] (id 'a').answer: must be a string, a list of strings or null",
        ),
        (
            {"stream_id": "x", "tasks": [{"id": "a", "question": "q", "answer": "b", "scorer": "bleu"}]},
            "tasks[0] (id 'a').scorer: 'bleu' is not one of",
        ),
        ({"stream_id": "x", "tasks": [{"id": "a", "qestion": "typo"}]}, "unknown field(s) ['qestion']"),
        ({"stream_id": "x", "tasks": [{"id": "a"}, {"id": "a"}]}, "duplicate task id"),
        ({**GOOD}, "line 2, stream_id: 's1' already used on line 1"),
    ],
)
def test_malformed_lines_name_the_line_and_field(tmp_path, line, message):
    with pytest.raises(JsonlFormatError) as err:
        load_streams(write(tmp_path, GOOD, line))
    assert message in str(err.value)


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(JsonlFormatError, match="no such file"):
        load_streams(tmp_path / "nope.jsonl")
    with pytest.raises(JsonlFormatError, match="holds no streams"):
        load_streams(write(tmp_path, ""))


def test_every_suite_meets_the_protocol(tmp_path):
    from promptmem.suites import LocomoSuite, SyntheticSuite
    from promptmem.tasks import Suite

    tiny_locomo = tmp_path / "l.json"
    tiny_locomo.write_text(json.dumps([{"sample_id": "x", "conversation": {"session_1": []}, "qa": []}]))
    for suite in (SyntheticSuite(), JsonlSuite(write(tmp_path, GOOD)), LocomoSuite(tiny_locomo)):
        assert isinstance(suite, Suite) and json.dumps(suite.describe())


def test_a_non_utf8_file_is_a_clear_error_naming_file_and_line(tmp_path):
    import pytest

    from promptmem.suites import JsonlFormatError, LocomoFormatError, load_locomo, load_streams

    path = tmp_path / "latin1.jsonl"
    path.write_bytes(b'{"stream_id": "a", "tasks": []}\n{"stream_id": "caf\xe9", "tasks": []}\n')
    with pytest.raises(JsonlFormatError, match=r"latin1.jsonl, line 2: not UTF-8 text \(byte 0xe9"):
        load_streams(path)
    with pytest.raises(LocomoFormatError, match=r"latin1.jsonl: not UTF-8 text"):
        load_locomo(path)


def _task(**fields) -> dict:
    return {"stream_id": "x", "tasks": [{"id": "a", "question": "q?", "answer": "b", **fields}]}


@pytest.mark.parametrize(
    "line, message",
    [
        (_task(question=" "), "line 2, tasks[0] (id 'a').question: is empty; use null for a step with no question"),
        (_task(scorer="numeric", answer="Paris"), "line 2, tasks[0] (id 'a').answer: 'Paris' holds no number"),
        ('{"stream_id": "x", "tasks": [{"id": "a", "meta": {"w": NaN}}]}', "line 2: NaN is not a JSON value"),
        ('{"stream_id": "x", "tasks": [{"id": "a", "meta": {"w": -Infinity}}]}', "line 2: -Infinity is not a JSON"),
        ({**_task(), "notes": "x"}, "line 2: unknown field(s) ['notes']; a line holds stream_id and tasks"),
        (
            '{"stream_id": "x", "tasks": [{"id": "a", "meta": ' + '{"m": ' * 100_000 + "1" + "}" * 100_001 + "]}",
            "line 2: nested too deep to read",
        ),
    ],
)
def test_what_no_run_can_use_is_refused_naming_the_line_and_field(tmp_path, line, message):
    with pytest.raises(JsonlFormatError) as err:
        load_streams(write(tmp_path, GOOD, line))
    assert message in str(err.value)


def test_fewer_streams_in_the_file_than_asked_runs_them_with_a_warning(tmp_path, caplog):
    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.lm.specs import LMConfig
    from tests.helpers.scripted import scripted_lm

    config = EvalConfig(suite="jsonl", data=str(write(tmp_path, GOOD)), agent="no-memory", streams=9)
    evaluate(config, LMConfig(spec="dummy/x"), tmp_path / "run", lm=scripted_lm("4417", {}), show_progress=False)
    assert "streams.jsonl holds 1 stream from --seed 0, not the 9 --streams asked for: running 1" in caplog.text
    assert len(list((tmp_path / "run" / "streams" / "agent").glob("*.json"))) == 1
