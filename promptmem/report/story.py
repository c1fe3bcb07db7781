"""A run's story from its op trace: the notes at each step, and for each question the note
that held its answer or the write that lost it. Pure functions of a run directory and the
suite's ground truth (``Suite.evidence``); no LM call."""

from __future__ import annotations

from dataclasses import dataclass

from promptmem.memory import replay_entry
from promptmem.recall import line_holds
from promptmem.runner import StreamResult
from promptmem.tasks import Evidence, Fact


@dataclass(frozen=True)
class Step:
    """One task's effect on the notes: what its write added or changed, and what it dropped."""

    task_id: str
    written: tuple[str, ...]
    dropped: tuple[str, ...]
    notes: int


def replay(result: StreamResult) -> tuple[list[dict[str, str]], list[Step]]:
    """The notes (id -> text) *before* each task's write, and each task's step."""
    notes: dict[str, str] = {}
    by_step: dict[str, list[dict]] = {}
    for entry in result.trace:
        by_step.setdefault(entry["step"], []).append(entry)
    before, steps = [], []
    for record in result.records:
        before.append(dict(notes))
        written, dropped = [], []
        for entry in by_step.get(record.task_id, []):
            lost = replay_entry(notes, entry)
            dropped += [lost] if lost else []
            if entry["applied"] and entry["kind"] in ("ADD", "UPDATE"):
                written.append(entry["text"])
        steps.append(Step(record.task_id, tuple(written), tuple(dropped), len(notes)))
    return before, steps


def _holding(notes: dict[str, str], facts: tuple[Fact, ...]) -> str | None:
    return next((f"[{i}] {t}" for i, t in notes.items() if any(line_holds([t], f) for f in facts)), None)


def question_story(
    evidence: Evidence | None, position: int, before: list[dict[str, str]], steps: list[Step], positions: dict[str, int]
) -> str:
    """Why the notes did or did not hold a question's answer, in one sentence."""
    if evidence is None or not evidence.needed:
        return "no ground truth for this question"
    if evidence.current:
        return "the answer is in the question's own observation"
    held = _holding(before[position], evidence.needed)
    if held:
        return f"the notes held it: {held}"
    if evidence.partial:
        return "no single note held the answer"
    stated = [positions[t] for t in evidence.stated_in if t in positions and positions[t] < position]
    if not stated:
        return "stated outside this stream"
    at = stated[-1]
    if not _holding({str(i): t for i, t in enumerate(steps[at].written)}, evidence.needed):
        return f"never written: the write after {steps[at].task_id} kept nothing holding it"
    for later in range(at + 1, position):
        if not _holding(before[later + 1] if later + 1 < len(before) else {}, evidence.needed):
            lost = next((t for t in steps[later].dropped if any(line_holds([t], f) for f in evidence.needed)), "")
            return f"written after {steps[at].task_id}, lost by the write after {steps[later].task_id}" + (
                f" (dropped: {lost})" if lost else ""
            )
    return "written, but not kept"
