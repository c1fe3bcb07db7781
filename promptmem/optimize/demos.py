"""Demonstrations as a second lever: small models follow examples better than instructions.

Demos are labelled in hindsight on training streams (never held-out ones), by the same labels
as the select writer's feedback and rewards (``signals.hindsight``): a writer demo shows a
task's numbered statements and the numbers a writer that knew the future kept (preferring tasks
where some statements were needed later and some never were); an actor demo shows the notes
such a writer would hold in front of a question that needs memory, the question and its gold
answer (preferring notes that also hold look-alikes: other subjects, stale values). No model
runs: the labels come from the suite's evidence.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import dspy

from promptmem.memory import InMemoryStore
from promptmem.programs.actor import Actor
from promptmem.programs.baselines import buffer_ops
from promptmem.programs.select import SelectWriter, statements
from promptmem.recall import line_holds
from promptmem.signals.hindsight import by_task, hindsight_keep, hindsight_labels
from promptmem.tasks import Stream, Suite


@dataclass
class _Candidate:
    stream: int
    contrast: int  # higher: a better lesson (needed beside unneeded; an answer beside look-alikes)
    example: dspy.Example


def _numbered(found: list[str]) -> str:
    return "\n".join(f"[{i}] {s}" for i, s in enumerate(found, 1))


def _stream_candidates(index: int, stream: Stream, suite: Suite, budget: int) -> tuple[list, list]:
    """Writer and actor demo candidates of one stream, replaying a hindsight-perfect select writer."""
    labels = hindsight_labels(stream, suite)
    keep, groups = hindsight_keep(labels, budget), by_task(labels)
    memory, writer, actor = InMemoryStore(budget), [], []
    for task in stream.tasks:
        evidence = suite.evidence(task) if task.is_question else None
        if evidence and not evidence.current:
            notes = memory.render(task.question)
            held = [f for f in evidence.needed if line_holds(notes.splitlines(), f)]
            if held:
                lookalikes = len(notes.splitlines()) - 1
                example = dspy.Example(
                    notes=notes,
                    observation=task.observation or "(nothing)",
                    question=task.question,
                    answer=task.answer[0],
                )
                actor.append(_Candidate(index, lookalikes, example))
        group, kept = groups.get(task.id, []), keep.get(task.id, [])
        if kept and len(kept) < len(group):
            needed = sum(bool(label.needed_by) for label in group)
            lines = _numbered(statements(task.observation))
            writer.append(_Candidate(index, min(needed, len(group) - needed), dspy.Example(lines=lines, keep=kept)))
        found = statements(task.observation)
        memory.apply(buffer_ops(memory.notes(), [found[n - 1] for n in kept], budget), step=task.id)
    return writer, actor


def _spread(candidates: list[_Candidate], k: int) -> list[dspy.Example]:
    """``k`` examples, the best lessons first, taken round-robin over streams."""
    ranked = sorted(candidates, key=lambda c: -c.contrast)
    chosen, streams = [], sorted({c.stream for c in ranked})
    while len(chosen) < k and ranked:
        for stream in streams:
            pick = next((c for c in ranked if c.stream == stream), None)
            if pick and len(chosen) < k:
                chosen.append(pick.example)
                ranked.remove(pick)
    return chosen


def hindsight_demos(streams: list[Stream], suite: Suite, budget: int, k: int) -> dict[str, list[dspy.Example]]:
    """Up to ``k`` writer demos and ``k`` actor demos from ``streams`` (training streams)."""
    writer, actor = [], []
    for index, stream in enumerate(streams):
        w, a = _stream_candidates(index, stream, suite, budget)
        writer, actor = writer + w, actor + a
    return {"writer": _spread(writer, k), "actor": _spread(actor, k)}


def with_demos(agent, demos: dict[str, list[dspy.Example]]) -> dspy.Module:
    """A copy of ``agent`` whose select writer and actor carry ``demos`` (other writers keep
    none: the hindsight labels are per statement)."""
    agent = copy.deepcopy(agent)
    if isinstance(agent.writer, SelectWriter):
        agent.writer.predict.demos = list(demos["writer"])
    if isinstance(agent.actor, Actor):  # the plain actor (the filter actor has two steps)
        agent.actor.predict.demos = list(demos["actor"])
    return agent
