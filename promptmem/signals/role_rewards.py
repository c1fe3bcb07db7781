"""The GRPO reward over teacher trace rows: one function, two roles.

- writer rows: ``writer_recall`` of the sampled write over the next ``horizon`` questions, from
  the row's memory snapshot, where the suite knows their answers (``writer_reward="recall"``);
  else ``writer_credit``, re-rolled with the reward LM's actor; for the select writer,
  ``writer_reward="hindsight"``: the dense per-write reward (``hindsight.write_reward``) of the
  numbers kept, from the hindsight labels of the row's task on its (training) stream, minus
  ``parse_penalty`` for numbers naming no statement; ``writer_reward="future"``: the same, with
  the reward of the write carried over the next ``future_horizon`` tasks of the hindsight replay
  (``future.future_reward``: what later questions find, not what one write kept);
- actor rows: the sampled answer's score + ``discovery_weight`` × discovery of the write
  the reward LM's writer makes after that answer (ground truth where the suite has it, else
  ``judge`` run by the reward LM).

Completions are read with the agent's own adapter and ``Writer.to_write``, exactly as the
pipeline reads its LM; an unreadable completion earns a ``parse_penalty``. ``format_reward``
is the usual shaping term next to it: 1 for a readable completion, else its similarity to
the role's empty output skeleton, so a student still learning the format gets a gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from difflib import SequenceMatcher

import dspy

from promptmem.programs.agent import one_call_writers
from promptmem.programs.select import SelectWriter
from promptmem.roles import OneCallWriter, Write
from promptmem.signals.future import future_reward
from promptmem.signals.hindsight import StatementLabel, by_task, hindsight_labels, write_reward
from promptmem.signals.hindsight_rows import ReplayStep, hindsight_replay
from promptmem.signals.reward_terms import (
    DiscoveryFn,
    WriterState,
    actor_reward,
    completion_text,
    memory_after,
    writer_credit,
    writer_recall,
)
from promptmem.signals.traces import TraceRow, writer_state
from promptmem.tasks import Stream, Suite, Task


def check_one_call_writer(agent) -> None:
    """GRPO re-rolls a write from one completion: an agent's writer that calls the LM must be a
    ``OneCallWriter``; writers in code (append-raw) make no call."""
    writer = agent.writer
    if writer is not None and writer.predictors() and not isinstance(writer, OneCallWriter):
        raise ValueError(
            f"GRPO writer credit needs a one-call writer ({', '.join(one_call_writers())} or another "
            f"promptmem.roles.OneCallWriter), not {type(writer).__name__}"
        )


WRITER_REWARDS = ("recall", "credit", "hindsight", "future")
LABELLED_REWARDS = ("hindsight", "future")  # read the select writer's numbered statements' labels


def check_writer_reward(agent, writer_reward: str) -> None:
    """The writer reward is known and fits the agent's writer: ``hindsight`` and ``future``
    label the select writer's numbered statements; the others re-roll a one-call writer's write."""
    if writer_reward not in WRITER_REWARDS:
        raise ValueError(f"writer_reward must be one of {', '.join(WRITER_REWARDS)}, not {writer_reward!r}")
    if writer_reward not in LABELLED_REWARDS:
        check_one_call_writer(agent)
    elif not isinstance(agent.writer, SelectWriter):
        raise ValueError(
            f"the {writer_reward} writer reward needs the select writer, not {type(agent.writer).__name__}"
        )


class RoleRewards:
    """A TRL reward function over a dataset whose ``row`` column indexes ``rows``.
    ``adapter`` reads the student's completions; the reward LM (``lm``) re-rolls the
    pipeline under ``run_adapter`` (default: the same). ``waste_weight`` and ``hindsight_target``:
    the hindsight and future writer rewards' weight of the budget spent on statements its target
    does not want, and that target (``hindsight.write_reward``). ``future_horizon``: the future
    reward's tasks ahead, or a function of the GRPO step (TRL's ``trainer_state.global_step``)
    giving them (a curriculum)."""

    __name__ = "role_reward"  # TRL logs each reward function under its name

    def __init__(
        self,
        agent,
        rows: Sequence[TraceRow],
        streams: Sequence[Stream],
        suite: Suite,
        lm: dspy.BaseLM,
        adapter: dspy.Adapter,
        *,
        run_adapter: dspy.Adapter | None = None,
        horizon: int = 3,
        discovery_weight: float = 0.5,
        parse_penalty: float = 0.5,
        judge: DiscoveryFn | None = None,
        writer_reward: str = "recall",
        waste_weight: float = 0.5,
        hindsight_target: str = "needed",
        future_horizon: int | Callable[[int], int] = 8,
    ):
        if any(r.role == "writer" for r in rows):
            check_writer_reward(agent, writer_reward)
        self.agent, self.rows, self.suite, self.lm, self.adapter = agent, list(rows), suite, lm, adapter
        self.run_adapter = run_adapter or adapter
        self.streams = {stream.id: stream for stream in streams}
        self.signatures = {name: p.signature for name, p in agent.named_predictors()}
        self.horizon, self.discovery_weight, self.parse_penalty = horizon, discovery_weight, parse_penalty
        self.judge, self.writer_reward, self.waste_weight = judge, writer_reward, waste_weight
        self.hindsight_target, self.future_horizon = hindsight_target, future_horizon
        self._labels: dict[str, dict[str, list[StatementLabel]]] = {}
        self._replays: dict[tuple[str, int], list[ReplayStep]] = {}

    def __call__(self, prompts, completions, row, trainer_state=None, **_) -> list[float]:
        step = getattr(trainer_state, "global_step", 0)
        return [self.reward(self.rows[i], completion_text(c), step) for c, i in zip(completions, row)]

    def format_reward(self, prompts, completions, row, **_) -> list[float]:
        """1 for a completion the adapter reads, else its similarity (difflib ratio) to the
        adapter's rendering of the predictor's output fields with empty values."""
        return [self._format_score(self.rows[i], completion_text(c)) for c, i in zip(completions, row)]

    def _format_score(self, row: TraceRow, text: str) -> float:
        signature = self.signatures[row.predictor]
        if self._parse(row, text) is not None:
            return 1.0
        skeleton = self.adapter.format_assistant_message_content(
            signature, {name: "" for name in signature.output_fields}
        )
        return SequenceMatcher(None, text, skeleton).ratio()

    def _parse(self, row: TraceRow, text: str) -> dict | None:
        try:
            return self.adapter.parse(self.signatures[row.predictor], text)
        except Exception:  # noqa: BLE001 - any unreadable completion is the policy's fault
            return None

    def reward(self, row: TraceRow, text: str, step: int = 0) -> float:
        """The reward of one completion for one trace row at GRPO step ``step``."""
        fields = self._parse(row, text)
        with dspy.context(lm=self.lm, adapter=self.run_adapter):
            if row.role == "writer":
                return self._writer_reward(row, fields, step)
            return self._actor_reward(row, fields)

    def _write(self, row: TraceRow, fields: dict | None) -> tuple[WriterState, Write]:
        state = writer_state(row, self.streams[row.stream_id], self.horizon)
        writer = self.agent.writer
        raw = (fields or {}).get(writer.output_field)
        write = (
            writer.to_write(state.snapshot.notes, raw, state.budget)
            if raw is not None
            else Write(error="unreadable completion")
        )
        return state, write

    def writer_recall(self, row: TraceRow, text: str) -> float | None:
        """The writer row's completion's notes recall reward (no LM call), or None where the
        suite knows none of the next questions' answers."""
        state, write = self._write(row, self._parse(row, text))
        return writer_recall(state, write, self.suite, self.parse_penalty)

    def hindsight_reward(self, row: TraceRow, fields: dict | None, step: int = 0) -> float:
        """The dense reward of the numbers a select-writer completion keeps (see the module):
        of its write alone (``hindsight``) or carried over the future (``future``, its horizon
        at GRPO step ``step``)."""
        keep = (fields or {}).get("keep")
        if not isinstance(keep, list):
            return -self.parse_penalty
        if row.stream_id not in self._labels:
            self._labels[row.stream_id] = by_task(hindsight_labels(self.streams[row.stream_id], self.suite))
        labels = self._labels[row.stream_id].get(row.task_id, [])
        unknown = set(keep) - {label.number for label in labels}
        if self.writer_reward == "future":
            horizon = self._horizon(step)
            replay = self._replay(row)
            reward = future_reward(
                replay, row.position, set(keep), row.budget, horizon, self.waste_weight, self.hindsight_target
            )
        else:
            reward = write_reward(labels, set(keep), row.budget, self.waste_weight, self.hindsight_target)
        return reward - (self.parse_penalty if unknown else 0.0)

    def _replay(self, row: TraceRow) -> list[ReplayStep]:
        """The hindsight replay of the row's stream at its budget (computed once)."""
        key = (row.stream_id, row.budget)
        if key not in self._replays:
            stream = self.streams[row.stream_id]
            self._replays[key] = list(hindsight_replay(stream, self.suite, row.budget, self.hindsight_target))
        return self._replays[key]

    def _horizon(self, step: int) -> int:
        horizon = self.future_horizon
        return horizon(step) if callable(horizon) else horizon

    def _writer_reward(self, row: TraceRow, fields: dict | None, step: int = 0) -> float:
        if self.writer_reward in LABELLED_REWARDS:
            return self.hindsight_reward(row, fields, step)
        state, write = self._write(row, fields)
        recall = writer_recall(state, write, self.suite, self.parse_penalty) if self.writer_reward == "recall" else None
        if recall is not None:
            return recall
        return writer_credit(state, write, self._answer, self.suite, self.parse_penalty)

    def _answer(self, notes: str, task: Task) -> str:
        try:
            return self.agent.actor(notes=notes, observation=task.observation, question=task.question)
        except Exception:  # noqa: BLE001 - a failed re-rollout answer scores like a wrong one
            return ""

    def _actor_reward(self, row: TraceRow, fields: dict | None) -> float:
        if not fields or "answer" not in fields:
            return -self.parse_penalty
        state = writer_state(row, self.streams[row.stream_id], self.horizon)
        answer = str(fields["answer"]).strip()
        outcome = self.suite.score(state.task, answer)
        if not self.discovery_weight or self.agent.writer is None:
            return outcome.score
        try:
            write = self.agent.writer(list(state.snapshot.notes), state.task, answer, outcome, state.budget)
        except Exception:  # noqa: BLE001 - no write, no discovery
            write = Write()
        after = memory_after(state, write).notes()
        return actor_reward(
            outcome.score, state.snapshot.notes, after, state.task, self.suite, self.discovery_weight, self.judge
        )
