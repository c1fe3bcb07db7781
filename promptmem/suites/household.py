"""A second world, unlike the synthetic one: a seeded shared household, written as JSONL streams
(``promptmem.suites.jsonl``'s format and meta) for ``--suite jsonl --data``.

Each stream is one household over 24 days. Observations are short dialogues, emails, pantry
tables, fridge lists and notes -- not one-fact lines. Each states one or two facts of the four
kinds later questions ask about: the date of an appointment (``date``), who has a shared item
(``holder``), how many of a supply are left (``count``) and house rules that change (``rule``:
recycling day, quiet hours, wifi password, thermostat). Around them: distractors of other kinds
(meals, weather, chores, books), look-alikes that are never asked (neighbours' birthdays, the
bakery's hours, the market day, step counts, spice rows in the pantry table) and format noise
(headers, greetings, sign-offs, table rules). Questions come 2-16 tasks after the fact was stated
(a value may be asked twice until it changes), some after it changed, a few about the current
observation; a notes budget of 800 characters holds the facts still to be asked when written
compactly (at most about 300 characters as the statements themselves), not the raw observations
(about 220 characters each).

Question tasks carry ``subject``, ``revealed_in``, ``updated_in``, ``stale`` and ``current``
(the documented meta), plus ``kind``, ``question_type`` (recall | current) and ``delay``; every
task lists the facts it states in ``states``.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PEOPLE = ["Ines", "Marco", "Yuki", "Bea", "Theo", "Nadia", "Ravi", "Greta", "Malik", "Zara", "Oskar", "Leila"]
MONTHS = ["March", "April", "May", "June"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
EVENTS = ["boiler service", "dentist appointment", "vet visit", "piano recital", "car inspection", "eye test",
          "parent evening", "chimney sweep", "window cleaning", "flu jab"]  # fmt: skip
ITEMS = ["cordless drill", "camping tent", "ladder", "spare car key", "projector", "sewing machine",
         "pressure washer", "label printer", "bike pump", "hedge trimmer"]  # fmt: skip
SUPPLIES = {"honey": "jars of honey", "rice": "bags of rice", "AA batteries": "AA batteries",
            "light bulbs": "light bulbs", "tomatoes": "cans of tomatoes", "bin bags": "rolls of bin bags",
            "oat milk": "cartons of oat milk", "soap": "bars of soap"}  # fmt: skip
SPICES = ["cinnamon", "paprika", "cumin", "oregano", "nutmeg", "chili flakes"]
SHELVES = ["top", "middle", "bottom", "spice rack"]
PASSWORD_WORDS = ["otter", "maple", "comet", "pebble", "falcon", "tulip", "walrus", "cedar"]
TIMES = {"9 pm": "21:00", "9:30 pm": "21:30", "10 pm": "22:00", "10:30 pm": "22:30", "11 pm": "23:00"}


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


def _date_answers(value: str) -> list[str]:
    month, day = value.split()
    suffix = {1: "st", 2: "nd", 3: "rd", 21: "st", 22: "nd", 23: "rd"}.get(int(day), "th")
    return [value, f"{day} {month}", f"{value}{suffix}", f"{day}{suffix} {month}"]


def _time_answers(value: str) -> list[str]:
    answers = [value, value.replace(" ", ""), TIMES[value]]
    return answers + ([value.replace(" pm", ":00 pm")] if ":" not in value else [])


def _event(name: str) -> Subject:
    return Subject(
        name,
        "date",
        ("The {s} is booked for {v}.", "Reminder: the {s} is on {v}.", "We finally got a date for the {s}: {v}."),
        ("The {s} moved to {v}.", "Change of plan: the {s} is now on {v}.", "They rescheduled the {s} to {v}."),
        "On what date is the {s}? Reply with the month and day only.",
        "contains",
        lambda rng, people: f"{rng.choice(MONTHS)} {rng.randint(1, 28)}",
        _date_answers,
    )


def _item(name: str) -> Subject:
    return Subject(
        name,
        "holder",
        ("{v} borrowed the {s}.", "The {s} is with {v} for now.", "{v} took the {s} for the weekend."),
        ("{v} has the {s} now.", "The {s} is now with {v}.", "{v} picked up the {s} this morning."),
        "Who has the {s} now? Reply with the first name only.",
        "contains",
        lambda rng, people: rng.choice(people),
    )


def _supply(name: str, unit: str) -> Subject:
    return Subject(
        name,
        "count",
        ("We have {v} {u} left.", "There are {v} {u} in the pantry."),
        ("Only {v} {u} left now.", "After the shopping trip we have {v} {u}."),
        "How many {u} are left? Reply with a number.",
        "numeric",
        lambda rng, people: str(rng.randint(2, 19)),
        unit=unit,
    )


RULES = [
    Subject("recycling", "rule", ("Recycling goes out on {v}.",), ("From now on recycling goes out on {v}.",),
            "Which day does the recycling go out? Reply with the day only.", "contains",
            lambda rng, people: rng.choice(WEEKDAYS[:5])),
    Subject("quiet hours", "rule", ("Quiet hours start at {v}.",), ("New rule: quiet hours now start at {v}.",),
            "What time do quiet hours start? Reply with the time only.", "contains",
            lambda rng, people: rng.choice(list(TIMES)), _time_answers),
    Subject("wifi password", "rule", ("The wifi password is {v}.",), ("The wifi password changed to {v}.",),
            "What is the wifi password? Reply with the password only.", "contains",
            lambda rng, people: f"{rng.choice(PASSWORD_WORDS)}-{rng.randint(1000, 9999)}"),
    Subject("thermostat", "rule", ("The thermostat stays at {v} degrees.",),
            ("The thermostat is now set to {v} degrees.",),
            "What temperature is the thermostat set to? Reply with the number of degrees only.", "numeric",
            lambda rng, people: str(rng.randint(17, 23))),
]  # fmt: skip
UPDATE_WEIGHT = {"rule": 3, "count": 3, "holder": 2, "date": 1}  # how likely each kind is to change
MAX_CHANGES = 2  # a fact changes at most this often per stream (every kind has more values than that)

DISTRACTORS = [
    lambda r, p: f"{p} made {r.choice(['lentil soup', 'mushroom risotto', 'fish tacos', 'pancakes'])} for dinner.",
    lambda r, p: r.choice(["It rained all afternoon.", "The sun finally came out.", "It was freezing this morning."]),
    lambda r, p: f"{p} is reading {r.choice(['a mystery novel', 'a book about whales', 'an old atlas'])}.",
    lambda r, p: f"{p} is on {r.choice(['bathroom', 'kitchen', 'hoovering'])} duty this week.",
    lambda r, p: (
        f"Our neighbour {r.choice(['Mrs Kowalski', 'Mr Adeyemi', 'Mrs Lindqvist'])} turns "
        f"{r.randint(60, 90)} on {r.choice(MONTHS)} {r.randint(1, 28)}."
    ),
    lambda r, p: f"The bakery opens at {r.randint(6, 9)} am on weekends.",
    lambda r, p: f"The market is on {r.choice(WEEKDAYS)} this week.",
    lambda r, p: f"{p} walked {r.randint(40, 150) * 100} steps today.",
    lambda r, p: r.choice(
        [
            "The basil on the windowsill needs water.",
            "Someone left the porch light on.",
            "The cat knocked a plant off the shelf again.",
        ]
    ),  # fmt: skip
]
FILLERS = ["Sounds good!", "Thanks!", "Haha, fair.", "Noted.", "Did everyone sleep well?"]


@dataclass(frozen=True)
class HouseholdConfig:
    """Knobs of the household world (counts per stream)."""

    tasks: int = 24  # stream length
    subjects_per_kind: int = 5  # dates, holders, counts asked about (all four rules are always in play)
    facts_per_observation: tuple[int, ...] = (1, 2, 2)  # drawn from for each observation
    update_rate: float = 0.2  # chance a stated fact is a change to a known one while new ones remain
    min_delay: int = 2  # fewest tasks between a fact's statement and its question
    max_delay: int = 16  # most tasks between a fact's statement and its question
    asks_per_fact: int = 2  # a value can be asked again later (until it changes)
    current_ratio: float = 0.1  # share of questions about the current observation
    budget: int = 800  # recommended notes budget in characters


class _World:
    """The ground truth of one stream while it is generated."""

    def __init__(self, config: HouseholdConfig, rng: random.Random):
        self.config, self.rng = config, rng
        self.people = rng.sample(PEOPLE, 6)
        n = config.subjects_per_kind
        subjects = [_event(e) for e in rng.sample(EVENTS, n)] + [_item(i) for i in rng.sample(ITEMS, n)]
        subjects += [_supply(s, SUPPLIES[s]) for s in rng.sample(sorted(SUPPLIES), n)] + RULES
        self.subjects = {s.name: s for s in subjects}
        self.fresh = list(self.subjects)
        rng.shuffle(self.fresh)
        self.current: dict[str, dict] = {}  # subject -> value, stated_in, updated_in, stale, asks

    def state(self, position: int, exclude: set[str]) -> dict | None:
        """Reveal a new fact or change a known one (never one in ``exclude``); None: nothing left."""
        known = [s for s, f in self.current.items() if s not in exclude and len(f["stale"]) < MAX_CHANGES]
        fresh = [s for s in self.fresh if s not in exclude]
        if not known and not fresh:
            return None
        changing = bool(known) and (not fresh or self.rng.random() < self.config.update_rate)
        if changing:
            name = self.rng.choices(known, [UPDATE_WEIGHT[self.subjects[s].kind] for s in known])[0]
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
        lo, hi = self.config.min_delay, self.config.max_delay
        asks = self.config.asks_per_fact
        return [s for s, f in self.current.items() if f["asks"] < asks and lo <= position - f["stated_in"] <= hi]


def _pick(world: _World, waiting: list[str], rng: random.Random, position: int) -> str:
    """The waiting fact whose wait is nearest a delay drawn uniformly from the configured range
    (ties: the older), so that questions come early and late alike."""
    target = rng.randint(world.config.min_delay, world.config.max_delay)
    return min(
        waiting, key=lambda s: (abs(position - world.current[s]["stated_in"] - target), world.current[s]["stated_in"])
    )


def _dialogue(rng: random.Random, facts: list[dict], others: list[str], people: list[str], position: int) -> str:
    """A chat; whoever has an item says so in the first person (a speaker's name never sits beside
    an item it does not hold)."""
    mine = ["I have the {s} now.", "I borrowed the {s}.", "I've got the {s} this week."]
    turns = [
        (f["value"], rng.choice(mine).format(s=f["subject"].name))
        if f["subject"].kind == "holder"
        else (rng.choice(people), f["text"])
        for f in facts
    ]
    turns += [(rng.choice(people), text) for text in others + rng.sample(FILLERS, rng.randint(0, 2))]
    rng.shuffle(turns)
    header = rng.choice([f"Kitchen chat, {rng.choice(WEEKDAYS)} evening:", f"House group chat, day {position + 1}:"])
    return "\n".join([header] + [f"{who}: {text}" for who, text in turns])


def _email(rng: random.Random, sentences: list[str], people: list[str]) -> str:
    sender = rng.choice(people)
    topic = rng.choice(["this week", "house stuff", "quick update", "before I forget"])
    body = [" ".join(sentences[i : i + 2]) for i in range(0, len(sentences), 2)]
    head = [f"From: {sender}", "To: house list", f"Subject: {topic}", f"Sent: {rng.choice(WEEKDAYS)} evening", ""]
    return "\n".join(head + [rng.choice(["Hi all,", "Hello everyone,"])] + body + ["Thanks,", sender])


def _pantry(rng: random.Random, counts: list[dict], rest: list[str]) -> str:
    rows = [(f["subject"].name, f["value"]) for f in counts]
    rows += [(spice, str(rng.randint(1, 5))) for spice in rng.sample(SPICES, rng.randint(1, 2))]
    rng.shuffle(rows)
    lines = [f"Pantry check, {rng.choice(WEEKDAYS)}:", "| item | left | shelf |", "|---|---|---|"]
    lines += [f"| {item} | {left} | {rng.choice(SHELVES)} |" for item, left in rows]
    return "\n".join(lines + ([f"Also: {' '.join(rest)}"] if rest else []))


def _render(rng: random.Random, facts: list[dict], others: list[str], people: list[str], position: int) -> str:
    """The observation: a pantry table (when it states counts, mostly), else a dialogue, an email,
    a list or a note."""
    counts = [f for f in facts if f["subject"].kind == "count"]
    if counts and rng.random() < 0.7:
        rest = [f["text"] for f in facts if f not in counts] + others
        return _pantry(rng, counts, rng.sample(rest, len(rest)))
    style = rng.choice(["dialogue", "email", "list", "note"])
    if style == "dialogue":
        return _dialogue(rng, facts, others, people, position)
    sentences = [f["text"] for f in facts] + others
    rng.shuffle(sentences)
    if style == "email":
        return _email(rng, sentences, people)
    if style == "list":
        header = rng.choice(["Fridge reminders:", "To remember this week:", f"House meeting, day {position + 1}:"])
        return "\n".join([header] + [f"- {s}" for s in sentences])
    return f"Note on the fridge, signed {rng.choice(people)}:\n" + " ".join(sentences)


def task_id(position: int) -> str:
    """The id of the task at ``position`` in a stream."""
    return f"t{position:02d}"


def _task(world: _World, facts: list[dict], observation: str, question: tuple | None, position: int) -> dict:
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


def household_stream(config: HouseholdConfig, seed: int, index: int, prefix: str = "household") -> dict:
    """One stream as a JSONL line object; the same arguments give the same stream."""
    rng = random.Random(f"promptmem-household-{seed}-{index}")
    world = _World(config, rng)
    tasks = []
    for position in range(config.tasks):
        waiting = world.waiting(position)
        recall = None if not waiting or rng.random() < config.current_ratio else _pick(world, waiting, rng, position)
        facts: list[dict] = []
        for _ in range(rng.choice(config.facts_per_observation)):
            fact = world.state(position, {recall, *(f["subject"].name for f in facts)})
            facts += [fact] if fact else []
        others = [make(rng, rng.choice(world.people)) for make in rng.sample(DISTRACTORS, rng.randint(2, 3))]
        observation = _render(rng, facts, others, world.people, position)
        if recall is not None:
            question = (recall, "recall")
        elif position >= config.min_delay and facts:
            question = (rng.choice(facts)["subject"].name, "current")
        else:
            question = None  # an observe-only warm-up step
        tasks.append(_task(world, facts, observation, question, position))
    return {"stream_id": f"{prefix}-s{seed}-{index}", "tasks": tasks}


def write_household(
    path: str | Path, n: int, seed: int, prefix: str, config: HouseholdConfig = HouseholdConfig()
) -> None:
    """Write ``n`` streams (indices 0..n-1 of ``seed``) to ``path`` as JSONL, one stream a line."""
    lines = [json.dumps(household_stream(config, seed, i, prefix)) for i in range(n)]
    Path(path).write_text("\n".join(lines) + "\n")
