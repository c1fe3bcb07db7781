"""Rewards composed, not switched (verifiers' ``Rubric``): each reward is a plain callable over
one ``rollout.Rollout`` with a name and a weight; a ``Rubric`` sums the weighted values and keeps
each reward's values under its name.

A reward returns None where it gives no value on a rollout (it then adds nothing). Only a
reward that names an ``otherwise`` is ever stood in for, by that reward, on the rollouts where
it gave none: the substitution is part of the rubric's declaration and logged under the name of
the reward that gave the value. Nothing is replaced silently: a rubric is built from known
rewards only, and a reward that cannot apply is refused where the rubric is built."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import mean

from promptmem.signals.rollout import Rollout

RewardFn = Callable[[Rollout], "float | None"]


@dataclass(frozen=True)
class Reward:
    """A named, weighted reward; ``otherwise`` gives the value where ``fn`` gives none."""

    name: str
    fn: RewardFn
    weight: float = 1.0
    otherwise: Reward | None = None

    def value(self, rollout: Rollout) -> tuple[Reward, float] | None:
        """(the reward that gave it: this one or an ``otherwise``, the unweighted value), or None."""
        found = self.fn(rollout)
        if found is not None:
            return self, found
        return self.otherwise.value(rollout) if self.otherwise else None


@dataclass
class Rubric:
    """Rewards summed with their weights; ``log`` holds each reward's values by name, in order."""

    rewards: Sequence[Reward]
    log: dict[str, list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [reward.name for reward in self.rewards]
        if len(set(names)) != len(names):
            raise ValueError(f"a rubric names each reward once, not {names}")

    @property
    def names(self) -> list[str]:
        """The rewards' names, each one's ``otherwise`` after it."""
        found = []
        for reward in self.rewards:
            while reward is not None:
                found.append(reward.name)
                reward = reward.otherwise
        return found

    def score(self, rollout: Rollout) -> float:
        """The weighted sum of the rewards that give a value (logged by name)."""
        total = 0.0
        for reward in self.rewards:
            got = reward.value(rollout)
            if got is None:
                continue
            giver, value = got
            self.log.setdefault(giver.name, []).append(value)
            total += giver.weight * value
        return total

    def take_means(self) -> dict[str, float]:
        """Each reward's mean value since the last call (its log emptied)."""
        means = {name: mean(values) for name, values in self.log.items() if values}
        self.log.clear()
        return means
