"""Teacher traces: every actor and writer call of a pipeline run over streams, as chat rows.

One row per predictor call: its role, where in which stream it happened, the chat prompt
and the completion exactly as an adapter formats them (the student is trained and run with
that same adapter), the task's score, and — for writer rows — the memory state the prompt
was rendered from (notes, budget, recent-k baseline), so GRPO can re-roll the write, and the
write's realized credit in the teacher's own run. Rows are JSON lines, one file per stream,
written when the stream ends (resumable); ``traces_dataset`` turns them into a
``datasets.Dataset``.

Rejection sampling (``Sampling``): each call is sampled again at a temperature and the row
keeps the best completion by its role's reward: an actor answer's score; a write's notes recall
of the next questions (``rewards.writer_recall``). The greedy completion comes first and wins
ties, so one sample, or a row no reward can rank, is the plain trace. The stream itself goes on
with the greedy outputs: the memory every row starts from is the teacher's own.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from statistics import mean

import dspy

from promptmem.files import safe_name
from promptmem.memory import InMemoryStore, Note, Snapshot
from promptmem.progress import task_bar
from promptmem.roles import OneCallWriter, role_of
from promptmem.runner import run_task
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.reward_terms import WriterState, writer_recall
from promptmem.tasks import Stream, Suite

TRACE_FORMAT = "promptmem.signals.traces/1"


@dataclass(frozen=True)
class TraceRow:
    """One predictor call of the teacher pipeline (see the module docstring)."""

    role: str  # actor | writer
    predictor: str  # the predictor's name in the agent, e.g. "writer.predict"
    stream_id: str
    position: int  # the task's index in its stream
    prompt: list[dict]  # chat messages before the completion (system, user)
    completion: str  # the assistant message
    score: float | None  # the task's score (None on observe-only tasks)
    write_error: str  # why the teacher's write was unusable ("" when it was fine)
    notes: list[list[str]]  # writer rows: [id, text] of the notes the write started from
    next_id: int  # writer rows: the store's next note id
    budget: int  # the notes budget in characters
    baseline: float  # writer rows: mean score of the previous k questions (RIME's recent-k)
    credit: float | None = None  # writer rows: the teacher's next k question scores minus baseline
    task_id: str = ""  # the task's id in its stream
    sample_rewards: list[float] = field(default_factory=list)  # rejection sampling: each sample's
    #   reward, the greedy one first (empty: not sampled); the row holds the best sample

    @property
    def snapshot_id(self) -> str:
        """A content hash of the memory the call started from: equal memories, equal ids."""
        return hashlib.sha256(json.dumps([self.notes, self.next_id]).encode()).hexdigest()[:16]

    def to_json(self) -> dict:
        return {"format": TRACE_FORMAT, **asdict(self)}

    @classmethod
    def from_json(cls, data: dict) -> TraceRow:
        if data.get("format") != TRACE_FORMAT:
            raise ValueError(f"not a {TRACE_FORMAT} row (format={data.get('format')!r})")
        return cls(**{k: v for k, v in data.items() if k != "format"})


def recent_baseline(scores: list[float], k: int) -> float:
    """Mean of the last k question scores (0 before the first question)."""
    return mean(scores[-k:]) if scores else 0.0


def next_questions_window(stream: Stream, position: int, k: int) -> tuple:
    """The tasks after ``position`` up to and including the k-th question."""
    window, questions = [], 0
    for task in stream.tasks[position + 1 :]:
        window.append(task)
        questions += task.is_question
        if questions == k:
            break
    return tuple(window)


def writer_state(row: TraceRow, stream: Stream, horizon: int) -> WriterState:
    """The ``WriterState`` a writer row's prompt was rendered from."""
    snapshot = Snapshot(tuple(Note(i, t) for i, t in row.notes), row.next_id, 0)
    return WriterState(
        snapshot,
        budget=row.budget,
        task=stream.tasks[row.position],
        next_tasks=next_questions_window(stream, row.position, horizon),
        baseline=row.baseline,
    )


@dataclass(frozen=True)
class Sampling:
    """Rejection sampling of the teacher: ``samples`` completions per call, the greedy one and
    ``samples - 1`` at ``temperature`` (seeds 1, 2, …); a row keeps the best (see the module)."""

    samples: int = 1
    temperature: float = 1.0


def _role_reward(agent, role: str, outputs: dspy.Prediction, state: WriterState, suite: Suite):
    """(reward, write error) of one completion of a call, or None where no reward ranks it:
    actor calls that answer are scored; a one-call writer's write by its notes recall."""
    if role == "actor" and "answer" in outputs:
        return suite.score(state.task, str(outputs["answer"]).strip()).score, ""
    writer = agent.writer
    if role == "writer" and isinstance(writer, OneCallWriter) and writer.output_field in outputs:
        write = writer.to_write(list(state.snapshot.notes), outputs[writer.output_field], state.budget)
        recall = writer_recall(state, write, suite)
        return None if recall is None else (recall, write.error)
    return None


def _best_sample(predictor, inputs: dict, greedy: dspy.Prediction, rank, sampling: Sampling):
    """(best outputs, rewards of every sample, best's write error), or None when ``rank``
    cannot rank the greedy completion."""
    first = rank(greedy) if sampling.samples > 1 else None
    if first is None:
        return None
    candidates, ranked = [greedy], [first]
    with dspy.context(trace=[]):
        for seed in range(1, sampling.samples):
            try:
                sample = predictor(**inputs, config={"temperature": sampling.temperature, "seed": seed})
            except Exception:  # noqa: BLE001 - an unusable sample is simply not kept
                continue
            scored = rank(sample)
            if scored is not None:
                candidates.append(sample)
                ranked.append(scored)
    best = max(range(len(ranked)), key=lambda i: ranked[i][0])  # the first best: greedy wins ties
    return candidates[best], [reward for reward, _ in ranked], ranked[best][1]


def trace_stream(
    agent,
    stream: Stream,
    suite: Suite,
    budget: int,
    adapter: dspy.Adapter,
    horizon: int = 3,
    on_task: Callable[[], None] | None = None,
    sampling: Sampling = Sampling(),
) -> list[TraceRow]:
    """Run ``agent`` over ``stream`` (under the caller's LM) and return its calls as rows;
    ``on_task`` is called after each task."""
    names = {id(predictor): name for name, predictor in agent.named_predictors()}
    memory, answered, rows = InMemoryStore(budget), [], []  # answered: (position, score) of each question
    for position, task in enumerate(stream.tasks):
        snapshot = memory.snapshot()
        with dspy.context(trace=[]):
            record = run_task(agent, task, position, suite, memory)
            calls = list(dspy.settings.trace)
        baseline = recent_baseline([score for _, score in answered], horizon)
        state = WriterState(snapshot, budget, task, next_questions_window(stream, position, horizon), baseline)
        for predictor, inputs, outputs in calls:
            name = names.get(id(predictor), "")
            role = role_of(name) or name
            score, write_error, rewards = record.score, record.write_error, []
            best = _best_sample(
                predictor,
                inputs,
                outputs,
                lambda out, role=role, state=state: _role_reward(agent, role, out, state, suite),
                sampling,
            )
            if best:
                outputs, rewards, error = best
                if role == "actor":
                    score = max(rewards)
                else:
                    write_error = error
            prompt = adapter.format(predictor.signature, predictor.demos, inputs)
            completion = adapter.format_assistant_message_content(predictor.signature, outputs.toDict())
            rows.append(
                TraceRow(
                    role=role,
                    predictor=name,
                    stream_id=stream.id,
                    position=position,
                    task_id=task.id,
                    prompt=prompt,
                    completion=completion,
                    score=score,
                    write_error=write_error,
                    notes=[[n.id, n.text] for n in snapshot.notes],
                    next_id=snapshot.next_id,
                    budget=budget,
                    baseline=baseline,
                    sample_rewards=rewards,
                )
            )
        if record.score is not None:
            answered.append((position, record.score))
        if on_task:
            on_task()
    return [
        replace(row, credit=_realized_credit(row, answered, horizon)) if row.role == "writer" else row for row in rows
    ]


def _realized_credit(row: TraceRow, answered: list[tuple[int, float]], k: int) -> float | None:
    """Mean score of the k questions answered after the row's task, minus its baseline."""
    later = [score for position, score in answered if position > row.position][:k]
    return mean(later) - row.baseline if later else None


def export_traces(
    pipeline: Pipeline,
    streams: list[Stream],
    budget: int,
    out: str | Path,
    *,
    horizon: int = 3,
    sampling: Sampling = Sampling(),
    show_progress: bool = True,
) -> list[TraceRow]:
    """Trace every stream into ``out/<stream>.jsonl`` (streams already there are read, not
    rerun) and return all rows: the ``pipeline``'s agent run on its LM (with its run adapter),
    the rows formatted by its ``adapter`` (the student's format); ``sampling``: rejection
    sampling."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    pending = [stream for stream in streams if not (out / f"{safe_name(stream.id)}.jsonl").is_file()]
    with task_bar(show_progress) as progress:
        bar = progress.add_task(f"tracing {len(pending)} streams", total=sum(len(s.tasks) for s in pending))
        for stream in pending:
            with pipeline.running():
                traced = trace_stream(
                    pipeline.agent,
                    stream,
                    pipeline.suite,
                    budget,
                    pipeline.adapter,
                    horizon,
                    on_task=lambda: progress.advance(bar),
                    sampling=sampling,
                )
            path = out / f"{safe_name(stream.id)}.jsonl"
            tmp = path.with_suffix(".partial")
            tmp.write_text("".join(json.dumps(r.to_json()) + "\n" for r in traced))
            tmp.rename(path)
    return [row for stream in streams for row in read_traces(out / f"{safe_name(stream.id)}.jsonl")]


def sampling_report(rows: list[TraceRow], threshold: float) -> dict:
    """Per role: rows, rows sampled, samples per call, and over the sampled rows the mean reward
    and the share reaching ``threshold`` of the greedy completion (pass@1) and of the best
    (pass@k) — for the actor, the teacher's pass rate with 1 and k samples."""
    report = {}
    for role in ("actor", "writer"):
        sampled = [r.sample_rewards for r in rows if r.role == role and r.sample_rewards]
        report[role] = {
            "rows": sum(r.role == role for r in rows),
            "sampled": len(sampled),
            "samples": max(map(len, sampled), default=1),
        }
        if sampled:
            report[role].update(
                {
                    "greedy_reward": round(mean(s[0] for s in sampled), 4),
                    "best_reward": round(mean(max(s) for s in sampled), 4),
                    "pass_at_1": round(mean(s[0] >= threshold for s in sampled), 4),
                    "pass_at_k": round(mean(max(s) >= threshold for s in sampled), 4),
                }
            )
    return report


def read_traces(path: str | Path) -> list[TraceRow]:
    """Rows of a traces file; a malformed line is a ValueError naming the file and line."""
    rows = []
    for number, line in enumerate(Path(path).read_text().splitlines(), 1):
        try:
            rows.append(TraceRow.from_json(json.loads(line)))
        except (json.JSONDecodeError, TypeError, ValueError) as err:
            raise ValueError(f"{path}:{number}: not a trace row ({err})") from err
    return rows


def traces_dataset(rows: list[TraceRow]):
    """The rows as a ``datasets.Dataset``: one column per ``TraceRow`` field, and ``snapshot_id``."""
    from datasets import Dataset

    return Dataset.from_list([{**asdict(row), "snapshot_id": row.snapshot_id} for row in rows])
