"""Task suites and their registry: ``build_suite(name, SuiteOptions(...))`` builds a suite
from a run's options, ``make_suite(name, **kwargs)`` from its class's own arguments."""

from __future__ import annotations

from promptmem.suites.jsonl import JsonlFormatError, JsonlSuite, load_streams
from promptmem.suites.locomo import LocomoFormatError, LocomoSuite, load_locomo
from promptmem.suites.registry import (
    SUITES,
    SuiteOptions,
    SuiteType,
    build_suite,
    register_suite,
    suite_help,
    suite_type,
)
from promptmem.suites.synthetic import SyntheticConfig, SyntheticSuite
from promptmem.tasks import Suite

register_suite(SyntheticSuite)
register_suite(JsonlSuite)
register_suite(LocomoSuite)


def make_suite(name: str, **kwargs) -> Suite:
    """The suite ``name`` (registered, or ``pkg.module:Class``) built with its class's own
    arguments, e.g. ``make_suite("synthetic", tasks=8)``."""
    return suite_type(name)(**kwargs)


__all__ = [
    "SUITES",
    "SuiteOptions",
    "SuiteType",
    "build_suite",
    "make_suite",
    "register_suite",
    "suite_help",
    "suite_type",
    "SyntheticConfig",
    "SyntheticSuite",
    "JsonlSuite",
    "JsonlFormatError",
    "load_streams",
    "LocomoSuite",
    "LocomoFormatError",
    "load_locomo",
]
