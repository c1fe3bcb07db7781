"""``jsonl``: any user file, one stream per line.

Line format::

    {"stream_id": str, "tasks": [{"id": str, "observation": str, "question": str | null,
      "answer": str | [str] | null, "scorer": "exact"|"f1"|"contains"|"numeric", "meta": {}}]}

``meta`` is free, except for these optional ground-truth fields, which feedback, notes recall
and the GRPO rewards read (through ``evidence`` and ``stated``). On a question task::

    "subject": str            what the answer is about; notes must name it next to the value
    "revealed_in": id | [id]  the task(s) whose observation stated the current answer
    "updated_in": id | [id]   the task(s) that changed it, oldest first
    "stale": [str]            values it held before, wrong now
    "current": bool           the answer is in this task's own observation (memory not needed)

and on any task ``"states": [{"value": str, "subject": str}]``, the facts its observation
states or changes (``subject`` optional). Ids name this task or an earlier one of the same
stream. Without these fields a question needs any one of its gold answers, with no subject
and no known origin.

The whole file is validated before anything runs: the first problem raises
``JsonlFormatError`` naming the line, the task and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from promptmem.scoring import SCORERS, score_answer, unscorable
from promptmem.tasks import Evidence, Fact, Outcome, Stream, Task


class JsonlFormatError(ValueError):
    """A malformed streams file; the message names the line and the field at fault."""


def _fail(path: Path, line: int, where: str, problem: str) -> None:
    raise JsonlFormatError(f"{path}, line {line}{', ' + where if where else ''}: {problem}")


def _parse_task(raw: Any, path: Path, line: int, index: int) -> Task:
    where = f"tasks[{index}]"
    if not isinstance(raw, dict):
        _fail(path, line, where, f"must be an object, got {type(raw).__name__}")
    unknown = set(raw) - {"id", "observation", "question", "answer", "scorer", "meta"}
    if unknown:
        _fail(path, line, where, f"unknown field(s) {sorted(unknown)}")
    task_id = raw.get("id")
    if not isinstance(task_id, str) or not task_id:
        _fail(path, line, f"{where}.id", "must be a non-empty string")
    where = f"tasks[{index}] (id {task_id!r})"
    observation = raw.get("observation", "")
    if not isinstance(observation, str):
        _fail(path, line, f"{where}.observation", "must be a string")
    question = raw.get("question")
    if question is not None and not isinstance(question, str):
        _fail(path, line, f"{where}.question", "must be a string or null")
    if question is not None and not question.strip():
        _fail(path, line, f"{where}.question", "is empty; use null for a step with no question")
    answer = raw.get("answer")
    answers = [answer] if isinstance(answer, str) else answer
    if answers is None:
        answers = []
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        _fail(path, line, f"{where}.answer", "must be a string, a list of strings or null")
    if question is not None and not answers:
        _fail(path, line, f"{where}.answer", "a task with a question needs a gold answer")
    if any(not a.strip() for a in answers):
        _fail(path, line, f"{where}.answer", "holds an empty answer, which no answer can match")
    scorer = raw.get("scorer", "exact")
    if scorer not in SCORERS:
        _fail(path, line, f"{where}.scorer", f"{scorer!r} is not one of {sorted(SCORERS)}")
    for problem in filter(None, (unscorable(scorer, a) for a in answers)):
        _fail(path, line, f"{where}.answer", problem)
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        _fail(path, line, f"{where}.meta", "must be an object")
    return Task(task_id, observation, question, tuple(answers), scorer, meta)


def _ids(value: Any) -> tuple[str, ...]:
    """A task id or a list of them, as a tuple."""
    return (value,) if isinstance(value, str) else tuple(value or ())


def _is_fact(raw: Any) -> bool:
    return (
        isinstance(raw, dict)
        and set(raw) <= {"value", "subject"}
        and isinstance(raw.get("value"), str)
        and isinstance(raw.get("subject", ""), str)
    )


def _check_meta(meta: dict, known: set[str], path: Path, line: int, where: str) -> None:
    """The optional ground-truth fields of ``meta`` (module doc); ``known``: ids of this task
    and the earlier ones."""
    if not isinstance(meta.get("subject", ""), str):
        _fail(path, line, f"{where}.subject", "must be a string")
    for key in ("revealed_in", "updated_in"):
        ids = meta.get(key, [])
        if not isinstance(ids, (str, list)) or not all(isinstance(i, str) for i in _ids(ids)):
            _fail(path, line, f"{where}.{key}", "must be a task id or a list of task ids")
        unknown = [i for i in _ids(ids) if i not in known]
        if unknown:
            _fail(path, line, f"{where}.{key}", f"{unknown[0]!r} is not this task or an earlier one of the stream")
    stale = meta.get("stale", [])
    if not isinstance(stale, list) or not all(isinstance(v, str) for v in stale):
        _fail(path, line, f"{where}.stale", "must be a list of strings")
    if not isinstance(meta.get("current", False), bool):
        _fail(path, line, f"{where}.current", "must be true or false")
    states = meta.get("states", [])
    if not isinstance(states, list) or not all(_is_fact(f) for f in states):
        _fail(path, line, f"{where}.states", 'must be a list of {"value": str, "subject": str} objects')


def _no_constant(name: str) -> None:
    """Refuse NaN and Infinity, which Python's JSON reader takes and JSON does not."""
    raise ValueError(f"{name} is not a JSON value (use a number, a string or null)")


def _parse_line(text: str, path: Path, line: int) -> Stream:
    try:
        raw = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        _fail(path, line, "", f"not valid JSON ({err.msg} at column {err.colno})")
    except ValueError as err:
        _fail(path, line, "", str(err))
    except RecursionError:
        _fail(path, line, "", "nested too deep to read (objects or lists inside each other thousands of times)")
    if not isinstance(raw, dict):
        _fail(path, line, "", "must be a JSON object")
    unknown = set(raw) - {"stream_id", "tasks"}
    if unknown:
        _fail(path, line, "", f"unknown field(s) {sorted(unknown)}; a line holds stream_id and tasks")
    stream_id = raw.get("stream_id")
    if not isinstance(stream_id, str) or not stream_id:
        _fail(path, line, "stream_id", "must be a non-empty string")
    tasks = raw.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        _fail(path, line, "tasks", "must be a non-empty list")
    parsed = tuple(_parse_task(task, path, line, i) for i, task in enumerate(tasks))
    seen: set[str] = set()
    for index, task in enumerate(parsed):
        if task.id in seen:
            _fail(path, line, f"tasks (id {task.id!r})", "duplicate task id")
        seen.add(task.id)
        _check_meta(task.meta, seen, path, line, f"tasks[{index}] (id {task.id!r}).meta")
    return Stream(stream_id, parsed)


def load_streams(path: str | Path) -> list[Stream]:
    """Every stream in the file, or a ``JsonlFormatError`` for the first malformed line."""
    path = Path(path)
    if not path.is_file():
        raise JsonlFormatError(f"{path}: no such file")
    try:
        content = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        line = path.read_bytes()[: err.start].count(b"\n") + 1
        raise JsonlFormatError(
            f"{path}, line {line}: not UTF-8 text (byte {err.object[err.start]:#04x} "
            f"at offset {err.start}); save the file as UTF-8"
        ) from err
    streams, seen = [], {}
    for line, text in enumerate(content.splitlines(), start=1):
        if not text.strip():
            continue
        stream = _parse_line(text, path, line)
        if stream.id in seen:
            _fail(path, line, "stream_id", f"{stream.id!r} already used on line {seen[stream.id]}")
        seen[stream.id] = line
        streams.append(stream)
    if not streams:
        raise JsonlFormatError(f"{path}: the file holds no streams")
    return streams


class JsonlSuite:
    """Streams from a user file, scored by each task's own scorer."""

    name = "jsonl"
    about = "your own streams from a JSONL file (--data PATH), one stream per line"
    from_file = True
    breakdown_keys = ("kind", "category")  # reports break scores down by these meta keys where tasks have them

    def __init__(self, path: str | Path, budget: int = 800):
        self.path = Path(path)
        self._streams = load_streams(self.path)
        self.notes_budget = budget

    @classmethod
    def from_options(cls, data: str) -> JsonlSuite:
        """The streams of the JSONL file ``data``."""
        return cls(data)

    def streams(self, n: int, seed: int = 0) -> list[Stream]:
        """n streams of the file in file order, from the ``seed``-th (0: the first; the file fixes the order)."""
        return self._streams[seed : seed + n]

    def score(self, task: Task, answer: str) -> Outcome:
        score = score_answer(task.scorer, answer, task.answer)
        if score >= 1.0:
            return Outcome(score, "Correct.")
        gold = " | ".join(task.answer)
        return Outcome(score, f"Score {score:.2f}. Expected: {gold}.")

    def evidence(self, task: Task) -> Evidence | None:
        """Any one gold answer, about ``meta.subject``; origin, updates, stale values and
        ``current`` from the optional meta fields (module doc). None for observe-only steps."""
        if not task.is_question:
            return None
        meta = task.meta
        return Evidence(
            needed=tuple(Fact(a, meta.get("subject", "")) for a in task.answer),
            stated_in=_ids(meta.get("revealed_in")),
            updated_in=_ids(meta.get("updated_in")),
            stale=tuple(meta.get("stale", ())),
            current=meta.get("current", False),
        )

    def stated(self, task: Task) -> tuple[Fact, ...]:
        """The facts listed in ``meta.states`` (empty without it)."""
        return tuple(Fact(f["value"], f.get("subject", "")) for f in task.meta.get("states", ()))

    def describe(self) -> dict:
        return {"name": self.name, "path": str(self.path), "budget": self.notes_budget}
