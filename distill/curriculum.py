"""The horizon curriculum of the future writer reward (``--writer-reward future``): GRPO is
rewarded over short horizons first, then longer ones (Memory-R2, 2026: 8 → 16 → 32 sessions;
training at the longest directly collapsed)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def horizon_at(step: int, horizons: Sequence[int], steps: int) -> int:
    """The horizon at GRPO step ``step`` (from 0) of ``steps`` in all: ``horizons`` split the
    steps into that many stages in order, as equal as whole steps allow (the later stages the
    shorter); a step past the end keeps the last horizon."""
    if not horizons:
        raise ValueError("a horizon curriculum needs at least one horizon")
    return horizons[min(len(horizons) - 1, step * len(horizons) // max(steps, 1))]


@dataclass(frozen=True)
class Curriculum:
    """The horizon as a function of a GRPO phase's trainer step: the curriculum runs once over
    the whole schedule, ``phases`` phases of ``steps`` steps, this one ``phase`` (from 1)."""

    horizons: tuple[int, ...]
    steps: int
    phase: int = 1
    phases: int = 1

    def __call__(self, step: int) -> int:
        return horizon_at((self.phase - 1) * self.steps + step, self.horizons, self.phases * self.steps)
