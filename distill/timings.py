"""How long each stage of a distill run took, per step: the measure a schedule is sized by."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from promptmem.files import write_json


def grpo_phase(phase: int) -> str:
    """GRPO phase ``phase``'s stage name (from 1): its folder in the run directory and its
    ``timings.json`` entry (grpo, grpo-2, ...)."""
    return "grpo" if phase == 1 else f"grpo-{phase}"


class StageClock:
    """Each stage's seconds and seconds per step in a JSON file (``OUT/timings.json``), written by
    the run that did the stage: one already done when the run starts keeps its time."""

    def __init__(self, path: Path):
        self.path = path

    def read(self) -> dict:
        return json.loads(self.path.read_text()) if self.path.is_file() else {}

    def time(self, stage: str, done: bool, run: Callable, steps: Callable[[object], int], unit: str = "step"):
        """``run()``'s result; unless the stage was ``done`` before, its time is recorded under
        ``stage``: ``<unit>s`` (``steps(result)``), ``seconds`` and ``seconds_per_<unit>``."""
        began = time.perf_counter()
        result = run()
        if not done:
            seconds, count = time.perf_counter() - began, steps(result)
            timings = self.read()
            timings[stage] = {
                f"{unit}s": count,
                "seconds": round(seconds, 1),
                f"seconds_per_{unit}": round(seconds / max(count, 1), 2),
            }
            write_json(self.path, timings)
        return result
