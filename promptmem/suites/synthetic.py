"""A seeded synthetic world where memory judgment decides the score.

Each stream is one fictional engineering team. Every task shows a short snippet (ticket,
chat, log or wiki page) stating a few facts and asks one question. Only four kinds of
fact are ever asked (a service's port, owner, region and version); the other facts
(desks, drinks, build times, rooms…) are distractors that are never asked. Most questions
ask about a fact stated several tasks earlier and not shown again; some facts change
later and the current value is asked; a few questions are about the current snippet.
A writer that learns *what* to keep fits the key facts into the budget; keeping
everything does not fit.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from promptmem.tasks import Evidence, Fact, Outcome, Stream, Task

SERVICES = [
    "billing-api",
    "auth-gateway",
    "search-indexer",
    "ledger-db",
    "mail-relay",
    "image-resizer",
    "feature-flags",
    "payments-worker",
    "geo-cache",
    "audit-log",
    "report-builder",
    "session-store",
]
PEOPLE = ["Priya", "Tomas", "Keiko", "Omar", "Lena", "Diego", "Amara", "Felix", "Sana", "Jonah", "Mira", "Kwame"]
REGIONS = [
    "eu-west-1",
    "eu-central-2",
    "us-east-2",
    "us-west-1",
    "ap-south-1",
    "ap-northeast-3",
    "sa-east-1",
    "ca-central-1",
]
DRINKS = ["oat latte", "green tea", "espresso", "cold brew", "chai", "hot chocolate"]
ROOMS = ["Falcon", "Juniper", "Atlas", "Harbor", "Quartz", "Willow"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
CHANNELS = ["ops", "backend", "oncall", "releases", "infra"]


@dataclass(frozen=True)
class KeyKind:
    """A kind of fact that questions ask about, with how it is stated and recognized."""

    name: str
    reveal: str
    update: str
    question: str
    pattern: str  # regex recognizing a value of this kind in an answer


KEY_KINDS = {
    "port": KeyKind(
        "port",
        "{s} listens on port {v}",
        "{s} has moved to port {v}",
        "Which port does {s} listen on? Reply with the port number only.",
        r"\b\d{4,5}\b",
    ),
    "owner": KeyKind(
        "owner",
        "{v} owns {s}",
        "{s} is now owned by {v}",
        "Who owns {s}? Reply with the first name only.",
        r"\b(?:" + "|".join(PEOPLE) + r")\b",
    ),
    "region": KeyKind(
        "region",
        "{s} is deployed in {v}",
        "{s} was migrated to {v}",
        "Which region is {s} deployed in? Reply with the region code only.",
        r"\b[a-z]{2}-[a-z]+-\d\b",
    ),
    "version": KeyKind(
        "version",
        "{s} runs version {v}",
        "{s} was upgraded to version {v}",
        "Which version does {s} run? Reply with the version number only.",
        r"\b\d+\.\d+\.\d+\b",
    ),
}

DISTRACTORS = [
    lambda r, s, p: f"{p} sits at desk {r.choice('ABCD')}-{r.randint(10, 99)}",
    lambda r, s, p: f"{p} always orders {r.choice(DRINKS)}",
    lambda r, s, p: f"the last {s} build took {r.randint(3, 59)} minutes",
    lambda r, s, p: f"the {s} standup is in room {r.choice(ROOMS)}",
    lambda r, s, p: f"{p} is out of office on {r.choice(WEEKDAYS)}",
    lambda r, s, p: f"the {s} dashboard has {r.randint(4, 40)} panels",
    lambda r, s, p: f"{s} has {r.randint(2, 300)} open lint warnings",
]


@dataclass(frozen=True)
class SyntheticConfig:
    """Knobs of the synthetic world (all counts per stream)."""

    tasks: int = 24  # stream length
    services: int = 6  # services in the world (4 asked facts each)
    facts_per_observation: int = 3  # facts stated per snippet
    distractor_ratio: float = 0.5  # share of stated facts that are never asked
    update_rate: float = 0.2  # chance a key fact stated is a change to a known fact
    min_delay: int = 3  # fewest tasks between a fact's statement and its question
    max_delay: int = 16  # most tasks between a fact's statement and its question
    oldest_first: float = 0.75  # chance a question asks the longest-waiting fact
    current_ratio: float = 0.15  # share of questions about the current snippet
    budget: int = 800  # recommended notes budget in characters


class _World:
    """The evolving ground truth of one stream while it is generated."""

    def __init__(self, config: SyntheticConfig, rng: random.Random):
        self.config, self.rng = config, rng
        self.services = rng.sample(SERVICES, config.services)
        self.people = rng.sample(PEOPLE, 8)
        self.current: dict[tuple[str, str], dict] = {}  # (service, kind) -> fact state
        self.unrevealed = [(s, k) for s in self.services for k in KEY_KINDS]
        rng.shuffle(self.unrevealed)

    def new_value(self, kind: str, avoid: set[str]) -> str:
        rng = self.rng
        while True:
            value = {
                "port": lambda: str(rng.randint(3000, 9899)),
                "owner": lambda: rng.choice(self.people),
                "region": lambda: rng.choice(REGIONS),
                "version": lambda: f"{rng.randint(1, 9)}.{rng.randint(0, 19)}.{rng.randint(0, 9)}",
            }[kind]()
            if value not in avoid:
                return value

    def state_key_fact(self, position: int, exclude: set[tuple[str, str]]) -> dict:
        """Reveal a new key fact or change a known one; never touch a key in ``exclude``."""
        known = [key for key in self.current if key not in exclude]
        fresh = [key for key in self.unrevealed if key not in exclude]
        if not known and not fresh:
            return self.distractor()
        is_update = bool(known) and (not fresh or self.rng.random() < self.config.update_rate)
        key = self.rng.choice(known) if is_update else fresh[0]
        service, kind = key
        old = self.current[key] if is_update else None
        value = self.new_value(kind, {old["value"], *old["stale_values"]} if old else set())
        if not is_update:
            self.unrevealed.remove(key)
        self.current[key] = {
            "service": service,
            "kind": kind,
            "value": value,
            "revealed_in": old["revealed_in"] if old else position,
            "stated_in": position,
            "updated_in": (old["updated_in"] + [position]) if old else [],
            "stale_values": (old["stale_values"] + [old["value"]]) if old else [],
            "asked": False,
        }
        template = KEY_KINDS[kind].update if is_update else KEY_KINDS[kind].reveal
        text = template.format(s=service, v=value)
        return {
            "text": text,
            "service": service,
            "kind": kind,
            "value": value,
            "type": "update" if is_update else "reveal",
        }

    def distractor(self) -> dict:
        text = self.rng.choice(DISTRACTORS)(self.rng, self.rng.choice(self.services), self.rng.choice(self.people))
        return {"text": text, "type": "distractor"}

    def recall_candidates(self, position: int) -> list[tuple[str, str]]:
        lo, hi = self.config.min_delay, self.config.max_delay
        return [
            key for key, fact in self.current.items() if not fact["asked"] and lo <= position - fact["stated_in"] <= hi
        ]


def _pick_recall(world: _World, candidates: list, rng: random.Random) -> tuple[str, str]:
    """Mostly the longest-waiting fact, so that many questions come long after the reveal."""
    if rng.random() < world.config.oldest_first:
        return min(candidates, key=lambda key: world.current[key]["stated_in"])
    return rng.choice(candidates)


def _snippet(rng: random.Random, facts: list[dict], people: list[str], position: int) -> str:
    lines = [f["text"] for f in facts]
    style = rng.choice(["ticket", "chat", "log", "wiki"])
    if style == "ticket":
        return f"Ticket OPS-{rng.randint(100, 999)} (day {position + 1}):\n" + "\n".join(f"- {x}." for x in lines)
    if style == "chat":
        return f"Chat in #{rng.choice(CHANNELS)}:\n" + "\n".join(f"{rng.choice(people)}: {x}." for x in lines)
    if style == "log":
        return f"Ops log, day {position + 1}:\n" + "\n".join(f"INFO {x}" for x in lines)
    return f"Wiki page 'Team notes {position + 1}': " + " ".join(f"{x}." for x in lines)


def generate_stream(config: SyntheticConfig, seed: int, index: int) -> Stream:
    """One deterministic stream for (config, seed, index)."""
    rng = random.Random(f"promptmem-synthetic-{seed}-{index}")
    world = _World(config, rng)
    tasks = []
    for position in range(config.tasks):
        candidates = world.recall_candidates(position)
        ask_current = not candidates or rng.random() < config.current_ratio
        recall_key = None if ask_current else _pick_recall(world, candidates, rng)
        n_key = max(1, sum(rng.random() >= config.distractor_ratio for _ in range(config.facts_per_observation)))
        stated, touched = [], {recall_key}
        for _ in range(n_key):
            stated.append(world.state_key_fact(position, touched))
            touched.add((stated[-1].get("service"), stated[-1].get("kind")))
        stated += [world.distractor() for _ in range(config.facts_per_observation - n_key)]
        rng.shuffle(stated)
        key_stated = [f for f in stated if f["type"] != "distractor"]
        if recall_key is None and position < config.min_delay:
            question_key, kind_of_question = None, "none"  # observe-only warm-up
        elif recall_key is None:
            pick = rng.choice(key_stated)
            question_key, kind_of_question = (pick["service"], pick["kind"]), "current"
        else:
            question_key, kind_of_question = recall_key, "recall"
        tasks.append(_make_task(world, stated, question_key, kind_of_question, position, index))
    return Stream(id=f"synthetic-s{seed}-{index}", tasks=tuple(tasks))


def task_id(position: int) -> str:
    """The id of the task at ``position`` in a stream."""
    return f"t{position:02d}"


def _make_task(world: _World, stated: list[dict], key, kind_of_question: str, position: int, index: int) -> Task:
    observation = _snippet(world.rng, stated, world.people, position)
    meta = {"position": position, "facts": stated, "question_type": kind_of_question}
    if key is None:
        return Task(id=task_id(position), observation=observation, question=None, meta=meta)
    fact = world.current[key]
    fact["asked"] = True
    meta.update({k: fact[k] for k in ("service", "kind", "revealed_in", "stated_in", "updated_in", "stale_values")})
    meta["delay"] = position - fact["stated_in"]
    question = KEY_KINDS[fact["kind"]].question.format(s=fact["service"])
    return Task(
        id=task_id(position),
        observation=observation,
        question=question,
        answer=(fact["value"],),
        scorer="synthetic",
        meta=meta,
    )


def extract_values(kind: str, answer: str) -> set[str]:
    """The distinct values of ``kind`` mentioned in an answer (names case-insensitively)."""
    found = re.findall(KEY_KINDS[kind].pattern, answer, flags=re.IGNORECASE)
    return {v.capitalize() if kind == "owner" else v for v in found}


class SyntheticSuite:
    """``synthetic``: typed exact match. An answer scores 1 when the only value of the
    asked kind it names is the current one; naming a stale value too scores 0."""

    name = "synthetic"
    about = "seeded fictional engineering teams; facts to remember, distractors, updates"
    from_file = False
    breakdown_keys = ("question_type", "kind")

    def __init__(self, config: SyntheticConfig | None = None, **knobs):
        self.config = config or SyntheticConfig(**knobs)
        self.notes_budget = self.config.budget

    @classmethod
    def from_options(cls, tasks: int | None = None) -> SyntheticSuite:
        """The suite with ``tasks`` tasks per stream (default: ``SyntheticConfig``'s)."""
        return cls(**({"tasks": tasks} if tasks else {}))

    def streams(self, n: int, seed: int = 0) -> list[Stream]:
        return [generate_stream(self.config, seed, i) for i in range(n)]

    def score(self, task: Task, answer: str) -> Outcome:
        gold, kind = task.answer[0], task.meta["kind"]
        named = extract_values(kind, answer)
        if named == {gold}:
            return Outcome(1.0, "Correct.")
        feedback = f"Wrong. The correct answer was {gold}."
        stale = named & set(task.meta["stale_values"])
        if stale:
            feedback += f" {', '.join(sorted(stale))} is out of date: it changed in a later update."
        return Outcome(0.0, feedback)

    def evidence(self, task: Task) -> Evidence | None:
        """The asked fact (value about its service), where its current value was stated,
        its updates and stale values; ``current`` for a question about its own snippet."""
        meta = task.meta
        if not task.is_question or "service" not in meta:
            return None
        return Evidence(
            needed=(Fact(task.answer[0], meta["service"]),),
            stated_in=(task_id(meta["stated_in"]),),
            updated_in=tuple(task_id(p) for p in meta["updated_in"]),
            stale=tuple(meta["stale_values"]),
            current=meta.get("question_type") == "current",
        )

    def stated(self, task: Task) -> tuple[Fact, ...]:
        """The key facts (not the distractors) the task's snippet reveals or changes."""
        return tuple(Fact(f["value"], f["service"]) for f in task.meta.get("facts", []) if f["type"] != "distractor")

    def describe(self) -> dict:
        return {"name": self.name, **asdict(self.config)}
