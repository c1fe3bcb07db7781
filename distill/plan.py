"""What a distill run will do before it does it: the defaults that depend on the suite filled
in (``resolved``) and each stage's minutes estimated from measured per-step rates (``plan``),
both read from the training and held-out suites built once (``Suites``) and passed on to the run."""

from __future__ import annotations

import sys
from collections.abc import Collection
from dataclasses import dataclass, replace

from promptmem.distill.config import DistillConfig
from promptmem.distill.teacher_work import TEACHER_ROW
from promptmem.distill.timings import grpo_phase
from promptmem.evaluate import EvalConfig, make_eval_suite
from promptmem.tasks import Suite

GENERATED = {"seed": 3000, "test_seed": 4000, "hindsight_streams": 12, "test_streams": 6}  # generated suites
# seconds per unit on 2 CPU cores, 1.5B teacher and 0.5B student (benchmarks/results/
# distill_hindsight_synthetic_stated12.json: timings.json and the comparison's s/task)
RATES = {
    "trace": 8.3,
    "actor_sample": 4.7,
    "sft_step": 9.1,  # 16.3 there, times 0.558: the LM head on labelled positions only (sft_head.json)
    "grpo_step": 127.0,  # 2 prompts x 4 completions a step: scaled by the completions of a step
    "teacher_task": 11.7,
    "student_task": 7.5,
}


def _suite(config: DistillConfig, name: str, data: str | None, budget: int | None) -> Suite:
    return make_eval_suite(EvalConfig(suite=name, data=data, tasks=config.tasks, budget=budget))


def _given(value: int | None, default: int) -> int:
    return default if value is None else value


def _streams(
    suite: Suite, seed: int | None, count: int | None, generated: tuple[str, str], at_least: int = 0
) -> tuple[int, int]:
    """(the first stream's seed, how many streams) of ``suite``, each None filled in: for a file,
    stream 0 and every stream from the first (at least ``at_least``); for generated streams, the
    ``GENERATED`` values named by ``generated``."""
    if not suite.from_file:
        return _given(seed, GENERATED[generated[0]]), count or GENERATED[generated[1]]
    start = _given(seed, 0)
    return start, count or max(at_least, len(suite.streams(sys.maxsize, seed=start)))


@dataclass(frozen=True)
class Suites:
    """A distill run's suites, each built (its file read) once: the training streams' and the
    held-out streams' (the same object when both come from one file). With a ``test_suite`` of
    its own, the training suite keeps the notes budget of the held-out one (unless ``budget``)."""

    train: Suite
    test: Suite

    @classmethod
    def of(cls, config: DistillConfig) -> Suites:
        if config.held_out_suite != config.suite:
            test = _suite(config, config.held_out_suite, config.test_data, config.budget)
            return cls(_suite(config, config.suite, config.data, config.budget or test.notes_budget), test)
        train = _suite(config, config.suite, config.data, config.budget)
        same = config.test_data is None or config.test_data == config.data
        return cls(train, train if same else _suite(config, config.suite, config.test_data, config.budget))


def resolved(config: DistillConfig, suites: Suites | None = None) -> DistillConfig:
    """``config`` with its suite-dependent defaults (None) filled in: from files, every training
    stream of ``data`` from ``seed`` (0) and every held-out stream of ``test_data`` (default: the
    training file) from ``test_seed`` (0); generated streams, ``GENERATED``. With a ``test_suite``
    of its own, the notes ``budget`` is that suite's. ``suites``: the config's (default: built here)."""
    suites = suites or Suites.of(config)
    seed, training = _streams(
        suites.train, config.seed, config.hindsight_streams, ("seed", "hindsight_streams"), config.train_streams
    )
    test_seed, held_out = _streams(suites.test, config.test_seed, config.test_streams, ("test_seed", "test_streams"))
    budget = config.budget if config.held_out_suite == config.suite else suites.train.notes_budget
    return replace(
        config, seed=seed, test_seed=test_seed, hindsight_streams=training, test_streams=held_out, budget=budget
    )


def _tasks(suite: Suite, streams: int, seed: int) -> tuple[int, int]:
    """(tasks, questions) of the first ``streams`` streams of ``suite`` from ``seed``."""
    chosen = suite.streams(streams, seed=seed)
    return sum(len(s.tasks) for s in chosen), sum(t.is_question for s in chosen for t in s.tasks)


def plan(
    config: DistillConfig, suites: Suites | None = None, done: Collection[str] = ()
) -> list[tuple[str, float | None]]:
    """Each stage of a ``resolved`` config with its estimated minutes (``RATES``), None for a
    stage ``done`` names (as ``timings.json`` does: traces, actor_samples, sft, grpo, grpo-2...,
    and ``eval/teacher`` for the teacher's held-out row): a resumed run's or one whose work came
    with ``--teacher-from``. ``suites``: the config's (default: built here)."""
    suites = suites or Suites.of(config)
    traced, questions = _tasks(suites.train, config.train_streams, config.seed)
    written, _ = _tasks(suites.train, config.hindsight_streams, config.seed)
    held_out, _ = _tasks(suites.test, config.test_streams, config.test_seed)
    train = config.train
    rows = written + questions * (1 + len(config.actor_samplers))
    phases = {grpo_phase(phase) for phase in range(1, len(config.schedule) + 1)}
    teacher_row = 0.0 if TEACHER_ROW in done else RATES["teacher_task"]
    stages = [
        ("traces", f"teacher traces: {config.train_streams} streams, {traced} tasks", traced * RATES["trace"]),
        (
            "actor_samples",
            f"actor answers sampled: ~{questions} questions",
            questions * len(config.actor_samplers) * RATES["actor_sample"],
        ),
        (
            "sft",
            f"SFT: ~{rows} rows, {train.sft_epochs:g} epoch(s), batch {train.batch_size}",
            rows * train.sft_epochs / train.batch_size * RATES["sft_step"],
        ),
        (
            "grpo",
            f"GRPO: {train.grpo_steps} steps x {len(config.schedule)} phase(s)",
            train.grpo_steps
            * len(config.schedule)
            * RATES["grpo_step"]
            * train.prompts_per_step
            * train.generations
            / 8,
        ),
        (
            "eval",
            f"held-out comparison: {config.test_streams} streams, {held_out} tasks, "
            f"teacher{' (its row done)' if teacher_row == 0 else ''} + {len(config.compare)} student(s)",
            held_out * (teacher_row + len(config.compare) * RATES["student_task"]),
        ),
    ]
    finished = set(done) - {"grpo"} | ({"grpo"} if phases <= set(done) else set())  # GRPO: every phase
    return [(what, None if stage in finished else seconds / 60) for stage, what, seconds in stages]


def plan_lines(config: DistillConfig, stages: list[tuple[str, float | None]]) -> list[str]:
    """The plan as printed before a run starts: each stage's minutes, or ``done``."""
    total = sum(minutes for _, minutes in stages if minutes is not None)
    head = (
        f"distill {config.student} from {config.teacher} ({config.writer} writer), target {config.hindsight_target}, "
        f"{config.hindsight_streams} training streams ({config.train_streams} traced), {config.test_streams} held out"
    )
    rows = [f"  {'   done   ' if minutes is None else f'~{minutes:5.1f} min'}  {what}" for what, minutes in stages]
    return [head, *rows, f"  ~{total:5.1f} min  to run (rates measured on 2 CPU cores)"]
