"""``DistillConfig``: what ``promptmem distill`` distills into what. Every field is a command-line
flag and a key of a recipe file (``promptmem distill --config recipes/NAME.yaml``); the defaults
are the best measured recipe (docs/distill.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import partial
from typing import Literal

from promptmem.distill.teacher_work import sft_streams
from promptmem.distill.training import TrainConfig
from promptmem.options import check_choices, option
from promptmem.programs.agent import SEED_AGENT, writer_help

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
    suite: str = option(
        "synthetic",
        "The suite the teacher is traced on and the students compared on (jsonl: your own streams, --data and --test-data).",
    )
    data: str | None = option(None, "jsonl, locomo: the training streams' file.", path=True)
    train_streams: int = option(
        2,
        "Streams the teacher is traced on (its writes and answers: SFT rows where the hindsight ones leave off).",
        min=1,
    )
    hindsight_streams: int | None = option(
        None,
        "Select writer: the training streams its hindsight SFT rows (and, with --writer-reward hindsight, its GRPO prompts) come from, the first --train-streams of them the traced ones; labels and a replay, no model calls (default: every stream of the --data file; 12 generated streams).",
        min=1,
    )
    grpo_streams: int = option(
        0,
        "Select writer with --writer-reward hindsight or future: the last N of the --hindsight-streams are held back from SFT and give GRPO's writer prompts alone (prompts SFT has not fitted; 0: GRPO's writer prompts are the SFT streams').",
        min=0,
    )
    seed: int | None = option(
        None,
        "The training streams' seed (files: the index of the first stream; default: 0 for a file, 3000 for generated streams).",
        min=0,
    )
    tasks: int | None = option(24, "Synthetic: tasks per stream (files: each stream's own).", min=3)
    test_streams: int | None = option(
        None,
        "Held-out streams for the final comparison (default: every stream of the --test-data file; 6 generated streams).",
        min=1,
    )
    test_seed: int | None = option(
        None,
        "The held-out streams' seed (files: the index of the first stream; default: 0 for a file, 4000 for generated streams).",
        min=0,
    )
    test_data: str | None = option(
        None, "jsonl, locomo: the held-out streams' file (default: the training file, from --test-seed).", path=True
    )
    test_suite: str | None = option(
        None,
        "The suite the students are compared on, when it is not --suite (e.g. a jsonl training file of generated streams with its meta stripped, compared on the generated suite itself, scored as it scores); the notes budget is then its budget unless --budget says otherwise.",
    )
    budget: int | None = option(None, "Notes budget in characters (default: the suite's).", min=1)
    samples: int = option(
        1,
        "Rejection sampling: teacher completions per call (the greedy one, the rest at --sample-temperature); each trace row keeps the best by its role's reward (an answer's score, a write's notes recall). OUT/traces/sampling.json gives pass@1 and pass@k.",
        min=1,
    )
    sample_temperature: float = option(1.0, "Temperature of the extra teacher samples.")
    min_actor_score: float = option(
        1.0, "SFT keeps the actor rows scoring at least this (traced and sampled: 1, a right answer).", min=0.0, max=1.0
    )
    hindsight_share: float = option(
        1.0,
        "Select writer SFT targets: the share of its prompts (drawn per task) whose target is the hindsight keep-list (what a writer that knew the training stream's future kept; no model), the rest the teacher's keep-list for the same prompt. 1: hindsight only; 0: the teacher's only (any writer).",
        min=0.0,
        max=1.0,
    )
    hindsight_target: Literal["needed", "stated", "inferred"] = option(
        "inferred",
        "Select writer: what its hindsight keep-lists (SFT targets, the notes the actor rows are sampled on, the GRPO reward) keep: needed (only the statements a later question of the training stream needed) | stated (also every statement of a fact the world tracks, Suite.stated: counts, holders, dates, not the chatter; suites that list none, LoCoMo, keep the needed ones) | inferred (stated, with what the training streams do not annotate inferred from their gold answers: where each answer was stated, what changed it, which subjects questions ask about; signals.inferred).",
    )
    actor_samplers: tuple[Literal["teacher", "student"], ...] = option(
        ("teacher", "student"),
        'Actor SFT rows on the notes a writer that knew the future holds before each question needing memory (also where a newer look-alike sits nearer the question than the note with the answer): answers of these models, teacher | student (untrained), kept only when right; "": none.',
    )
    actor_samples: int = option(
        2,
        "Answers tried per such question and model: the greedy one, then up to this many minus one at --sample-temperature, until one is right.",
        min=1,
    )
    min_writer_credit: float | None = option(
        None,
        "SFT keeps only the teacher's writes whose realized credit (next questions' score minus the recent ones') is at least this.",
    )
    schedule: tuple[tuple[Literal["actor", "writer"], ...], ...] = option(
        (("writer",),),
        "GRPO phases, comma-separated, each the roles it trains (joined by +) for --grpo-steps steps: e.g. writer,actor+writer trains the writer against the teacher's frozen actor first, then both roles.",
    )
    horizon: int = option(2, "Writer credit: questions re-rolled after a write.", min=1)
    discovery_weight: float = option(
        0.0,
        "Actor reward: weight of the discoveries that reach memory (each sampled answer then costs a writer call).",
        min=0.0,
    )
    writer_reward: Literal["hindsight", "future", "recall", "credit"] = option(
        "hindsight",
        "GRPO writer reward: hindsight (select writer: the share of the later-needed statements kept minus --waste-weight x the budget share kept on statements no later question needed, from the training stream's hindsight labels) | future (select writer: the write carried over the next --horizons tasks, later writes those of a writer that knew the future, through the same budget: the share of needed statements still in the notes when their question comes, minus --waste-weight x the budget share unwanted and stale kept statements take while they stay; GRPO's writer prompts are the tasks of --eviction-fill) | recall (one-call writers: notes recall of the next questions where the suite knows their answers, no actor calls; credit elsewhere) | credit (the next questions re-answered by the teacher's actor).",
    )
    waste_weight: float = option(
        0.5,
        "Hindsight and future writer rewards: weight of the budget share spent on statements the --hindsight-target does not keep (future: and on stale values once updated).",
        min=0.0,
    )
    horizons: tuple[int, ...] = option(
        (8,),
        "Future writer reward: the tasks after a write whose questions reward it; several, short to long, are a curriculum: the GRPO steps of the whole schedule split into equal stages, one horizon each (e.g. 4,8,16).",
    )
    eviction_fill: float = option(
        0.9,
        "Future writer reward: GRPO's writer prompts are the tasks whose notes (those of a writer that knew the future) fill at least this share of the budget, where what a write keeps evicts the oldest notes and so groups differ; 0: every task.",
        min=0.0,
        max=1.0,
    )
    format_weight: float = option(0.2, "GRPO weight of the format shaping reward.", min=0.0)
    serve: Literal["gguf", "hf"] = option(
        "gguf",
        "How the comparison runs the students: gguf (a student dequantized from an embedded GGUF is written back as a GGUF at --serve-quantization and run by llama.cpp, like a local teacher) | hf (transformers).",
    )
    serve_quantization: Literal["q8_0", "f16", "teacher"] = option(
        "q8_0",
        "How a GGUF-served student is quantized: q8_0 | f16 | teacher (the teacher's GGUF file type, Q4_K_M for the embedded models; on the synthetic world it undid most of the 0.5B writer's training: 9 of 40 held-out writes as the trained checkpoint chose them).",
    )
    compare: tuple[Literal["student", "student+sft", "student+grpo"], ...] = option(
        ("student+grpo",), f"The students compared with the teacher held out: {' | '.join(STUDENTS)}."
    )
    train: TrainConfig = option(help="Training knobs of the SFT and GRPO stages.", default_factory=TrainConfig)

    def __post_init__(self) -> None:
        """Refuse values outside their choices and settings that contradict each other."""
        check_choices(self)
        if not all(self.schedule):
            raise ValueError(f"schedule: a GRPO schedule is phases of roles (actor, writer), not {self.schedule!r}")
        if self.grpo_streams and self.writer_reward not in ("hindsight", "future"):
            raise ValueError(
                f"grpo-streams: holding back hindsight rows needs --writer-reward hindsight or future, "
                f"not {self.writer_reward}"
            )
        if not self.horizons or min(self.horizons) < 1 or list(self.horizons) != sorted(self.horizons):
            raise ValueError(f"horizons: one or more tasks ahead, at least 1, short to long, not {self.horizons!r}")
        if self.grpo_streams and self.hindsight_streams is not None and sft_streams(asdict(self)) < self.train_streams:
            raise ValueError(
                f"grpo-streams: {self.grpo_streams} would hold back traced streams: --hindsight-streams must be at "
                f"least --train-streams + --grpo-streams ({self.train_streams + self.grpo_streams})"
            )

    @property
    def keep_target(self) -> str:
        """The hindsight keep-list target the labels are read with (``inferred`` labels are ``stated`` ones)."""
        return "stated" if self.hindsight_target == "inferred" else self.hindsight_target

    @property
    def held_out_suite(self) -> str:
        """The suite the students are compared on: ``test_suite``, or the training suite."""
        return self.test_suite or self.suite

    @property
    def held_out_data(self) -> str | None:
        """The held-out streams' file: ``test_data``, or the training file when the held-out suite is the training one."""
        return self.test_data or (self.data if self.held_out_suite == self.suite else None)
