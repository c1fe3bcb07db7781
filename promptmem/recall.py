"""Notes recall: did the notes the actor is shown for a question hold its answer?

A pure function of the suite's ground truth (``Suite.evidence``) and the shown notes (the
store's ``render(question)``, i.e. after retrieval with ``--top-k``): no LM call. It separates
the writer's part of a miss from the actor's, and it is the cheap objective of
``promptmem optimize --objective recall`` (the writer runs alone; no actor calls).
"""

from __future__ import annotations

import re

from promptmem.tasks import Evidence, Fact

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _holds(text: str, value: str) -> bool:
    """``value`` appears in ``text`` as whole words (case-insensitively)."""
    words = _words(value)
    if not words:
        return False
    return re.search(r"\b" + r"\W+".join(map(re.escape, words)) + r"\b", text.lower()) is not None


def line_holds(lines: list[str], fact: Fact) -> bool:
    """One line of the notes holds the fact's value (and its subject, where it has one)."""
    return any(_holds(line, fact.value) and (not fact.subject or _holds(line, fact.subject)) for line in lines)


def _word_share(text: str, value: str) -> float:
    wanted, present = set(_words(value)), set(_words(text))
    return len(wanted & present) / len(wanted) if wanted else 0.0


def notes_recall(evidence: Evidence | None, shown: str) -> float | None:
    """1.0 when ``shown`` holds a needed fact (value and subject on one line) and no stale
    value of it; 0.0 otherwise. ``partial`` evidence scores the best share of a needed value's
    words present in ``shown``. None when memory is not needed (no evidence, or the answer is
    in the question's own observation)."""
    if evidence is None or evidence.current or not evidence.needed:
        return None
    if evidence.partial:
        return max(_word_share(shown, fact.value) for fact in evidence.needed)
    lines = shown.splitlines()
    stale = any(line_holds(lines, Fact(value, fact.subject)) for value in evidence.stale for fact in evidence.needed)
    return float(not stale and any(line_holds(lines, fact) for fact in evidence.needed))
