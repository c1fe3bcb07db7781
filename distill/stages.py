"""The stages of ``promptmem distill``, in order (``STAGES``; ``pipeline.distill`` sets the run up
and calls them): the teacher's traces, SFT (its rows, then training), the GRPO schedule and the
held-out comparison. Each reads the run (``run.DistillRun``), adds what it made to the ``Work``
and returns the run's summary so far; each skips what its run directory already holds
(``timings.StageClock``)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import asdict
from functools import partial
from pathlib import Path

from promptmem.comparison import Entry, compare
from promptmem.distill.card import student_card, write_card
from promptmem.distill.curriculum import Curriculum
from promptmem.distill.run import STUDENT_FORMAT, DistillRun, Work
from promptmem.distill.sft_data import sampled_actor_rows, sft_dataset, write_rows
from promptmem.distill.teacher_work import sft_streams
from promptmem.distill.timings import grpo_phase
from promptmem.distill.training import grpo, logged_steps, reward_curve, sft
from promptmem.files import write_json
from promptmem.programs.judge import DiscoveryJudge
from promptmem.programs.select import SelectWriter
from promptmem.signals.future import eviction_tasks
from promptmem.signals.hindsight_rows import actor_cases, writer_rows
from promptmem.signals.role_rewards import LABELLED_REWARDS, RewardSettings, RoleRewards
from promptmem.signals.traces import Sampling, export_traces, sampling_report, traces_dataset

__all__ = ["STAGES", "STUDENT_FORMAT", "grpo_prompt_source", "phase_curve", "plot_rewards"]


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


def teacher_traces(run: DistillRun, work: Work) -> dict:
    """The teacher's trace rows (``traces/``), their sampling report and their dataset."""
    config, out = run.config, run.out
    run.say(f"traces: the teacher over {len(run.streams)} streams")
    dataset = out / "traces" / "dataset"
    work.rows = run.clock.time(
        "traces",
        dataset.is_dir(),
        lambda: export_traces(
            run.teacher,
            run.streams,
            run.budget,
            out / "traces",
            horizon=config.horizon,
            sampling=Sampling(config.samples, config.sample_temperature),
        ),
        lambda _: sum(len(stream.tasks) for stream in run.streams),
        unit="task",
    )
    write_json(out / "traces" / "sampling.json", sampling_report(work.rows, config.min_actor_score))
    if not dataset.is_dir():  # written aside and renamed: an interrupted save is redone
        aside = dataset.with_name("dataset.partial")
        shutil.rmtree(aside, ignore_errors=True)
        traces_dataset(work.rows).save_to_disk(str(aside))
        aside.rename(dataset)
    return {"traces": len(work.rows)}


def _hindsight_rows(run: DistillRun, work: Work) -> list:
    """The select writer's hindsight rows for SFT (``hindsight/``); those of the streams held
    back for GRPO (``grpo_streams``) go to ``work.grpo_hindsight`` instead."""
    config, agent = run.config, run.teacher.agent
    (run.out / "hindsight").mkdir(exist_ok=True)
    hindsight = (
        writer_rows(
            agent,
            run.labelled[: config.hindsight_streams],
            run.label_suite,
            run.budget,
            STUDENT_FORMAT,
            config.keep_target,
        )
        if isinstance(agent.writer, SelectWriter)
        else []
    )
    held_back = {stream.id for stream in run.labelled[sft_streams(asdict(config)) :]} if config.grpo_streams else set()
    work.held_back = held_back
    work.grpo_hindsight = [row for row in hindsight if row.stream_id in held_back] if held_back else hindsight
    if held_back:
        write_rows(run.out / "hindsight" / "grpo-writer.jsonl", work.grpo_hindsight)
    return [row for row in hindsight if row.stream_id not in held_back]


def sft_rows(run: DistillRun, work: Work, hindsight: list) -> None:
    """The SFT rows (``sft_data.sft_dataset``) and their counts by source into ``work``; writes ``hindsight/``."""
    config, folder = run.config, run.out / "hindsight"
    streams, suite = run.labelled[: config.train_streams], run.label_suite
    write_rows(folder / "writer.jsonl", hindsight)
    cases = [case for stream in streams for case in actor_cases(stream, suite, run.budget, config.keep_target)]
    write_json(folder / "actor_cases.json", {"cases": len(cases), "lookalike": sum(c.lookalike for c in cases)})
    samplers = run.samplers()
    chosen = {model: samplers[model] for model in config.actor_samplers}
    actor = run.clock.time(
        "actor_samples",
        all((folder / f"actor-{model}.jsonl").is_file() for model in chosen),
        lambda: sampled_actor_rows(
            run.labelling,
            cases,
            chosen,
            folder,
            samples=config.actor_samples,
            temperature=config.sample_temperature,
            threshold=config.min_actor_score,
        ),
        lambda _: len(cases) * len(chosen),
        unit="question",
    )
    lookalike = {(case.stream_id, case.step.task.id) for case in cases if case.lookalike}
    work.kept, work.sources = sft_dataset(
        work.rows,
        hindsight,
        actor,
        hindsight_share=config.hindsight_share,
        seed=config.seed,
        min_actor_score=config.min_actor_score,
        min_writer_credit=config.min_writer_credit,
        lookalike=lookalike,
    )


def sft_stage(run: DistillRun, work: Work) -> dict:
    """The SFT rows (hindsight writer targets, sampled actor answers), then SFT of the student."""
    run.say("sft rows: hindsight writer targets, actor answers sampled on hindsight notes")
    sft_rows(run, work, _hindsight_rows(run, work))
    config = run.config
    run.say(
        f"sft: {config.student} on {len(work.kept)} rows ({', '.join(f'{k} {v}' for k, v in work.sources.items())})"
    )
    sft_dir = run.out / "sft"
    work.sft_model = run.clock.time(
        "sft",
        (sft_dir / "model" / "config.json").is_file(),
        lambda: sft(run.student, work.kept, sft_dir, config.train),
        lambda _: logged_steps(sft_dir),
    )
    return {"traces": len(work.rows), "sft": str(work.sft_model), "sft_sources": work.sources}


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


def reward_settings(run: DistillRun, horizon: Curriculum) -> RewardSettings:
    """The role rewards' settings of a GRPO phase (``horizon``: its future reward's curriculum)."""
    config = run.config
    return RewardSettings(
        writer_reward=config.writer_reward,
        horizon=config.horizon,
        discovery_weight=config.discovery_weight,
        waste_weight=config.waste_weight,
        hindsight_target=config.keep_target,
        future_horizon=horizon,
        judge=DiscoveryJudge(),
    )


def grpo_schedule(run: DistillRun, prompts: Callable, start: Path) -> tuple[Path, list[dict]]:
    """The GRPO schedule from ``start``: (the last phase's model, the reward curve of every step);
    ``prompts(roles)``: a phase's rows."""
    config = run.config
    model, curve, steps = start, [], config.train.grpo_steps
    for phase, roles in enumerate(config.schedule, 1):
        horizon = Curriculum(config.horizons, steps, phase, len(config.schedule))
        phase_rows = prompts(roles)
        if not phase_rows:
            raise ValueError(f"GRPO phase {phase} ({'+'.join(roles)}) has no prompts: no traced call of its roles")
        rewards = RoleRewards(run.labelling, phase_rows, run.labelled, reward_settings(run, horizon))
        run.say(
            f"grpo phase {phase}/{len(config.schedule)}: {config.train.grpo_steps} steps on "
            f"{len(phase_rows)} prompts ({', '.join(roles)})"
        )
        phase_dir = run.out / grpo_phase(phase)
        model = run.clock.time(
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


def grpo_stage(run: DistillRun, work: Work) -> dict:
    """The GRPO schedule from the SFT model; its reward curve (``grpo_rewards.json`` / ``.png``)."""
    rows = (
        [row for row in work.rows if row.role != "writer"] if work.held_back else work.rows
    )  # SFT fitted the traced writes
    config = run.config
    prompts = grpo_prompt_source(config, rows, work.grpo_hindsight, run.labelled, run.label_suite, run.budget)
    work.grpo_model, work.curve = grpo_schedule(run, prompts, work.sft_model)
    if idle := untrained_steps(work.curve):
        run.say(
            f"grpo: {idle} of {len(work.curve)} steps learned nothing: every group's completions scored "
            f"alike, even resampled{' (the model is the SFT model)' if idle == len(work.curve) else ''}; "
            "more --generations or a higher --grpo-temperature spread them"
        )
    write_json(run.out / "grpo_rewards.json", work.curve, indent=1)
    plot_rewards(work.curve, run.out / "grpo_rewards.png")
    return {"traces": len(work.rows), "grpo_rewards": work.curve}


def untrained_steps(curve: list[dict]) -> int:
    """The GRPO steps of ``curve`` whose every group was still flat after resampling: no
    advantage, no gradient (unknown where the groups were not logged)."""
    return sum(bool(point.get("groups")) and point["skipped_groups"] >= point["groups"] for point in curve)


def phase_curve(log: list[dict], phase: int, offset: int, horizon: Callable[[int], int] | None = None) -> list[dict]:
    """A GRPO phase's reward curve (``training.reward_curve`` of its log), its steps counted on
    from ``offset`` and marked with the ``phase``; with the future reward's ``horizon`` (of the
    trainer's step), each step's horizon, that of its generation (the step before it is logged)."""
    return [
        {**point, "step": point["step"] + offset, "phase": phase}
        | ({"horizon": horizon(point["step"] - 1)} if horizon else {})
        for point in reward_curve(log)
    ]


def _card(run: DistillRun, final: Entry, comparison: dict) -> dict:
    """Writes the final student's card beside its weights (``card``); its path and the command that uses it."""
    weights = Path(final.lm_config.spec.split(":", 1)[1])  # local:PATH.gguf | hf:PATH
    card = student_card(run.config, run.teacher_lm, final.label, final.lm_config.spec, comparison)
    path = write_card(weights.parent if weights.suffix == ".gguf" else weights, card)
    return {"student_card": str(path), "use": card["use"]}


def eval_stage(run: DistillRun, work: Work) -> dict:
    """The teacher and the students of ``compare`` on the held-out streams; the run's summary
    (``summary.json``) and the final student's card."""
    config = run.config
    run.say(f"eval: {config.test_streams} held-out streams")
    checkpoints = {"student": run.student, "student+sft": work.sft_model, "student+grpo": work.grpo_model}
    entries = [Entry("teacher", run.test, run.teacher_lm, run.teacher.lm)] + [
        Entry(label, run.test, run.served(label, checkpoints[label])) for label in config.compare
    ]
    rows_out = compare(entries, run.out / "eval", first="model")
    flat = [point["flat_share"] for point in work.curve if point.get("flat_share") is not None]
    summary = {
        "comparison": rows_out,
        "grpo_rewards": work.curve,
        "flat_share": round(sum(flat) / len(flat), 4) if flat else None,
        "traces": len(work.rows),
        "sft_rows": len(work.kept),
        "sft_sources": work.sources,
        "actor_cases": json.loads((run.out / "hindsight" / "actor_cases.json").read_text()),
        "schedule": [list(roles) for roles in config.schedule],
        "timings": run.clock.read(),
        **_card(run, entries[-1], rows_out),
    }
    write_json(run.out / "summary.json", summary)
    return summary


STAGES: tuple[tuple[str, Callable[[DistillRun, Work], dict]], ...] = (
    ("traces", teacher_traces),
    ("sft", sft_stage),
    ("grpo", grpo_stage),
    ("eval", eval_stage),
)
