"""The continual metric: score over streams, memory gain, learning curve, cost."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from statistics import mean

from promptmem.runner import StreamResult, TaskRecord


@dataclass
class Cost:
    """Per-task averages over every step (observe-only steps included) and the total time.
    Of the prompt tokens, ``prompt_tokens_reused_per_task`` came from a cached prefix (a local
    model's per-family context; a hosted LM's prompt cache) and the rest were processed."""

    calls_per_task: float
    prompt_tokens_per_task: float
    completion_tokens_per_task: float
    seconds_per_task: float
    total_seconds: float
    prompt_tokens_reused_per_task: float = 0.0


@dataclass
class HeldSplit:
    """The headline questions with a notes recall of 1 (``held``: the notes shown held the
    answer) and of 0 (``missed``), and the actor's mean score on each (None for none)."""

    held: int
    missed: int
    score_when_held: float | None
    score_when_missed: float | None


def held_split(records: Sequence[TaskRecord]) -> HeldSplit | None:
    """The split of ``records``' headline questions by notes recall; None when none has one."""
    scored = [(r.notes_recall, r.score) for r in headline_records(records) if r.notes_recall is not None]
    held = [score for recall, score in scored if recall == 1.0]
    missed = [score for recall, score in scored if recall == 0.0]
    if not scored:
        return None
    return HeldSplit(
        len(held),
        len(missed),
        round(mean(held), 4) if held else None,
        round(mean(missed), 4) if missed else None,
    )


@dataclass
class Summary:
    """One agent over a set of streams.

    ``notes_recall`` is the mean over streams of each stream's mean notes recall (None when
    no question had one: no memory, or a suite without evidence); ``held`` splits the misses
    between the roles (``HeldSplit``: the actor's score where the notes held the answer, and
    where they did not); ``applied_ops_per_task`` is the writer's applied ops per task (a
    select writer: statements kept). ``failed_calls`` counts the
    LM calls that failed for now (``TaskRecord.failed_calls``) and ``unfinished`` the streams
    they left unfinished (a rerun retries them).
    ``score`` is the mean over streams of each stream's mean *headline* question score (a
    task whose ``meta["headline"]`` is False, e.g. LoCoMo's adversarial category, is
    reported only in ``breakdown``); ``metrics`` are the suite's extra metrics averaged the
    same way; ``learning_curve[i]`` is the mean headline score at position i (None where
    no stream asks a question there); ``breakdown[key][value]`` holds ``n``, ``score`` and
    the extra metrics of the questions whose ``meta[key]`` is value.
    """

    agent: str
    streams: int
    questions: int
    score: float
    metrics: dict[str, float]
    per_stream: dict[str, float]
    learning_curve: list[float | None]
    breakdown: dict[str, dict[str, dict[str, float]]]
    cost: Cost
    actor_failures: int
    write_failures: int
    rejected_ops: int
    final_notes_chars: float
    notes_recall: float | None = None
    failed_calls: int = 0
    unfinished: int = 0
    held: HeldSplit | None = None
    applied_ops_per_task: float = 0.0


@dataclass
class Report:
    """An agent, the no-memory reference on the same streams, and the gain between them."""

    agent: Summary
    baseline: Summary | None
    memory_gain: float | None
    config: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


def _mean(values) -> float:
    values = list(values)
    return mean(values) if values else 0.0


def _group_stats(records: Sequence[TaskRecord]) -> dict[str, float]:
    names = sorted({name for r in records for name in r.metrics})
    return {
        "n": len(records),
        "score": round(_mean(r.score for r in records), 4),
        **{name: round(_mean(r.metrics.get(name, 0.0) for r in records), 4) for name in names},
    }


def _breakdown(scored: Sequence[TaskRecord], key: str) -> dict[str, dict[str, float]]:
    groups: dict[str, list[TaskRecord]] = defaultdict(list)
    for r in scored:
        if key in r.meta:
            groups[str(r.meta[key])].append(r)
    return {name: _group_stats(group) for name, group in sorted(groups.items())}


def _cost(records: Sequence[TaskRecord]) -> Cost:
    n = max(len(records), 1)
    return Cost(
        calls_per_task=round(sum(r.calls for r in records) / n, 3),
        prompt_tokens_per_task=round(sum(r.prompt_tokens for r in records) / n, 1),
        completion_tokens_per_task=round(sum(r.completion_tokens for r in records) / n, 1),
        seconds_per_task=round(sum(r.seconds for r in records) / n, 3),
        total_seconds=round(sum(r.seconds for r in records), 2),
        prompt_tokens_reused_per_task=round(sum(r.prompt_tokens_reused for r in records) / n, 1),
    )


def headline_records(records: Sequence[TaskRecord]) -> list[TaskRecord]:
    """The scored questions that count in the headline score (``meta["headline"]`` not False)."""
    return [r for r in records if r.score is not None and r.meta.get("headline", True)]


def stream_score(records: Sequence[TaskRecord]) -> float:
    """One stream's continual score: the mean of its headline question scores."""
    return _group_stats(headline_records(records))["score"]


def stream_recall(records: Sequence[TaskRecord]) -> float | None:
    """One stream's notes recall: the mean over its headline questions that have one."""
    values = [r.notes_recall for r in records if r.notes_recall is not None and r.meta.get("headline", True)]
    return round(mean(values), 4) if values else None


def _mean_recall(results: Sequence[StreamResult]) -> float | None:
    per_stream = [v for v in (stream_recall(res.records) for res in results) if v is not None]
    return round(mean(per_stream), 4) if per_stream else None


def summarize(results: Sequence[StreamResult], breakdown_keys: Sequence[str] = ()) -> Summary:
    """The continual metric for one agent's stream results."""
    records = [r for result in results for r in result.records]
    headline = headline_records(records)
    per_stream_stats = [_group_stats(headline_records(res.records)) for res in results]
    by_position: dict[int, list[float]] = defaultdict(list)
    for r in headline:
        by_position[r.position].append(r.score)
    length = max((r.position for r in records), default=-1) + 1
    metric_names = [k for k in per_stream_stats[0] if k not in ("n", "score")] if results else []
    return Summary(
        agent=results[0].agent if results else "",
        streams=len(results),
        questions=len(headline),
        score=round(_mean(s["score"] for s in per_stream_stats), 4),
        metrics={k: round(_mean(s.get(k, 0.0) for s in per_stream_stats), 4) for k in metric_names},
        per_stream={res.stream_id: s["score"] for res, s in zip(results, per_stream_stats)},
        learning_curve=[round(_mean(by_position[i]), 4) if by_position[i] else None for i in range(length)],
        breakdown={key: _breakdown([r for r in records if r.score is not None], key) for key in breakdown_keys},
        cost=_cost(records),
        actor_failures=sum(bool(r.error) for r in records),
        write_failures=sum(bool(r.write_error) for r in records),
        rejected_ops=sum(not op["applied"] for r in records for op in r.ops),
        final_notes_chars=round(_mean(sum(len(n["text"]) for n in res.final_notes) for res in results), 1),
        notes_recall=_mean_recall(results),
        failed_calls=sum(r.failed_calls for r in records),
        unfinished=sum(any(r.failed_calls for r in res.records) for res in results),
        held=held_split(records),
        applied_ops_per_task=round(_mean(sum(op["applied"] for op in r.ops) for r in records), 3),
    )


def build_report(
    agent: Sequence[StreamResult],
    baseline: Sequence[StreamResult] | None,
    breakdown_keys: Sequence[str] = (),
    config: dict | None = None,
) -> Report:
    """Summaries plus memory gain = agent score - no-memory score on the same streams."""
    agent_summary = summarize(agent, breakdown_keys)
    base_summary = summarize(baseline, breakdown_keys) if baseline else None
    gain = round(agent_summary.score - base_summary.score, 4) if base_summary else None
    return Report(agent_summary, base_summary, gain, config or {})
