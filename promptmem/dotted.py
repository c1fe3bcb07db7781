"""Dotted paths (``pkg.module:Name``): how an option names an extension that lives outside
promptmem (``--suite``, ``--writer``) without registering it first."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module


def is_dotted(spec: str) -> bool:
    """``spec`` is a ``pkg.module:Name`` path rather than a registered name."""
    module, sep, name = spec.partition(":")
    return bool(sep and module and name)


def load_dotted(spec: str, what: str, fits: Callable[[object], bool] = callable, kind: str = "callable") -> object:
    """The object ``pkg.module:Name`` names; an unimportable module, a missing name or an object
    ``fits`` refuses (it is not a ``kind``) is a ValueError that says which ``what`` (e.g.
    "--writer") asked for it."""
    module_name, _, name = spec.partition(":")
    try:
        module = import_module(module_name)
    except ImportError as err:
        raise ValueError(f"{what} {spec!r}: cannot import {module_name} ({err})") from err
    try:
        found = getattr(module, name)
    except AttributeError:
        raise ValueError(f"{what} {spec!r}: module {module_name} has no {name!r}") from None
    if not fits(found):
        raise ValueError(f"{what} {spec!r}: {module_name}.{name} is not {kind}")
    return found
