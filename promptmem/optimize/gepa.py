"""``optimize``: GEPA evolves the actor's and writer's instructions against the continual
metric, with per-role feedback (``promptmem.feedback``).

One GEPA example is one short stream (a window of ``window`` tasks); the train, val and
test streams come from disjoint generator seeds (seed, seed+1, seed+2). The run directory
holds ``config.json``, GEPA's own log and checkpoint (``gepa/``: rerunning the same command
resumes there), ``program.json`` (loadable by ``promptmem eval --agent``),
``candidates.json`` (every candidate's instructions, parents and val score),
``pareto.json``, ``optimize_curve.png`` (best val score vs metric calls) and
``comparison.json`` / ``.md`` / ``.png`` (seed vs optimized on held-out full-length streams).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import dspy

from promptmem.evaluate import EvalConfig, claim_run_dir
from promptmem.feedback import stream_feedback
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, adapter_for, is_local, make_lm
from promptmem.metrics import stream_recall
from promptmem.optimize.proposer import CompactProposer
from promptmem.optimize.windows import warm_memory
from promptmem.programs.agent import MemoryAgent, in_process, resolve_agent, save_agent
from promptmem.report.comparison import Entry, compare
from promptmem.roles import Abilities, role_of
from promptmem.runner import run_stream
from promptmem.suites import make_suite
from promptmem.tasks import Stream, Suite

AUTO_BUDGETS = ("light", "medium", "heavy")


@dataclass(frozen=True)
class OptimizeConfig:
    """What to optimize and with how much budget; written to ``config.json``."""

    suite: str = "synthetic"  # synthetic (windows are generated streams) | jsonl | locomo (windows
    #   are cut from the file's streams; train, val and test take disjoint streams, in file order)
    data: str | None = None  # jsonl, locomo: the data file
    agent: str = "seed"  # the starting program: seed | PATH.json
    writer: str = "ops"  # the seed agent's writer: ops | facts | notes | mem0 | select
    buffer_share: float = 0.0  # seed agent: share of the budget kept as a recency buffer of raw observations
    actor: str = "plain"  # the seed agent's actor: plain | filter
    budget: str = "light"  # GEPA budget: light | medium | heavy | a number of metric calls
    train: int = 6  # training streams (GEPA examples)
    val: int = 4  # validation streams (Pareto tracking)
    test: int = 4  # held-out full-length streams for the seed-vs-optimized comparison
    window: int = 8  # tasks per GEPA example
    test_tasks: int = 24  # tasks per held-out test stream
    seed: int = 0  # train streams use seed, val seed+1, test seed+2
    notes_budget: int | None = None  # notes budget in characters (default: the suite's)
    minibatch: int = 3  # GEPA reflection minibatch size
    components: str = "round_robin"  # which predictors GEPA edits per step: round_robin | all
    threads: int = 1  # GEPA evaluation threads (1 for local models)
    objective: str = "continual"  # continual: stream score with per-role feedback | recall: the
    #   writer alone (no actor calls), scored by notes recall; GEPA then edits the writer only
    proposer: str = (
        "compact"  # compact: one checked rule from the deduplicated failures, appended | gepa: GEPA's own prompt
    )
    cache_evaluation: bool = True  # GEPA caches (candidate, example) scores: no example runs twice


class StreamProgram(dspy.Module):
    """An agent run over a whole stream: ``forward(stream) -> Prediction(result=StreamResult, suite)``.
    Uses the LM and adapter of the current DSPy context; ``act=False`` runs the writer alone."""

    def __init__(self, agent: MemoryAgent, suite: Suite, budget: int, act: bool = True):
        super().__init__()
        self.agent = agent
        self.suite, self.budget, self.act = suite, budget, act

    def forward(self, stream: Stream, start: tuple = (), position: int = 0) -> dspy.Prediction:
        """Run ``stream`` from the notes ``start`` (a warm-started window at ``position`` of a
        longer stream; empty: from no notes)."""
        result = run_stream(
            self.agent,
            stream,
            self.suite,
            dspy.settings.lm,
            budget=self.budget,
            adapter=dspy.settings.adapter,
            memory=warm_memory(self.budget, start),
            act=self.act,
            first_position=position,
        )
        return dspy.Prediction(result=result, suite=self.suite)


def continual_metric(gold, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """GEPA's metric: the stream score, with the feedback of the role being edited."""
    feedback = stream_feedback(pred.result, pred.suite)
    return dspy.Prediction(score=feedback.score, feedback=feedback.text(role_of(pred_name)))


def recall_metric(gold, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """GEPA's metric for a writer-only run: the stream's notes recall, with writer feedback."""
    recall = stream_recall(pred.result.records)
    return dspy.Prediction(score=recall or 0.0, feedback=stream_feedback(pred.result, pred.suite).text("writer"))


OBJECTIVES = {"continual": continual_metric, "recall": recall_metric}


def writer_components(state, trajectories, subsample_scores, candidate_idx, candidate) -> list[str]:
    """GEPA component selector for ``--objective recall``: every writer predictor, never the actor."""
    return [name for name in candidate if role_of(name) == "writer"]


def _gepa_options(config: OptimizeConfig, reflection_lm, program: dspy.Module) -> dict:
    """GEPA's levers as the config sets them (the compact proposer is told what each of
    ``program``'s predictors can do)."""
    if config.objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {config.objective!r}; known: {', '.join(OBJECTIVES)}")
    if config.proposer not in ("compact", "gepa"):
        raise ValueError(f"unknown proposer {config.proposer!r}; known: compact, gepa")
    options = {
        "metric": OBJECTIVES[config.objective],
        "reflection_minibatch_size": config.minibatch,
        "component_selector": writer_components if config.objective == "recall" else config.components,
        "gepa_kwargs": {"cache_evaluation": config.cache_evaluation},
    }
    if config.proposer == "compact":
        options["instruction_proposer"] = CompactProposer(reflection_lm, abilities(program))
    return options


def abilities(program: dspy.Module) -> dict[str, Abilities]:
    """What the step behind each writer predictor of ``program`` can do (its writer's own
    ``abilities``); actor predictors get the proposer's default."""
    writer = program.agent.writer
    return {name: writer.abilities for name, _ in program.named_predictors() if writer and role_of(name) == "writer"}


def _gepa_budget(budget: str) -> dict:
    if budget in AUTO_BUDGETS:
        return {"auto": budget}
    if budget.isdigit() and int(budget) > 0:
        return {"max_metric_calls": int(budget)}
    raise ValueError(f"--budget must be one of {', '.join(AUTO_BUDGETS)} or a number of metric calls, got {budget!r}")


def instructions(program: dspy.Module) -> dict[str, str]:
    """The candidate as data: predictor name -> instructions."""
    return {name: p.signature.instructions for name, p in program.named_predictors()}


def _write_candidates(results, out: Path) -> None:
    candidates = [
        {
            "index": i,
            "val_score": score,
            "parents": parents,
            "found_after_metric_calls": calls,
            "instructions": instructions(program),
        }
        for i, (program, score, parents, calls) in enumerate(
            zip(results.candidates, results.val_aggregate_scores, results.parents, results.discovery_eval_counts)
        )
    ]
    write_json(out / "candidates.json", {"best": results.best_idx, "candidates": candidates})
    pareto = {str(k): sorted(v) for k, v in results.per_val_instance_best_candidates.items()}
    write_json(out / "pareto.json", pareto)


def _plot_curve(results, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = sorted(zip(results.discovery_eval_counts, results.val_aggregate_scores))
    best, xs, ys = float("-inf"), [], []
    for calls, score in points:
        best = max(best, score)
        xs.append(calls)
        ys.append(best)
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.step(xs, ys, where="post", marker="o")
    ax.set(xlabel="metric calls", ylabel="best val score", title="GEPA: best validation score")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out / "optimize_curve.png", dpi=110)
    plt.close(fig)


def _compare(config: OptimizeConfig, lm_config: LMConfig, out: Path, lm, changed: bool = True) -> dict:
    """Seed vs optimized on the held-out streams (files: the streams after train and val); the
    seed alone when GEPA accepted no candidate (``changed`` False: the same program twice)."""
    synthetic = config.suite == "synthetic"
    held_out = (
        {"seed": config.seed + 2, "tasks": config.test_tasks}
        if synthetic
        else {"seed": config.train + config.val, "data": config.data}
    )
    entries = [
        Entry(
            label,
            EvalConfig(
                suite=config.suite,
                agent=agent,
                writer=config.writer,
                buffer_share=config.buffer_share if agent == config.agent else 0.0,
                actor=config.actor,
                streams=config.test,
                budget=config.notes_budget,
                threads=config.threads,
                **held_out,
            ),
            lm_config,
            lm,
        )
        for label, agent in (("seed", config.agent), ("optimized", str(out / "program.json")))
    ]
    return compare(entries if changed else entries[:1], out, runs=out / "test")


def _examples(streams: list[Stream]) -> list[dspy.Example]:
    return [dspy.Example(stream=s).with_inputs("stream") for s in streams]


def windows(stream: Stream, size: int) -> list[Stream]:
    """Consecutive windows of ``size`` tasks cut from ``stream``; those without a question are dropped."""
    cuts = [stream.tasks[i : i + size] for i in range(0, len(stream.tasks), size)]
    return [
        Stream(f"{stream.id}/w{i}", tasks) for i, tasks in enumerate(cuts) if any(task.is_question for task in tasks)
    ]


def split_streams(config: OptimizeConfig) -> tuple[Suite, list[Stream], list[Stream], dict]:
    """The suite whose streams the GEPA examples come from, train and val windows, and the
    split as written to ``split.json``. Synthetic: generated windows (train seed, val seed+1,
    held-out test seed+2). Files: the first ``train`` streams, the next ``val``, then ``test``
    held-out streams; a file holding fewer streams than that is a ValueError."""
    if config.suite == "synthetic":
        suite = make_suite("synthetic", tasks=config.window)
        train, val = suite.streams(config.train, seed=config.seed), suite.streams(config.val, seed=config.seed + 1)
        return (
            suite,
            train,
            val,
            {
                "train_seed": config.seed,
                "val_seed": config.seed + 1,
                "test_seed": config.seed + 2,
                "train": [s.id for s in train],
                "val": [s.id for s in val],
            },
        )
    if not config.data:
        raise ValueError(f"optimizing on the {config.suite} suite needs --data PATH")
    suite = make_suite(config.suite, path=config.data)
    wanted = config.train + config.val + config.test
    streams = suite.streams(wanted)
    if len(streams) < wanted:
        raise ValueError(
            f"{config.data} holds {len(streams)} streams; optimize needs {wanted} disjoint ones "
            f"(--train {config.train} --val {config.val} --test {config.test}): lower them or add streams"
        )
    parts = {
        "train": streams[: config.train],
        "val": streams[config.train : config.train + config.val],
        "test": streams[config.train + config.val :],
    }
    train, val = ([w for s in parts[name] for w in windows(s, config.window)] for name in ("train", "val"))
    split = {name: [s.id for s in part] for name, part in parts.items()}
    return suite, train, val, {**split, "window": config.window, "train_windows": len(train), "val_windows": len(val)}


def _proposals(options: dict, results) -> dict:
    """The compact proposer's report: made, distinct, rejected (why), tried, accepted (rules in
    the instructions of the candidates GEPA kept); {} for GEPA's own proposer."""
    proposer = options.get("instruction_proposer")
    kept = [text for candidate in results.candidates for text in instructions(candidate).values()]
    return proposer.report(kept) if proposer else {}


def optimize(
    config: OptimizeConfig, lm_config: LMConfig, reflection: LMConfig, out: str | Path, *, lm=None, reflection_lm=None
) -> dict:
    """Run GEPA into ``out`` (resuming its checkpoint there) and compare on held-out streams."""
    out = Path(out)
    gepa_budget = _gepa_budget(config.budget)
    suite, train, val, split = split_streams(config)
    budget = config.notes_budget or suite.notes_budget
    lm = lm or make_lm(lm_config)
    reflection_lm = reflection_lm or make_lm(reflection)
    agent = in_process(resolve_agent(config.agent, config.writer, config.buffer_share, config.actor), "optimize")
    claim_run_dir(out, {"optimize": config, "lm": lm_config, "reflection_lm": reflection, "notes_budget": budget})
    write_json(out / "split.json", split)
    trainset, valset = _examples(train), _examples(val)
    program = StreamProgram(agent, suite, budget, act=config.objective != "recall")
    options = _gepa_options(config, reflection_lm, program)
    threads = 1 if is_local(lm_config.spec) else config.threads
    gepa = dspy.GEPA(
        reflection_lm=reflection_lm,
        log_dir=str(out / "gepa"),
        track_stats=True,
        num_threads=threads,
        seed=config.seed,
        use_merge=True,
        **options,
        **gepa_budget,
    )
    with dspy.context(lm=lm, adapter=adapter_for(lm_config.spec)):
        optimized = gepa.compile(program, trainset=trainset, valset=valset)
    save_agent(optimized.agent, out / "program.json")
    results = optimized.detailed_results
    _write_candidates(results, out)
    _plot_curve(results, out)
    summary = {
        "metric_calls": results.total_metric_calls,
        "candidates": len(results.candidates),
        "best_val_score": results.val_aggregate_scores[results.best_idx],
        "seed_val_score": results.val_aggregate_scores[0],
        "seed_instructions": instructions(program),
        "optimized_instructions": instructions(optimized),
        "proposals": _proposals(options, results),
    }
    changed = summary["optimized_instructions"] != summary["seed_instructions"]
    summary["test"] = _compare(config, lm_config, out, lm, changed) if config.test else {}
    write_json(out / "summary.json", summary)
    return summary
