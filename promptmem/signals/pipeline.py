"""What training rows are made from and scored against: the ``Pipeline`` (the agent, the suite
that scores it, the LM that runs it and the adapters it is run and rendered with), passed down
whole to the traces, the sampled rows and the rewards instead of as six arguments each."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import dspy

from promptmem.tasks import Suite


@dataclass(frozen=True)
class Pipeline:
    """A pipeline whose calls become training rows: ``agent`` run on ``lm`` under ``run_adapter``
    (None: ``adapter``) and scored by ``suite``; ``adapter`` renders the rows and reads the
    student's completions (the student's format). ``lm`` may be None where nothing is run."""

    agent: Any
    suite: Suite
    lm: dspy.BaseLM | None
    adapter: dspy.Adapter
    run_adapter: dspy.Adapter | None = None

    @property
    def runs_with(self) -> dspy.Adapter:
        """The adapter the pipeline's own calls are made with."""
        return self.run_adapter or self.adapter

    def running(self):
        """The DSPy context the pipeline runs in (its LM, ``runs_with``)."""
        return dspy.context(lm=self.lm, adapter=self.runs_with)
