"""What the generated JSONL worlds share (``household``, ``oncall``): the subjects questions ask
about, the ground truth while a stream is generated, the stream loop and the writer.

A world supplies its subjects, its people, how a stream's chatter is drawn and how facts and
chatter are rendered as one observation; ``world_stream`` does the rest: each task states one
or a few facts (new ones, or changes to known ones), asks about a fact stated ``min_delay`` to
``max_delay`` tasks before (or, sometimes, about its own observation) and, with ``annotate``,
carries the ground truth as ``promptmem.suites.jsonl``'s meta: ``states`` on every task and
``subject``, ``kind``, ``question_type``, ``revealed_in``, ``updated_in``, ``stale``,
``current`` and ``delay`` on a question. Without it a task holds only id, observation,
question, answer and scorer.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Subject:
    """A thing questions ask about: its kind, how its value is stated first and after a change
    (templates over {s} subject, {v} value, {u} a supply's unit phrase), the question, its
    scorer, how a value is drawn and the answers that count for a value."""

    name: str
    kind: str
    reveal: tuple[str, ...]
    update: tuple[str, ...]
    question: str
    scorer: str
    draw: Callable[[random.Random, list[str]], str]
    answers: Callable[[str], list[str]] = lambda v: [v]
    unit: str = ""


@dataclass(frozen=True)
class WorldConfig:
    """Knobs of a generated world (counts per stream)."""

    tasks: int = 24  # stream length
    subjects_per_kind: int = 5  # subjects asked about per kind
    facts_per_observation: tuple[int, ...] = (1, 2, 2)  # drawn from for each observation
    update_rate: float = 0.2  # chance a stated fact is a change to a known one while new ones remain
    min_delay: int = 2  # fewest tasks between a fact's statement and its question
    max_delay: int = 16  # most tasks between a fact's statement and its question
    asks_per_fact: int = 2  # a value can be asked again later (until it changes)
    current_ratio: float = 0.1  # share of questions about the current observation
    budget: int = 800  # recommended notes budget in characters


def date_answers(value: str) -> list[str]:
    """The answers that count for a "Month day" date: "May 3", "3 May", "May 3rd", "3rd May"."""
    month, day = value.split()
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(int(day), "th")
    return [value, f"{day} {month}", f"{value}{suffix}", f"{day}{suffix} {month}"]


def task_id(position: int) -> str:
    """The id of the task at ``position`` in a stream."""
    return f"t{position:02d}"


class World:
    """The ground truth of one stream while it is generated: ``subjects`` in the order they are
    first stated (shuffled here), how likely each kind is to change (``update_weight``) and how
    often a fact may change at most (``max_changes``)."""

    def __init__(
        self,
        config: WorldConfig,
        rng: random.Random,
        people: list[str],
        subjects: list[Subject],
        update_weight: dict[str, int],
        max_changes: int,
    ):
        self.config, self.rng, self.people = config, rng, people
        self.update_weight, self.max_changes = update_weight, max_changes
        self.subjects = {s.name: s for s in subjects}
        self.fresh = list(self.subjects)
        rng.shuffle(self.fresh)
        self.current: dict[str, dict] = {}  # subject -> value, stated_in, updated_in, stale, asks

    def state(self, position: int, exclude: set[str]) -> dict | None:
        """Reveal a new fact or change a known one (never one in ``exclude``); None: nothing left."""
        known = [s for s, f in self.current.items() if s not in exclude and len(f["stale"]) < self.max_changes]
        fresh = [s for s in self.fresh if s not in exclude]
        if not known and not fresh:
            return None
        changing = bool(known) and (not fresh or self.rng.random() < self.config.update_rate)
        if changing:
            name = self.rng.choices(known, [self.update_weight[self.subjects[s].kind] for s in known])[0]
        else:
            name = fresh[0]
            self.fresh.remove(name)
        subject, old = self.subjects[name], self.current.get(name)
        history = {old["value"], *old["stale"]} if old else set()
        value = subject.draw(self.rng, self.people)
        while value in history:
            value = subject.draw(self.rng, self.people)
        self.current[name] = {
            "value": value,
            "stated_in": position,
            "updated_in": old["updated_in"] + [position] if old else [],
            "stale": old["stale"] + [old["value"]] if old else [],
            "asks": 0,
        }
        template = self.rng.choice(subject.update if changing else subject.reveal)
        return {"subject": subject, "value": value, "text": template.format(s=name, v=value, u=subject.unit)}

    def waiting(self, position: int) -> list[str]:
        """The facts a question at ``position`` may ask about (in the delay range, asks left)."""
        lo, hi = self.config.min_delay, self.config.max_delay
        asks = self.config.asks_per_fact
        return [s for s, f in self.current.items() if f["asks"] < asks and lo <= position - f["stated_in"] <= hi]

    def pick(self, waiting: list[str], position: int) -> str:
        """The waiting fact whose wait is nearest a delay drawn uniformly from the configured range
        (ties: the older), so that questions come early and late alike."""
        target = self.rng.randint(self.config.min_delay, self.config.max_delay)
        return min(
            waiting, key=lambda s: (abs(position - self.current[s]["stated_in"] - target), self.current[s]["stated_in"])
        )


def _task(world: World, facts: list[dict], observation: str, question: tuple | None, position: int) -> dict:
    """One task with its meta (the module doc)."""
    states = [{"value": f["value"], "subject": f["subject"].name} for f in facts]
    task = {"id": task_id(position), "observation": observation, "question": None, "meta": {"states": states}}
    if question is None:
        return task
    name, question_type = question
    subject, fact = world.subjects[name], world.current[name]
    fact["asks"] += 1
    task.update(
        question=subject.question.format(s=name, u=subject.unit),
        answer=subject.answers(fact["value"]),
        scorer=subject.scorer,
    )
    task["meta"].update(
        subject=name,
        kind=subject.kind,
        question_type=question_type,
        revealed_in=task_id(fact["stated_in"]),
        updated_in=[task_id(p) for p in fact["updated_in"]],
        stale=list(fact["stale"]),
        current=question_type == "current",
        delay=position - fact["stated_in"],
    )
    return task


Chatter = Callable[[random.Random, list[str]], list[str]]  # (rng, people) -> sentences no question asks about
Render = Callable[
    [random.Random, list[dict], list[str], list[str], int], str
]  # (rng, facts, chatter, people, position)


def world_stream(world: World, chatter: Chatter, render: Render, stream_id: str, annotate: bool = True) -> dict:
    """One stream as a JSONL line object (the module doc); the world's rng decides everything."""
    config, rng = world.config, world.rng
    tasks = []
    for position in range(config.tasks):
        waiting = world.waiting(position)
        recall = None if not waiting or rng.random() < config.current_ratio else world.pick(waiting, position)
        facts: list[dict] = []
        for _ in range(rng.choice(config.facts_per_observation)):
            fact = world.state(position, {recall, *(f["subject"].name for f in facts)})
            facts += [fact] if fact else []
        others = chatter(rng, world.people)
        observation = render(rng, facts, others, world.people, position)
        if recall is not None:
            question = (recall, "recall")
        elif position >= config.min_delay and facts:
            question = (rng.choice(facts)["subject"].name, "current")
        else:
            question = None  # an observe-only warm-up step
        task = _task(world, facts, observation, question, position)
        if not annotate:
            del task["meta"]
        tasks.append(task)
    return {"stream_id": stream_id, "tasks": tasks}


def write_jsonl(path: str | Path, streams: Iterable[dict]) -> None:
    """Write ``streams`` to ``path`` as JSONL, one stream a line."""
    lines = [json.dumps(stream) for stream in streams]
    Path(path).write_text("\n".join(lines) + "\n")
