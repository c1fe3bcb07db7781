"""The household world: seeded, valid JSONL with the documented meta on every question, every
answer stated in an earlier (or the current) task, and the committed data equal to the generator's."""

import pytest

from promptmem.suites import JsonlSuite
from promptmem.suites.household import HouseholdConfig, household_stream, write_household
from tests.helpers.paths import DATA
from tests.helpers.worlds import (
    assert_budget_holds_the_needed_statements,
    assert_seeded,
    assert_the_origin_states_the_answer,
    checked_questions,
)


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> JsonlSuite:
    path = tmp_path_factory.mktemp("household") / "streams.jsonl"
    write_household(path, 6, seed=5, prefix="test")
    return JsonlSuite(path)  # the JSONL validator runs here


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_streams(tmp_path):
    assert_seeded(write_household, tmp_path)


@pytest.mark.parametrize("split, seed", [("train", 1), ("heldout", 2)])
def test_the_committed_data_is_the_generators_and_valid(tmp_path, split, seed):
    committed = DATA / f"household_{split}.jsonl"
    write_household(tmp_path / "again.jsonl", 12, seed, prefix=f"household-{split}")
    assert committed.read_bytes() == (tmp_path / "again.jsonl").read_bytes()
    streams = JsonlSuite(committed).streams(100)
    assert len(streams) == 12 and all(len(s.tasks) == 24 for s in streams)


def test_every_question_carries_the_documented_meta_and_its_answer_was_stated_before(suite):
    questions = checked_questions(suite)
    for task, origin in questions:
        value, subject = task.answer[0], task.meta["subject"]
        assert {"value": value, "subject": subject} in origin.meta["states"]
        assert value.lower() in origin.observation.lower() and subject.lower() in origin.observation.lower()
    assert {t.meta["kind"] for t, _ in questions} == {"date", "holder", "count", "rule"}
    assert sum(bool(t.meta["updated_in"]) for t, _ in questions) >= 10
    recall = [t.meta["delay"] for t, _ in questions if t.meta["delay"]]
    assert min(recall) >= 2 and max(recall) <= 16 and max(recall) >= 10


def test_one_statement_of_the_origin_holds_the_answer_beside_its_subject_and_none_a_stale_value(suite):
    for task, origin in checked_questions(suite):
        assert_the_origin_states_the_answer(suite, task, origin)


def test_the_budget_holds_the_needed_statements_but_not_the_raw_observations(suite):
    assert_budget_holds_the_needed_statements(suite, HouseholdConfig().budget)


def test_a_stream_depends_only_on_its_seed_and_index():
    config = HouseholdConfig()
    assert household_stream(config, 9, 1) == household_stream(config, 9, 1) != household_stream(config, 9, 2)
