"""``promptmem distill``: teacher traces → SFT → GRPO → held-out comparison, resumable.

The run directory holds ``config.json``; ``traces/`` (one JSONL per training stream, and
``traces/dataset``, the same rows as a ``datasets.Dataset`` saved to disk);
``sft/`` and ``grpo/`` (TRL checkpoints, ``log.json``, the merged ``model/``; a later
phase of the GRPO schedule goes to ``grpo-2/`` and so on, each starting from the model
before it); ``grpo_rewards.json`` / ``.png`` (reward per GRPO step); and ``eval/`` with the
teacher pipeline, the untrained student with the teacher's prompts, the student after SFT
and after GRPO on held-out streams (``comparison.json`` / ``.md`` / ``.png``). Each stage
that already finished is skipped on a rerun; training resumes from its last checkpoint.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from promptmem.distill.gguf_export import export_gguf, file_type, quantize
from promptmem.distill.students import EMBEDDED, resolve_student
from promptmem.distill.training import TrainConfig, grpo, reward_curve, sft
from promptmem.programs.agent import SEED_AGENT, in_process, resolve_agent, writer_help
from promptmem.programs.judge import DiscoveryJudge

from promptmem.evaluate import EvalConfig, claim_run_dir, make_eval_suite
from promptmem.files import write_json
from promptmem.lm.embedded import model_path
from promptmem.lm.specs import HF_PREFIX, LOCAL_PREFIX, LMConfig, adapter_for, local_gguf, make_lm
from promptmem.options import option
from promptmem.report.comparison import Entry, compare
from promptmem.signals.role_rewards import RoleRewards
from promptmem.signals.traces import Sampling, TraceRow, export_traces, sampling_report, traces_dataset

STUDENT_FORMAT = adapter_for(HF_PREFIX)  # how traces are rendered and students are read


@dataclass(frozen=True)
class DistillConfig:
    """What to distill into what; written to ``config.json`` (a rerun must match it)."""

    student: str = option(
        "qwen-0.5b",
        "Student: qwen-0.5b | qwen-1.5b | smollm2-135m (dequantized from the embedded GGUFs), qwen-4b | qwen-1.7b | qwen-0.6b (from the local HF cache), or a checkpoint path.",
    )
    teacher: str = option(
        "seed", f"Teacher program: {SEED_AGENT} | PATH.json (e.g. a `promptmem optimize` program.json)."
    )
    writer: str = option(
        "ops",
        partial(
            writer_help, "The seed teacher's writer (ignored for a program.json; GRPO needs one call per write)", True
        ),
    )
    suite: str = option("synthetic", "The suite the teacher is traced on and the students compared on.", cli=False)
    train_streams: int = option(4, "Streams the teacher is traced on.", min=1)
    seed: int = option(3000, "The training streams' seed.", cli=False)
    tasks: int | None = option(12, "Synthetic: tasks per stream.", min=3)
    test_streams: int = option(2, "Held-out streams for the final comparison.", min=1)
    test_seed: int = option(4000, "The held-out streams' seed.", cli=False)
    budget: int | None = option(None, "Notes budget in characters (default: the suite's).", cli=False)
    samples: int = option(
        1,
        "Rejection sampling: teacher completions per call (the greedy one, the rest at --sample-temperature); each trace row keeps the best by its role's reward (an answer's score, a write's notes recall). OUT/traces/sampling.json gives pass@1 and pass@k.",
        min=1,
    )
    sample_temperature: float = option(1.0, "Temperature of the extra teacher samples.")
    min_actor_score: float = option(0.5, "SFT keeps the actor rows scoring at least this.", cli=False)
    min_writer_credit: float | None = option(
        None,
        "SFT keeps only the teacher's writes whose realized credit (next questions' score minus the recent ones') is at least this.",
    )
    schedule: tuple[tuple[str, ...], ...] = option(
        (("actor", "writer"),),
        "GRPO phases, comma-separated, each the roles it trains (joined by +) for --grpo-steps steps: e.g. writer,actor+writer trains the writer against the teacher's frozen actor first, then both roles.",
    )
    horizon: int = option(3, "Writer credit: questions re-rolled after a write.", cli=False)
    discovery_weight: float = option(0.5, "Actor reward: weight of the discoveries that reach memory.", cli=False)
    writer_reward: str = option(
        "recall",
        "GRPO writer reward: recall (notes recall of the next questions where the suite knows their answers, no actor calls; credit elsewhere) | credit (the next questions re-answered by the teacher's actor).",
    )
    format_weight: float = option(0.2, "GRPO weight of the format shaping reward.", cli=False)
    serve: str = option(
        "gguf",
        "How the comparison runs the students: gguf (a student dequantized from an embedded GGUF is written back as a GGUF at the teacher's quantization and run by llama.cpp, like a local teacher) | hf (transformers).",
    )
    train: TrainConfig = option(help="Training knobs of the SFT and GRPO stages.", default_factory=TrainConfig)


def sft_rows(rows: list[TraceRow], min_actor_score: float, min_writer_credit: float | None = None) -> list[TraceRow]:
    """Rows worth imitating: actor rows that scored, writer rows whose write was usable (and,
    with ``min_writer_credit``, paid off: no later question, no credit to judge, is kept)."""

    def good_write(r: TraceRow) -> bool:
        return not r.write_error and (min_writer_credit is None or r.credit is None or r.credit >= min_writer_credit)

    return [
        r
        for r in rows
        if (r.role == "writer" and good_write(r))
        or (r.role == "actor" and (r.score is None or r.score >= min_actor_score))
    ]


def _plot_rewards(curve: list[dict], path: Path) -> None:
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


def served_spec(config: DistillConfig, checkpoint: Path, teacher_lm: LMConfig, out: Path) -> str:
    """How the comparison runs a student checkpoint: ``local:out/model.gguf`` (written once,
    quantized like the teacher's GGUF, or like the student's own when the teacher is not
    local) when ``config.serve`` is gguf and the student came from an embedded GGUF, else
    ``hf:checkpoint``."""
    if config.serve != "gguf" or config.student not in EMBEDDED:
        return f"{HF_PREFIX}{checkpoint}"
    served = out / "model.gguf"
    if not served.is_file():
        original = model_path(EMBEDDED[config.student])
        quantization = file_type(local_gguf(teacher_lm.spec) or original)
        full = export_gguf(checkpoint, original, out / "f32.gguf")
        quantize(full, served, quantization, teacher_lm.threads)
        full.unlink()
    return f"{LOCAL_PREFIX}:{served}"


STAGES = ("traces", "sft", "grpo", "eval")


def distill(
    config: DistillConfig,
    teacher_lm: LMConfig,
    out: str | Path,
    *,
    lm=None,
    until: str = "eval",
    say: Callable[[str], None] = print,
) -> dict:
    """Run (or resume) the stages up to ``until``; returns a summary (after ``eval``: the
    held-out comparison and the GRPO reward curve). ``lm``: an already built teacher LM.
    The student (unless ``until`` is "traces"), the teacher program, the suite and the
    teacher LM are resolved first: anything missing is an error before any work."""
    if config.serve not in ("gguf", "hf"):
        raise ValueError(f"--serve must be gguf or hf, not {config.serve!r}")
    if until not in STAGES:
        raise ValueError(f"--until must be one of {', '.join(STAGES)}, not {until!r}")
    unknown = {role for roles in config.schedule for role in roles} - {"actor", "writer"}
    if unknown or not all(config.schedule):
        raise ValueError(f"a GRPO schedule is phases of roles (actor, writer), not {config.schedule!r}")
    student = resolve_student(config.student) if until != "traces" else None
    out = Path(out)
    base = EvalConfig(
        suite=config.suite,
        agent=config.teacher,
        writer=config.writer,
        streams=config.train_streams,
        seed=config.seed,
        tasks=config.tasks,
        budget=config.budget,
        threads=1,
    )
    suite = make_eval_suite(base)
    budget = config.budget or suite.notes_budget
    agent = in_process(resolve_agent(config.teacher, config.writer), "distill")
    lm = lm or make_lm(teacher_lm)
    claim_run_dir(out, {"distill": config, "teacher_lm": teacher_lm})
    streams = suite.streams(config.train_streams, seed=config.seed)

    say(f"traces: the teacher over {len(streams)} streams")
    rows = export_traces(
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
    )
    write_json(out / "traces" / "sampling.json", sampling_report(rows, config.min_actor_score))
    dataset = out / "traces" / "dataset"
    if not dataset.is_dir():  # written aside and renamed: an interrupted save is redone
        partial = dataset.with_name("dataset.partial")
        shutil.rmtree(partial, ignore_errors=True)
        traces_dataset(rows).save_to_disk(str(partial))
        partial.rename(dataset)
    if until == "traces":
        return {"traces": len(rows)}

    kept = sft_rows(rows, config.min_actor_score, config.min_writer_credit)
    say(f"sft: {config.student} on {len(kept)} of {len(rows)} rows")
    sft_model = sft(student, kept, out / "sft", config.train)
    if until == "sft":
        return {"traces": len(rows), "sft": str(sft_model)}

    grpo_model, curve = sft_model, []
    for phase, roles in enumerate(config.schedule, 1):
        phase_rows = [r for r in rows if r.role in roles]
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
        )
        say(
            f"grpo phase {phase}/{len(config.schedule)}: {config.train.grpo_steps} steps on "
            f"{len(phase_rows)} prompts ({', '.join(roles)})"
        )
        phase_dir = out / ("grpo" if phase == 1 else f"grpo-{phase}")
        grpo_model = grpo(
            grpo_model,
            phase_rows,
            [rewards, rewards.format_reward],
            phase_dir,
            config.train,
            weights=[1.0, config.format_weight],
        )
        offset = curve[-1]["step"] if curve else 0
        curve += [
            {**point, "step": point["step"] + offset, "phase": phase}
            for point in reward_curve(json.loads((phase_dir / "log.json").read_text()))
        ]
    write_json(out / "grpo_rewards.json", curve, indent=1)
    _plot_rewards(curve, out / "grpo_rewards.png")
    if until == "grpo":
        return {"traces": len(rows), "grpo_rewards": curve}

    say(f"eval: {config.test_streams} held-out streams")
    test = EvalConfig(**{**asdict(base), "streams": config.test_streams, "seed": config.test_seed})
    student_lm = LMConfig(spec="", max_tokens=teacher_lm.max_tokens, threads=teacher_lm.threads)
    entries = [Entry("teacher", test, teacher_lm, lm)] + [
        Entry(
            label,
            test,
            LMConfig(**{**asdict(student_lm), "spec": served_spec(config, path, teacher_lm, out / "gguf" / label)}),
        )
        for label, path in (("student", student), ("student+sft", sft_model), ("student+grpo", grpo_model))
    ]
    rows_out = compare(entries, out / "eval", first="model")
    summary = {
        "comparison": rows_out,
        "grpo_rewards": curve,
        "traces": len(rows),
        "sft_rows": len(kept),
        "schedule": [list(roles) for roles in config.schedule],
    }
    write_json(out / "summary.json", summary)
    return summary
