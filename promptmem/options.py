"""Options declared once: a config dataclass field carries its own help, bounds and flag name
(``option(...)``); the CLI builds its options from those fields, and the whole config is
written into every run directory."""

from __future__ import annotations

import dataclasses
from typing import Any


def option(
    default: Any = dataclasses.MISSING,
    help: str = "",
    *,
    min: float | None = None,
    max: float | None = None,
    flag: str | None = None,
    cli: bool = True,
    **field_kwargs,
) -> Any:
    """A dataclass field whose metadata holds what a command-line option needs: ``help``
    (the one description, shown by ``--help`` and in the docs), ``min``/``max`` bounds, the
    ``flag`` name when it is not the field's (``--lm`` for ``spec``), and ``cli=False`` for
    fields no command exposes."""
    metadata = {"help": help, "min": min, "max": max, "flag": flag, "cli": cli}
    return dataclasses.field(default=default, metadata=metadata, **field_kwargs)
