"""One ``Rollout``: a completion of one trace row as every reward reads it (``rubric``,
``role_rewards``), with what several rewards read computed once."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from promptmem.roles import Write
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.reward_terms import WriterState
from promptmem.signals.traces import TraceRow, writer_state
from promptmem.tasks import Outcome, Stream


@dataclass(frozen=True)
class Rollout:
    """One completion (``text``) of one trace ``row`` of ``stream`` at GRPO step ``step``;
    ``fields``: the completion read by the pipeline's adapter (None: unreadable); ``horizon``:
    the questions after a write its state looks ahead to. What several rewards read (the
    writer state, the write, the answer's outcome) is computed once per rollout."""

    pipeline: Pipeline
    row: TraceRow
    stream: Stream
    text: str
    fields: dict | None
    step: int = 0
    horizon: int = 3

    @cached_property
    def state(self) -> WriterState:
        """The state the row's prompt was rendered from (``traces.writer_state``)."""
        return writer_state(self.row, self.stream, self.horizon)

    @cached_property
    def write(self) -> Write:
        """The write a writer completion makes (the writer's own ``to_write``), or an
        unreadable-completion error."""
        writer = self.pipeline.agent.writer
        raw = (self.fields or {}).get(writer.output_field)
        if raw is None:
            return Write(error="unreadable completion")
        return writer.to_write(self.state.snapshot.notes, raw, self.state.budget)

    @cached_property
    def answer(self) -> str | None:
        """An actor completion's answer (None: it gives none)."""
        if not self.fields or "answer" not in self.fields:
            return None
        return str(self.fields["answer"]).strip()

    @cached_property
    def outcome(self) -> Outcome | None:
        """The suite's outcome of the answer (None without one)."""
        return None if self.answer is None else self.pipeline.suite.score(self.state.task, self.answer)
