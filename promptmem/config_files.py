"""Config files (recipes): a YAML mapping of a config dataclass's fields, nested configs as
nested mappings, tuples as lists (or the command line's comma-separated text)::

    # recipes/household_stated12.yaml
    suite: jsonl
    data: benchmarks/data/household_train.jsonl
    hindsight_target: stated
    train:
      grpo_steps: 6

An unknown key, or a value of the wrong type, is refused with the file and the key's dotted
path; the config's own checks (``__post_init__``) then run as for any caller. Paths in the file
are read as written (relative to where the command runs).
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path
from typing import Any

import yaml

from promptmem.options import choices_of, tuple_from_text, without_none


class ConfigFileError(ValueError):
    """A config file that cannot become its config; the message names the file and the key."""


def load_config(cls: type, path: str | Path) -> Any:
    """The ``cls`` config a YAML file describes (fields it leaves out keep their defaults)."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ConfigFileError(f"{path}: {err.strerror or err}") from err
    except yaml.YAMLError as err:
        raise ConfigFileError(f"{path}: not valid YAML ({err})") from err
    try:
        return from_mapping(cls, data or {}, "")
    except (TypeError, ValueError) as err:
        raise ConfigFileError(f"{path}: {err}") from err


def from_mapping(cls: type, data: Any, where: str) -> Any:
    """``cls`` built from ``data`` (a mapping of its fields); ``where``: the dotted path so far."""
    if not isinstance(data, dict):
        raise ValueError(f"{where or 'the file'} must be a mapping of {cls.__name__} fields, not {data!r}")
    fields = {field.name: field for field in dataclasses.fields(cls)}
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for key, value in data.items():
        name = f"{where}.{key}" if where else str(key)
        if key not in fields:
            raise ValueError(f"unknown key {name!r} ({cls.__name__} has no field {key!r})")
        kwargs[key] = _value(hints[key], value, name)
    return cls(**kwargs)


def _value(hint: Any, value: Any, name: str) -> Any:
    """``value`` as a field of type ``hint`` holds it, or a ValueError naming the key."""
    kind, optional = without_none(hint)
    if value is None:
        if optional:
            return None
        raise ValueError(f"{name}: must not be empty")
    if dataclasses.is_dataclass(kind):
        return from_mapping(kind, value, name)
    if typing.get_origin(kind) is tuple:
        if isinstance(value, str):
            return tuple_from_text(value, kind)
        if not isinstance(value, list):
            raise ValueError(f"{name}: must be a list, not {value!r}")
        item = typing.get_args(kind)[0]
        return tuple(_value(item, v, f"{name}[{i}]") for i, v in enumerate(value))
    expected = str if choices_of(kind) is not None else kind
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
        raise ValueError(f"{name}: must be {getattr(expected, '__name__', expected)}, not {value!r}")
    return value
