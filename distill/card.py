"""The student as an artifact: a card beside its weights (``STUDENT.md`` and ``student.json``)
saying what it is, how it was made and how well it did held out, and the command that uses it."""

from __future__ import annotations

import datetime
import json
import shlex
from dataclasses import asdict
from pathlib import Path

import yaml

from promptmem.distill.config import DistillConfig
from promptmem.files import write_json
from promptmem.lm.specs import LMConfig


def use_command(config: DistillConfig, spec: str) -> str:
    """The ``promptmem eval`` command that runs the seed agent with the student on the held-out streams."""
    words = ["promptmem", "eval", "--lm", spec, "--suite", config.held_out_suite, "--writer", config.writer]
    words += ["--data", config.held_out_data] if config.held_out_data else []
    return shlex.join(words)


def student_card(config: DistillConfig, teacher_lm: LMConfig, label: str, spec: str, comparison: dict) -> dict:
    """The card's data: the student ``label`` (served as ``spec``) against the teacher row of ``comparison``."""
    row, teacher = comparison[label], comparison["teacher"]
    paired = row["paired"]["teacher"]
    return {
        "student": label,
        "base_model": config.student,
        "lm_spec": spec,
        "teacher": {"program": config.teacher, "writer": config.writer, "lm": teacher_lm.spec},
        "training_streams": {
            "suite": config.suite,
            "data": config.data,
            "seed": config.seed,
            "streams": config.hindsight_streams,
        },
        "held_out": {
            "suite": config.held_out_suite,
            "data": config.held_out_data,
            "streams": paired["streams"],
            "questions": paired["questions"],
            "score": row["score"],
            "teacher_score": teacher["score"],
            "vs_teacher": {
                key: paired[key] for key in ("diff", "ci_low", "ci_high", "wins", "losses", "ties", "verdict")
            },
            "notes_recall": row.get("notes_recall"),
            "seconds_per_task": row["seconds_per_task"],
            "teacher_seconds_per_task": teacher["seconds_per_task"],
        },
        "recipe": asdict(config),
        "use": use_command(config, spec),
        "date": datetime.date.today().isoformat(),
    }


def _markdown(card: dict) -> str:
    held, vs = card["held_out"], card["held_out"]["vs_teacher"]
    return f"""# promptmem student: {card["base_model"]} ({card["student"]})

A memory-writing agent's model (actor and select writer), distilled by `promptmem distill` on {card["date"]}
from the teacher `{card["teacher"]["program"]}` ({card["teacher"]["writer"]} writer) on `{card["teacher"]["lm"]}`.

Trained on {card["training_streams"]["streams"]} streams of `{card["training_streams"]["data"] or card["training_streams"]["suite"]}`.

## Held out

{held["streams"]} streams, {held["questions"]} questions of `{held["data"] or card["training_streams"]["suite"]}`:

| | score | s/task |
|---|---|---|
| teacher | {held["teacher_score"]:.3f} | {held["teacher_seconds_per_task"]} |
| this student | {held["score"]:.3f} | {held["seconds_per_task"]} |

Student - teacher: {vs["diff"]:+.3f}, 95% CI over streams [{vs["ci_low"]:+.3f}, {vs["ci_high"]:+.3f}]
({vs["wins"]} won, {vs["losses"]} lost, {vs["ties"]} tied): **{vs["verdict"]}**. Notes recall {held["notes_recall"]}.

## Use it

```bash
{card["use"]}
```

The whole recipe is `recipe.yaml` beside this card: `promptmem distill --config recipe.yaml` runs it again.
"""


def write_card(folder: Path, card: dict) -> Path:
    """``STUDENT.md``, ``student.json`` and the recipe (``recipe.yaml``, a ``--config`` file) in
    ``folder``; returns the markdown's path."""
    folder.mkdir(parents=True, exist_ok=True)
    write_json(folder / "student.json", card)
    recipe = json.loads(json.dumps(card["recipe"]))  # tuples as lists
    (folder / "recipe.yaml").write_text(yaml.safe_dump(recipe, sort_keys=False), encoding="utf-8")
    (folder / "STUDENT.md").write_text(_markdown(card), encoding="utf-8")
    return folder / "STUDENT.md"
