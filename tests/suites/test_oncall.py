"""The on-call world: seeded, valid JSONL; the plain files carry gold answers only, the annotated
ones the documented meta; every answer stated in an earlier (or the current) task; updates with
stale values and chatter around the facts; the committed data equal to the generator's."""

import json

import pytest

from promptmem.programs.select import statements
from promptmem.signals.hindsight import statement_holds
from promptmem.suites import JsonlSuite, load_streams
from promptmem.suites.oncall import OncallConfig, oncall_stream, write_oncall
from tests.helpers.paths import DATA
from tests.helpers.worlds import (
    META,
    assert_budget_holds_the_needed_statements,
    assert_seeded,
    assert_the_origin_states_the_answer,
    checked_questions,
)

SPLITS = [("train", 1, 12), ("heldout", 2, 8)]


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> JsonlSuite:
    path = tmp_path_factory.mktemp("oncall") / "streams.jsonl"
    write_oncall(path, 6, seed=5, prefix="test", annotate=True)
    return JsonlSuite(path)  # the JSONL validator runs here


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_streams(tmp_path):
    assert_seeded(write_oncall, tmp_path)


@pytest.mark.parametrize("split, seed, n", SPLITS)
@pytest.mark.parametrize("annotate", [False, True])
def test_the_committed_data_is_the_generators_and_valid(tmp_path, split, seed, n, annotate):
    committed = DATA / f"oncall_{split}{'_annotated' if annotate else ''}.jsonl"
    write_oncall(tmp_path / "again.jsonl", n, seed, prefix=f"oncall-{split}", annotate=annotate)
    assert committed.read_bytes() == (tmp_path / "again.jsonl").read_bytes()
    streams = load_streams(committed)
    assert len(streams) == n and all(len(s.tasks) == 24 for s in streams)


@pytest.mark.parametrize("split, seed, n", SPLITS)
def test_the_plain_files_carry_gold_answers_only_and_equal_the_annotated_ones_without_meta(split, seed, n):
    plain = [json.loads(line) for line in (DATA / f"oncall_{split}.jsonl").read_text().splitlines()]
    annotated = [json.loads(line) for line in (DATA / f"oncall_{split}_annotated.jsonl").read_text().splitlines()]
    for stream in annotated:
        for task in stream["tasks"]:
            assert set(task.pop("meta")) <= META
    assert plain == annotated
    fields = {key for stream in plain for task in stream["tasks"] for key in task}
    assert fields == {"id", "observation", "question", "answer", "scorer"}


def test_every_question_carries_the_documented_meta_and_its_answer_was_stated_before(suite):
    questions = checked_questions(suite)
    assert {t.meta["kind"] for t, _ in questions} == {"pager", "assignee", "version", "threshold", "status", "date"}
    assert sum(bool(t.meta["updated_in"]) for t, _ in questions) >= 10
    recall = [t.meta["delay"] for t, _ in questions if t.meta["delay"]]
    assert min(recall) >= 2 and max(recall) <= 17 and max(recall) >= 10


@pytest.mark.parametrize("split", ["train", "heldout"])
def test_one_statement_of_the_origin_holds_the_answer_beside_its_subject_and_none_a_stale_value(split):
    suite = JsonlSuite(DATA / f"oncall_{split}_annotated.jsonl")
    stale_questions = 0
    for stream in suite.streams(100):
        by_id = {t.id: t for t in stream.tasks}
        for task in (t for t in stream.tasks if t.is_question):
            assert_the_origin_states_the_answer(suite, task, by_id[task.meta["revealed_in"]])
            stale_questions += bool(suite.evidence(task).stale)
    assert stale_questions >= 0.2 * sum(t.is_question for s in suite.streams(100) for t in s.tasks)


def test_most_statements_are_chatter_that_states_no_tracked_fact(suite):
    shown = chatter = 0
    for stream in suite.streams(6):
        for task in stream.tasks:
            facts = suite.stated(task)
            found = statements(task.observation)
            shown += len(found)
            chatter += sum(not any(statement_holds(s, fact) for fact in facts) for s in found)
    assert 0.5 <= chatter / shown <= 0.9


def test_the_budget_holds_the_needed_statements_but_not_the_raw_observations(suite):
    assert_budget_holds_the_needed_statements(suite, OncallConfig().budget)


def test_a_stream_depends_only_on_its_seed_and_index():
    config = OncallConfig()
    assert oncall_stream(config, 9, 1) == oncall_stream(config, 9, 1) != oncall_stream(config, 9, 2)
