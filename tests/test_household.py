"""The household world: seeded, valid JSONL with the documented meta on every question, every
answer stated in an earlier (or the current) task, and the committed data equal to the generator's."""

from pathlib import Path

import pytest
from conftest import assert_budget_holds_the_needed_statements

from promptmem.programs.select import statements
from promptmem.signals.hindsight import statement_holds
from promptmem.suites import JsonlSuite
from promptmem.suites.household import HouseholdConfig, household_stream, write_household
from promptmem.tasks import Fact

DATA = Path(__file__).resolve().parents[1] / "benchmarks" / "data"
META = {"subject", "revealed_in", "updated_in", "stale", "current", "kind", "question_type", "delay", "states"}


@pytest.fixture(scope="module")
def suite(tmp_path_factory) -> JsonlSuite:
    path = tmp_path_factory.mktemp("household") / "streams.jsonl"
    write_household(path, 6, seed=5, prefix="test")
    return JsonlSuite(path)  # the JSONL validator runs here


def test_the_same_seed_gives_the_same_bytes_and_another_seed_other_streams(tmp_path):
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        write_household(tmp_path / f"{name}.jsonl", 2, seed, prefix="x")
    a, b, c = ((tmp_path / f"{name}.jsonl").read_bytes() for name in "abc")
    assert a == b and a != c


@pytest.mark.parametrize("split, seed", [("train", 1), ("heldout", 2)])
def test_the_committed_data_is_the_generators_and_valid(tmp_path, split, seed):
    committed = DATA / f"household_{split}.jsonl"
    write_household(tmp_path / "again.jsonl", 12, seed, prefix=f"household-{split}")
    assert committed.read_bytes() == (tmp_path / "again.jsonl").read_bytes()
    streams = JsonlSuite(committed).streams(100)
    assert len(streams) == 12 and all(len(s.tasks) == 24 for s in streams)


def test_every_question_carries_the_documented_meta_and_its_answer_was_stated_before(suite):
    kinds, delays, updated = set(), [], 0
    for stream in suite.streams(6):
        by_id = {t.id: t for t in stream.tasks}
        for position, task in enumerate(stream.tasks):
            if not task.is_question:
                continue
            meta, value = task.meta, task.answer[0]
            assert META <= set(meta), task.id
            origin = by_id[meta["revealed_in"]]
            assert stream.tasks.index(origin) <= position
            assert {"value": value, "subject": meta["subject"]} in origin.meta["states"]
            assert value.lower() in origin.observation.lower() and meta["subject"].lower() in origin.observation.lower()
            assert meta["current"] == (origin is task) == (meta["question_type"] == "current")
            assert value not in meta["stale"] and len(meta["stale"]) == len(meta["updated_in"])
            if meta["updated_in"]:
                assert meta["updated_in"][-1] == meta["revealed_in"]
                updated += 1
            kinds.add(meta["kind"])
            delays.append(meta["delay"])
            assert suite.score(task, value).score == 1.0
            assert all(suite.score(task, old).score == 0.0 for old in meta["stale"])
    assert kinds == {"date", "holder", "count", "rule"} and updated >= 10
    recall = [d for d in delays if d]
    assert min(recall) >= 2 and max(recall) <= 16 and max(recall) >= 10


def test_one_statement_of_the_origin_holds_the_answer_beside_its_subject_and_none_a_stale_value(suite):
    for stream in suite.streams(6):
        by_id = {t.id: t for t in stream.tasks}
        for task in (t for t in stream.tasks if t.is_question):
            evidence = suite.evidence(task)
            shown = statements(by_id[task.meta["revealed_in"]].observation)
            assert any(statement_holds(s, fact) for s in shown for fact in evidence.needed), task.id
            subject = task.meta["subject"]
            assert not any(statement_holds(s, Fact(old, subject)) for s in shown for old in evidence.stale), task.id


def test_the_budget_holds_the_needed_statements_but_not_the_raw_observations(suite):
    assert_budget_holds_the_needed_statements(suite, HouseholdConfig().budget)


def test_a_stream_depends_only_on_its_seed_and_index():
    config = HouseholdConfig()
    assert household_stream(config, 9, 1) == household_stream(config, 9, 1) != household_stream(config, 9, 2)
