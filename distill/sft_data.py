"""The SFT rows of ``promptmem distill``: the teacher's trace rows worth imitating, the select
writer's hindsight rows mixed with the teacher's keep-lists, and actor rows rejection-sampled on
the notes a writer that knew the future holds (``signals.hindsight_rows``). Everything labelled
in hindsight comes from the training streams; the sampled actor rows are kept in
``OUT/hindsight/actor-<model>.jsonl`` (a rerun reads them instead of sampling again)."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from dataclasses import replace
from pathlib import Path

import dspy

from promptmem.files import write_text
from promptmem.signals.hindsight_rows import ActorCase, mixed_writer_rows, sample_actor_rows
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.traces import TraceRow, read_traces

Sampler = Callable[[], tuple[dspy.BaseLM, dspy.Adapter]]  # builds (LM, the adapter it runs with)


def sft_rows(rows: list[TraceRow], min_actor_score: float, min_writer_credit: float | None = None) -> list[TraceRow]:
    """Rows worth imitating: actor rows that scored, writer rows whose write was usable (and,
    with ``min_writer_credit``, paid off: no later question, no credit to judge, is kept)."""

    def good_write(r: TraceRow) -> bool:
        return not r.write_error and (min_writer_credit is None or r.credit is None or r.credit >= min_writer_credit)

    return [
        r
        for r in rows
        if (r.role == "writer" and good_write(r))
        or (r.role == "actor" and (r.score is None or r.score >= min_actor_score))
    ]


def write_rows(path: Path, rows: Sequence[TraceRow]) -> None:
    """Rows as a trace file (``signals.traces.read_traces`` reads it), written atomically."""
    write_text(path, "".join(json.dumps(row.to_json()) + "\n" for row in rows))


def sampled_actor_rows(
    teacher: Pipeline, cases: Sequence[ActorCase], samplers: dict[str, Sampler], out: Path, **sampling
) -> dict[str, list[TraceRow]]:
    """Per model of ``samplers`` (built only when its file is missing), the right answers on
    ``cases`` (``sample_actor_rows`` of the ``teacher`` pipeline on the model's LM and run
    adapter, with ``sampling``), from ``out/actor-<model>.jsonl``."""
    found = {}
    for model, build in samplers.items():
        path = out / f"actor-{model}.jsonl"
        if not path.is_file():
            lm, run_adapter = build()
            write_rows(path, sample_actor_rows(replace(teacher, lm=lm, run_adapter=run_adapter), cases, **sampling))
        found[model] = read_traces(path)
    return found


def sft_dataset(
    traces: list[TraceRow],
    hindsight_writer: list[TraceRow],
    actor: dict[str, list[TraceRow]],
    *,
    hindsight_share: float,
    seed: int,
    min_actor_score: float,
    min_writer_credit: float | None = None,
    lookalike: Collection[tuple[str, str]] = (),
) -> tuple[list[TraceRow], dict[str, int]]:
    """The SFT rows and how many came from each source: the teacher's actor rows that scored;
    the writer rows mixed per prompt (``mixed_writer_rows``: the hindsight keep-list with
    probability ``hindsight_share``, else the teacher's usable write); the sampled actor rows
    (and how many of them answer a question of ``lookalike``, its (stream id, task id))."""
    kept = sft_rows(traces, min_actor_score, min_writer_credit)
    teacher_writer = [r for r in kept if r.role == "writer"]
    writer = mixed_writer_rows(teacher_writer, hindsight_writer, hindsight_share, seed)
    ours = {id(r) for r in hindsight_writer}
    rows = [r for r in kept if r.role == "actor"]
    counts = {
        "actor_traces": len(rows),
        "writer_hindsight": sum(id(r) in ours for r in writer),
        "writer_teacher": sum(id(r) not in ours for r in writer),
    }
    for model, sampled in actor.items():
        counts[f"actor_{model}"] = len(sampled)
        counts[f"actor_{model}_lookalike"] = sum((r.stream_id, r.task_id) in lookalike for r in sampled)
        rows += sampled
    return rows + writer, counts
