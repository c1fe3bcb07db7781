"""``locomo``: the LoCoMo long-conversation memory benchmark (official JSON schema).

A conversation becomes one stream. Each session is an observe-only task (its date and
turns, speakers named, shared photos as their captions); each QA item is a question task
placed right after the session holding its last evidence turn, or all at the end
(``questions_at_end``). Scoring follows the official evaluation (``locomo_scoring``);
category 5 (adversarial) is asked and reported per category but kept out of the headline
score, as in the papers. ``evidence`` credits the sessions named by a QA item's evidence
dialogue ids; the suite does not know which facts a session states.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from promptmem.suites.locomo_scoring import CATEGORIES, bleu1, category_gold, exact_match, locomo_f1
from promptmem.tasks import Evidence, Fact, Outcome, Stream, Task

_EVIDENCE = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"^session_(\d+)$")


class LocomoFormatError(ValueError):
    """A malformed LoCoMo file; the message names the conversation and the field."""


def _fail(where: str, problem: str) -> None:
    raise LocomoFormatError(f"{where}: {problem}")


def _turn_text(turn: Any, where: str) -> str:
    if not isinstance(turn, dict) or not isinstance(turn.get("speaker"), str) or not isinstance(turn.get("text"), str):
        _fail(where, "each turn needs a 'speaker' and a 'text' string")
    caption = turn.get("blip_caption")
    photo = f" [shares a photo: {caption}]" if isinstance(caption, str) and caption else ""
    return f"{turn['speaker']}: {turn['text']}{photo}"


def _sessions(conv: Any, where: str) -> list[tuple[int, str, str]]:
    if not isinstance(conv, dict):
        _fail(f"{where}.conversation", "missing or not an object")
    numbers = sorted(int(m.group(1)) for key in conv if (m := _SESSION.match(key)))
    if not numbers:
        _fail(f"{where}.conversation", "holds no session_N lists")
    sessions = []
    for n in numbers:
        turns, date = conv[f"session_{n}"], conv.get(f"session_{n}_date_time", "")
        if not isinstance(turns, list):
            _fail(f"{where}.conversation.session_{n}", "must be a list of turns")
        lines = [_turn_text(t, f"{where}.conversation.session_{n}[{i}]") for i, t in enumerate(turns)]
        sessions.append((n, date, f"Session {n} ({date}):\n" + "\n".join(lines)))
    return sessions


def session_id(n: int) -> str:
    """The id of session ``n``'s observe-only task."""
    return f"s{n:02d}"


def evidence_sessions(evidence: list) -> list[int]:
    """The session numbers named by a QA item's evidence dialogue ids ("D3:5"), ascending."""
    return sorted({int(s) for item in evidence for s, _ in _EVIDENCE.findall(str(item))})


def _qa_task(qa: Any, index: int, where: str, last_session: int) -> tuple[int, Task]:
    where = f"{where}.qa[{index}]"
    if not isinstance(qa, dict) or not isinstance(qa.get("question"), str):
        _fail(where, "needs a 'question' string")
    category = qa.get("category")
    if category not in CATEGORIES:
        _fail(f"{where}.category", f"{category!r} is not one of {sorted(CATEGORIES)}")
    gold = qa.get("adversarial_answer" if category == 5 else "answer", qa.get("answer"))
    if gold is None:
        _fail(f"{where}.answer", "missing")
    if not str(gold).strip():
        _fail(f"{where}.answer", "is empty: a question needs a gold answer it can be scored against")
    session = max(evidence_sessions(qa.get("evidence") or []), default=last_session)
    meta = {
        "category": category,
        "category_name": CATEGORIES[category],
        "evidence": qa.get("evidence") or [],
        "evidence_session": session,
        "headline": category != 5,
    }
    task = Task(
        id=f"q{index:03d}", observation="", question=qa["question"], answer=(str(gold),), scorer="locomo", meta=meta
    )
    return min(session, last_session), task


def evenly_spaced(items: list, n: int | None) -> list:
    """``n`` items spread evenly over the list, in order (all of them when n is None or >= len)."""
    if n is None or n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def conversation_stream(raw: Any, index: int, questions_at_end: bool = False, questions: int | None = None) -> Stream:
    """One LoCoMo conversation as a stream (sessions, with questions after their evidence);
    ``questions`` keeps an evenly spaced sample of that many QA items (file order)."""
    sample_id = raw.get("sample_id") if isinstance(raw, dict) else None
    where = f"conversation {sample_id or f'#{index}'}"
    if not isinstance(raw, dict):
        _fail(where, "must be an object")
    sessions = _sessions(raw.get("conversation"), where)
    if not isinstance(raw.get("qa"), list):
        _fail(f"{where}.qa", "missing or not a list")
    last = sessions[-1][0]
    placed = evenly_spaced([_qa_task(qa, i, where, last) for i, qa in enumerate(raw["qa"])], questions)
    tasks = []
    for n, date, text in sessions:
        meta = {"session": n, "time": date} if date else {"session": n}
        tasks.append(Task(id=session_id(n), observation=text, question=None, meta=meta))
        if not questions_at_end:
            tasks += [task for session, task in placed if session == n]
    if questions_at_end:
        tasks += [task for _, task in placed]
    return Stream(id=str(sample_id or f"locomo-{index}"), tasks=tuple(tasks))


def load_locomo(path: str | Path, questions_at_end: bool = False, questions: int | None = None) -> list[Stream]:
    """Every conversation in an official LoCoMo JSON file, or a ``LocomoFormatError``."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise LocomoFormatError(f"{path}: cannot read ({err.strerror})") from err
    except json.JSONDecodeError as err:
        raise LocomoFormatError(f"{path}: not valid JSON ({err.msg} at line {err.lineno})") from err
    except RecursionError:
        raise LocomoFormatError(f"{path}: nested too deep to read (objects or lists inside each other)") from None
    except UnicodeDecodeError as err:
        raise LocomoFormatError(
            f"{path}: not UTF-8 text (byte {err.object[err.start]:#04x} at offset {err.start}); save the file as UTF-8"
        ) from err
    if not isinstance(data, list) or not data:
        raise LocomoFormatError(f"{path}: expected a non-empty list of conversations")
    try:
        streams = [conversation_stream(raw, i, questions_at_end, questions) for i, raw in enumerate(data)]
    except LocomoFormatError as err:
        raise LocomoFormatError(f"{path}, {err}") from None
    first: dict[str, int] = {}
    for index, stream in enumerate(streams):
        if stream.id in first:
            raise LocomoFormatError(
                f"{path}: conversations #{first[stream.id]} and #{index} share the sample_id {stream.id!r}; "
                "give each conversation its own"
            )
        first[stream.id] = index
    return streams


class LocomoSuite:
    """LoCoMo conversations as streams; score = the official per-category F1."""

    name = "locomo"
    about = "LoCoMo long conversations (--data locomo10.json): sessions, then QA by category"
    from_file = True
    breakdown_keys = ("category_name",)

    def __init__(
        self, path: str | Path, questions_at_end: bool = False, budget: int = 2000, questions: int | None = None
    ):
        self.path, self.questions_at_end, self.questions = Path(path), questions_at_end, questions
        self._streams = load_locomo(self.path, questions_at_end, questions)
        self.notes_budget = budget

    @classmethod
    def from_options(cls, data: str, questions_at_end: bool = False, questions: int | None = None) -> LocomoSuite:
        """The conversations of the LoCoMo file ``data``; ``questions_at_end`` asks every question
        after the last session, ``questions`` keeps N evenly spaced ones per conversation."""
        return cls(data, questions_at_end, questions=questions)

    def streams(self, n: int, seed: int = 0) -> list[Stream]:
        """n conversations in file order, from the ``seed``-th (0: the first; the file fixes the order)."""
        return self._streams[seed : seed + n]

    def score(self, task: Task, answer: str) -> Outcome:
        category, gold = task.meta["category"], task.answer[0]
        f1 = locomo_f1(answer, gold, category)
        reference = category_gold(gold, category)
        metrics = {"f1": f1, "bleu1": bleu1(answer, reference), "em": exact_match(answer, reference)}
        if category == 5:
            expected = "that the conversation does not say (answer 'no information available')"
        else:
            expected = reference
        return Outcome(f1, f"F1 {f1:.2f}. Expected: {expected}.", metrics)

    def evidence(self, task: Task) -> Evidence | None:
        """The gold answer (as scored for its category) as a partial fact, stated in the
        sessions holding the QA item's evidence turns; None for adversarial (category 5)
        questions, whose answer is not in the conversation."""
        if not task.is_question or task.meta["category"] == 5:
            return None
        sessions = evidence_sessions(task.meta["evidence"])
        gold = category_gold(task.answer[0], task.meta["category"])
        return Evidence(needed=(Fact(gold),), stated_in=tuple(map(session_id, sessions)), partial=True)

    def stated(self, task: Task) -> tuple[Fact, ...]:
        """Unknown: LoCoMo does not list the facts a session states."""
        return ()

    def describe(self) -> dict:
        return {
            "name": self.name,
            "path": str(self.path),
            "questions_at_end": self.questions_at_end,
            "questions": self.questions,
            "budget": self.notes_budget,
        }
