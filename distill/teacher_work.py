"""A distill run started from another's work. The teacher's traces and its held-out row are the
slowest stages of a CPU run (about an hour of one core on the household world) and depend only
on the teacher's settings, so a run that varies the student's training (hindsight target,
streams, epochs, GRPO) adopts them from a finished run instead of redoing them; a run that
varies only GRPO (or the comparison) adopts the SFT stage as well: the actor rows sampled for
it and the SFT model. Each is adopted on its own: a run on another training file (the same
world's streams stripped of their meta, a transfer file) still adopts the teacher's row on the
same held-out streams."""

from __future__ import annotations

import shutil
from dataclasses import asdict
from pathlib import Path

from promptmem.distill.timings import StageClock
from promptmem.evaluate import EvalConfig
from promptmem.files import RunDirError, read_json, write_json
from promptmem.lm.specs import LMConfig
from promptmem.rundir import CONFIG, changed_settings

TRACE_SETTINGS = (
    "teacher",
    "writer",
    "suite",
    "data",
    "train_streams",
    "seed",
    "tasks",
    "budget",
    "samples",
    "sample_temperature",
    "horizon",
)
AFTER_SFT_SETTINGS = (  # settings only GRPO and the comparison read; the SFT streams are compared apart
    "schedule",
    "writer_reward",
    "waste_weight",
    "horizons",
    "eviction_fill",
    "discovery_weight",
    "format_weight",
    "serve",
    "serve_quantization",
    "compare",
    "test_streams",
    "test_seed",
    "test_data",
    "test_suite",
    "hindsight_streams",
    "grpo_streams",
    "train.grpo_steps",
    "train.grpo_lr",
    "train.generations",
    "train.max_completion_tokens",
    "train.temperature",
    "train.beta",
    "train.vllm",
    "train.prompts_per_step",
    "train.max_resamples",
)
TEACHER_ROW = "eval/teacher"
ACTOR_SAMPLES = ("hindsight/actor-teacher.jsonl", "hindsight/actor-student.jsonl")
SFT_WORK = (*ACTOR_SAMPLES, "sft")
STAGES = {"traces": "traces", "sft": "sft", **dict.fromkeys(ACTOR_SAMPLES, "actor_samples")}  # work -> its timing


def sft_streams(settings: dict) -> int:
    """How many training streams a run's SFT rows come from (``settings``: its distill config as
    stored): the hindsight streams but the last ``grpo_streams``, held back for GRPO."""
    return (settings.get("hindsight_streams") or settings["train_streams"]) - settings.get("grpo_streams", 0)


def adopt_teacher_work(source: str | Path, out: Path, config, teacher_lm: LMConfig, held_out: EvalConfig) -> list[str]:
    """Copy into ``out``, where ``out`` lacks them, what ``source`` (a distill run) did under this
    run's settings: its ``traces/`` when it traced its teacher under this run's trace settings
    (``TRACE_SETTINGS``) and teacher LM (threads may differ), with ``SFT_WORK`` when every
    setting SFT reads matches too (all but ``AFTER_SFT_SETTINGS``, with as many SFT streams);
    its held-out teacher row (``eval/teacher``) when that row ran this run's ``held_out`` config
    and teacher LM. A ``RunDirError`` names the settings that differ when neither matches. The
    adopted stages' timings are copied, marked ``adopted_from``. Returns the paths copied."""
    source = Path(source)
    stored = read_json(source / CONFIG, "--teacher-from must name a distill run's folder")
    if not isinstance(stored, dict) or "distill" not in stored:
        raise RunDirError(f"{source / CONFIG} is not a distill run's configuration")
    changed = changed_settings(stored, {"distill": config, "teacher_lm": teacher_lm})
    traced = [name for name in changed if name.startswith("teacher_lm.") or name.split(".")[1] in TRACE_SETTINGS]
    row = _row_changes(source / TEACHER_ROW, held_out, teacher_lm)
    if traced and row:
        raise RunDirError(
            f"{source} traced its teacher under other settings (differs in: {', '.join(traced)}) and ran its "
            f"held-out row under others ({', '.join(row)}); leave out --teacher-from to run this run's teacher"
        )
    before_sft = {name for name in changed if name.split(".", 1)[1] not in AFTER_SFT_SETTINGS}
    same_sft = not before_sft and sft_streams(stored["distill"]) == sft_streams(asdict(config))
    work = [] if traced else ["traces", *(SFT_WORK if same_sft else ())]
    work += [] if row else [TEACHER_ROW]
    copied = []
    for name in work:
        if (source / name).exists() and not (out / name).exists():
            (out / name).parent.mkdir(parents=True, exist_ok=True)
            (shutil.copytree if (source / name).is_dir() else shutil.copy2)(source / name, out / name)
            copied.append(name)
    if stages := {STAGES[name] for name in copied if name in STAGES}:
        _adopt_timings(source, out, stages)
    return copied


def done_work(out: Path) -> set[str]:
    """What ``out`` already holds finished (done here or adopted): its stages as ``timings.json``
    names them, and ``eval/teacher`` where the teacher's held-out row is finished."""
    finished = set(StageClock(out / "timings.json").read())
    return finished | ({TEACHER_ROW} if (out / TEACHER_ROW / "report.json").is_file() else set())


def _row_changes(row: Path, held_out: EvalConfig, teacher_lm: LMConfig) -> list[str]:
    """The settings in which the evaluate run ``row`` differs from ``held_out`` under ``teacher_lm``
    (``["eval/teacher"]`` when there is no such run)."""
    if not (row / CONFIG).is_file():
        return [TEACHER_ROW]
    stored = read_json(row / CONFIG, "the teacher's held-out row must be an evaluate run's folder")
    sections = {"eval": held_out, "lm": teacher_lm}
    return changed_settings({name: stored.get(name, {}) for name in sections}, sections)


def _adopt_timings(source: Path, out: Path, stages: set[str]) -> None:
    """The adopted stages' entries of ``source``'s ``timings.json`` in ``out``'s, each with
    ``adopted_from`` (the run that did it, where ``source`` had adopted it in turn): what the
    stage took there."""
    done = StageClock(source / "timings.json").read()
    clock = StageClock(out / "timings.json")
    timings = clock.read()
    timings.update({stage: {"adopted_from": str(source), **done[stage]} for stage in stages if stage in done})
    write_json(clock.path, timings)
