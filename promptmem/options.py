"""Options declared once: a config dataclass field carries its own help, bounds and flag name
(``option(...)``); the CLI builds its options from those fields (``promptmem.cli_options``),
and the whole config is written into every run directory."""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Callable
from typing import Any, Literal, Union

SEPARATORS = (",", "+")  # a tuple's items on the command line; a tuple of tuples' inner items


@dataclasses.dataclass(frozen=True)
class OptionMeta:
    """What a command-line option needs besides its help (``option`` documents each); a
    field's ``metadata`` holds these keys and ``help``."""

    min: float | None = None
    max: float | None = None
    flag: str | None = None
    cli: bool = True
    path: bool = False
    pace: bool = False
    was: str | None = None


def option(
    default: Any = dataclasses.MISSING,
    help: str | Callable[[], str] = "",
    *,
    default_factory: Callable[[], Any] | Any = dataclasses.MISSING,
    **meta: Any,
) -> Any:
    """A dataclass field whose metadata holds what a command-line option needs: ``help``
    (the one description, shown by ``--help`` and in the docs; or a function returning it,
    called when the CLI is built, for help made from a registry) and the ``OptionMeta`` keys:
    ``min``/``max`` bounds, the ``flag`` name when it is not the field's (``--lm`` for
    ``spec``), ``cli=False`` for fields no command exposes, ``path=True`` for a file name the
    CLI reads as a path (the config holds its text), and ``pace=True`` for a setting of how
    fast a run goes, not of what it computes (threads, timeouts): a run resumed with another
    value goes on. ``was``: the field's name before a rename (for one release the CLI refuses
    its old flag with a hint, and a saved config under the old names still reads:
    ``with_current_names``). Any other key is a TypeError.

    A field whose type is a tuple is one comma-separated option (``--budgets 400,800``; a tuple
    of tuples joins its inner items with ``+``: ``writer,actor+writer``); a field whose type
    is a config dataclass contributes that dataclass's options."""
    metadata = {"help": help, **dataclasses.asdict(OptionMeta(**meta))}
    return dataclasses.field(default=default, default_factory=default_factory, metadata=metadata)


def help_of(field: dataclasses.Field) -> str:
    """The help text of a field declared with ``option`` ("" for a plain field)."""
    text = field.metadata.get("help", "")
    return text() if callable(text) else text


def with_current_names(cls: type, stored: dict) -> dict:
    """``stored`` (a ``cls`` config as saved, e.g. a section of ``config.json``) under today's
    field names: when it holds a name that is only a former one (``option(was=...)``), every
    former name is read as its field's new one at once (so two renames may swap names); the
    configs nested in it likewise. Other keys are left as they are."""
    fields = {field.name: field for field in dataclasses.fields(cls)}
    former = {field.metadata["was"]: name for name, field in fields.items() if field.metadata.get("was")}
    if set(stored) & (set(former) - set(fields)):
        stored = {former.get(key, key): value for key, value in stored.items()}
    hints = typing.get_type_hints(cls)
    nested = {name for name in fields if dataclasses.is_dataclass(hints[name])}
    return {
        key: with_current_names(hints[key], value) if key in nested and isinstance(value, dict) else value
        for key, value in stored.items()
    }


def choices_of(hint: Any) -> tuple | None:
    """The values a ``Literal`` type hint admits (inside ``X | None`` and ``tuple[X, ...]`` too),
    or None when the hint is no closed vocabulary."""
    origin = typing.get_origin(hint)
    if origin is Literal:
        return typing.get_args(hint)
    if origin in (Union, types.UnionType, tuple):
        found = [choices_of(arg) for arg in typing.get_args(hint) if arg not in (type(None), Ellipsis)]
        return next((c for c in found if c is not None), None)
    return None


def check_choices(config: Any) -> None:
    """Refuse a field value outside its ``Literal`` choices (each item of a tuple field, every
    level deep): ``ValueError("FIELD: 'x' is not one of a | b")``, the one message the CLI, a
    recipe file and a Python caller get. Call it from the config's ``__post_init__``."""
    hints = typing.get_type_hints(type(config))
    for field in dataclasses.fields(config):
        allowed = choices_of(hints[field.name])
        if allowed is None:
            continue
        for value in _leaves(getattr(config, field.name)):
            if value not in allowed:
                name = field.name.replace("_", "-")
                raise ValueError(f"{name}: {value!r} is not one of {' | '.join(map(str, allowed))}")


def _leaves(value: Any) -> list:
    if value is None:
        return []
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


def is_tuple(kind: Any) -> bool:
    return typing.get_origin(kind) is tuple


def _item_type(kind: Any) -> Any:
    args = typing.get_args(kind)
    if len(args) != 2 or args[1] is not Ellipsis:
        raise TypeError(f"{kind}: a tuple option is tuple[X, ...]")
    return args[0]


def tuple_to_text(value: tuple, kind: Any, depth: int = 0) -> str:
    item = _item_type(kind)
    if is_tuple(item):
        return SEPARATORS[depth].join(tuple_to_text(v, item, depth + 1) for v in value)
    return SEPARATORS[depth].join(str(v) for v in value)


def tuple_from_text(text: str, kind: Any, depth: int = 0) -> tuple:
    """The tuple a command line's text stands for ("" : the empty tuple)."""
    item = _item_type(kind)
    if not text.strip():
        return ()
    parts = text.split(SEPARATORS[depth])
    if is_tuple(item):
        return tuple(tuple_from_text(part, item, depth + 1) for part in parts)
    convert = str if choices_of(item) is not None else item
    return tuple(convert(part.strip()) for part in parts)


def without_none(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint):
        rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return (rest[0] if len(rest) == 1 else hint), True
    return hint, False
