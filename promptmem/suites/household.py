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

import random
from dataclasses import dataclass
from pathlib import Path

from promptmem.suites.worlds import Subject, World, WorldConfig, date_answers, world_stream, write_jsonl

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
        date_answers,
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
class HouseholdConfig(WorldConfig):
    """Knobs of the household world (``WorldConfig``'s; all four rules are always in play)."""


def _world(config: HouseholdConfig, rng: random.Random) -> World:
    people = rng.sample(PEOPLE, 6)
    n = config.subjects_per_kind
    subjects = [_event(e) for e in rng.sample(EVENTS, n)] + [_item(i) for i in rng.sample(ITEMS, n)]
    subjects += [_supply(s, SUPPLIES[s]) for s in rng.sample(sorted(SUPPLIES), n)] + RULES
    return World(config, rng, people, subjects, UPDATE_WEIGHT, MAX_CHANGES)


def _distractors(rng: random.Random, people: list[str]) -> list[str]:
    return [make(rng, rng.choice(people)) for make in rng.sample(DISTRACTORS, rng.randint(2, 3))]


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


def household_stream(config: HouseholdConfig, seed: int, index: int, prefix: str = "household") -> dict:
    """One stream as a JSONL line object; the same arguments give the same stream."""
    rng = random.Random(f"promptmem-household-{seed}-{index}")
    return world_stream(_world(config, rng), _distractors, _render, f"{prefix}-s{seed}-{index}")


def write_household(
    path: str | Path, n: int, seed: int, prefix: str, config: HouseholdConfig = HouseholdConfig()
) -> None:
    """Write ``n`` streams (indices 0..n-1 of ``seed``) to ``path`` as JSONL, one stream a line."""
    write_jsonl(path, (household_stream(config, seed, i, prefix) for i in range(n)))
