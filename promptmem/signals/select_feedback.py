"""Feedback a selection writer can act on, built from the hindsight labels (``signals.hindsight``).

A writer that chooses statements (the select writer) can change only which statements it keeps,
so its feedback names statements: each dropped one a later question needed (quoted, with the
question and how many tasks later), each kept one pushed out of the budget before its question
(with what the notes held instead), and the kept ones no later question needed, with the topic
words most of them use and no needed statement does ("most often about build (12), dashboard
(8)"); those that state no fact the world tracks (``StatementLabel.tracked``) are counted apart
where the suite lists its facts: a header or chatter is never worth its room. The first lines
aggregate them by what the suite knows of each question (``hindsight.question_kind``), so a
reflection model sees the pattern ("dropped 6 about port, asked 3-9 tasks later"). Training
streams only: the labels read the answers of later questions.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from promptmem.feedback import notes_timeline
from promptmem.runner import StreamResult
from promptmem.signals.hindsight import StatementLabel, by_task, hindsight_labels
from promptmem.signals.topics import distinctive_topics
from promptmem.tasks import Stream, Suite


def kept_notes(labels: list[StatementLabel], result: StreamResult) -> dict[str, StatementLabel]:
    """note id -> the statement it stores: the applied ADDs of each step whose text is one of
    that task's statements, word for word."""
    grouped, kept = by_task(labels), {}
    for record in result.records:
        left = list(grouped.get(record.task_id, ()))
        for op in (op for op in record.ops if op["kind"] == "ADD" and op["applied"]):
            match = next((x for x in left if op["text"] == x.text), None)
            if match:
                kept[op["result_id"]] = match
                left.remove(match)
    return kept


def _quote(text: str, limit: int = 90) -> str:
    return '"' + (text if len(text) <= limit else text[: limit - 1] + "…") + '"'


def _statements(n: int) -> str:
    return f"{n} statement{'s' * (n != 1)}"


def _later(afters: list[int]) -> str:
    low, high = min(afters), max(afters)
    return f"{low} task{'s' * (high != 1)} later" if low == high else f"{low}–{high} tasks later"


def _by_kind(labels: list[StatementLabel]) -> str:
    """'port: 4 (asked 3–9 tasks later); owner: 2 (asked 5 tasks later)' by each label's first need."""
    kinds: dict[str, list[int]] = defaultdict(list)
    for label in labels:
        kinds[label.needed_by[0].kind or "other"].append(label.needed_by[0].after)
    ranked = sorted(kinds.items(), key=lambda item: -len(item[1]))
    return "; ".join(f"about {kind}: {len(afters)} (asked {_later(afters)})" for kind, afters in ranked)


_KIND_COUNT = re.compile(r"about ([^:;,()]+): (\d+) \(asked")  # what _by_kind writes
_UNNEEDED = re.compile(r"most often about (.+?), which no needed statement mentions")
_TOPIC_COUNT = re.compile(r"([a-z0-9]+) \((\d+)\)")


def feedback_topics(lines: list[str]) -> tuple[Counter, Counter]:
    """What this module's ``lines`` (any number of runs' feedback) name, summed: the kinds of
    statements later questions needed (how many were dropped or pushed out), and the topic words
    of kept statements no question needed (how many used each)."""
    needed, unneeded = Counter(), Counter()
    for line in lines:
        for kind, n in _KIND_COUNT.findall(line):
            needed[kind.strip()] += int(n)
        for listed in _UNNEEDED.findall(line):
            for word, n in _TOPIC_COUNT.findall(listed):
                unneeded[word] += int(n)
    return needed, unneeded


def _topics(labels: list[StatementLabel], others: list[str]) -> str:
    """'most often about build (11), desk (3), which no needed statement mentions; ' or ''."""
    topics = ", ".join(f"{word} ({n})" for word, n in distinctive_topics((x.text for x in labels), others))
    return f"most often about {topics}, which no needed statement mentions; " if topics else ""


def _examples(labels: list[StatementLabel], n: int) -> str:
    return "; ".join(map(_quote, list(dict.fromkeys(x.text for x in labels))[:n]))


def _notes_after(result: StreamResult) -> dict[str, dict[str, str]]:
    """task id -> the notes (id -> text) right after its step."""
    before = notes_timeline(result)[1:] + [{n["id"]: n["text"] for n in result.final_notes}]
    return dict(zip((r.task_id for r in result.records), before))


def _pushed_out(result: StreamResult, kept: dict[str, StatementLabel]) -> list[tuple[StatementLabel, str]]:
    """(statement, line) for each kept needed statement missing from the notes when a question
    needing it came, with the statements no later question needed that the notes held instead."""
    before = dict(zip((r.task_id for r in result.records), notes_timeline(result)))
    after = _notes_after(result)
    index = {r.task_id: i for i, r in enumerate(result.records)}  # records follow the stream's tasks
    deleted_at = {
        op["note_id"]: r.task_id for r in result.records for op in r.ops if op["kind"] == "DELETE" and op["applied"]
    }
    pushed = []
    for note_id, label in kept.items():
        need = next((n for n in label.needed_by if note_id not in before[n.question_id]), None)
        if need is None:
            continue
        step = deleted_at.get(note_id)
        dead = [kept[i] for i in after[step] if i in kept and kept[i].last_need <= index[step]] if step else []
        held = sorted(dead, key=lambda x: -len(x.text))
        instead = (
            f"; right after, the notes held {sum(len(x.text) for x in held)} characters no later question "
            f"needed, e.g. {_quote(held[0].text)}"
            if held
            else ""
        )
        line = (
            f"{label.task_id}: kept [{label.number}] {_quote(label.text)}, but it was pushed out of the budget"
            f"{f' at {step}' if step else ''} before {need.question_id} asked {_quote(need.question)} "
            f"{_later([need.after])}{instead}."
        )
        pushed.append((label, line))
    return pushed


def selection_feedback(stream: Stream, result: StreamResult, suite: Suite, examples: int = 3) -> list[str]:
    """Feedback lines for a selection writer's run over ``stream`` (see the module): the
    aggregates first, then up to ``examples`` dropped and ``examples`` pushed-out statements."""
    labels = hindsight_labels(stream, suite)
    kept = kept_notes(labels, result)
    kept_ids = {(x.task_id, x.number) for x in kept.values()}
    dropped = [x for x in labels if x.needed_by and (x.task_id, x.number) not in kept_ids]
    unneeded = [x for x in kept.values() if not x.needed_by]  # in the order they were kept
    pushed = _pushed_out(result, kept)
    lines = []
    if dropped:
        lines.append(f"Dropped {_statements(len(dropped))} that later questions needed, {_by_kind(dropped)}.")
    if pushed:
        lines.append(
            f"Kept but pushed out of the budget before their question: {_statements(len(pushed))}, "
            f"{_by_kind([label for label, _ in pushed])}."
        )
    if unneeded:
        lists_facts = any(suite.stated(task) for task in stream.tasks)
        untracked = [x for x in unneeded if not x.tracked] if lists_facts else []
        # the topics that set apart what is never worth its room: the chatter where the suite lists
        # its facts (a fact never asked here may be asked in the next window), else every unneeded one
        facts = [x.text for x in labels if x.needed_by or (lists_facts and x.tracked)]
        topics = _topics(untracked if lists_facts else unneeded, facts)
        superseded = sum(x.label == "superseded" for x in unneeded)
        lines.append(
            f"Kept {_statements(len(unneeded))} no later question needed ({sum(len(x.text) for x in unneeded)} "
            f"characters{f'; {superseded} superseded by a later change' if superseded else ''}), "
            f"{'' if lists_facts else topics}e.g. {_examples(unneeded, examples)}."
        )
        if untracked:
            lines.append(
                f"Of those, {_statements(len(untracked))} {'states' if len(untracked) == 1 else 'state'} no fact "
                f"this world keeps track of ({sum(len(x.text) for x in untracked)} characters), "
                f"{topics}e.g. {_examples(untracked, examples)}."
            )
    lines += [
        f"{x.task_id}: dropped [{x.number}] {_quote(x.text)}; {x.needed_by[0].question_id} asked "
        f"{_quote(x.needed_by[0].question)} {_later([x.needed_by[0].after])}."
        for x in dropped[:examples]
    ]
    return lines + [line for _, line in pushed[:examples]]
