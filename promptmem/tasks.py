"""Task streams: the data every suite produces and every runner consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, runtime_checkable


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


@runtime_checkable
class Suite(Protocol):
    """A named source of streams plus its scorer.

    ``streams(n, seed)`` returns n streams (fewer only if the source holds fewer); the same
    arguments give the same streams. ``score`` must be pure. ``notes_budget`` is the
    suite's recommended notes size in characters; reports break scores down by the task
    ``meta`` keys in ``breakdown_keys``; ``describe()`` is the suite's config as JSON.
    """

    name: str
    notes_budget: int
    breakdown_keys: tuple[str, ...]

    def streams(self, n: int, seed: int = 0) -> list[Stream]: ...

    def score(self, task: Task, answer: str) -> Outcome: ...

    def describe(self) -> dict: ...
