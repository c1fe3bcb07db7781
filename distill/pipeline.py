"""``promptmem distill``: teacher traces → SFT → GRPO → held-out comparison, resumable.

The hindsight pipeline by default (the select writer): SFT on the keep-lists a writer that knew
each training stream's future would write (mixed with the teacher's by ``hindsight_share``) and
on right answers sampled from the teacher and the student over the notes such a writer holds;
GRPO on the writer with the dense per-write reward of the hindsight labels.

The run directory holds ``config.json``; ``traces/`` (one JSONL per training stream, and
``traces/dataset``, the same rows as a ``datasets.Dataset`` saved to disk); ``hindsight/``
(``writer.jsonl``, the hindsight writer rows; ``actor-<model>.jsonl``, the sampled actor rows;
``actor_cases.json``, how many questions and how many with a newer look-alike;
``grpo-writer.jsonl``, with ``grpo_streams``, the GRPO writer prompts held back from SFT);
``sft/`` and ``grpo/`` (TRL checkpoints, ``log.json``, the merged ``model/``; a later
phase of the GRPO schedule goes to ``grpo-2/`` and so on, each starting from the model
before it); ``grpo_rewards.json`` / ``.png`` (reward and share of flat groups per GRPO step);
``timings.json`` (seconds and seconds per step of each stage, from the run that did it, an
adopted stage's marked ``adopted_from``); and
``eval/`` with the teacher pipeline and the students of ``compare`` (untrained with the
teacher's prompts, after SFT, after GRPO) on held-out streams (``comparison.json`` / ``.md`` /
``.png``, with paired statistics). Each stage that already finished is skipped on a rerun;
training resumes from its last checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

from promptmem.distill.config import DistillConfig
from promptmem.distill.plan import Suites, plan, plan_lines, resolved
from promptmem.distill.run import STUDENT_FORMAT, DistillRun, Work, served_spec
from promptmem.distill.stages import STAGES
from promptmem.distill.students import resolve_student
from promptmem.distill.teacher_work import adopt_teacher_work, done_work
from promptmem.distill.timings import StageClock
from promptmem.evaluate import EvalConfig
from promptmem.lm.specs import LMConfig, adapter_for, make_lm
from promptmem.programs.agent import in_process, resolve_agent
from promptmem.programs.select import SelectWriter
from promptmem.rundir import claim_run_dir, holds_run_dir
from promptmem.signals.inferred import InferredSuite, infer_streams
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.role_rewards import check_writer_reward
from promptmem.tasks import Suite

__all__ = ["STAGES", "STUDENT_FORMAT", "DistillConfig", "distill", "served_spec"]


def _check_until(until: str) -> None:
    names = [name for name, _ in STAGES]
    if until not in names:
        raise ValueError(f"--until must be one of {', '.join(names)}, not {until!r}")


def _check_agent(config: DistillConfig, agent, suite: Suite, streams: list) -> None:
    """The teacher's writer fits the hindsight targets, and the GRPO writer reward asked for fits
    it and the training ``streams`` (of ``suite``, the one the labels read)."""
    if config.hindsight_share > 0 and not isinstance(agent.writer, SelectWriter):
        raise ValueError(
            f"--hindsight-share {config.hindsight_share} labels the select writer's statements; the teacher's "
            f"writer is {type(agent.writer).__name__} (use --writer select, or --hindsight-share 0)"
        )
    if config.train.grpo_steps and any("writer" in roles for roles in config.schedule):
        check_writer_reward(agent, config.writer_reward, suite, streams)


def _training_streams(config: DistillConfig, suites: Suites, test: EvalConfig) -> list:
    """The training streams, traced and labelled (the longer of --train-streams and
    --hindsight-streams); an error when the suite has fewer or one of them is held out."""
    wanted = max(config.train_streams, config.hindsight_streams or 0)
    streams = suites.train.streams(wanted, seed=config.seed)
    if len(streams) < wanted:
        raise ValueError(
            f"{wanted} training streams asked for from stream {config.seed}; the suite has {len(streams)} from there"
        )
    held_out = {stream.id for stream in suites.test.streams(test.streams, seed=test.seed)}
    if overlap := sorted(held_out & {stream.id for stream in streams}):
        raise ValueError(f"training streams {', '.join(overlap)} are also held out: move --seed or --test-seed")
    return streams


def _labels(config: DistillConfig, labelled: list, suite: Suite) -> tuple[list, Suite]:
    """The training streams and the suite the hindsight labels read: with the inferred target,
    what the streams do not annotate inferred off their answers."""
    if config.hindsight_target == "inferred":
        return infer_streams(labelled, suite), InferredSuite(suite)
    return labelled, suite


def _eval_configs(config: DistillConfig) -> tuple[EvalConfig, EvalConfig]:
    """The training streams' evaluation config and the held-out streams' (the comparison's)."""
    base = EvalConfig(
        suite=config.suite,
        agent=config.teacher,
        writer=config.writer,
        streams=config.train_streams,
        seed=config.seed,
        tasks=config.tasks,
        budget=config.budget,
        data=config.data,
        threads=1,
    )
    held_out = {
        "suite": config.held_out_suite,
        "streams": config.test_streams,
        "seed": config.test_seed,
        "data": config.held_out_data,
    }
    return base, EvalConfig(**{**asdict(base), **held_out})


def prepare(
    config: DistillConfig,
    teacher_lm: LMConfig,
    out: Path,
    *,
    lm=None,
    until: str = "eval",
    teacher_from: str | Path | None = None,
    say=print,
) -> DistillRun:
    """The run every stage reads, built before any work (anything missing is an error here):
    the student (unless ``until`` is "traces"), the suites (each built once), the teacher
    program, the streams and the teacher LM; then the run directory is claimed, the work of
    ``teacher_from`` adopted (``teacher_work.adopt_teacher_work``) and the plan said, the stages
    already done (``done_work``) marked."""
    suites = Suites.of(config)
    config = resolved(config, suites)
    student = resolve_student(config.student) if until != "traces" else None
    _, test = _eval_configs(config)
    suite = suites.train
    budget = config.budget or suite.notes_budget
    agent = in_process(resolve_agent(config.teacher, config.writer), "distill")
    traced = _training_streams(config, suites, test)
    streams = traced[: config.train_streams]
    labelled, label_suite = _labels(config, traced, suite)
    _check_agent(config, agent, label_suite, labelled)
    lm = lm or make_lm(teacher_lm)
    claim_run_dir(out, {"distill": config, "teacher_lm": teacher_lm})
    if teacher_from:
        adopted = adopt_teacher_work(teacher_from, out, config, teacher_lm, test)
        say(f"teacher work from {teacher_from}: {', '.join(adopted) or 'none needed'}")
    for line in plan_lines(config, plan(config, suites, done_work(out))):
        say(line)
    teacher = Pipeline(agent, suite, lm, STUDENT_FORMAT, adapter_for(teacher_lm.spec))
    clock = StageClock(out / "timings.json")
    return DistillRun(
        config, teacher_lm, out, teacher, streams, labelled, label_suite, test, budget, clock, student, say
    )


@holds_run_dir
def distill(
    config: DistillConfig,
    teacher_lm: LMConfig,
    out: str | Path,
    *,
    lm=None,
    until: str = "eval",
    teacher_from: str | Path | None = None,
    say: Callable[[str], None] = print,
) -> dict:
    """Run (or resume) the stages (``stages.STAGES``) up to ``until``; returns the summary of the
    last one run (after ``eval``: the held-out comparison, the GRPO reward curve, the SFT rows by
    source and the timings). ``lm``: an already built teacher LM. The run is prepared first
    (``prepare``): anything missing is an error before any work. ``teacher_from``: a finished
    run whose teacher work this run adopts (``teacher_work.adopt_teacher_work``)."""
    _check_until(until)
    run = prepare(config, teacher_lm, Path(out), lm=lm, until=until, teacher_from=teacher_from, say=say)
    work = Work()
    for name, stage in STAGES:
        summary = stage(run, work)
        if name == until:
            return summary
    raise AssertionError("unreachable: --until names a stage")
