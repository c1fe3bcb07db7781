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
from functools import partial
from pathlib import Path
from typing import Literal

import dspy

from promptmem.comparison import Entry, compare
from promptmem.evaluate import EvalConfig
from promptmem.feedback import StreamFeedback, stream_feedback
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, adapter_for, is_local, make_lm
from promptmem.metrics import stream_recall
from promptmem.optimize.demos import hindsight_demos, with_demos
from promptmem.optimize.examples import gepa_examples, split_streams
from promptmem.optimize.proposer import CompactProposer, RuleSource
from promptmem.optimize.windows import warm_memory
from promptmem.options import check_choices, option
from promptmem.programs.actor import ActorKind
from promptmem.programs.agent import SEED_AGENT, MemoryAgent, in_process, resolve_agent, save_agent, writer_help
from promptmem.programs.select import SelectWriter
from promptmem.roles import Abilities, role_of
from promptmem.rundir import claim_run_dir, holds_run_dir
from promptmem.runner import run_tasks, stream_context
from promptmem.signals.hindsight import Target
from promptmem.signals.select_feedback import selection_feedback
from promptmem.suites import SUITES, suite_type
from promptmem.tasks import Stream, Suite

AUTO_BUDGETS = ("light", "medium", "heavy")
Objective = Literal["continual", "recall"]  # see OBJECTIVES
Proposer = Literal["compact", "topics", "gepa"]
# the proposers that are the compact proposer, and where each takes its rules from (gepa: GEPA's own)
COMPACT_RULES: dict[str, RuleSource] = {"compact": "lm", "topics": "topics"}
TASK_LM = LMConfig(spec="local:qwen2.5-coder-0.5b")  # the default task LM of optimize and tune
# the default reflection LM: a stronger model, sampling, room for whole instructions
REFLECTION_LM = LMConfig(spec="local:qwen2.5-coder-1.5b", temperature=1.0, max_tokens=1024, context=8192)


@dataclass(frozen=True)
class OptimizeConfig:
    """What to optimize and with how much budget; written to ``config.json``."""

    suite: str = option(
        "synthetic",
        f"Where the GEPA examples come from: {' | '.join(SUITES)} | pkg.module:Class. A generated suite gives "
        "generated windows; a suite read from --data, windows cut from its streams (train, val and test take "
        "disjoint streams in file order, written to OUT/split.json).",
    )
    data: str | None = option(None, "jsonl, locomo: the data file.", path=True)
    agent: str = option("seed", f"Starting program: {SEED_AGENT} | PATH.json.")
    writer: str = option("select", partial(writer_help, "The seed agent's writer to evolve"))
    buffer_share: float = option(
        0.0,
        "Seed agent: share of the notes budget kept as a recency buffer of raw observations (hybrid memory).",
        min=0.0,
        max=0.95,
    )
    actor: ActorKind = option("plain", "Seed agent's actor: plain | filter (selects the relevant notes, then answers).")
    max_metric_calls: str = option(
        "light",
        "GEPA budget: light | medium | heavy | N metric calls (one call = one stream window).",
        was="budget",
    )
    train_streams: int = option(6, "Training streams.", min=1, was="train")
    val_streams: int = option(4, "Validation streams (Pareto tracking).", min=1, was="val")
    test_streams: int = option(4, "Held-out streams for seed vs optimized (0: skip).", min=0, was="test")
    window: int = option(8, "Tasks per GEPA example.", min=3)
    demos: int = option(
        0,
        min=0,
        help="Also compare held out with K few-shot demonstrations per role, labelled in hindsight on the train "
        "streams (select writer: what later questions needed; actor: right answers from such notes), added to "
        "the seed and to the optimized program.",
    )
    demos_target: Target = option(
        "needed",
        help="What the writer demos keep (and the actor demos' notes hold): needed (what later questions needed) "
        "| stated (also every statement of a fact the world tracks, where the suite lists them).",
    )
    warm_start: Literal["seed", "none"] = option(
        "seed",
        help="Where each GEPA window's notes start: seed (the notes the seed program held at the window's "
        "position of its long stream, so the budget binds and questions reach back past the window) | none "
        "(empty notes).",
    )
    stream_tasks: int | None = option(
        None, min=2, help="synthetic: tasks per train/val stream the windows are cut from (default: --test-tasks)."
    )
    test_tasks: int = option(24, "Synthetic: tasks per held-out stream (files: whole streams).", min=3)
    seed: int = option(0, "Synthetic streams: train seed, val seed+1, test seed+2.")
    budget: int | None = option(
        None,
        "Notes budget in characters (default: the suite's); GEPA's budget is --max-metric-calls.",
        min=1,
        was="notes_budget",
    )
    minibatch: int = option(3, "GEPA reflection minibatch size.", min=1)
    components: Literal["round_robin", "all"] = option(
        "round_robin", "Predictors GEPA edits per step: round_robin | all."
    )
    threads: int = option(
        1, "GEPA evaluation threads (hosted LMs; a local model serves one call at a time).", min=1, pace=True
    )
    objective: Objective = option(
        "continual",
        "continual: the stream score, actor and writer, per-role feedback | recall: the writer alone (no actor calls, several times cheaper), scored by notes recall -- whether the notes shown for each later question hold its answer.",
    )
    proposer: Proposer = option(
        "compact",
        "compact: the reflection LM sees the current instructions and the deduplicated failures and proposes one checked rule, appended (sized for small local reflection models) | topics: the same checks and appending, the rules read off the feedback's topic counts (keep a kind later questions needed, leave out a topic only never-needed statements used; no reflection LM) | gepa: GEPA's own prompt with whole traces, whole new instructions.",
    )
    cache_evaluation: bool = option(
        True, "GEPA caches (candidate, example) scores, so no example is run twice for one candidate."
    )

    def __post_init__(self):
        check_choices(self)
        gepa_budget(self.max_metric_calls)


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
        with stream_context(dspy.settings.lm, dspy.settings.adapter):
            memory = warm_memory(self.budget, start)
            result = run_tasks(self.agent, stream, self.suite, memory, act=self.act, first_position=position)
        return dspy.Prediction(result=result, suite=self.suite, selects=isinstance(self.agent.writer, SelectWriter))


def run_feedback(gold, pred) -> StreamFeedback:
    """The run's per-role feedback; a writer that chooses statements (``pred.selects``) gets the
    hindsight lines naming the statements it dropped or kept first (``signals.select_feedback``)."""
    feedback = stream_feedback(pred.result, pred.suite)
    if pred.get("selects"):
        feedback.writer[:0] = selection_feedback(gold.stream, pred.result, pred.suite)
    return feedback


def continual_metric(gold, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """GEPA's metric: the stream score, with the feedback of the role being edited."""
    feedback = run_feedback(gold, pred)
    return dspy.Prediction(score=feedback.score, feedback=feedback.text(role_of(pred_name)))


def recall_metric(gold, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """GEPA's metric for a writer-only run: the stream's notes recall, with writer feedback."""
    recall = stream_recall(pred.result.records)
    return dspy.Prediction(score=recall or 0.0, feedback=run_feedback(gold, pred).text("writer"))


OBJECTIVES = {"continual": continual_metric, "recall": recall_metric}


def writer_components(state, trajectories, subsample_scores, candidate_idx, candidate) -> list[str]:
    """GEPA component selector for ``--objective recall``: every writer predictor, never the actor."""
    return [name for name in candidate if role_of(name) == "writer"]


def _gepa_options(config: OptimizeConfig, reflection_lm, program: dspy.Module, out: Path) -> dict:
    """GEPA's levers as the config sets them (the compact proposer is told what each of
    ``program``'s predictors can do, and saves its proposals with GEPA's checkpoints, to
    ``out/proposals.json``)."""
    options = {
        "metric": OBJECTIVES[config.objective],
        "reflection_minibatch_size": config.minibatch,
        "component_selector": writer_components if config.objective == "recall" else config.components,
        "gepa_kwargs": {"cache_evaluation": config.cache_evaluation},
    }
    if config.proposer in COMPACT_RULES:
        rules, state = COMPACT_RULES[config.proposer], out / "proposals.json"
        proposer = CompactProposer(rules, reflection_lm, abilities(program), state_path=state)
        options["instruction_proposer"] = proposer
        options["gepa_kwargs"]["callbacks"] = [proposer]
    return options


def abilities(program: dspy.Module) -> dict[str, Abilities]:
    """What the step behind each writer predictor of ``program`` can do (its writer's own
    ``abilities``); actor predictors get the proposer's default."""
    writer = program.agent.writer
    return {name: writer.abilities for name, _ in program.named_predictors() if writer and role_of(name) == "writer"}


def gepa_budget(max_metric_calls: str) -> dict:
    """GEPA's budget argument for ``--max-metric-calls`` (a ValueError if it is none)."""
    if max_metric_calls in AUTO_BUDGETS:
        return {"auto": max_metric_calls}
    if max_metric_calls.isdigit() and int(max_metric_calls) > 0:
        return {"max_metric_calls": int(max_metric_calls)}
    raise ValueError(
        f"max-metric-calls: {max_metric_calls!r} is not one of {' | '.join(AUTO_BUDGETS)} or a number of metric calls"
    )


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


def held_out_comparison(
    config: OptimizeConfig,
    lm_config: LMConfig,
    out: Path,
    lm,
    programs: list[tuple[str, str]],
    runs: Path | None = None,
) -> dict:
    """The ``programs`` (label, agent name or saved program) side by side on the held-out
    streams (files: the streams after train and val), written to ``out``; each program's run
    under ``runs/label`` (default ``out/test``; a finished one is resumed, not rerun)."""
    held_out = (
        {"seed": config.train_streams + config.val_streams, "data": config.data}
        if suite_type(config.suite).from_file
        else {"seed": config.seed + 2, "tasks": config.test_tasks}
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
                streams=config.test_streams,
                budget=config.budget,
                threads=config.threads,
                **held_out,
            ),
            lm_config,
            lm,
        )
        for label, agent in programs
    ]
    return compare(entries, out, runs=runs or out / "test")


def _proposals(options: dict, results) -> dict:
    """The compact proposer's report: made, distinct, rejected (why), tried, accepted (rules in
    the instructions of the candidates GEPA kept); {} for GEPA's own proposer."""
    proposer = options.get("instruction_proposer")
    kept = [text for candidate in results.candidates for text in instructions(candidate).values()]
    return proposer.report(kept) if proposer else {}


@holds_run_dir
def optimize(
    config: OptimizeConfig, lm_config: LMConfig, reflection: LMConfig, out: str | Path, *, lm=None, reflection_lm=None
) -> dict:
    """Run GEPA into ``out`` (resuming its checkpoint there; one run holds ``out`` at a time) and
    compare on held-out streams."""
    out = Path(out)
    suite, train, val, split = split_streams(config)
    budget = config.budget or suite.notes_budget
    lm = lm or make_lm(lm_config)
    # topic rules are read off the feedback's counts: no reflection LM
    reflection_lm = None if COMPACT_RULES.get(config.proposer) == "topics" else reflection_lm or make_lm(reflection)
    agent = in_process(resolve_agent(config.agent, config.writer, config.buffer_share, config.actor), "optimize")
    claim_run_dir(out, {"optimize": config, "lm": lm_config, "reflection_lm": reflection, "notes_budget": budget})
    with dspy.context(lm=lm, adapter=adapter_for(lm_config.spec)):
        trainset, valset, windows_info = gepa_examples(config, agent, suite, budget, train, val, out)
    write_json(out / "split.json", {**split, **windows_info})
    program = StreamProgram(agent, suite, budget, act=config.objective != "recall")
    options = _gepa_options(config, reflection_lm, program, out)
    threads = 1 if is_local(lm_config.spec) else config.threads
    gepa = dspy.GEPA(
        reflection_lm=reflection_lm,
        log_dir=str(out / "gepa"),
        track_stats=True,
        num_threads=threads,
        seed=config.seed,
        use_merge=True,
        **options,
        **gepa_budget(config.max_metric_calls),
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
    programs = [("seed", config.agent)] + ([("optimized", str(out / "program.json"))] if changed else [])
    if config.demos:  # the second lever, alone (seed + demos) and after GEPA's instructions
        demos = hindsight_demos(train, suite, budget, config.demos, config.demos_target)
        for label, _ in list(programs):
            path = out / f"{label}_demos.json"
            save_agent(with_demos(agent if label == "seed" else optimized.agent, demos), path)
            programs.append((f"{label} + demos", str(path)))
        summary["demos"] = {role: [example.toDict() for example in examples] for role, examples in demos.items()}
    summary["test"] = held_out_comparison(config, lm_config, out, lm, programs) if config.test_streams else {}
    write_json(out / "summary.json", summary)
    return summary
