"""Suite registry: ``make_suite(name, **options)`` builds a suite by name."""

from __future__ import annotations

from collections.abc import Callable

from promptmem.suites.jsonl import JsonlFormatError, JsonlSuite, load_streams
from promptmem.suites.locomo import LocomoFormatError, LocomoSuite, load_locomo
from promptmem.suites.synthetic import SyntheticConfig, SyntheticSuite
from promptmem.tasks import Suite

SUITES: dict[str, tuple[Callable[..., Suite], str]] = {
    "synthetic": (SyntheticSuite, "seeded fictional engineering teams; facts to remember, distractors, updates"),
    "jsonl": (JsonlSuite, "your own streams from a JSONL file (--data PATH), one stream per line"),
    "locomo": (LocomoSuite, "LoCoMo long conversations (--data locomo10.json): sessions, then QA by category"),
}


def make_suite(name: str, **options) -> Suite:
    """Build the named suite; unknown names raise a ValueError listing the known ones."""
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; known: {', '.join(SUITES)}")
    return SUITES[name][0](**options)


__all__ = [
    "SUITES",
    "make_suite",
    "SyntheticConfig",
    "SyntheticSuite",
    "JsonlSuite",
    "JsonlFormatError",
    "load_streams",
    "LocomoSuite",
    "LocomoFormatError",
    "load_locomo",
]
