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

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from promptmem.distill.gguf_export import export_gguf, file_type, named_file_type, quantize
from promptmem.distill.sft_data import write_rows
from promptmem.distill.stages import STUDENT_FORMAT, grpo_prompts, grpo_schedule, plot_rewards, sft_rows, teacher_traces
from promptmem.distill.students import EMBEDDED, resolve_student
from promptmem.distill.teacher_work import adopt_teacher_work, sft_streams
from promptmem.distill.timings import StageClock
from promptmem.distill.training import TrainConfig, logged_steps, sft
from promptmem.programs.agent import SEED_AGENT, in_process, resolve_agent, writer_help
from promptmem.programs.select import SelectWriter

from promptmem.evaluate import EvalConfig, claim_run_dir, make_eval_suite
from promptmem.files import write_json
from promptmem.lm.embedded import model_path
from promptmem.lm.specs import HF_PREFIX, LOCAL_PREFIX, LMConfig, adapter_for, local_gguf, make_lm
from promptmem.options import option
from promptmem.report.comparison import Entry, compare
from promptmem.rundir import holds_run_dir
from promptmem.signals.hindsight import TARGETS
from promptmem.signals.hindsight_rows import writer_rows
from promptmem.signals.role_rewards import check_writer_reward

STUDENTS = ("student", "student+sft", "student+grpo")  # the untrained student, after SFT, after GRPO


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
        "select",
        partial(
            writer_help,
            "The seed teacher's writer (ignored for a program.json; GRPO trains select with --writer-reward hindsight, and the one-call writers)",
        ),
    )
    suite: str = option("synthetic", "The suite the teacher is traced on and the students compared on.", cli=False)
    data: str | None = option(None, "jsonl, locomo: the training streams' file.", cli=False)
    train_streams: int = option(4, "Streams the teacher is traced on.", min=1)
    hindsight_streams: int | None = option(
        None,
        "Select writer: the training streams its hindsight SFT rows (and, with --writer-reward hindsight, its GRPO prompts) come from, the first --train-streams of them the traced ones; labels and a replay, no model calls (default: --train-streams).",
        min=1,
    )
    grpo_streams: int = option(
        0,
        "Select writer with --writer-reward hindsight: the last N of the --hindsight-streams are held back from SFT and give GRPO's writer prompts alone (prompts SFT has not fitted; 0: GRPO's writer prompts are the SFT streams').",
        min=0,
    )
    seed: int = option(3000, "The training streams' seed (files: the index of the first stream).", cli=False)
    tasks: int | None = option(12, "Synthetic: tasks per stream.", min=3)
    test_streams: int = option(2, "Held-out streams for the final comparison.", min=1)
    test_seed: int = option(4000, "The held-out streams' seed (files: the index of the first stream).", cli=False)
    test_data: str | None = option(
        None, "jsonl, locomo: the held-out streams' file (default: the training file).", cli=False
    )
    budget: int | None = option(None, "Notes budget in characters (default: the suite's).", cli=False)
    samples: int = option(
        1,
        "Rejection sampling: teacher completions per call (the greedy one, the rest at --sample-temperature); each trace row keeps the best by its role's reward (an answer's score, a write's notes recall). OUT/traces/sampling.json gives pass@1 and pass@k.",
        min=1,
    )
    sample_temperature: float = option(1.0, "Temperature of the extra teacher samples.")
    min_actor_score: float = option(
        0.5, "SFT keeps the actor rows scoring at least this (traced and sampled: a right answer).", cli=False
    )
    hindsight_share: float = option(
        1.0,
        "Select writer SFT targets: the share of its prompts (drawn per task) whose target is the hindsight keep-list (what a writer that knew the training stream's future kept; no model), the rest the teacher's keep-list for the same prompt. 1: hindsight only; 0: the teacher's only (any writer).",
        min=0.0,
        max=1.0,
    )
    hindsight_target: str = option(
        "needed",
        "Select writer: what its hindsight keep-lists (SFT targets, the notes the actor rows are sampled on, the GRPO reward) keep: needed (only the statements a later question of the training stream needed) | stated (also every statement of a fact the world tracks, Suite.stated: counts, holders, dates, not the chatter; suites that list none, LoCoMo, keep the needed ones).",
    )
    actor_samplers: tuple[str, ...] = option(
        ("teacher", "student"),
        'Actor SFT rows on the notes a writer that knew the future holds before each question needing memory (also where a newer look-alike sits nearer the question than the note with the answer): answers of these models, teacher | student (untrained), kept only when right; "": none.',
    )
    actor_samples: int = option(
        4,
        "Answers tried per such question and model: the greedy one, then up to this many minus one at --sample-temperature, until one is right.",
        min=1,
    )
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
        "hindsight",
        "GRPO writer reward: hindsight (select writer: the share of the later-needed statements kept minus --waste-weight x the budget share kept on statements no later question needed, from the training stream's hindsight labels) | recall (one-call writers: notes recall of the next questions where the suite knows their answers, no actor calls; credit elsewhere) | credit (the next questions re-answered by the teacher's actor).",
    )
    waste_weight: float = option(
        0.5,
        "Hindsight writer reward: weight of the budget share spent on statements the --hindsight-target does not keep.",
        min=0.0,
    )
    format_weight: float = option(0.2, "GRPO weight of the format shaping reward.", cli=False)
    serve: str = option(
        "gguf",
        "How the comparison runs the students: gguf (a student dequantized from an embedded GGUF is written back as a GGUF at the teacher's quantization and run by llama.cpp, like a local teacher) | hf (transformers).",
    )
    serve_quantization: str = option(
        "q8_0",
        "How a GGUF-served student is quantized: q8_0 | f16 | teacher (the teacher's GGUF file type, Q4_K_M for the embedded models; on the synthetic world it undid most of the 0.5B writer's training: 9 of 40 held-out writes as the trained checkpoint chose them).",
    )
    compare: tuple[str, ...] = option(
        STUDENTS, f"The students compared with the teacher held out: {' | '.join(STUDENTS)}."
    )
    train: TrainConfig = option(help="Training knobs of the SFT and GRPO stages.", default_factory=TrainConfig)


SERVE_QUANTIZATIONS = ("q8_0", "f16", "teacher")


def served_spec(config: DistillConfig, checkpoint: Path, teacher_lm: LMConfig, out: Path) -> str:
    """How the comparison runs a student checkpoint: ``local:out/model.gguf`` (written once, at
    ``config.serve_quantization``; "teacher": quantized like the teacher's GGUF, or like the
    student's own when the teacher is not local) when ``config.serve`` is gguf and the student
    came from an embedded GGUF, else ``hf:checkpoint``."""
    if config.serve != "gguf" or config.student not in EMBEDDED:
        return f"{HF_PREFIX}{checkpoint}"
    served = out / "model.gguf"
    if not served.is_file():
        original = model_path(EMBEDDED[config.student])
        quantization = (
            file_type(local_gguf(teacher_lm.spec) or original)
            if config.serve_quantization == "teacher"
            else named_file_type(config.serve_quantization)
        )
        full = export_gguf(checkpoint, original, out / "f32.gguf")
        quantize(full, served, quantization, teacher_lm.threads)
        full.unlink()
    return f"{LOCAL_PREFIX}:{served}"


STAGES = ("traces", "sft", "grpo", "eval")


def _check_options(config: DistillConfig, until: str) -> None:
    if config.serve not in ("gguf", "hf"):
        raise ValueError(f"--serve must be gguf or hf, not {config.serve!r}")
    if config.serve_quantization not in SERVE_QUANTIZATIONS:
        raise ValueError(
            f"--serve-quantization must be one of {', '.join(SERVE_QUANTIZATIONS)}, not {config.serve_quantization!r}"
        )
    if until not in STAGES:
        raise ValueError(f"--until must be one of {', '.join(STAGES)}, not {until!r}")
    unknown = {role for roles in config.schedule for role in roles} - {"actor", "writer"}
    if unknown or not all(config.schedule):
        raise ValueError(f"a GRPO schedule is phases of roles (actor, writer), not {config.schedule!r}")
    if config.hindsight_target not in TARGETS:
        raise ValueError(f"--hindsight-target must be one of {', '.join(TARGETS)}, not {config.hindsight_target!r}")
    if set(config.actor_samplers) - {"teacher", "student"}:
        raise ValueError(f"--actor-samplers takes teacher and student, not {','.join(config.actor_samplers)!r}")
    if config.grpo_streams and config.writer_reward != "hindsight":
        raise ValueError(
            f"--grpo-streams holds back hindsight rows: it needs --writer-reward hindsight, not {config.writer_reward}"
        )
    if config.grpo_streams and sft_streams(asdict(config)) < config.train_streams:
        raise ValueError(
            f"--grpo-streams {config.grpo_streams} would hold back traced streams: --hindsight-streams must be at least "
            f"--train-streams + --grpo-streams ({config.train_streams + config.grpo_streams})"
        )
    if set(config.compare) - set(STUDENTS):
        raise ValueError(f"--compare takes {', '.join(STUDENTS)}, not {','.join(config.compare)!r}")


def _check_agent(config: DistillConfig, agent) -> None:
    """The teacher's writer fits the hindsight targets and the GRPO writer reward asked for."""
    if config.hindsight_share > 0 and not isinstance(agent.writer, SelectWriter):
        raise ValueError(
            f"--hindsight-share {config.hindsight_share} labels the select writer's statements; the teacher's "
            f"writer is {type(agent.writer).__name__} (use --writer select, or --hindsight-share 0)"
        )
    if config.train.grpo_steps and any("writer" in roles for roles in config.schedule):
        check_writer_reward(agent, config.writer_reward)


def _training_streams(config: DistillConfig, suite, test: EvalConfig) -> list:
    """The training streams, traced and labelled (the longer of --train-streams and
    --hindsight-streams); an error when the suite has fewer or one of them is held out."""
    wanted = max(config.train_streams, config.hindsight_streams or 0)
    streams = suite.streams(wanted, seed=config.seed)
    if len(streams) < wanted:
        raise ValueError(
            f"{wanted} training streams asked for from stream {config.seed}; the suite has {len(streams)} from there"
        )
    held_out = {stream.id for stream in make_eval_suite(test).streams(test.streams, seed=test.seed)}
    if overlap := sorted(held_out & {stream.id for stream in streams}):
        raise ValueError(f"training streams {', '.join(overlap)} are also held out: move --seed or --test-seed")
    return streams


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
    """Run (or resume) the stages up to ``until``; returns a summary (after ``eval``: the
    held-out comparison, the GRPO reward curve, the SFT rows by source and the timings).
    ``lm``: an already built teacher LM. The student (unless ``until`` is "traces"), the teacher
    program, the suite and the teacher LM are resolved first: anything missing is an error
    before any work. ``teacher_from``: a finished run whose teacher work this run adopts
    (``teacher_work.adopt_teacher_work``)."""
    _check_options(config, until)
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
        data=config.data,
        threads=1,
    )
    suite = make_eval_suite(base)
    budget = config.budget or suite.notes_budget
    agent = in_process(resolve_agent(config.teacher, config.writer), "distill")
    _check_agent(config, agent)
    held_out = {"streams": config.test_streams, "seed": config.test_seed, "data": config.test_data or config.data}
    test = EvalConfig(**{**asdict(base), **held_out})
    labelled = _training_streams(config, suite, test)
    streams = labelled[: config.train_streams]
    lm = lm or make_lm(teacher_lm)
    claim_run_dir(out, {"distill": config, "teacher_lm": teacher_lm})
    clock = StageClock(out / "timings.json")
    if teacher_from:
        adopted = adopt_teacher_work(teacher_from, out, config, teacher_lm)
        say(f"teacher work from {teacher_from}: {', '.join(adopted) or 'none needed'}")

    say(f"traces: the teacher over {len(streams)} streams")
    rows = teacher_traces(config, agent, streams, suite, lm, teacher_lm, budget, out, clock)
    if until == "traces":
        return {"traces": len(rows)}

    student_lm = LMConfig(spec="", max_tokens=teacher_lm.max_tokens, threads=teacher_lm.threads)

    def served(label: str, path: Path) -> LMConfig:
        return LMConfig(**{**asdict(student_lm), "spec": served_spec(config, path, teacher_lm, out / "gguf" / label)})

    def student_sampler():
        served_lm = served("student", student)
        return make_lm(served_lm), adapter_for(served_lm.spec)

    samplers = {"teacher": lambda: (lm, adapter_for(teacher_lm.spec)), "student": student_sampler}
    say("sft rows: hindsight writer targets, actor answers sampled on hindsight notes")
    (out / "hindsight").mkdir(exist_ok=True)
    hindsight = (
        writer_rows(
            agent,
            labelled[: config.hindsight_streams or config.train_streams],
            suite,
            budget,
            STUDENT_FORMAT,
            config.hindsight_target,
        )
        if isinstance(agent.writer, SelectWriter)
        else []
    )
    held_back = {stream.id for stream in labelled[sft_streams(asdict(config)) :]} if config.grpo_streams else set()
    grpo_hindsight = [row for row in hindsight if row.stream_id in held_back] if held_back else hindsight
    hindsight = [row for row in hindsight if row.stream_id not in held_back]
    if held_back:
        write_rows(out / "hindsight" / "grpo-writer.jsonl", grpo_hindsight)
    kept, sources = sft_rows(config, agent, streams, suite, budget, rows, hindsight, samplers, out, clock)
    say(f"sft: {config.student} on {len(kept)} rows ({', '.join(f'{k} {v}' for k, v in sources.items())})")
    sft_dir = out / "sft"
    sft_model = clock.time(
        "sft",
        (sft_dir / "model" / "config.json").is_file(),
        lambda: sft(student, kept, sft_dir, config.train),
        lambda _: logged_steps(sft_dir),
    )
    if until == "sft":
        return {"traces": len(rows), "sft": str(sft_model), "sft_sources": sources}

    grpo_rows = [row for row in rows if row.role != "writer"] if held_back else rows  # SFT fitted the traced writes
    prompts = partial(grpo_prompts, grpo_rows, grpo_hindsight if config.writer_reward == "hindsight" else [])
    grpo_model, curve = grpo_schedule(
        config, agent, prompts, labelled, suite, lm, teacher_lm, sft_model, out, clock, say
    )
    write_json(out / "grpo_rewards.json", curve, indent=1)
    plot_rewards(curve, out / "grpo_rewards.png")
    if until == "grpo":
        return {"traces": len(rows), "grpo_rewards": curve}

    say(f"eval: {config.test_streams} held-out streams")
    checkpoints = {"student": student, "student+sft": sft_model, "student+grpo": grpo_model}
    entries = [Entry("teacher", test, teacher_lm, lm)] + [
        Entry(label, test, served(label, checkpoints[label])) for label in config.compare
    ]
    rows_out = compare(entries, out / "eval", first="model")
    flat = [point["flat_share"] for point in curve if point.get("flat_share") is not None]
    summary = {
        "comparison": rows_out,
        "grpo_rewards": curve,
        "flat_share": round(sum(flat) / len(flat), 4) if flat else None,
        "traces": len(rows),
        "sft_rows": len(kept),
        "sft_sources": sources,
        "actor_cases": json.loads((out / "hindsight" / "actor_cases.json").read_text()),
        "schedule": [list(roles) for roles in config.schedule],
        "timings": clock.read(),
    }
    write_json(out / "summary.json", summary)
    return summary
