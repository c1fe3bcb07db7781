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

from promptmem.programs.actor import Actor
from promptmem.programs.select import SelectWriter, numbered, statements
from promptmem.signals.hindsight_rows import actor_cases, hindsight_replay
from promptmem.tasks import Stream, Suite


@dataclass
class _Candidate:
    stream: int
    contrast: int  # higher: a better lesson (needed beside unneeded; an answer beside look-alikes)
    example: dspy.Example


def _stream_candidates(index: int, stream: Stream, suite: Suite, budget: int, target: str) -> tuple[list, list]:
    """Writer and actor demo candidates of one stream, from the replay of a select writer that
    keeps the hindsight keep-list of ``target``."""
    writer = []
    for step in hindsight_replay(stream, suite, budget, target):
        if step.keep and len(step.keep) < len(step.labels):
            wanted = sum(label.wanted(target) for label in step.labels)
            lines = numbered(statements(step.task.observation))
            contrast = min(wanted, len(step.labels) - wanted)
            writer.append(_Candidate(index, contrast, dspy.Example(lines=lines, keep=step.keep)))
    actor = [
        _Candidate(
            index,
            len(case.step.before.notes) - 1,  # look-alikes: the other notes
            dspy.Example(
                notes=case.step.notes,
                observation=case.step.task.observation or "(nothing)",
                question=case.step.task.question,
                answer=case.step.task.answer[0],
            ),
        )
        for case in actor_cases(stream, suite, budget, target)
    ]
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


def hindsight_demos(
    streams: list[Stream], suite: Suite, budget: int, k: int, target: str = "needed"
) -> dict[str, list[dspy.Example]]:
    """Up to ``k`` writer demos and ``k`` actor demos from ``streams`` (training streams), keep-lists
    of ``target`` (``signals.hindsight.TARGETS``)."""
    writer, actor = [], []
    for index, stream in enumerate(streams):
        w, a = _stream_candidates(index, stream, suite, budget, target)
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
