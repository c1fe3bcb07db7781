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
from dataclasses import asdict
from pathlib import Path

from promptmem.comparison import Entry, compare
from promptmem.distill.card import student_card, write_card
from promptmem.distill.config import DistillConfig
from promptmem.distill.gguf_export import export_gguf, file_type, named_file_type, quantize
from promptmem.distill.plan import plan, plan_lines, resolved
from promptmem.distill.sft_data import write_rows
from promptmem.distill.stages import (
    STUDENT_FORMAT,
    grpo_prompt_source,
    grpo_schedule,
    plot_rewards,
    sft_rows,
    teacher_traces,
)
from promptmem.distill.students import EMBEDDED, resolve_student
from promptmem.distill.teacher_work import adopt_teacher_work, sft_streams
from promptmem.distill.timings import StageClock
from promptmem.distill.training import logged_steps, sft
from promptmem.evaluate import EvalConfig, make_eval_suite
from promptmem.files import write_json
from promptmem.lm.embedded import model_path
from promptmem.lm.specs import HF_PREFIX, LOCAL_PREFIX, LMConfig, adapter_for, local_gguf, make_lm
from promptmem.programs.agent import in_process, resolve_agent
from promptmem.programs.select import SelectWriter
from promptmem.rundir import claim_run_dir, holds_run_dir
from promptmem.signals.hindsight_rows import writer_rows
from promptmem.signals.inferred import InferredSuite, infer_streams
from promptmem.signals.role_rewards import check_writer_reward


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


def _check_until(until: str) -> None:
    if until not in STAGES:
        raise ValueError(f"--until must be one of {', '.join(STAGES)}, not {until!r}")


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


def _card(config: DistillConfig, teacher_lm: LMConfig, final: Entry, comparison: dict) -> dict:
    """Writes the final student's card beside its weights (``card``); its path and the command that uses it."""
    weights = Path(final.lm_config.spec.split(":", 1)[1])  # local:PATH.gguf | hf:PATH
    card = student_card(config, teacher_lm, final.label, final.lm_config.spec, comparison)
    path = write_card(weights.parent if weights.suffix == ".gguf" else weights, card)
    return {"student_card": str(path), "use": card["use"]}


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
    _check_until(until)
    config = resolved(config)
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
    for line in plan_lines(config, plan(config)):
        say(line)
    if config.hindsight_target == "inferred":  # the labels read what the streams do not annotate off their answers
        labelled, label_suite = infer_streams(labelled, suite), InferredSuite(suite)
    else:
        label_suite = suite
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
            labelled[: config.hindsight_streams],
            label_suite,
            budget,
            STUDENT_FORMAT,
            config.keep_target,
        )
        if isinstance(agent.writer, SelectWriter)
        else []
    )
    held_back = {stream.id for stream in labelled[sft_streams(asdict(config)) :]} if config.grpo_streams else set()
    grpo_hindsight = [row for row in hindsight if row.stream_id in held_back] if held_back else hindsight
    hindsight = [row for row in hindsight if row.stream_id not in held_back]
    if held_back:
        write_rows(out / "hindsight" / "grpo-writer.jsonl", grpo_hindsight)
    kept, sources = sft_rows(
        config, agent, labelled[: config.train_streams], label_suite, budget, rows, hindsight, samplers, out, clock
    )
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
    prompts = grpo_prompt_source(config, grpo_rows, grpo_hindsight, labelled, label_suite, budget)
    grpo_model, curve = grpo_schedule(
        config, agent, prompts, labelled, label_suite, lm, teacher_lm, sft_model, out, clock, say
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
        **_card(config, teacher_lm, entries[-1], rows_out),
    }
    write_json(out / "summary.json", summary)
    return summary
