"""``tune``: Optuna searches the knobs around the prompts that GEPA does not touch —
notes budget, retrieval top-k, writer style and (when GEPA runs per trial) its minibatch
size — with the continual metric as the objective.

The study lives in ``OUT/study.db`` (SQLite), so a killed study resumes and several
workers can share it (run the same command in several shells). Each trial is an
``evaluate`` run (after an ``optimize`` run when ``max_metric_calls`` is set) under
``OUT/trials/<n>/``; ``OUT/best.json`` holds the best trial.
"""

from __future__ import annotations

import fcntl
from dataclasses import dataclass
from pathlib import Path

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig, make_lm
from promptmem.optimize.gepa import OptimizeConfig, gepa_budget, optimize
from promptmem.options import check_choices, option
from promptmem.programs.agent import WRITERS
from promptmem.rundir import claim_run_dir


@dataclass(frozen=True)
class TuneConfig:
    """The search space and the evaluation each trial runs; written to ``config.json``."""

    trials: int = option(8, "Trials this worker runs (the shared study may hold more).", min=1)
    streams: int = option(2, "Tuning streams per trial.", min=1)
    tasks: int = option(16, "Tasks per tuning stream.", min=3)
    seed: int = option(500, "Tuning streams' generator seed (held out from the tests' streams).", cli=False)
    budgets: tuple[int, ...] = option((400, 800, 1600), "Notes budgets (characters) to try.")
    top_ks: tuple[int, ...] = option((0, 4, 8), "Retrieval top-k to try (0: every note).")
    writers: tuple[str, ...] = option(
        ("ops", "notes"), f"Writer styles to try: {', '.join(WRITERS)} or pkg.module:Class paths."
    )
    max_metric_calls: str | None = option(
        None,
        "Also run GEPA per trial with this budget (light | medium | heavy | N metric calls), tuning its minibatch size (default: the seed prompts).",
        was="gepa_budget",
    )
    minibatches: tuple[int, ...] = option((2, 3, 5), "GEPA minibatch sizes to try (with max_metric_calls).", cli=False)

    def __post_init__(self):
        check_choices(self)
        if self.max_metric_calls is not None:
            gepa_budget(self.max_metric_calls)


def _trial(trial, config: TuneConfig, lm_config: LMConfig, reflection: LMConfig, out: Path, lm) -> float:
    import optuna

    budget = trial.suggest_categorical("notes_budget", list(config.budgets))
    top_k = trial.suggest_categorical("top_k", list(config.top_ks))
    writer = trial.suggest_categorical("writer", list(config.writers))
    agent, trial_dir = "seed", out / "trials" / str(trial.number)
    if config.max_metric_calls:
        minibatch = trial.suggest_categorical("minibatch", list(config.minibatches))
        gepa = OptimizeConfig(
            writer=writer, budget=budget, max_metric_calls=config.max_metric_calls, minibatch=minibatch, test_streams=0
        )
        optimize(gepa, lm_config, reflection, trial_dir / "optimize", lm=lm)
        agent = str(trial_dir / "optimize" / "program.json")
    report = evaluate(
        EvalConfig(
            agent=agent,
            writer=writer,
            streams=config.streams,
            tasks=config.tasks,
            seed=config.seed,
            budget=budget,
            top_k=top_k or None,
            baseline=False,
        ),
        lm_config,
        trial_dir / "eval",
        lm=lm,
        show_progress=False,
    )
    trial.set_user_attr(
        "tokens_per_task", report.agent.cost.prompt_tokens_per_task + report.agent.cost.completion_tokens_per_task
    )
    if report.agent.questions == 0:
        raise optuna.TrialPruned("no questions in the tuning streams")
    return report.agent.score


def tune(config: TuneConfig, lm_config: LMConfig, reflection: LMConfig, out: str | Path, *, lm=None) -> dict:
    """Run ``config.trials`` trials of the shared study in ``out``; returns the best trial."""
    import optuna

    out = Path(out)
    claim_run_dir(out, {"tune": config, "lm": lm_config, "reflection_lm": reflection})
    # unseeded sampler: resumed and parallel workers must not replay the same suggestions;
    # workers starting together take turns creating the study's tables
    with open(out / "study.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        study = optuna.create_study(
            study_name="promptmem-tune",
            storage=f"sqlite:///{out / 'study.db'}",
            direction="maximize",
            load_if_exists=True,
        )
    lm = lm or make_lm(lm_config)
    study.optimize(
        lambda t: _trial(t, config, lm_config, reflection, out, lm), n_trials=config.trials, show_progress_bar=True
    )
    best = {
        "value": study.best_value,
        "params": study.best_params,
        "trial": study.best_trial.number,
        "trials": len(study.trials),
    }
    write_json(out / "best.json", best)
    return best
