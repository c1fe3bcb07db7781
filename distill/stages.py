"""The stages of ``promptmem distill`` (``pipeline.distill`` sets the run up and calls them in
order): the teacher's traces, the SFT rows, the GRPO schedule and the plot of its rewards. Each
skips what its run directory already holds (``timings.StageClock``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path

from promptmem.distill.curriculum import Curriculum
from promptmem.distill.sft_data import sampled_actor_rows, sft_dataset, write_rows
from promptmem.distill.timings import StageClock
from promptmem.distill.training import grpo, logged_steps, reward_curve
from promptmem.files import write_json
from promptmem.lm.specs import HF_PREFIX, LMConfig, adapter_for
from promptmem.programs.judge import DiscoveryJudge
from promptmem.signals.future import eviction_tasks
from promptmem.signals.hindsight_rows import actor_cases
from promptmem.signals.role_rewards import LABELLED_REWARDS, RoleRewards
from promptmem.signals.traces import Sampling, export_traces, sampling_report, traces_dataset

STUDENT_FORMAT = adapter_for(HF_PREFIX)  # how traces are rendered and students are read


def plot_rewards(curve: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axis = plt.subplots(figsize=(5, 3))
    steps = [p["step"] for p in curve]
    mean = [p["reward"] for p in curve]
    std = [p["reward_std"] for p in curve]
    axis.plot(steps, mean, marker="o")
    axis.fill_between(steps, [m - s for m, s in zip(mean, std)], [m + s for m, s in zip(mean, std)], alpha=0.2)
    axis.set_xlabel("GRPO step")
    axis.set_ylabel("mean reward (± std in group)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def teacher_traces(
    config, agent, streams, suite, lm, teacher_lm: LMConfig, budget: int, out: Path, clock: StageClock
) -> list:
    """The teacher's trace rows (``traces/``), their sampling report and their dataset."""
    dataset = out / "traces" / "dataset"
    rows = clock.time(
        "traces",
        dataset.is_dir(),
        lambda: export_traces(
            agent,
            streams,
            suite,
            lm,
            budget,
            STUDENT_FORMAT,
            out / "traces",
            horizon=config.horizon,
            run_adapter=adapter_for(teacher_lm.spec),
            sampling=Sampling(config.samples, config.sample_temperature),
        ),
        lambda _: sum(len(stream.tasks) for stream in streams),
        unit="task",
    )
    write_json(out / "traces" / "sampling.json", sampling_report(rows, config.min_actor_score))
    if not dataset.is_dir():  # written aside and renamed: an interrupted save is redone
        aside = dataset.with_name("dataset.partial")
        shutil.rmtree(aside, ignore_errors=True)
        traces_dataset(rows).save_to_disk(str(aside))
        aside.rename(dataset)
    return rows


def sft_rows(config, agent, streams, suite, budget, rows, hindsight, samplers, out: Path, clock: StageClock):
    """The SFT rows (``sft_data.sft_dataset``) and their counts by source; writes ``hindsight/``."""
    folder = out / "hindsight"
    write_rows(folder / "writer.jsonl", hindsight)
    cases = [case for stream in streams for case in actor_cases(stream, suite, budget, config.keep_target)]
    write_json(folder / "actor_cases.json", {"cases": len(cases), "lookalike": sum(c.lookalike for c in cases)})
    chosen = {model: samplers[model] for model in config.actor_samplers}
    actor = clock.time(
        "actor_samples",
        all((folder / f"actor-{model}.jsonl").is_file() for model in chosen),
        lambda: sampled_actor_rows(
            agent,
            cases,
            suite,
            chosen,
            STUDENT_FORMAT,
            folder,
            samples=config.actor_samples,
            temperature=config.sample_temperature,
            threshold=config.min_actor_score,
        ),
        lambda _: len(cases) * len(chosen),
        unit="question",
    )
    lookalike = {(case.stream_id, case.step.task.id) for case in cases if case.lookalike}
    return sft_dataset(
        rows,
        hindsight,
        actor,
        hindsight_share=config.hindsight_share,
        seed=config.seed,
        min_actor_score=config.min_actor_score,
        min_writer_credit=config.min_writer_credit,
        lookalike=lookalike,
    )


def grpo_prompts(rows: list, hindsight: list, roles: tuple[str, ...]) -> list:
    """A GRPO phase's prompts: the traced calls of its roles, and for the select writer its
    hindsight rows of the tasks the traces lack (the same prompts; a teacher write that failed
    left no trace)."""
    chosen = [r for r in rows if r.role in roles]
    traced = {(r.stream_id, r.task_id) for r in chosen if r.role == "writer"}
    extra = [r for r in hindsight if (r.stream_id, r.task_id) not in traced] if "writer" in roles else []
    return chosen + extra


def grpo_prompt_source(config, rows: list, hindsight: list, streams, suite, budget: int) -> Callable:
    """``prompts(roles)`` for ``grpo_schedule``: ``grpo_prompts`` of the traced ``rows`` and,
    with a writer reward that reads hindsight labels, the ``hindsight`` writer rows; with the
    future reward, the writer's prompts only at the tasks where the notes are full
    (``future.eviction_tasks`` of ``streams`` at ``config.eviction_fill``)."""
    if config.writer_reward not in LABELLED_REWARDS:
        return partial(grpo_prompts, rows, [])
    if config.writer_reward == "future":
        tasks = eviction_tasks(streams, suite, budget, config.keep_target, config.eviction_fill)
        rows = [r for r in rows if r.role != "writer" or (r.stream_id, r.task_id) in tasks]
        hindsight = [r for r in hindsight if (r.stream_id, r.task_id) in tasks]
    return partial(grpo_prompts, rows, hindsight)


def grpo_schedule(
    config, agent, prompts, streams, suite, lm, teacher_lm, start: Path, out: Path, clock: StageClock, say
):
    """The GRPO schedule from ``start``: (the last phase's model, the reward curve of every step);
    ``prompts(roles)``: a phase's rows."""
    model, curve, steps = start, [], config.train.grpo_steps
    for phase, roles in enumerate(config.schedule, 1):
        horizon = Curriculum(config.horizons, steps, phase, len(config.schedule))
        phase_rows = prompts(roles)
        if not phase_rows:
            raise ValueError(f"GRPO phase {phase} ({'+'.join(roles)}) has no prompts: no traced call of its roles")
        rewards = RoleRewards(
            agent,
            phase_rows,
            streams,
            suite,
            lm,
            STUDENT_FORMAT,
            run_adapter=adapter_for(teacher_lm.spec),
            horizon=config.horizon,
            discovery_weight=config.discovery_weight,
            judge=DiscoveryJudge(),
            writer_reward=config.writer_reward,
            waste_weight=config.waste_weight,
            hindsight_target=config.keep_target,
            future_horizon=horizon,
        )
        say(
            f"grpo phase {phase}/{len(config.schedule)}: {config.train.grpo_steps} steps on "
            f"{len(phase_rows)} prompts ({', '.join(roles)})"
        )
        phase_dir = out / ("grpo" if phase == 1 else f"grpo-{phase}")
        model = clock.time(
            phase_dir.name,
            (phase_dir / "model" / "config.json").is_file(),
            lambda phase_dir=phase_dir, phase_rows=phase_rows, rewards=rewards, model=model: grpo(
                model,
                phase_rows,
                [rewards, rewards.format_reward],
                phase_dir,
                config.train,
                weights=[1.0, config.format_weight],
            ),
            lambda trained: logged_steps(trained.parent),
        )
        future = config.writer_reward == "future" and "writer" in roles
        log = json.loads((phase_dir / "log.json").read_text())
        curve += phase_curve(log, phase, curve[-1]["step"] if curve else 0, horizon if future else None)
    return model, curve


def phase_curve(log: list[dict], phase: int, offset: int, horizon: Callable[[int], int] | None = None) -> list[dict]:
    """A GRPO phase's reward curve (``training.reward_curve`` of its log), its steps counted on
    from ``offset`` and marked with the ``phase``; with the future reward's ``horizon`` (of the
    trainer's step), each step's horizon, that of its generation (the step before it is logged)."""
    return [
        {**point, "step": point["step"] + offset, "phase": phase}
        | ({"horizon": horizon(point["step"] - 1)} if horizon else {})
        for point in reward_curve(log)
    ]
