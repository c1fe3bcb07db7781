"""Task streams: the data every suite produces and every runner consumes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class Task:
    """One step of a stream.

    ``question`` is None for an observe-only step (the actor is not called; the writer
    still sees the observation). ``answer`` holds every acceptable gold answer (empty for
    observe-only steps). ``scorer`` names a function in ``promptmem.scoring``. ``meta``
    carries ground truth for feedback (which earlier task revealed the needed fact, …).
    """

    id: str
    observation: str
    question: str | None
    answer: tuple[str, ...] = ()
    scorer: str = "exact"
    meta: Mapping[str, Any] = field(default_factory=dict)

    @property
    def is_question(self) -> bool:
        return self.question is not None


@dataclass(frozen=True)
class Stream:
    """Ordered tasks; memory carries across the tasks of one stream, never across streams."""

    id: str
    tasks: tuple[Task, ...]


@dataclass(frozen=True)
class Outcome:
    """What a suite says about one answer: a score in [0, 1], feedback text for the writer,
    and optional extra named metrics (e.g. LoCoMo's EM and BLEU-1) for reports."""

    score: float
    feedback: str
    metrics: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Fact:
    """A fact as a suite knows it: ``value`` (e.g. "8642") about ``subject`` (e.g.
    "billing-api"; "" when the suite has no subjects)."""

    value: str
    subject: str = ""


@dataclass(frozen=True)
class Evidence:
    """What the suite knows a question needs from memory.

    ``needed``: the facts that answer it (any one suffices); ``stated_in`` / ``updated_in``:
    ids of the earlier tasks that stated it / changed it, oldest first; ``stale``: values it
    held before and that are wrong now; ``current``: the answer is in the question's own
    observation, so memory is not needed; ``partial``: free-text answers (LoCoMo) -- notes are
    credited with the share of the answer's words they hold rather than all-or-nothing.
    """

    needed: tuple[Fact, ...]
    stated_in: tuple[str, ...] = ()
    updated_in: tuple[str, ...] = ()
    stale: tuple[str, ...] = ()
    current: bool = False
    partial: bool = False


@runtime_checkable
class Suite(Protocol):
    """A named source of streams plus its scorer.

    ``streams(n, seed)`` returns n streams (fewer only if the source holds fewer); the same
    arguments give the same streams. ``score`` must be pure. ``notes_budget`` is the
    suite's recommended notes size in characters; reports break scores down by the task
    ``meta`` keys in ``breakdown_keys``; ``describe()`` is the suite's config as JSON.
    ``evidence(task)`` says what a question needs from memory (None for observe-only steps or
    where the suite knows nothing); ``stated(task)`` lists the facts a task's observation
    reveals or changes (empty where unknown). Feedback, notes recall and the GRPO rewards read
    ground truth through these two methods only.
    """

    name: str
    notes_budget: int
    breakdown_keys: tuple[str, ...]

    def streams(self, n: int, seed: int = 0) -> list[Stream]: ...

    def score(self, task: Task, answer: str) -> Outcome: ...

    def describe(self) -> dict: ...

    def evidence(self, task: Task) -> Evidence | None: ...

    def stated(self, task: Task) -> tuple[Fact, ...]: ...


def cap_observations(streams: list[Stream], cap: int | None) -> list[Stream]:
    """``streams`` with every observation longer than ``cap`` characters cut to ``cap``; the
    cut task says how much it lost in ``meta["observation_cut"]`` (None: no cap)."""
    if cap is None:
        return streams

    def cut(task: Task) -> Task:
        if len(task.observation) <= cap:
            return task
        return replace(
            task, observation=task.observation[:cap], meta={**task.meta, "observation_cut": len(task.observation) - cap}
        )

    return [replace(stream, tasks=tuple(cut(t) for t in stream.tasks)) for stream in streams]
