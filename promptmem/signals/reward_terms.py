"""The terms role rewards are made of: one write's or one answer's reward, from the state it
was made in, built on the same scoring and memory code as the report and GEPA.

- Writer recall: where the suite knows the next questions' answers, the notes recall of those
  questions in the memory the write leaves (no actor calls: the cheap, clean writer signal).
- Writer credit (RIME / Memory-R2), elsewhere: a writer completion is applied to a copy of the memory
  snapshot its prompt was rendered from, the actor answers the next k questions from that
  memory, and the reward is their mean score minus the recent-k baseline of the state,
  minus a penalty when the completion does not parse. Every completion of a GRPO group
  starts from the same snapshot, so group advantages compare like with like.
- Actor reward: task score + λ × discovery, where discovery counts the key facts of the
  task that the following write newly got right in memory (an addition or a corrected
  belief); restating what the notes already held earns nothing. Exact where the suite states
  the task's facts (``Suite.stated``); elsewhere an LM judge (``programs.judge.DiscoveryJudge``).

``role_rewards.RoleRewards``, the TRL reward function (``f(prompts, completions, **columns)``)
over trace rows, combines these terms; both roles re-use the agent's own parsing (adapter +
``Writer.to_write``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from statistics import mean

from promptmem.feedback import holding_fact
from promptmem.memory import InMemoryStore, Note, Snapshot
from promptmem.recall import notes_recall
from promptmem.roles import Write
from promptmem.tasks import Suite, Task

AnswerFn = Callable[[str, Task], str]  # (rendered notes, task) -> answer
DiscoveryFn = Callable[[Sequence[Note], Sequence[Note], Task], float]  # e.g. programs.judge.DiscoveryJudge


@dataclass(frozen=True)
class WriterState:
    """A writer prompt's state: the memory it saw, the task just done, what comes next, and
    ``baseline`` = the mean score of the previous k questions (RIME's recent-k)."""

    snapshot: Snapshot
    budget: int
    task: Task
    next_tasks: tuple[Task, ...]
    baseline: float


def memory_after(state: WriterState, write: Write) -> InMemoryStore:
    """A fresh copy of the state's memory with the write's ops applied."""
    memory = InMemoryStore(state.budget)
    memory.restore(state.snapshot)
    memory.apply(write.ops, step=state.task.id)
    return memory


def writer_credit(
    state: WriterState, write: Write, answer_fn: AnswerFn, suite: Suite, parse_penalty: float = 0.5
) -> float:
    """Next-k score after this write, minus the recent-k baseline, minus ``parse_penalty``
    when the write was (partly) unusable (``write.error``)."""
    memory = memory_after(state, write)
    questions = [t for t in state.next_tasks if t.is_question]
    score = (
        mean(suite.score(t, answer_fn(memory.render(t.question), t)).score for t in questions)
        if questions
        else state.baseline
    )
    return score - state.baseline - (parse_penalty if write.error else 0.0)


def writer_recall(state: WriterState, write: Write, suite: Suite, parse_penalty: float = 0.5) -> float | None:
    """Mean notes recall (``promptmem.recall``) of the next questions after this write, over
    those whose answers the suite knows, minus ``parse_penalty`` when the write was (partly)
    unusable; None when the suite knows none of them. No LM call."""
    memory = memory_after(state, write)
    known = [
        r
        for r in (notes_recall(suite.evidence(t), memory.render(t.question)) for t in state.next_tasks if t.is_question)
        if r is not None
    ]
    return mean(known) - (parse_penalty if write.error else 0.0) if known else None


def _by_id(notes: Sequence[Note]) -> dict[str, str]:
    return {note.id: note.text for note in notes}


def discovery(
    before: Sequence[Note], after: Sequence[Note], task: Task, suite: Suite, judge: DiscoveryFn | None = None
) -> float:
    """Share of the facts the task states (``suite.stated``) that ``after`` holds and ``before``
    did not; where the suite states none, ``judge(before, after, task)``, or 0."""
    facts = suite.stated(task)
    if not facts:
        return judge(before, after, task) if judge else 0.0
    was, now = _by_id(before), _by_id(after)
    gained = [f for f in facts if holding_fact(now, f) and not holding_fact(was, f)]
    return len(gained) / len(facts)


def actor_reward(
    score: float,
    before: Sequence[Note],
    after: Sequence[Note],
    task: Task,
    suite: Suite,
    weight: float = 0.5,
    judge: DiscoveryFn | None = None,
) -> float:
    """Task score plus ``weight`` × discovery of the write that followed the answer."""
    return score + weight * discovery(before, after, task, suite, judge)


def completion_text(completion) -> str:
    """TRL passes a string (plain prompts) or a list of chat messages (chat prompts)."""
    return completion if isinstance(completion, str) else completion[-1]["content"]
