"""What the stages of a distill run share (``DistillRun``), built once before any work, and what
each stage hands on to the next (``Work``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from promptmem.distill.config import DistillConfig
from promptmem.distill.gguf_export import export_gguf, file_type, named_file_type, quantize
from promptmem.distill.students import EMBEDDED
from promptmem.distill.timings import StageClock
from promptmem.evaluate import EvalConfig
from promptmem.lm.embedded import model_path
from promptmem.lm.specs import HF_PREFIX, LOCAL_PREFIX, LMConfig, adapter_for, local_gguf, make_lm
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.traces import TraceRow
from promptmem.tasks import Stream, Suite

STUDENT_FORMAT = adapter_for(HF_PREFIX)  # how traces are rendered and students are read


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


@dataclass(frozen=True)
class DistillRun:
    """One distill run, as every stage reads it: the ``config`` (resolved), the ``teacher``
    pipeline (its agent, the training suite, its LM and run adapter, rows in the student's
    format), the ``streams`` it is traced on, the ``labelled`` training streams with the suite
    their hindsight labels read (``label_suite``: inferred annotations or the suite itself),
    the held-out ``test`` config, the notes ``budget``, the run directory ``out`` with its
    ``clock``, the ``student`` to train (None: the run stops at the traces) and ``say``."""

    config: DistillConfig
    teacher_lm: LMConfig
    out: Path
    teacher: Pipeline
    streams: list[Stream]
    labelled: list[Stream]
    label_suite: Suite
    test: EvalConfig
    budget: int
    clock: StageClock
    student: Path | None = None
    say: Callable[[str], None] = print

    @property
    def labelling(self) -> Pipeline:
        """The teacher pipeline scored by the label suite (hindsight rows, sampled answers, rewards)."""
        return replace(self.teacher, suite=self.label_suite)

    def served(self, label: str, checkpoint: Path) -> LMConfig:
        """The LM config the comparison runs a student checkpoint with (``served_spec``)."""
        spec = served_spec(self.config, checkpoint, self.teacher_lm, self.out / "gguf" / label)
        return LMConfig(spec=spec, max_tokens=self.teacher_lm.max_tokens, threads=self.teacher_lm.threads)

    def samplers(self) -> dict[str, Callable]:
        """Per model the actor rows may be sampled from, a builder of (its LM, its run adapter)."""

        def student():
            served = self.served("student", self.student)
            return make_lm(served), adapter_for(served.spec)

        return {"teacher": lambda: (self.teacher.lm, self.teacher.run_adapter), "student": student}


@dataclass
class Work:
    """What the stages have made so far, each stage adding its part."""

    rows: list[TraceRow] = field(default_factory=list)  # the teacher's traces
    grpo_hindsight: list[TraceRow] = field(default_factory=list)  # hindsight writer rows GRPO prompts from
    held_back: set[str] = field(default_factory=set)  # hindsight streams held back from SFT
    kept: list[TraceRow] = field(default_factory=list)  # the SFT rows
    sources: dict[str, int] = field(default_factory=dict)  # the SFT rows by source
    sft_model: Path | None = None
    grpo_model: Path | None = None
    curve: list[dict] = field(default_factory=list)  # GRPO's reward per step
