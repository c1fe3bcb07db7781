"""The GRPO reward over teacher trace rows: one rubric per role (``rubric.Rubric``), each a
weighted sum of named rewards over one ``rollout.Rollout``, chosen by name and refused where it
cannot apply.

- writer rows (``writer_reward``, ``WRITER_REWARDS``): ``recall``, the notes recall of the
  sampled write over the next ``horizon`` questions, from the row's memory snapshot, and where
  the suite knows none of their answers (declared: ``Reward.otherwise``) its ``credit``;
  ``credit``, the next questions re-rolled with the reward LM's actor (``writer_credit``); for
  the select writer, ``hindsight``: the dense per-write reward (``hindsight.write_reward``) of
  the numbers kept, from the hindsight labels of the row's task on its (training) stream, and
  ``future``: the reward of the write carried over the next ``future_horizon`` tasks of the
  hindsight replay (``future.future_reward``: what later questions find, not what one write
  kept). Each with a penalty of ``parse_penalty``: an unusable write (``write_error``), or
  kept numbers unreadable or naming no statement (``unknown_statements``);
- actor rows: the sampled answer's ``score`` + ``discovery_weight`` × ``discovery`` of the
  write the reward LM's writer makes after that answer (ground truth where the suite has it,
  else ``judge`` run by the reward LM), ``parse_penalty`` for no answer (``no_answer``).

Completions are read with the pipeline's adapter and ``Writer.to_write``, exactly as the
pipeline reads its LM. ``format_reward`` is the usual shaping term next to it: 1 for a readable
completion, else its similarity to the role's empty output skeleton, so a student still learning
the format gets a gradient.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from functools import partial

from promptmem.programs.agent import one_call_writers
from promptmem.programs.select import SelectWriter
from promptmem.recall import notes_recall
from promptmem.roles import OneCallWriter, Write
from promptmem.signals.future import future_reward
from promptmem.signals.hindsight import StatementLabel, by_task, hindsight_labels, write_reward
from promptmem.signals.hindsight_rows import ReplayStep, hindsight_replay
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.reward_terms import (
    DiscoveryFn,
    completion_text,
    discovery,
    memory_after,
    writer_credit,
    writer_recall,
)
from promptmem.signals.rollout import Rollout
from promptmem.signals.rubric import Reward, Rubric
from promptmem.signals.traces import TraceRow
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


@dataclass(frozen=True)
class RewardSettings:
    """The role rewards' knobs. ``writer_reward``: the writer rubric (``WRITER_REWARDS``);
    ``horizon``: the questions after a write that recall and credit look at; ``waste_weight``
    and ``hindsight_target``: the hindsight and future writer rewards' weight of the budget
    spent on statements its target does not want, and that target (``hindsight.write_reward``);
    ``future_horizon``: the future reward's tasks ahead, or a function of the GRPO step (TRL's
    ``trainer_state.global_step``) giving them (a curriculum); ``judge``: the discovery judge
    where the suite states no facts."""

    writer_reward: str = "recall"
    horizon: int = 3
    discovery_weight: float = 0.5
    parse_penalty: float = 0.5
    waste_weight: float = 0.5
    hindsight_target: str = "needed"
    future_horizon: int | Callable[[int], int] = 8
    judge: DiscoveryFn | None = None


# the rewards: plain callables of one rollout (None: no value on it)


def answer_score(rollout: Rollout) -> float | None:
    """The suite's score of an actor completion's answer."""
    return None if rollout.outcome is None else rollout.outcome.score


def no_answer(rollout: Rollout) -> float:
    """-1 for an actor completion that gives no answer."""
    return -1.0 if rollout.answer is None else 0.0


@dataclass(frozen=True)
class Discovery:
    """The discovery (``reward_terms.discovery``) of the write the pipeline's writer makes
    after the rollout's answer (run in the current DSPy context; a failed write discovers nothing)."""

    judge: DiscoveryFn | None = None

    def __call__(self, rollout: Rollout) -> float | None:
        if rollout.answer is None:
            return None
        state = rollout.state
        try:
            write = rollout.pipeline.agent.writer(
                list(state.snapshot.notes), state.task, rollout.answer, rollout.outcome, state.budget
            )
        except Exception:  # noqa: BLE001 - no write, no discovery
            write = Write()
        after = memory_after(state, write).notes()
        return discovery(state.snapshot.notes, after, state.task, rollout.pipeline.suite, self.judge)


def recall_known(suite: Suite, task: Task) -> bool:
    """Whether the notes recall of ``task`` is known: the suite knows its needed evidence."""
    return notes_recall(suite.evidence(task), "") is not None


def notes_recall_reward(rollout: Rollout) -> float | None:
    """Mean notes recall of the next questions after the write (``reward_terms.writer_recall``)."""
    return writer_recall(rollout.state, rollout.write, rollout.pipeline.suite, 0.0)


def credit(rollout: Rollout) -> float:
    """Next-k score re-rolled by the pipeline's actor after the write, minus the recent-k baseline."""
    agent = rollout.pipeline.agent

    def answer(notes: str, task: Task) -> str:
        try:
            return agent.actor(notes=notes, observation=task.observation, question=task.question)
        except Exception:  # noqa: BLE001 - a failed re-rollout answer scores like a wrong one
            return ""

    return writer_credit(rollout.state, rollout.write, answer, rollout.pipeline.suite, 0.0)


def write_error(rollout: Rollout) -> float:
    """-1 for a write that was (partly) unusable, an unreadable completion included."""
    return -1.0 if rollout.write.error else 0.0


def _keep(rollout: Rollout) -> list | None:
    keep = (rollout.fields or {}).get("keep")
    return keep if isinstance(keep, list) else None


@dataclass
class Labels:
    """The hindsight labels of a rollout's task (each stream labelled once)."""

    suite: Suite
    target: str = "needed"
    by_stream: dict[str, dict[str, list[StatementLabel]]] = field(default_factory=dict)
    replays: dict[tuple[str, int], list[ReplayStep]] = field(default_factory=dict)

    def __call__(self, rollout: Rollout) -> list[StatementLabel]:
        stream = rollout.stream
        if stream.id not in self.by_stream:
            self.by_stream[stream.id] = by_task(hindsight_labels(stream, self.suite))
        return self.by_stream[stream.id].get(rollout.row.task_id, [])

    def replay(self, rollout: Rollout) -> list[ReplayStep]:
        """The hindsight replay of the rollout's stream at its row's budget."""
        key = (rollout.stream.id, rollout.row.budget)
        if key not in self.replays:
            self.replays[key] = list(hindsight_replay(rollout.stream, self.suite, rollout.row.budget, self.target))
        return self.replays[key]


@dataclass(frozen=True)
class Kept:
    """The select writer's kept numbers: their hindsight reward (``hindsight.write_reward``),
    or with ``future_horizon``, their reward carried over the future (``future.future_reward``)."""

    labels: Labels
    waste_weight: float = 0.5
    future_horizon: int | Callable[[int], int] | None = None

    def __call__(self, rollout: Rollout) -> float | None:
        keep = _keep(rollout)
        if keep is None:
            return None
        target, row = self.labels.target, rollout.row
        if self.future_horizon is None:
            return write_reward(self.labels(rollout), set(keep), row.budget, self.waste_weight, target)
        horizon = self.future_horizon(rollout.step) if callable(self.future_horizon) else self.future_horizon
        replay = self.labels.replay(rollout)
        return future_reward(replay, row.position, set(keep), row.budget, horizon, self.waste_weight, target)


@dataclass(frozen=True)
class UnknownStatements:
    """-1 for kept numbers that are unreadable or name no statement shown."""

    labels: Labels

    def __call__(self, rollout: Rollout) -> float:
        keep = _keep(rollout)
        if keep is None:
            return -1.0
        return -1.0 if set(keep) - {label.number for label in self.labels(rollout)} else 0.0


# the rubrics


def _labelled(settings: RewardSettings, suite: Suite, *, future: bool) -> list[Reward]:
    """The select writer's kept numbers on their labels: per write (``hindsight``), or carried
    over the next ``future_horizon`` tasks (``future``)."""
    labels = Labels(suite, settings.hindsight_target)
    kept = Kept(labels, settings.waste_weight, settings.future_horizon if future else None)
    name = "future" if future else "hindsight"
    return [Reward(name, kept), Reward("unknown_statements", UnknownStatements(labels), settings.parse_penalty)]


def _recall(settings: RewardSettings, suite: Suite) -> list[Reward]:
    recall = Reward("notes_recall", notes_recall_reward, otherwise=Reward("credit", credit))
    return [recall, Reward("write_error", write_error, settings.parse_penalty)]


def _credit(settings: RewardSettings, suite: Suite) -> list[Reward]:
    return [Reward("credit", credit), Reward("write_error", write_error, settings.parse_penalty)]


WRITER_REWARDS: dict[str, Callable[[RewardSettings, Suite], list[Reward]]] = {
    "recall": _recall,
    "credit": _credit,
    "hindsight": partial(_labelled, future=False),
    "future": partial(_labelled, future=True),
}
LABELLED_REWARDS = ("hindsight", "future")  # read the select writer's numbered statements' labels


def check_writer_reward(agent, writer_reward: str, suite: Suite | None = None, streams: Sequence[Stream] = ()) -> None:
    """The writer reward is known and fits the agent's writer (and, given a ``suite``, the
    ``streams``): ``hindsight`` and ``future`` label the select writer's numbered statements;
    the others re-roll a one-call writer's write; ``recall`` needs questions whose answers the
    suite knows (else it would be ``credit`` throughout)."""
    if writer_reward not in WRITER_REWARDS:
        raise ValueError(f"writer_reward must be one of {', '.join(WRITER_REWARDS)}, not {writer_reward!r}")
    if writer_reward not in LABELLED_REWARDS:
        check_one_call_writer(agent)
    elif not isinstance(agent.writer, SelectWriter):
        raise ValueError(
            f"the {writer_reward} writer reward needs the select writer, not {type(agent.writer).__name__}"
        )
    questions = [task for stream in streams for task in stream.tasks if task.is_question]
    if writer_reward == "recall" and suite is not None and not any(recall_known(suite, t) for t in questions):
        raise ValueError(
            f"the recall writer reward needs questions whose answers the suite knows ({type(suite).__name__} "
            f"knows none of these {len(questions)}): use the credit writer reward"
        )


def writer_rubric(settings: RewardSettings, pipeline: Pipeline, streams: Sequence[Stream]) -> Rubric:
    """The writer rows' rubric of ``settings.writer_reward``, refused where it does not fit."""
    check_writer_reward(pipeline.agent, settings.writer_reward, pipeline.suite, streams)
    return Rubric(WRITER_REWARDS[settings.writer_reward](settings, pipeline.suite))


def actor_rubric(settings: RewardSettings, pipeline: Pipeline) -> Rubric:
    """The actor rows' rubric: the answer's score, discovery where ``discovery_weight`` is set
    (refused for an agent without a writer), the penalty for no answer."""
    rewards = [Reward("score", answer_score)]
    if settings.discovery_weight:
        if pipeline.agent.writer is None:
            raise ValueError(
                f"the discovery reward (weight {settings.discovery_weight}) reads the write after an answer; "
                f"{pipeline.agent.name} has no writer: set its weight to 0"
            )
        rewards.append(Reward("discovery", Discovery(settings.judge), settings.discovery_weight))
    return Rubric([*rewards, Reward("no_answer", no_answer, settings.parse_penalty)])


class RoleRewards:
    """A TRL reward function over a dataset whose ``row`` column indexes ``rows``: each row's
    completion scored by its role's rubric, the pipeline run in its own context (the reward LM
    under its run adapter). Each rubric reward's mean per batch is logged under
    ``role_reward/<name>`` where TRL passes ``log_metric``."""

    __name__ = "role_reward"  # TRL logs each reward function under its name

    def __init__(
        self,
        pipeline: Pipeline,
        rows: Sequence[TraceRow],
        streams: Sequence[Stream],
        settings: RewardSettings = RewardSettings(),
    ):
        self.pipeline, self.rows, self.settings = pipeline, list(rows), settings
        self.streams = {stream.id: stream for stream in streams}
        self.signatures = {name: p.signature for name, p in pipeline.agent.named_predictors()}
        roles = {row.role for row in self.rows}
        self.rubrics: dict[str, Rubric] = {}
        if "writer" in roles:
            self.rubrics["writer"] = writer_rubric(settings, pipeline, streams)
        if "actor" in roles:
            self.rubrics["actor"] = actor_rubric(settings, pipeline)

    def __call__(self, prompts, completions, row, trainer_state=None, log_metric=None, **_) -> list[float]:
        step = getattr(trainer_state, "global_step", 0)
        scores = [self.reward(self.rows[i], completion_text(c), step) for c, i in zip(completions, row)]
        for role, rubric in self.rubrics.items():
            for name, value in rubric.take_means().items():
                if log_metric:
                    log_metric(f"role_reward/{role}/{name}", value)
        return scores

    def format_reward(self, prompts, completions, row, **_) -> list[float]:
        """1 for a completion the adapter reads, else its similarity (difflib ratio) to the
        adapter's rendering of the predictor's output fields with empty values."""
        return [self._format_score(self.rows[i], completion_text(c)) for c, i in zip(completions, row)]

    def _format_score(self, row: TraceRow, text: str) -> float:
        signature = self.signatures[row.predictor]
        if self._parse(row, text) is not None:
            return 1.0
        skeleton = self.pipeline.adapter.format_assistant_message_content(
            signature, {name: "" for name in signature.output_fields}
        )
        return SequenceMatcher(None, text, skeleton).ratio()

    def _parse(self, row: TraceRow, text: str) -> dict | None:
        try:
            return self.pipeline.adapter.parse(self.signatures[row.predictor], text)
        except Exception:  # noqa: BLE001 - any unreadable completion is the policy's fault
            return None

    def rollout(self, row: TraceRow, text: str, step: int = 0) -> Rollout:
        """One completion of ``row`` as the rewards read it."""
        stream = self.streams[row.stream_id]
        return Rollout(self.pipeline, row, stream, text, self._parse(row, text), step, self.settings.horizon)

    def reward(self, row: TraceRow, text: str, step: int = 0) -> float:
        """The reward of one completion for one trace row at GRPO step ``step``."""
        if row.role not in self.rubrics:
            raise ValueError(f"no {row.role} rows were given to these rewards: no rubric scores them")
        rollout = self.rollout(row, text, step)
        with self.pipeline.running():
            return self.rubrics[row.role].score(rollout)

    def writer_recall(self, row: TraceRow, text: str) -> float | None:
        """The writer row's completion's notes recall reward with its write-error penalty (no LM
        call), or None where the suite knows none of the next questions' answers."""
        rollout = self.rollout(row, text)
        recall = notes_recall_reward(rollout)
        return None if recall is None else recall + self.settings.parse_penalty * write_error(rollout)
