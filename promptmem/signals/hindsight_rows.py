"""Training rows labelled in hindsight (``signals.hindsight``); compute them on training streams
only, never on held-out ones.

- ``hindsight_replay``: a select writer that knew the stream's future, task by task: it keeps
  each task's hindsight keep-list (of a target of ``hindsight.TARGETS``: what later questions
  needed, or every tracked statement too) in the select writer's recency buffer. Per task: the
  notes before it, the labels of its statements and the numbers kept. No model runs. Every
  function below takes the ``target`` and replays with it.
- ``writer_rows``: one SFT row per select-writer call, its prompt exactly as the writer is shown
  it (rendered by the adapter the student is trained and run with), its target the hindsight
  keep-list. A task where nothing shown was needed later has none (the local grammar makes every
  write keep at least one number). ``mixed_writer_rows`` mixes them with the teacher's rows.
- ``actor_cases`` / ``sample_actor_rows``: every question that needs memory, over the notes the
  replay holds before it (they hold the answer; ``lookalike``: a newer note, kept for another
  question of the same kind, sits nearer the question than the newest note with the answer),
  answered by a model and kept only when right (rejection sampling): one row per actor call.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass

import dspy

from promptmem.failures import fatal
from promptmem.memory import InMemoryStore, Snapshot
from promptmem.programs.baselines import buffer_ops
from promptmem.programs.select import SelectWriter, numbered, statements
from promptmem.recall import line_holds
from promptmem.runner import when_of
from promptmem.signals.hindsight import StatementLabel, by_task, hindsight_keep, hindsight_labels, question_kind
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.traces import TraceRow
from promptmem.tasks import Stream, Suite, Task


@dataclass(frozen=True)
class ReplayStep:
    """One task of the hindsight replay: its index, the task, the memory before it, what the
    actor is shown for it (``notes``; "" for an observe-only task), the labels of its statements
    (numbered from 1) and the numbers kept."""

    position: int
    task: Task
    before: Snapshot
    notes: str
    labels: list[StatementLabel]
    keep: list[int]


def hindsight_replay(stream: Stream, suite: Suite, budget: int, target: str = "needed") -> Iterator[ReplayStep]:
    """The replay of a select writer that keeps the hindsight keep-list of ``target`` (see the module)."""
    labels = hindsight_labels(stream, suite)
    keep, groups = hindsight_keep(labels, budget, target), by_task(labels)
    memory = InMemoryStore(budget)
    for position, task in enumerate(stream.tasks):
        kept = keep.get(task.id, [])
        notes = memory.render(task.question) if task.is_question else ""
        yield ReplayStep(position, task, memory.snapshot(), notes, groups.get(task.id, []), kept)
        keep_statements(memory, task, position, kept)


def keep_statements(memory: InMemoryStore, task: Task, position: int, kept: Collection[int]) -> None:
    """The select writer's write at ``task`` (index ``position``) in ``memory``: the statements
    numbered ``kept`` (from 1; numbers naming none are passed over) added in order to the recency
    buffer of the memory's budget, the oldest notes evicted to fit."""
    found = statements(task.observation)
    texts = [found[n - 1] for n in sorted(kept) if 1 <= n <= len(found)]
    memory.apply(buffer_ops(memory.notes(), texts, memory.budget), step=task.id, when=when_of(task, position))


def _row(role: str, predictor: str, stream_id: str, step: ReplayStep, chat: tuple, budget: int, score=None):
    """A trace row of a call made (or, for the writer, labelled) at ``step``; ``chat``: (prompt, completion)."""
    return TraceRow(
        role=role,
        predictor=predictor,
        stream_id=stream_id,
        position=step.position,
        task_id=step.task.id,
        prompt=chat[0],
        completion=chat[1],
        score=score,
        write_error="",
        notes=[[note.id, note.text] for note in step.before.notes],
        next_id=step.before.next_id,
        budget=budget,
        baseline=0.0,
    )


def writer_rows(
    agent, streams: Sequence[Stream], suite: Suite, budget: int, adapter: dspy.Adapter, target: str = "needed"
) -> list[TraceRow]:
    """The select writer's SFT rows with hindsight targets (see the module); ``agent.writer``
    must be a ``SelectWriter`` (its instructions and demos are part of the prompt)."""
    if not isinstance(agent.writer, SelectWriter):
        raise ValueError(f"hindsight writer targets need the select writer, not {type(agent.writer).__name__}")
    predictor = agent.writer.predict
    name = next(name for name, p in agent.named_predictors() if p is predictor)
    rows = []
    for stream in streams:
        for step in hindsight_replay(stream, suite, budget, target):
            found = statements(step.task.observation)
            if not found or not step.keep:
                continue
            prompt = adapter.format(predictor.signature, predictor.demos, {"lines": numbered(found)})
            completion = adapter.format_assistant_message_content(predictor.signature, {"keep": step.keep})
            rows.append(_row("writer", name, stream.id, step, (prompt, completion), budget))
    return rows


def mixed_writer_rows(
    teacher: Sequence[TraceRow], hindsight: Sequence[TraceRow], share: float, seed: int = 0
) -> list[TraceRow]:
    """Writer SFT rows, one target per prompt (a task of a stream): the hindsight row with
    probability ``share`` (drawn per task, seeded), else the teacher's; a task without the row
    drawn has none. ``share`` 1: the hindsight rows; 0: the teacher's."""
    by_key = {(r.stream_id, r.task_id): r for r in teacher}
    ours = {(r.stream_id, r.task_id): r for r in hindsight}
    chosen = []
    for key in dict.fromkeys([*by_key, *ours]):
        pick = ours if random.Random(f"{seed}:{key[0]}:{key[1]}").random() < share else by_key
        if key in pick:
            chosen.append(pick[key])
    return chosen


@dataclass(frozen=True)
class ActorCase:
    """A question that needs memory, over the notes the replay holds before it (see the module)."""

    stream_id: str
    step: ReplayStep
    lookalike: bool
    budget: int


def actor_cases(stream: Stream, suite: Suite, budget: int, target: str = "needed") -> list[ActorCase]:
    """Every question of ``stream`` whose answer the suite knows, needs memory, and is in the
    notes the hindsight replay holds before it."""
    cases, kinds = [], {}  # kinds: statement text -> kinds of the questions that needed it
    for step in hindsight_replay(stream, suite, budget, target):
        evidence = suite.evidence(step.task) if step.task.is_question else None
        notes = step.before.notes
        holding = (
            [i for i, note in enumerate(notes) if any(line_holds([note.text], f) for f in evidence.needed)]
            if evidence and not evidence.current
            else []
        )
        if holding:
            kind = question_kind(step.task, suite)
            lookalike = bool(kind) and any(kind in kinds.get(note.text, ()) for note in notes[holding[-1] + 1 :])
            cases.append(ActorCase(stream.id, step, lookalike, budget))
        for label in step.labels:
            kinds.setdefault(label.text, set()).update(need.kind for need in label.needed_by)
    return cases


def _actor_calls(agent, task: Task, notes: str, lm: dspy.BaseLM) -> tuple[str, list]:
    """The actor's answer under ``lm`` and its calls (predictor, inputs, outputs); no calls when
    it failed (an LM that cannot answer at all raises, ``failures.fatal``)."""
    with dspy.context(lm=lm, trace=[]):
        try:
            answer = agent.actor(notes=notes, observation=task.observation, question=task.question)
        except Exception as err:  # noqa: BLE001 - a failed answer is simply not right
            if fatal(err):
                raise
            return "", []
        return answer, list(dspy.settings.trace)


def sample_actor_rows(
    pipeline: Pipeline,
    cases: Sequence[ActorCase],
    *,
    samples: int = 4,
    temperature: float = 1.0,
    threshold: float = 1.0,
) -> list[TraceRow]:
    """Rejection sampling of the pipeline's actor on ``cases``: the greedy answer under its LM
    (run with its run adapter), then up to ``samples - 1`` more at ``temperature`` (seeds 1, 2,
    …) until one scores at least ``threshold``; that answer's calls become rows rendered by its
    ``adapter``, with the case's notes. A case with no right answer has none."""
    agent, suite, lm, adapter = pipeline.agent, pipeline.suite, pipeline.lm, pipeline.adapter
    names = {id(predictor): name for name, predictor in agent.named_predictors()}
    rows = []
    with dspy.context(adapter=pipeline.runs_with):
        for case in cases:
            task = case.step.task
            for seed in range(samples):
                model = lm.copy(temperature=temperature, seed=seed) if seed else lm
                answer, calls = _actor_calls(agent, task, case.step.notes, model)
                score = suite.score(task, answer).score
                if calls and score >= threshold:
                    for predictor, inputs, outputs in calls:
                        prompt = adapter.format(predictor.signature, predictor.demos, inputs)
                        completion = adapter.format_assistant_message_content(predictor.signature, outputs.toDict())
                        name = names.get(id(predictor), "actor")
                        rows.append(
                            _row("actor", name, case.stream_id, case.step, (prompt, completion), case.budget, score)
                        )
                    break
    return rows
