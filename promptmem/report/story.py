"""A run's story from its op trace: the notes at each step, and for each question the note
that held its answer or the write that lost it. Pure functions of a run directory and the
suite's ground truth (``Suite.evidence``); no LM call."""

from __future__ import annotations

from promptmem.memory import StepReplay, replay_steps
from promptmem.recall import line_holds
from promptmem.runner import StreamResult
from promptmem.tasks import Evidence, Fact


def replay(result: StreamResult) -> tuple[list[dict[str, str]], list[StepReplay]]:
    """The notes (id -> text) *before* each task's write, and each task's step (its effect on
    the notes: what its write added or changed, what it dropped)."""
    start = {n["id"]: n["text"] for n in result.initial_notes}
    steps = replay_steps(result.trace, [r.task_id for r in result.records], start)
    return [step.before for step in steps], steps


def _holding(notes: dict[str, str], facts: tuple[Fact, ...]) -> str | None:
    return next((f"[{i}] {t}" for i, t in notes.items() if any(line_holds([t], f) for f in facts)), None)


def question_story(
    evidence: Evidence | None,
    position: int,
    before: list[dict[str, str]],
    steps: list[StepReplay],
    positions: dict[str, int],
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
        return f"never written: the write after {steps[at].step} kept nothing holding it"
    for later in range(at + 1, position):
        if not _holding(before[later + 1] if later + 1 < len(before) else {}, evidence.needed):
            lost = next((t for t in steps[later].dropped if any(line_holds([t], f) for f in evidence.needed)), "")
            return f"written after {steps[at].step}, lost by the write after {steps[later].step}" + (
                f" (dropped: {lost})" if lost else ""
            )
    return "written, but not kept"
