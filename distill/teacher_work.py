"""A distill run started from another's teacher work. The teacher's traces and its held-out row
are the slowest stages of a CPU run (about an hour of one core on the household world) and
depend only on the teacher's settings, so a run that varies the student's training (hindsight
target, streams, epochs, GRPO) adopts them from a finished run instead of redoing them."""

from __future__ import annotations

import shutil
from pathlib import Path

from promptmem.files import RunDirError, read_json
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
TEACHER_WORK = ("traces", "eval/teacher")


def adopt_teacher_work(source: str | Path, out: Path, config, teacher_lm: LMConfig) -> list[str]:
    """Copy ``source``'s ``traces/`` and ``eval/teacher/`` into ``out`` where ``out`` lacks
    them, once ``source`` is known to have traced its teacher under this run's trace settings
    (``TRACE_SETTINGS``) and teacher LM (threads may differ); a ``RunDirError`` names the
    settings that differ. The held-out row is checked again against its own ``config.json``
    when ``evaluate`` resumes it. Returns the folders copied."""
    source = Path(source)
    stored = read_json(source / CONFIG, "--teacher-from must name a distill run's folder")
    if not isinstance(stored, dict) or "distill" not in stored:
        raise RunDirError(f"{source / CONFIG} is not a distill run's configuration")
    changed = [
        name
        for name in changed_settings(stored, {"distill": config, "teacher_lm": teacher_lm})
        if name.startswith("teacher_lm.") or name.split(".")[1] in TRACE_SETTINGS
    ]
    if changed:
        raise RunDirError(
            f"{source} traced its teacher under other settings (differs in: {', '.join(changed)}); "
            "leave out --teacher-from to trace this run's teacher"
        )
    copied = []
    for name in TEACHER_WORK:
        if (source / name).is_dir() and not (out / name).exists():
            shutil.copytree(source / name, out / name)
            copied.append(name)
    return copied
