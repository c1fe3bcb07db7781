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

import json
from dataclasses import dataclass
from pathlib import Path

import dspy

from promptmem.comparison import Entry, compare
from promptmem.evaluate import EvalConfig, claim_run_dir
from promptmem.feedback import stream_feedback
from promptmem.lm import LMConfig, adapter_for, is_local, make_lm
from promptmem.programs.agent import MemoryAgent, resolve_agent, save_agent
from promptmem.runner import run_stream
from promptmem.suites import make_suite
from promptmem.tasks import Stream, Suite

AUTO_BUDGETS = ("light", "medium", "heavy")


@dataclass(frozen=True)
class OptimizeConfig:
    """What to optimize and with how much budget; written to ``config.json``."""

    suite: str = "synthetic"  # suite (synthetic: windows are generated streams of `window` tasks)
    agent: str = "seed"  # the starting program: seed | PATH.json
    writer: str = "ops"  # the seed agent's writer: ops | notes | mem0
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


class StreamProgram(dspy.Module):
    """An agent run over a whole stream: ``forward(stream) -> Prediction(result=StreamResult)``.
    Uses the LM and adapter of the current DSPy context."""

    def __init__(self, agent: MemoryAgent, suite: Suite, budget: int):
        super().__init__()
        self.agent = agent
        self.suite, self.budget = suite, budget

    def forward(self, stream: Stream) -> dspy.Prediction:
        result = run_stream(self.agent, stream, self.suite, dspy.settings.lm, budget=self.budget,
                            adapter=dspy.settings.adapter)
        return dspy.Prediction(result=result)


def role_of(pred_name: str | None) -> str | None:
    """'writer' / 'actor' for a predictor name such as 'agent.writer.predict'; None: both."""
    for role in ("writer", "actor"):
        if pred_name and role in pred_name.split("."):
            return role
    return None


def continual_metric(gold, pred, trace=None, pred_name=None, pred_trace=None) -> dspy.Prediction:
    """GEPA's metric: the stream score, with the feedback of the role being edited."""
    feedback = stream_feedback(pred.result)
    return dspy.Prediction(score=feedback.score, feedback=feedback.text(role_of(pred_name)))


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
    candidates = [{"index": i, "val_score": score, "parents": parents,
                   "found_after_metric_calls": calls, "instructions": instructions(program)}
                  for i, (program, score, parents, calls) in enumerate(zip(
                      results.candidates, results.val_aggregate_scores, results.parents,
                      results.discovery_eval_counts))]
    (out / "candidates.json").write_text(json.dumps({"best": results.best_idx, "candidates": candidates}, indent=2))
    pareto = {str(k): sorted(v) for k, v in results.per_val_instance_best_candidates.items()}
    (out / "pareto.json").write_text(json.dumps(pareto, indent=2))


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


def _compare(config: OptimizeConfig, lm_config: LMConfig, out: Path, lm) -> dict:
    entries = [Entry(label, EvalConfig(suite=config.suite, agent=agent, writer=config.writer,
                                       streams=config.test, seed=config.seed + 2, tasks=config.test_tasks,
                                       budget=config.notes_budget, threads=config.threads), lm_config, lm)
               for label, agent in (("seed", config.agent), ("optimized", str(out / "program.json")))]
    return compare(entries, out, runs=out / "test")


def _examples(streams: list[Stream]) -> list[dspy.Example]:
    return [dspy.Example(stream=s).with_inputs("stream") for s in streams]


def optimize(config: OptimizeConfig, lm_config: LMConfig, reflection: LMConfig, out: str | Path,
             *, lm=None, reflection_lm=None) -> dict:
    """Run GEPA into ``out`` (resuming its checkpoint there) and compare on held-out streams."""
    out = Path(out)
    gepa_budget = _gepa_budget(config.budget)
    if config.suite != "synthetic":
        raise ValueError("optimize needs generated windows: only the synthetic suite is supported yet")
    suite = make_suite(config.suite, tasks=config.window)
    budget = config.notes_budget or suite.notes_budget
    claim_run_dir(out, {"optimize": config, "lm": lm_config, "reflection_lm": reflection, "notes_budget": budget})
    trainset = _examples(suite.streams(config.train, seed=config.seed))
    valset = _examples(suite.streams(config.val, seed=config.seed + 1))
    program = StreamProgram(resolve_agent(config.agent, config.writer), suite, budget)
    lm = lm or make_lm(lm_config)
    reflection_lm = reflection_lm or make_lm(reflection)
    threads = 1 if is_local(lm_config.spec) else config.threads
    gepa = dspy.GEPA(metric=continual_metric, reflection_lm=reflection_lm, log_dir=str(out / "gepa"),
                     track_stats=True, num_threads=threads, seed=config.seed,
                     reflection_minibatch_size=config.minibatch, component_selector=config.components,
                     use_merge=True, **gepa_budget)
    with dspy.context(lm=lm, adapter=adapter_for(lm_config.spec)):
        optimized = gepa.compile(program, trainset=trainset, valset=valset)
    save_agent(optimized.agent, out / "program.json")
    results = optimized.detailed_results
    _write_candidates(results, out)
    _plot_curve(results, out)
    summary = {"metric_calls": results.total_metric_calls, "candidates": len(results.candidates),
               "best_val_score": results.val_aggregate_scores[results.best_idx],
               "seed_val_score": results.val_aggregate_scores[0],
               "seed_instructions": instructions(program), "optimized_instructions": instructions(optimized)}
    summary["test"] = _compare(config, lm_config, out, lm) if config.test else {}
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary
