"""The continual metric: score over streams, memory gain, learning curve, cost."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from statistics import mean
from typing import Sequence

from promptmem.runner import StreamResult


@dataclass
class Cost:
    """Per-task averages over every step (observe-only steps included) and the total time."""

    calls_per_task: float
    prompt_tokens_per_task: float
    completion_tokens_per_task: float
    seconds_per_task: float
    total_seconds: float


@dataclass
class Summary:
    """One agent over a set of streams. ``score`` is the mean over streams of each
    stream's mean question score; ``learning_curve[i]`` is the mean score at position i
    (None where no stream asks a question there)."""

    agent: str
    streams: int
    questions: int
    score: float
    per_stream: dict[str, float]
    learning_curve: list[float | None]
    breakdown: dict[str, dict[str, float]]
    cost: Cost
    actor_failures: int
    write_failures: int
    rejected_ops: int
    final_notes_chars: float


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


def summarize(results: Sequence[StreamResult], breakdown_keys: Sequence[str] = ()) -> Summary:
    """The continual metric for one agent's stream results."""
    records = [r for result in results for r in result.records]
    scored = [r for r in records if r.score is not None]
    per_stream = {res.stream_id: _mean(r.score for r in res.records if r.score is not None)
                  for res in results}
    by_position: dict[int, list[float]] = defaultdict(list)
    for r in scored:
        by_position[r.position].append(r.score)
    length = max((r.position for r in records), default=-1) + 1
    curve = [round(_mean(by_position[i]), 4) if by_position[i] else None for i in range(length)]
    breakdown = {}
    for key in breakdown_keys:
        groups: dict[str, list[float]] = defaultdict(list)
        for r in scored:
            if key in r.meta:
                groups[str(r.meta[key])].append(r.score)
        breakdown[key] = {name: round(_mean(v), 4) for name, v in sorted(groups.items())}
    n = max(len(records), 1)
    cost = Cost(
        calls_per_task=round(sum(r.calls for r in records) / n, 3),
        prompt_tokens_per_task=round(sum(r.prompt_tokens for r in records) / n, 1),
        completion_tokens_per_task=round(sum(r.completion_tokens for r in records) / n, 1),
        seconds_per_task=round(sum(r.seconds for r in records) / n, 3),
        total_seconds=round(sum(r.seconds for r in records), 2))
    return Summary(
        agent=results[0].agent if results else "", streams=len(results), questions=len(scored),
        score=round(_mean(per_stream.values()), 4), per_stream=per_stream,
        learning_curve=curve, breakdown=breakdown, cost=cost,
        actor_failures=sum(bool(r.error) for r in records),
        write_failures=sum(bool(r.write_error) for r in records),
        rejected_ops=sum(not op["applied"] for r in records for op in r.ops),
        final_notes_chars=round(_mean(sum(len(n["text"]) for n in res.final_notes)
                                      for res in results), 1))


def build_report(agent: Sequence[StreamResult], baseline: Sequence[StreamResult] | None,
                 breakdown_keys: Sequence[str] = (), config: dict | None = None) -> Report:
    """Summaries plus memory gain = agent score - no-memory score on the same streams."""
    agent_summary = summarize(agent, breakdown_keys)
    base_summary = summarize(baseline, breakdown_keys) if baseline else None
    gain = round(agent_summary.score - base_summary.score, 4) if base_summary else None
    return Report(agent_summary, base_summary, gain, config or {})
