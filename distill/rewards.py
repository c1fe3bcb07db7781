"""Role rewards for GRPO, built on the same scoring and memory code as the report and GEPA.

- Writer credit (RIME / Memory-R2): a writer completion is applied to a copy of the memory
  snapshot its prompt was rendered from, the actor answers the next k questions from that
  memory, and the reward is their mean score minus the recent-k baseline of the state,
  minus a penalty when the completion does not parse. Every completion of a GRPO group
  starts from the same snapshot, so group advantages compare like with like.
- Actor reward: task score + λ × discovery, where discovery counts the key facts of the
  task that the following write newly got right in memory (an addition or a corrected
  belief); restating what the notes already held earns nothing. Exact from ground truth on
  ``synthetic``.

Rewards are plain ``f(prompts, completions, **columns) -> list[float]`` for TRL.
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import mean
from typing import Callable, Mapping, Sequence

from promptmem.feedback import holding
from promptmem.memory import InMemoryStore, Note, Snapshot
from promptmem.programs.ops_format import ParsedOps, parse_ops
from promptmem.tasks import Suite, Task

AnswerFn = Callable[[str, Task], str]  # (rendered notes, task) -> answer


@dataclass(frozen=True)
class WriterState:
    """A writer prompt's state: the memory it saw, the task just done, what comes next, and
    ``baseline`` = the mean score of the previous k questions (RIME's recent-k)."""

    snapshot: Snapshot
    budget: int
    task: Task
    next_tasks: tuple[Task, ...]
    baseline: float


def memory_after(state: WriterState, parsed: ParsedOps) -> InMemoryStore:
    """A fresh copy of the state's memory with the completion's ops applied."""
    memory = InMemoryStore(state.budget)
    memory.restore(state.snapshot)
    memory.apply(parsed.ops, step=state.task.id)
    return memory


def writer_credit(state: WriterState, ops_text: str | None, answer_fn: AnswerFn, suite: Suite,
                  parse_penalty: float = 0.5) -> float:
    """Next-k score after this write, minus the recent-k baseline, minus ``parse_penalty``
    when the ops do not parse (``ops_text`` None: the completion was not even readable)."""
    parsed = parse_ops(ops_text) if ops_text is not None else ParsedOps(errors=["unreadable completion"])
    memory = memory_after(state, parsed)
    questions = [t for t in state.next_tasks if t.is_question]
    score = mean(suite.score(t, answer_fn(memory.render(t.question), t)).score
                 for t in questions) if questions else state.baseline
    return score - state.baseline - (parse_penalty if parsed.errors else 0.0)


def stated_key_facts(task: Task) -> list[tuple[str, str]]:
    """(service, value) of the key facts a synthetic task states (reveals and updates)."""
    return [(f["service"], f["value"]) for f in task.meta.get("facts", []) if f["type"] != "distractor"]


def _by_id(notes: Sequence[Note]) -> dict[str, str]:
    return {note.id: note.text for note in notes}


def discovery(before: Sequence[Note], after: Sequence[Note], task: Task) -> float:
    """Share of the task's key facts that ``after`` holds and ``before`` did not."""
    facts = stated_key_facts(task)
    if not facts:
        return 0.0
    was, now = _by_id(before), _by_id(after)
    gained = [f for f in facts if holding(now, *f) and not holding(was, *f)]
    return len(gained) / len(facts)


def actor_reward(score: float, before: Sequence[Note], after: Sequence[Note], task: Task,
                 weight: float = 0.5) -> float:
    """Task score plus ``weight`` × discovery of the write that followed the answer."""
    return score + weight * discovery(before, after, task)


def completion_text(completion) -> str:
    """TRL passes a string (plain prompts) or a list of chat messages (chat prompts)."""
    return completion if isinstance(completion, str) else completion[-1]["content"]


def writer_reward(states: Mapping[str, WriterState], answer_fn: AnswerFn, suite: Suite,
                  read_ops: Callable[[str], str | None], parse_penalty: float = 0.5):
    """A TRL reward function over a dataset with a ``state_id`` column. ``read_ops`` turns
    the raw completion into ops text (e.g. the adapter's parse of the writer's output
    field), returning None when it cannot."""

    def writer_credit_reward(prompts, completions, state_id, **_) -> list[float]:
        return [writer_credit(states[sid], read_ops(completion_text(c)), answer_fn, suite, parse_penalty)
                for c, sid in zip(completions, state_id)]

    return writer_credit_reward
