"""The suite registry: each suite class builds itself from the run's options.

A suite class declares ``name``, ``about`` (one line for ``promptmem suites``), ``from_file``
(its streams come from a data file: optimize cuts GEPA windows from them and holds the last
streams out, where a generated suite gets fresh seeds) and a classmethod ``from_options``
whose keyword parameters are the ``SuiteOptions`` it takes; a parameter without a default is
required. ``register_suite(cls)`` adds one; ``--suite pkg.module:Class`` uses one unregistered.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import ClassVar, Protocol

from promptmem.dotted import is_dotted, load_dotted
from promptmem.suites.hostile import HostileConfig, HostileSuite
from promptmem.tasks import Suite

# options a suite that does not take them ignores: a file's streams keep their own length
HINTS = ("tasks",)


@dataclass(frozen=True)
class SuiteOptions:
    """The run options a suite may be built from (``promptmem eval`` flags of the same names);
    unset (falsy) options are not passed. ``hostile`` wraps any suite in ``HostileSuite``."""

    data: str | None = None  # the data file of a suite whose streams come from a file
    tasks: int | None = None  # tasks per generated stream
    questions_at_end: bool = False  # every question after the last session
    questions: int | None = None  # an evenly spaced sample of N questions per stream
    hostile: float = 0.0  # share of observations with planted attacks on the writer

    @classmethod
    def of(cls, config: object) -> SuiteOptions:
        """The options a run config (``EvalConfig``, ``OptimizeConfig``…) holds under these names."""
        return cls(**{f.name: getattr(config, f.name) for f in fields(cls) if hasattr(config, f.name)})


class SuiteType(Protocol):
    """A suite class the registry can build (see the module docstring)."""

    name: ClassVar[str]
    about: ClassVar[str]
    from_file: ClassVar[bool]
    from_options: Callable[..., Suite]


SUITES: dict[str, SuiteType] = {}


def register_suite(suite: SuiteType) -> SuiteType:
    """Make ``suite`` buildable by its ``name`` (usable as a class decorator)."""
    SUITES[suite.name] = suite
    return suite


def _is_suite_class(found: object) -> bool:
    return isinstance(found, type) and callable(getattr(found, "from_options", None))


def suite_type(name: str) -> SuiteType:
    """The suite class registered as ``name``, or the one a ``pkg.module:Class`` path names."""
    if is_dotted(name):
        return load_dotted(name, "--suite", _is_suite_class, "a suite class (one with a from_options classmethod)")
    if name not in SUITES:
        raise ValueError(f"unknown suite {name!r}; known: {', '.join(SUITES)} or a pkg.module:Class path")
    return SUITES[name]


def suite_help() -> str:
    """The ``--suite`` help, from the registry."""
    return f"Task suite: {' | '.join(SUITES)} | pkg.module:Class (see `promptmem suites`)."


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def build_suite(name: str, options: SuiteOptions = SuiteOptions()) -> Suite:
    """The suite ``name`` built from the options its ``from_options`` takes. A required option
    missing, or a set option it does not take (other than a ``HINTS`` one), is a ValueError."""
    suite = suite_type(name)
    params = inspect.signature(suite.from_options).parameters
    given = {key: value for key, value in asdict(options).items() if value and key != "hostile"}
    missing = [key for key, p in params.items() if p.default is inspect.Parameter.empty and key not in given]
    if missing:
        raise ValueError(f"the {name} suite needs {', '.join(map(_flag, missing))}")
    foreign = [key for key in given if key not in params and key not in HINTS]
    if foreign:
        takes = ", ".join(map(_flag, params)) or "no options"
        raise ValueError(f"{_flag(foreign[0])} does not apply to the {name} suite (it takes {takes})")
    built = suite.from_options(**{key: value for key, value in given.items() if key in params})
    return HostileSuite(built, HostileConfig(rate=options.hostile)) if options.hostile else built
