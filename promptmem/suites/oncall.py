"""A third world: a seeded on-call rotation of an ops team, written as JSONL streams
(``promptmem.suites.jsonl``'s format) for ``--suite jsonl --data``.

Each stream is one team over 24 shifts. Observations are chat on the ops channel, handover
emails, ticket queues, status pages, handover lists, ops logs and channel posts. Each states
one or two facts of the six kinds later questions ask about: who holds a team's pager
(``pager``), whom an incident ticket is assigned to (``assignee``), which runbook version is
current (``version``), where an alert fires (``threshold``), a service's status (``status``)
and the date of a freeze, drill or review (``date``). Around them: chatter (lunch, builds, the
coffee machine) and look-alikes that are never asked: the same kinds of fact about other
subjects (other teams' pagers, other tickets, other runbooks, alerts, services and events),
current metric readings beside alert thresholds, people's leave dates. Facts change (a pager
handover, a reassigned ticket, a new runbook, a moved threshold): questions ask 2-17 tasks after
the fact was stated, a value may be asked twice until it changes, and a question after a change
needs the new value.

The files carry only gold answers: no meta. With ``annotate`` every task lists the facts it
states (``states``) and every question its ``subject``, ``kind``, ``question_type``,
``revealed_in``, ``updated_in``, ``stale``, ``current`` and ``delay`` (``suites.worlds``), to
measure inferred labels against.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from promptmem.suites.worlds import Subject, World, WorldConfig, date_answers, world_stream, write_jsonl

PEOPLE = ["Priya", "Kenji", "Lena", "Tomas", "Amara", "Sven", "Hana", "Diego", "Farah", "Jonas", "Mei", "Olu"]
MONTHS = ["March", "April", "May", "June"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
PAGERS = ["platform pager", "data pager", "network pager", "storage pager", "mobile pager", "security pager"]
RUNBOOKS = ["failover runbook", "rollback runbook", "cache flush runbook", "DNS cutover runbook",
            "database restore runbook", "certificate rotation runbook"]  # fmt: skip
ALERTS = {
    "API latency alert": (" ms", 200, 900, 50),
    "error rate alert": ("%", 1, 9, 1),
    "disk usage alert": ("%", 70, 95, 5),
    "queue depth alert": (" messages", 500, 5000, 250),
    "CPU alert": ("%", 60, 95, 5),
    "memory alert": ("%", 65, 95, 5),
}  # unit, lowest, highest, step; fmt: skip
SERVICES = ["checkout service", "login service", "inventory service", "notification service", "billing service",
            "search service"]  # fmt: skip
STATUSES = ["operational", "degraded", "down", "recovering", "under maintenance"]
EVENTS = ["deploy freeze", "DR drill", "game day", "load test", "datacenter move", "access review", "vendor audit",
          "pen test"]  # fmt: skip
FIRST_PERSON = {  # how the person a fact names says it in a chat (no other name sits beside the subject)
    "pager": ("I have the {s} now.", "I'm holding the {s} this week.", "I took over the {s}."),
    "assignee": ("I'm taking {s}.", "{s} is mine now.", "I picked up {s}."),
}


def _date(rng: random.Random, people: list[str] | None = None) -> str:
    return f"{rng.choice(MONTHS)} {rng.randint(1, 28)}"


def _version(rng: random.Random, people: list[str] | None = None) -> str:
    return f"v{rng.randint(1, 6)}.{rng.randint(0, 9)}"


def _threshold(name: str, rng: random.Random) -> str:
    _, low, high, step = ALERTS[name]
    return str(rng.randrange(low, high + 1, step))


def _decoy_alert(rng: random.Random, person: str, decoys: dict[str, list[str]]) -> str:
    name = rng.choice(decoys["threshold"])
    return f"The {name} fires at {_threshold(name, rng)}{ALERTS[name][0]}."


def _reading(rng: random.Random, person: str, decoys: dict[str, list[str]]) -> str:
    """A current reading of any alert's metric: a number beside a look-alike of the alert's name."""
    name = rng.choice(sorted(ALERTS))
    return f"Current {name.removesuffix(' alert')}: {_threshold(name, rng)}{ALERTS[name][0]}."


def _pager(name: str) -> Subject:
    return Subject(
        name,
        "pager",
        ("{v} holds the {s} this week.", "The {s} is with {v} until Monday.", "{v} is primary on the {s}."),
        ("{v} took over the {s}.", "Handover done: the {s} is with {v} now.", "The {s} moved to {v} after a swap."),
        "Who holds the {s} now? Reply with the first name only.",
        "contains",
        lambda rng, people: rng.choice(people),
    )


def _ticket(name: str) -> Subject:
    return Subject(
        name,
        "assignee",
        ("{s} is assigned to {v}.", "{v} owns {s}.", "{s} went to {v} in triage."),
        ("{s} was reassigned to {v}.", "{v} took over {s}.", "{s} is now with {v}."),
        "Who is {s} assigned to now? Reply with the first name only.",
        "contains",
        lambda rng, people: rng.choice(people),
    )


def _runbook(name: str) -> Subject:
    return Subject(
        name,
        "version",
        ("The current {s} is {v}.", "Use {v} of the {s}.", "The {s} is at {v}."),
        ("The {s} was bumped to {v}.", "New {s} published: {v}.", "The {s} is now {v}; use that one."),
        "Which version of the {s} is current? Reply with the version only.",
        "contains",
        _version,
        lambda v: [v, v[1:], f"version {v[1:]}"],
    )


def _alert(name: str) -> Subject:
    return Subject(
        name,
        "threshold",
        ("The {s} fires at {v}{u}.", "The {s} threshold is {v}{u}."),
        ("We moved the {s} threshold to {v}{u}.", "The {s} now fires at {v}{u}.", "New threshold for the {s}: {v}{u}."),
        "At what value does the {s} fire now? Reply with a number.",
        "numeric",
        lambda rng, people: _threshold(name, rng),
        unit=ALERTS[name][0],
    )


def _service(name: str) -> Subject:
    return Subject(
        name,
        "status",
        ("The {s} is {v}.", "Status page: the {s} is {v}."),
        ("The {s} is now {v}.", "Status page update: the {s} is {v} now."),
        "What is the status of the {s} now? Reply with one of: " + ", ".join(STATUSES) + ".",
        "exact",
        lambda rng, people: rng.choice(STATUSES),
    )


def _event(name: str) -> Subject:
    return Subject(
        name,
        "date",
        ("The {s} starts on {v}.", "The {s} is scheduled for {v}.", "Heads up: the {s} is on {v}."),
        ("The {s} moved to {v}.", "The {s} was pushed to {v}.", "New date for the {s}: {v}."),
        "On what date is the {s}? Reply with the month and day only.",
        "contains",
        _date,
        date_answers,
    )


KINDS = {"pager": (PAGERS, _pager), "version": (RUNBOOKS, _runbook), "threshold": (sorted(ALERTS), _alert),
         "status": (SERVICES, _service), "date": (EVENTS, _event)}  # fmt: skip
UPDATE_WEIGHT = {"pager": 3, "status": 3, "assignee": 2, "threshold": 2, "version": 2, "date": 1}
MAX_CHANGES = 2  # a fact changes at most this often per stream (every kind has more values than that)

CHATTER = [  # (rng, person, decoys) -> a sentence no question asks about; decoys: kind -> subjects never asked
    lambda r, p, d: f"{p} is ordering lunch for the team.",
    lambda r, p, d: r.choice(
        [
            "The coffee machine on floor 3 is broken again.",
            "Standup moves to the big room today.",
            "Reminder: fill in the on-call survey by Friday.",
            "Someone left a laptop in the war room.",
        ]
    ),
    lambda r, p, d: f"{p} shared the retro notes in #sre.",
    lambda r, p, d: f"Build {r.randint(8000, 9999)} passed on main.",
    lambda r, p, d: f"{r.choice(d['assignee'])} was closed as a duplicate.",
    lambda r, p, d: f"{r.choice(d['assignee'])} is assigned to {p}.",
    lambda r, p, d: f"The {r.choice(d['pager'])} is with {p} this week.",
    lambda r, p, d: f"The {r.choice(d['version'])} was bumped to {_version(r)}.",
    _decoy_alert,
    _reading,
    lambda r, p, d: f"The {r.choice(d['status'])} is {r.choice(STATUSES)}.",
    lambda r, p, d: f"The {r.choice(d['date'])} is on {_date(r)}.",
    lambda r, p, d: f"{p} is on leave from {_date(r)}.",
]
FILLERS = ["ack", "Thanks!", "On it.", "+1", "lgtm", "Anyone else seeing slow CI?"]


@dataclass(frozen=True)
class OncallConfig(WorldConfig):
    """Knobs of the on-call world (``WorldConfig``'s): three subjects of each of the six kinds."""

    subjects_per_kind: int = 3
    max_delay: int = 17


def _world(config: OncallConfig, rng: random.Random) -> tuple[World, dict[str, list[str]]]:
    """The stream's world and its decoys: kind -> subjects of that kind never asked about."""
    people, n = rng.sample(PEOPLE, 6), config.subjects_per_kind
    subjects, decoys = [], {}
    for kind, (pool, make) in KINDS.items():
        names = rng.sample(pool, len(pool))
        subjects += [make(name) for name in names[:n]]
        decoys[kind] = names[n:]
    base = rng.randrange(3000, 9000)
    tickets = [f"INC-{base + k}" for k in rng.sample(range(1, 60), n + 3)]
    subjects += [_ticket(name) for name in tickets[:n]]
    decoys["assignee"] = tickets[n:]
    return World(config, rng, people, subjects, UPDATE_WEIGHT, MAX_CHANGES), decoys


def _chatter(decoys: dict[str, list[str]], rng: random.Random, people: list[str]) -> list[str]:
    return [make(rng, rng.choice(people), decoys) for make in rng.sample(CHATTER, rng.randint(2, 3))]


def _clock(rng: random.Random) -> str:
    return f"{rng.randint(0, 23):02d}:{rng.choice(['00', '15', '30', '45'])}"


def _chat(rng: random.Random, facts: list[dict], others: list[str], people: list[str], position: int) -> str:
    """The ops channel; whoever a pager or ticket fact names says it in the first person."""
    turns = [
        (f["value"], rng.choice(FIRST_PERSON[f["subject"].kind]).format(s=f["subject"].name))
        if f["subject"].kind in FIRST_PERSON
        else (rng.choice(people), f["text"])
        for f in facts
    ]
    turns += [(rng.choice(people), text) for text in others + rng.sample(FILLERS, rng.randint(0, 2))]
    rng.shuffle(turns)
    header = rng.choice(
        [f"#ops-oncall, {rng.choice(WEEKDAYS)} {_clock(rng)}:", f"Incident bridge, shift {position + 1}:"]
    )
    return "\n".join([header] + [f"{who}: {text}" for who, text in turns])


def _email(rng: random.Random, sentences: list[str], people: list[str]) -> str:
    sender = rng.choice(people)
    topic = rng.choice(["handover", "shift notes", "ops update", "before the weekend"])
    body = [" ".join(sentences[i : i + 2]) for i in range(0, len(sentences), 2)]
    head = [f"From: {sender}", "To: sre-oncall", f"Subject: {topic}", f"Sent: {rng.choice(WEEKDAYS)} {_clock(rng)}"]
    return "\n".join(head + ["", rng.choice(["Hi team,", "Hello all,"])] + body + ["Cheers,", sender])


def _table(
    rng: random.Random, rows: list[tuple[str, ...]], header: str, columns: tuple[str, ...], rest: list[str]
) -> str:
    rng.shuffle(rows)
    lines = [header, "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines + ([f"Also: {' '.join(rest)}"] if rest else []))


def _tickets(rng: random.Random, facts: list[dict], people: list[str], decoys: list[str]) -> tuple[str, list[tuple]]:
    rows = [(f["subject"].name, f["value"], f"SEV{rng.randint(1, 4)}", "open") for f in facts]
    for name in rng.sample(decoys, rng.randint(1, min(2, len(decoys)))):
        rows.append((name, rng.choice(people), f"SEV{rng.randint(1, 4)}", rng.choice(["open", "resolved", "snoozed"])))
    return f"Ticket queue, {rng.choice(WEEKDAYS)} {_clock(rng)}:", rows


def _statuses(rng: random.Random, facts: list[dict], people: list[str], decoys: list[str]) -> tuple[str, list[tuple]]:
    rows = [(f["subject"].name, f["value"], f"{rng.randint(80, 990)} ms") for f in facts]
    for name in rng.sample(decoys, rng.randint(1, min(2, len(decoys)))):
        rows.append((name, rng.choice(STATUSES), f"{rng.randint(80, 990)} ms"))
    return f"Status page, {_clock(rng)} UTC:", rows


TABLES = {  # a fact kind some observations show as a table: rows of its facts and of decoys, the columns
    "assignee": (_tickets, ("ticket", "owner", "sev", "state")),
    "status": (_statuses, ("service", "status", "p99")),
}


def _render(
    decoys: dict[str, list[str]],
    rng: random.Random,
    facts: list[dict],
    others: list[str],
    people: list[str],
    position: int,
) -> str:
    """The observation: a ticket queue or a status page (when it states such facts, mostly),
    else a chat, an email, a handover list, an ops log or a channel post."""
    for kind, (rows_of, columns) in TABLES.items():
        shown = [f for f in facts if f["subject"].kind == kind]
        if shown and rng.random() < 0.6:
            rest = [f["text"] for f in facts if f not in shown] + others
            free = [name for name in decoys[kind] if not any(name in other for other in others)]  # no contradictions
            header, rows = rows_of(rng, shown, people, free)
            return _table(rng, rows, header, columns, rng.sample(rest, len(rest)))
    style = rng.choice(["chat", "email", "list", "log", "post"])
    if style == "chat":
        return _chat(rng, facts, others, people, position)
    sentences = [f["text"] for f in facts] + others
    rng.shuffle(sentences)
    if style == "email":
        return _email(rng, sentences, people)
    if style == "list":
        header = rng.choice(["Handover notes:", f"Shift {position + 1} handover:", "Open items for the next shift:"])
        return "\n".join([header] + [f"- {s}" for s in sentences])
    if style == "log":
        times = sorted(_clock(rng) for _ in sentences)
        return "\n".join([f"Ops log, {rng.choice(WEEKDAYS)}:"] + [f"[{t}] {s}" for t, s in zip(times, sentences)])
    return f"Posted in #sre by {rng.choice(people)}:\n" + " ".join(sentences)


def oncall_stream(config: OncallConfig, seed: int, index: int, prefix: str = "oncall", annotate: bool = False) -> dict:
    """One stream as a JSONL line object (with the ground-truth meta when ``annotate``); the
    same arguments give the same stream, and the annotated one differs only by its meta."""
    rng = random.Random(f"promptmem-oncall-{seed}-{index}")
    world, decoys = _world(config, rng)
    return world_stream(
        world, partial(_chatter, decoys), partial(_render, decoys), f"{prefix}-s{seed}-{index}", annotate
    )


def write_oncall(
    path: str | Path, n: int, seed: int, prefix: str, config: OncallConfig = OncallConfig(), annotate: bool = False
) -> None:
    """Write ``n`` streams (indices 0..n-1 of ``seed``) to ``path`` as JSONL, one stream a line."""
    write_jsonl(path, (oncall_stream(config, seed, i, prefix, annotate) for i in range(n)))
