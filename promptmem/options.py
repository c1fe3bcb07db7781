"""Options declared once: a config dataclass field carries its own help, bounds and flag name
(``option(...)``); the CLI builds its options from those fields (``promptmem.cli_options``),
and the whole config is written into every run directory."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def option(
    default: Any = dataclasses.MISSING,
    help: str | Callable[[], str] = "",
    *,
    min: float | None = None,
    max: float | None = None,
    flag: str | None = None,
    cli: bool = True,
    path: bool = False,
    pace: bool = False,
    **field_kwargs,
) -> Any:
    """A dataclass field whose metadata holds what a command-line option needs: ``help``
    (the one description, shown by ``--help`` and in the docs; or a function returning it,
    called when the CLI is built, for help made from a registry), ``min``/``max`` bounds, the
    ``flag`` name when it is not the field's (``--lm`` for ``spec``), ``cli=False`` for fields
    no command exposes, ``path=True`` for a file name the CLI reads as a path (the config
    holds its text), and ``pace=True`` for a setting of how fast a run goes, not of what it
    computes (threads, timeouts): a run resumed with another value goes on.

    A field whose type is a tuple is one comma-separated option (``--budgets 400,800``; a tuple
    of tuples joins its inner items with ``+``: ``writer,actor+writer``); a field whose type
    is a config dataclass contributes that dataclass's options."""
    metadata = {"help": help, "min": min, "max": max, "flag": flag, "cli": cli, "path": path, "pace": pace}
    return dataclasses.field(default=default, metadata=metadata, **field_kwargs)


def help_of(field: dataclasses.Field) -> str:
    """The help text of a field declared with ``option`` ("" for a plain field)."""
    text = field.metadata.get("help", "")
    return text() if callable(text) else text
