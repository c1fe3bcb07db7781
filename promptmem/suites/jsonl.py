"""``jsonl``: any user file, one stream per line.

Line format::

    {"stream_id": str, "tasks": [{"id": str, "observation": str, "question": str | null,
      "answer": str | [str] | null, "scorer": "exact"|"f1"|"contains"|"numeric", "meta": {}}]}

The whole file is validated before anything runs: the first problem raises
``JsonlFormatError`` naming the line, the task and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from promptmem.scoring import SCORERS, score_answer
from promptmem.tasks import Outcome, Stream, Task


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
    answer = raw.get("answer")
    answers = [answer] if isinstance(answer, str) else answer
    if answers is None:
        answers = []
    if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
        _fail(path, line, f"{where}.answer", "must be a string, a list of strings or null")
    if question is not None and not answers:
        _fail(path, line, f"{where}.answer", "a task with a question needs a gold answer")
    scorer = raw.get("scorer", "exact")
    if scorer not in SCORERS:
        _fail(path, line, f"{where}.scorer", f"{scorer!r} is not one of {sorted(SCORERS)}")
    meta = raw.get("meta", {})
    if not isinstance(meta, dict):
        _fail(path, line, f"{where}.meta", "must be an object")
    return Task(task_id, observation, question, tuple(answers), scorer, meta)


def _parse_line(text: str, path: Path, line: int) -> Stream:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as err:
        _fail(path, line, "", f"not valid JSON ({err.msg} at column {err.colno})")
    if not isinstance(raw, dict):
        _fail(path, line, "", "must be a JSON object")
    stream_id = raw.get("stream_id")
    if not isinstance(stream_id, str) or not stream_id:
        _fail(path, line, "stream_id", "must be a non-empty string")
    tasks = raw.get("tasks")
    if not isinstance(tasks, list) or not tasks:
        _fail(path, line, "tasks", "must be a non-empty list")
    parsed = tuple(_parse_task(task, path, line, i) for i, task in enumerate(tasks))
    seen: set[str] = set()
    for task in parsed:
        if task.id in seen:
            _fail(path, line, f"tasks (id {task.id!r})", "duplicate task id")
        seen.add(task.id)
    return Stream(stream_id, parsed)


def load_streams(path: str | Path) -> list[Stream]:
    """Every stream in the file, or a ``JsonlFormatError`` for the first malformed line."""
    path = Path(path)
    if not path.is_file():
        raise JsonlFormatError(f"{path}: no such file")
    streams, seen = [], {}
    for line, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
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
    breakdown_keys = ()

    def __init__(self, path: str | Path, budget: int = 800):
        self.path = Path(path)
        self._streams = load_streams(self.path)
        self.notes_budget = budget

    def streams(self, n: int, seed: int = 0) -> list[Stream]:
        """The first n streams of the file (``seed`` is unused: the file fixes the order)."""
        return self._streams[:n]

    def score(self, task: Task, answer: str) -> Outcome:
        score = score_answer(task.scorer, answer, task.answer)
        if score >= 1.0:
            return Outcome(score, "Correct.")
        gold = " | ".join(task.answer)
        return Outcome(score, f"Score {score:.2f}. Expected: {gold}.")

    def describe(self) -> dict:
        return {"name": self.name, "path": str(self.path), "budget": self.notes_budget}
