"""Per-task resume: an interrupted run keeps every task it finished (records and memory) and the
rerun goes on from the next task, ending where an uninterrupted run ends; on every store and on
LoCoMo."""

import json

import dspy
import pytest

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import RunDirError
from promptmem.lm.specs import LMConfig
from tests.helpers.gepa_world import reply
from tests.helpers.streams import TINY

LM = LMConfig(spec="dummy/notes")


class NotesWorld:
    """A writer that adds every observation line (so the budget rejects some), an actor that
    answers with the last note it is shown: answers depend on the notes. With ``stop_after``,
    the call after that many raises KeyboardInterrupt (a kill, as far as the run can tell)."""

    def __init__(self, stop_after: int | None = None):
        self.calls, self.stop_after = 0, stop_after

    def complete(self, request):
        self.calls += 1
        if self.stop_after is not None and self.calls > self.stop_after:
            raise KeyboardInterrupt
        user = request.messages[-1].text
        if "[[ ## outcome ## ]]" in user:
            observation = user.split("[[ ## observation ## ]]")[1].split("[[ ## question ## ]]")[0]
            lines = [line.strip()[:90] for line in observation.splitlines() if line.strip()]
            return reply("operations", json.dumps([{"action": "ADD", "note_id": "", "text": t} for t in lines]))
        notes = user.split("[[ ## notes ## ]]")[1].split("[[ ## ")[0].strip().splitlines()
        return reply("answer", notes[-1][-40:] if notes else "unknown")

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def notes_lm(engine):
    return dspy.LM("scripted/notes", engine=engine, cache=False, num_retries=0)


def outcomes(out):
    return {
        p.name: [(r["answer"], r["score"], r["ops"], r["notes_chars"]) for r in json.loads(p.read_text())["records"]]
        for p in sorted((out / "streams").rglob("*.json"))
    }


def interrupted_then_resumed(config, tmp_path, stop_after):
    reference = tmp_path / "reference"
    whole = NotesWorld()
    evaluate(config, LM, reference, lm=notes_lm(whole), show_progress=False)
    out = tmp_path / "run"
    with pytest.raises(KeyboardInterrupt):
        evaluate(config, LM, out, lm=notes_lm(NotesWorld(stop_after)), show_progress=False)
    kept = sum(len(p.read_text().splitlines()) for p in out.rglob("*.progress.jsonl"))
    rest = NotesWorld()
    evaluate(config, LM, out, lm=notes_lm(rest), show_progress=False)
    assert outcomes(out) == outcomes(reference)
    assert not list(out.rglob("*.progress.jsonl"))
    return whole.calls, rest.calls, kept


@pytest.mark.parametrize("store", ["memory", "sqlite"])
def test_an_interrupted_stream_goes_on_from_its_next_task(tmp_path, store):
    config = EvalConfig(writer="ops", streams=2, tasks=10, threads=1, store=store)
    whole, rerun, kept = interrupted_then_resumed(config, tmp_path, stop_after=13)
    assert kept >= 4  # tasks of the stream under way, beyond the finished streams
    assert rerun <= whole - 13 + 2  # at most the task in progress is done twice


def test_a_locomo_conversation_is_resumed_within_itself(tmp_path):
    data = tmp_path / "locomo.json"
    data.write_text(json.dumps([TINY]))
    config = EvalConfig(writer="ops", suite="locomo", data=str(data), streams=1, threads=1, store="sqlite")
    whole, rerun, kept = interrupted_then_resumed(config, tmp_path, stop_after=4)
    assert kept >= 2 and rerun <= whole - 4 + 2


def test_a_last_line_cut_by_a_kill_is_dropped_and_a_damaged_line_is_named(tmp_path):
    config = EvalConfig(writer="ops", streams=1, tasks=8, threads=1, baseline=False)
    with pytest.raises(KeyboardInterrupt):
        evaluate(config, LM, tmp_path, lm=notes_lm(NotesWorld(stop_after=6)), show_progress=False)
    progress = tmp_path / "streams" / "agent" / "synthetic-s0-0.progress.jsonl"
    lines = progress.read_text().splitlines(keepends=True)
    progress.write_text("".join(lines[:-1]) + lines[-1][:25])  # the last task half written
    evaluate(config, LM, tmp_path / "ref", lm=notes_lm(NotesWorld()), show_progress=False)
    evaluate(config, LM, tmp_path, lm=notes_lm(NotesWorld()), show_progress=False)
    assert outcomes(tmp_path) == outcomes(tmp_path / "ref")

    out = tmp_path / "damaged"
    with pytest.raises(KeyboardInterrupt):
        evaluate(config, LM, out, lm=notes_lm(NotesWorld(stop_after=6)), show_progress=False)
    progress = out / "streams" / "agent" / "synthetic-s0-0.progress.jsonl"
    lines = progress.read_text().splitlines(keepends=True)
    progress.write_text("{oops\n" + "".join(lines[1:]))
    with pytest.raises(RunDirError, match=f"{progress} line 1 is not a task record.*delete it to run stream"):
        evaluate(config, LM, out, lm=notes_lm(NotesWorld()), show_progress=False)
    progress.write_text("".join(lines[1:]))  # a record that is not the stream's first task
    with pytest.raises(RunDirError, match="line 1 holds task 't01', not 't00'"):
        evaluate(config, LM, out, lm=notes_lm(NotesWorld()), show_progress=False)
