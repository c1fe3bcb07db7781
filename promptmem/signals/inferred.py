"""Annotations inferred from gold answers alone, for streams that carry nothing else.

A user's training streams have gold answers; where a question says nothing of where its answer
was stated, what changed it or which facts the world tracks, ``infer_streams`` reads that off the
training streams themselves, and ``InferredSuite`` serves it to the hindsight labels
(``signals.hindsight``) in the suite's own terms (``Evidence`` and ``Suite.stated``):

- **where it was stated**: of the statements up to the question holding a gold answer
  (``recall.line_holds``), the latest of those sharing the most subject words with the question
  (``subject_words``: words and hyphenated names, not generic ones, not the questions' common
  wording); the rarest shared word becomes the fact's subject. A question whose own observation
  holds it that way is ``current`` (memory not needed);
- **what changed it**: when the same question (same text) is asked again with another gold
  answer, the statement that stated the new answer updated it, and the old answers are stale;
- **what the world tracks**: every statement naming a subject some question of the training
  streams asked about (digits read as ``#``: INC-9035 stands for every ticket), asked in this
  stream or not, unless it uses a word that five or more statements use and no answer-stating
  one does ("lint warnings", "dashboard panels": what no question asks about). A statement
  names a subject when it holds the subject's whole phrase: the words a question shares with
  every statement that stated its answer ("memory alert", not "memory" alone: "Current memory:
  85%" is a reading, not the alert's threshold);
- **what kind of question it is** (``meta.kind``, where a task has none): the wording words it
  uses ("how many jars of honey are left? reply with a number" -> ``many+number+reply``), so
  that a newer note answering a question of the same kind is known as a look-alike.

What a stream's suite already says wins: a question with its own origin (``revealed_in``) keeps
its evidence, and a stream whose suite lists facts (``meta.states``) keeps them. Read training
streams only: the inference reads later questions' answers.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from functools import partial

from promptmem.programs.select import statements
from promptmem.recall import line_holds
from promptmem.signals.topics import GENERIC_WORDS, stem
from promptmem.tasks import Evidence, Fact, Stream, Suite, Task

INFERRED = "inferred"  # the meta key of a task's inferred annotations
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")  # a word, or a hyphenated name (INC-9035, billing-api)
_GENERIC = frozenset(stem(word) for word in GENERIC_WORDS)
NEVER_USES = 5  # a word in this many statements, none stating an answer, marks what no question asks
TEMPLATE_SHARE = 0.2  # a word in more than this share of distinct questions is wording, not a subject


def _annotations(evidence: Evidence | None, stated: tuple[Fact, ...]) -> dict:
    """A task's inferred annotations as JSON-ready data (run records copy a task's meta): its
    question's evidence (None: not a question needing memory, or the suite's own) and the
    facts its observation states."""
    return {"evidence": asdict(evidence) if evidence else None, "stated": [asdict(fact) for fact in stated]}


def _evidence_of(data: dict) -> Evidence:
    needed = tuple(Fact(**fact) for fact in data["needed"])
    return Evidence(**{**data, "needed": needed, **{k: tuple(data[k]) for k in ("stated_in", "updated_in", "stale")}})


def subject_words(text: str) -> set[str]:
    """The words of ``text`` that can name what a fact is about, stemmed and lowercased: three
    or more characters with a letter, not generic (``signals.topics.GENERIC_WORDS``)."""
    tokens = (t for t in _TOKEN.findall(text) if len(t) > 2 and any(c.isalpha() for c in t))
    return {stem(t.lower()) for t in tokens} - _GENERIC


def shapes(words: set[str]) -> set[str]:
    """The words with digits as ``#``: INC-9035 and INC-5024 name things of one kind."""
    return {re.sub(r"[0-9]+", "#", word) for word in words}


def _question_text(task: Task) -> str:
    return " ".join((task.question or "").lower().split())


def template_words(streams: Sequence[Stream]) -> set[str]:
    """The subject words of the questions' wording: in two or more, and more than ``TEMPLATE_SHARE``,
    of the distinct question texts of ``streams``."""
    texts = {_question_text(t) for s in streams for t in s.tasks if t.is_question}
    counts = Counter(word for text in texts for word in subject_words(text))
    return {word for word, n in counts.items() if n >= 2 and n > TEMPLATE_SHARE * len(texts)}


def question_kind(task: Task, wording: set[str]) -> str:
    """The kind of ``task``'s question: its wording words, sorted, joined by ``+``."""
    return "+".join(sorted(subject_words(task.question or "") & wording))


@dataclass(frozen=True)
class Vocabulary:
    """The words of the training streams: the questions' wording (``template_words``) and how
    many statements use each subject word (the rarer, the more it names one thing)."""

    wording: frozenset[str]
    frequency: Counter

    @classmethod
    def of(cls, streams: Sequence[Stream]) -> Vocabulary:
        shown = (text for s in streams for t in s.tasks for text in statements(t.observation))
        return cls(frozenset(template_words(streams)), Counter(w for text in shown for w in subject_words(text)))

    def subject(self, text: str, words: set[str]) -> str:
        """The token of ``text`` naming the rarest of ``words`` (ties: the longest), as written."""
        tokens = [t for t in _TOKEN.findall(text) if stem(t.lower()) in words]
        return min(tokens, key=lambda t: (self.frequency[stem(t.lower())], -len(t)), default="")


def _origin(task: Task, shown: list[list[str]], q: int, vocabulary: Vocabulary) -> tuple[int, str, str] | None:
    """(index of the task stating ``task``'s answer, the statement, the subject word), or None: the latest
    statement up to ``q`` holding a gold answer and sharing the most subject words with the
    question (any holding one when none shares a word)."""
    asked = subject_words(task.question or "") - vocabulary.wording
    best: tuple[int, int, str, str] | None = None  # (shared words, index, statement, subject)
    for p in range(q + 1):
        for text in shown[p]:
            if not any(line_holds([text], Fact(answer)) for answer in task.answer):
                continue
            shared = subject_words(text) & asked
            if best is None or (len(shared), p) >= best[:2]:
                best = (len(shared), p, text, vocabulary.subject(text, shared))
    return None if best is None else best[1:]


def _evidence(
    stream: Stream, suite: Suite, shown: list[list[str]], vocabulary: Vocabulary
) -> tuple[dict[int, Evidence], list[tuple[str, str]]]:
    """The inferred evidence of each question of ``stream`` that needs memory, by index, and the
    statements that stated their answers (with the question's text)."""
    found: dict[int, Evidence] = {}
    stating = []
    history: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {}  # text -> answers, updates, stale
    for q, task in enumerate(stream.tasks):
        own = suite.evidence(task) if task.is_question else None
        if own is None or own.stated_in or own.current or own.partial:
            continue
        origin = _origin(task, shown, q, vocabulary)
        if origin is None:
            continue
        p, statement, subject = origin
        question = _question_text(task)
        stating.append((question, statement))
        answers, updates, stale = history.get(question, (task.answer, (), ()))
        if set(answers) != set(task.answer):
            updates = (*updates, stream.tasks[p].id)
            stale = tuple(dict.fromkeys((*stale, *answers)))
        history[question] = (task.answer, updates, stale)
        found[q] = Evidence(
            needed=tuple(Fact(answer, subject) for answer in task.answer),
            stated_in=(stream.tasks[p].id,),
            updated_in=updates,
            stale=tuple(v for v in stale if v not in task.answer),
            current=p == q,
        )
    return found, stating


def subject_phrases(stating: Sequence[tuple[str, str]], wording: frozenset[str]) -> set[frozenset[str]]:
    """The subjects asked about, each as its phrase: per question text, the subject words (digits
    as ``#``) the question shares with every statement that stated its answer, from ``stating``'s
    (question text, statement) pairs; a statement sharing none with its question gives none."""
    shared: dict[str, list[set[str]]] = {}
    for question, statement in stating:
        words = shapes(subject_words(statement) & (subject_words(question) - wording))
        shared.setdefault(question, []).extend([words] if words else [])
    return {frozenset(set.intersection(*sets)) for sets in shared.values() if sets} - {frozenset()}


def _tracked(text: str, asked: set[frozenset[str]], never: set[str]) -> bool:
    """Whether a statement states a fact the world tracks (see the module): it holds the whole
    phrase of a subject asked about, and no word of what no question asks."""
    words = shapes(subject_words(text))
    return any(phrase <= words for phrase in asked) and not words & never


def _inferred_tasks(
    stream: Stream, suite: Suite, shown, evidence, tracked: Callable[[str], bool], wording
) -> tuple[Task, ...]:
    """``stream``'s tasks with their inferred annotations (``meta["inferred"]``) and kinds."""
    lists_facts = any(suite.stated(task) for task in stream.tasks)
    return tuple(
        replace(
            task,
            meta={
                **({"kind": question_kind(task, wording)} if task.is_question else {}),
                **task.meta,
                INFERRED: _annotations(
                    evidence.get(q),
                    suite.stated(task) if lists_facts else tuple(Fact(text) for text in shown[q] if tracked(text)),
                ),
            },
        )
        for q, task in enumerate(stream.tasks)
    )


def infer_streams(streams: Sequence[Stream], suite: Suite) -> list[Stream]:
    """``streams`` with every task's inferred annotations in ``meta["inferred"]``, read by
    ``InferredSuite``; the subjects asked about come from all of ``streams``."""
    vocabulary = Vocabulary.of(streams)
    shown = {s.id: [statements(task.observation) for task in s.tasks] for s in streams}
    inferred = {s.id: _evidence(s, suite, shown[s.id], vocabulary) for s in streams}
    evidence = {stream_id: found for stream_id, (found, _) in inferred.items()}
    pairs = [pair for _, texts in inferred.values() for pair in texts]
    stating = [statement for _, statement in pairs]
    asked = subject_phrases(pairs, vocabulary.wording)
    values = {w for s in streams for t in s.tasks for a in t.answer for w in shapes(subject_words(a))}
    never = _never_words(shown, stating) - values
    return [
        replace(
            s,
            tasks=_inferred_tasks(
                s, suite, shown[s.id], evidence[s.id], partial(_tracked, asked=asked, never=never), vocabulary.wording
            ),
        )
        for s in streams
    ]


def _never_words(shown: dict[str, list[list[str]]], stating: list[str]) -> set[str]:
    """Words of ``NEVER_USES`` or more statements of which none stated an answer (lint warnings,
    dashboard panels: what the world says of a subject that no question asks; answers' own
    words, Friday, are values, not topics, and are left out by the caller)."""
    used = Counter(
        w for texts in shown.values() for task in texts for text in task for w in shapes(subject_words(text))
    )
    needed = {w for text in stating for w in shapes(subject_words(text))}
    return {word for word, n in used.items() if n >= NEVER_USES and word not in needed}


class InferredSuite:
    """``base`` answering ``evidence`` and ``stated`` from a task's inferred annotations
    (``infer_streams``) where it has them; everything else is ``base``'s."""

    def __init__(self, base: Suite):
        self.base = base

    def __getattr__(self, name: str):
        return getattr(self.base, name)

    def evidence(self, task: Task) -> Evidence | None:
        inferred = (task.meta.get(INFERRED) or {}).get("evidence")
        return _evidence_of(inferred) if inferred else self.base.evidence(task)

    def stated(self, task: Task) -> tuple[Fact, ...]:
        inferred = task.meta.get(INFERRED)
        return tuple(Fact(**fact) for fact in inferred["stated"]) if inferred else self.base.stated(task)
