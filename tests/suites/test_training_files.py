"""The committed training files of gold answers only equal what their generators write: the
stripped household and synthetic files (``benchmarks.generate.strip_meta``) and the transfer
files (``benchmarks.generate.transfer``: the other worlds' streams interleaved, one of each in
turn, none of the left-out world's)."""

import json

import pytest

from benchmarks.generate.strip_meta import write_stripped
from benchmarks.generate.transfer import WORLDS, interleaved, write_transfer
from promptmem.suites import load_streams, make_suite
from tests.helpers.paths import DATA


def test_the_stripped_files_are_the_generators(tmp_path):
    write_stripped(load_streams(DATA / "household_train.jsonl"), tmp_path / "household.jsonl")
    write_stripped(make_suite("synthetic", tasks=24).streams(12, seed=3000), tmp_path / "synthetic.jsonl")
    assert (tmp_path / "household.jsonl").read_bytes() == (DATA / "household_train_stripped.jsonl").read_bytes()
    assert (tmp_path / "synthetic.jsonl").read_bytes() == (DATA / "synthetic_train_stripped.jsonl").read_bytes()


@pytest.mark.parametrize("world", WORLDS)
def test_the_transfer_files_are_the_generators_and_interleave_the_other_worlds(tmp_path, world):
    committed = DATA / f"transfer_without_{world}.jsonl"
    assert write_transfer(world, out=tmp_path).read_bytes() == committed.read_bytes()
    streams = load_streams(committed)  # valid JSONL, stream ids distinct
    others = [name for name in WORLDS if name != world]
    assert len(streams) == sum(len(load_streams(DATA / WORLDS[name])) for name in others)
    first = [stream.id.split("-")[0] for stream in streams[:12]]
    assert first == others * 6 and world not in {stream.id.split("-")[0] for stream in streams}
    tasks = [json.loads(line)["tasks"] for line in committed.read_text().splitlines()]
    fields = {key for stream in tasks for task in stream for key in task}
    assert fields <= {"id", "observation", "question", "answer", "scorer"}


def test_interleaving_takes_one_line_of_each_file_in_turn_until_each_runs_out(tmp_path):
    (tmp_path / "a").write_text("a1\na2\na3\n")
    (tmp_path / "b").write_text("b1\n")
    assert interleaved([tmp_path / "a", tmp_path / "b"]) == ["a1", "b1", "a2", "a3"]
