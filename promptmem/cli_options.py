"""Typer options built from config dataclasses whose fields are declared with ``option(...)``.

A command names its config classes and keeps only its own options::

    @app.command("eval")
    @config_options(config=EvalConfig, lm=Options(LMConfig, exclude=("contexts",)))
    def eval_command(config: EvalConfig, lm: LMConfig, out: Path = typer.Option(...)): ...

Typer sees each config's fields in place of its parameter: ``--field-name`` (or the field's
``flag``, after the group's ``prefix``), the field's help, ``min``/``max`` bounds and default,
``--x/--no-x`` for a bool, a path for ``path=True``, one comma-separated value for a tuple;
a field whose type is a config dataclass adds that class's options. The command is called
with the configs built back from the parsed values.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any, Union

import typer
from rich.markup import escape

from promptmem.options import help_of

SEPARATORS = (",", "+")  # a tuple's items on the command line; a tuple of tuples' inner items


@dataclasses.dataclass(frozen=True)
class Options:
    """A config dataclass as options of one command. ``config`` is the class, or an instance
    whose values are this command's defaults (and fill the fields it does not expose);
    ``prefix`` goes before every flag (``reflection`` -> ``--reflection-lm``); ``only`` or
    ``exclude`` pick top-level fields (fields declared ``cli=False`` are never options)."""

    config: Any
    prefix: str = ""
    only: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()

    @property
    def cls(self) -> type:
        return self.config if isinstance(self.config, type) else type(self.config)

    @property
    def base(self) -> Any:
        return None if isinstance(self.config, type) else self.config


@dataclasses.dataclass(frozen=True)
class CliOption:
    """One config field as one command-line option."""

    param: str  # the parameter typer sees: the flag with underscores
    path: tuple[str, ...]  # field names from the config down to this field
    field: dataclasses.Field
    kind: Any  # the field's type without ``None``
    optional: bool  # the field's type admits None
    default: Any  # the config's value (dataclasses.MISSING: required)

    @property
    def flag(self) -> str:
        return "--" + self.param.replace("_", "-")

    @property
    def help(self) -> str:
        """The help typer shows: the field's, escaped for Rich markup."""
        return escape(help_of(self.field))

    def parameter(self) -> inspect.Parameter:
        """The parameter typer reads this option from."""
        cli_type, default = self.kind, self.default
        if _is_tuple(self.kind):
            cli_type, default = str, default if default in (None, dataclasses.MISSING) else _to_text(default, self.kind)
        elif self.field.metadata.get("path"):
            cli_type, default = Path, Path(default) if isinstance(default, str) else default
        meta = self.field.metadata
        info = typer.Option(
            ... if default is dataclasses.MISSING else default, help=self.help, min=meta.get("min"), max=meta.get("max")
        )
        annotation = cli_type | None if self.optional else cli_type
        return inspect.Parameter(self.param, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=annotation)

    def value(self, parsed: Any) -> Any:
        """The config's value for what typer parsed."""
        if parsed is None:
            return None
        if _is_tuple(self.kind):
            try:
                return _from_text(parsed, self.kind)
            except ValueError as err:
                raise typer.BadParameter(f"{parsed!r}: {err}", param_hint=f"'{self.flag}'") from err
        return str(parsed) if self.field.metadata.get("path") else parsed


def _is_tuple(kind: Any) -> bool:
    return typing.get_origin(kind) is tuple


def _item_type(kind: Any) -> Any:
    args = typing.get_args(kind)
    if len(args) != 2 or args[1] is not Ellipsis:
        raise TypeError(f"{kind}: a tuple option is tuple[X, ...]")
    return args[0]


def _to_text(value: tuple, kind: Any, depth: int = 0) -> str:
    item = _item_type(kind)
    if _is_tuple(item):
        return SEPARATORS[depth].join(_to_text(v, item, depth + 1) for v in value)
    return SEPARATORS[depth].join(str(v) for v in value)


def _from_text(text: str, kind: Any, depth: int = 0) -> tuple:
    item = _item_type(kind)
    parts = text.split(SEPARATORS[depth])
    if _is_tuple(item):
        return tuple(_from_text(part, item, depth + 1) for part in parts)
    return tuple(item(part.strip()) for part in parts)


def _without_none(hint: Any) -> tuple[Any, bool]:
    if typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint):
        rest = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return (rest[0] if len(rest) == 1 else hint), True
    return hint, False


def _default(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def cli_options(group: Options) -> list[CliOption]:
    """The options ``group`` contributes, in field order."""
    names = {field.name for field in dataclasses.fields(group.cls)}
    unknown = (set(group.only or ()) | set(group.exclude)) - names
    if unknown:
        raise TypeError(f"{group.cls.__name__} has no field {', '.join(sorted(unknown))}")
    return _walk(group.cls, group.base, group.prefix, (), group.only, group.exclude)


def _walk(cls, base, prefix: str, path: tuple, only, exclude) -> list[CliOption]:
    hints = typing.get_type_hints(cls)
    found = []
    for field in dataclasses.fields(cls):
        skipped = field.name in exclude or (only is not None and field.name not in only)
        if skipped or not field.metadata.get("cli", True):
            continue
        default = getattr(base, field.name) if base is not None else _default(field)
        kind, optional = _without_none(hints[field.name])
        if dataclasses.is_dataclass(kind):
            found += _walk(kind, default, prefix, (*path, field.name), None, ())
            continue
        name = field.metadata.get("flag") or field.name
        param = (f"{prefix}-{name}" if prefix else name).replace("-", "_")
        found.append(CliOption(param, (*path, field.name), field, kind, optional, default))
    return found


def build(group: Options, values: dict[str, Any], options: list[CliOption] | None = None) -> Any:
    """The config ``group`` stands for, with ``values`` (typer's, by parameter name)."""
    options = cli_options(group) if options is None else options
    return _construct(group.cls, group.base, [(o.path, o.value(values[o.param])) for o in options])


def _construct(cls, base, items: list[tuple[tuple[str, ...], Any]]) -> Any:
    fields = {field.name: field for field in dataclasses.fields(cls)}
    kwargs, nested = {}, {}
    for path, value in items:
        if len(path) == 1:
            kwargs[path[0]] = value
        else:
            nested.setdefault(path[0], []).append((path[1:], value))
    hints = typing.get_type_hints(cls)
    for name, inner in nested.items():
        inner_base = getattr(base, name) if base is not None else _default(fields[name])
        kwargs[name] = _construct(_without_none(hints[name])[0], inner_base, inner)
    return dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)


def config_options(**groups: Options | type) -> Callable[[Callable], Callable]:
    """Give a command the options of config dataclasses: each keyword names a parameter of the
    command and the config (class, instance, or ``Options``) it receives. The returned function
    carries ``config_groups`` (parameter name -> its ``Options``) and ``config_options``
    (parameter name -> its ``CliOption`` list)."""

    def decorate(command: Callable) -> Callable:
        chosen = {name: g if isinstance(g, Options) else Options(g) for name, g in groups.items()}
        options = {name: cli_options(group) for name, group in chosen.items()}
        signature = inspect.signature(command)
        missing = set(chosen) - set(signature.parameters)
        if missing:
            raise TypeError(f"{command.__name__} has no parameter {', '.join(sorted(missing))}")
        hints = typing.get_type_hints(command)
        parameters = []
        for parameter in signature.parameters.values():
            if parameter.name in options:
                parameters += [option.parameter() for option in options[parameter.name]]
            else:
                annotation = hints.get(parameter.name, parameter.annotation)
                parameters.append(parameter.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=annotation))
        seen = set()
        for parameter in parameters:
            if parameter.name in seen:
                raise TypeError(f"{command.__name__}: --{parameter.name.replace('_', '-')} is declared twice")
            seen.add(parameter.name)

        @functools.wraps(command)
        def run(**values):
            mine = {name: {o.param: values.pop(o.param) for o in options[name]} for name in chosen}
            configs = {}
            for name, group in chosen.items():
                try:
                    configs[name] = build(group, mine[name], options[name])
                except ValueError as err:  # a config that checks its values
                    raise typer.BadParameter(str(err)) from err
            return command(**values, **configs)

        run.__signature__ = inspect.Signature(parameters)
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        run.config_groups, run.config_options = chosen, options
        return run

    return decorate
