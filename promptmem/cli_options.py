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
import typing
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import typer
from rich.markup import escape

from promptmem.config_files import load_config
from promptmem.options import choices_of, help_of, is_tuple, tuple_from_text, tuple_to_text, without_none


@dataclasses.dataclass(frozen=True)
class Options:
    """A config dataclass as options of one command. ``config`` is the class, or an instance
    whose values are this command's defaults (and fill the fields it does not expose);
    ``prefix`` goes before every flag (``reflection`` -> ``--reflection-lm``); ``only`` or
    ``exclude`` pick top-level fields (fields declared ``cli=False`` are never options);
    ``from_file`` adds ``--config FILE``, a recipe of this config's fields that the flags given
    on the command line override."""

    config: Any
    prefix: str = ""
    only: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    from_file: bool = False  # ``--config FILE`` (a recipe, ``config_files``) gives this config; flags override it

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
        if is_tuple(self.kind):
            cli_type, default = (
                str,
                default if default in (None, dataclasses.MISSING) else tuple_to_text(default, self.kind),
            )
        elif self.field.metadata.get("path"):
            cli_type, default = Path, Path(default) if isinstance(default, str) else default
        elif choices_of(self.kind) is not None:
            cli_type = str  # the config refuses a value outside its choices (options.check_choices)
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
        if is_tuple(self.kind):
            try:
                return tuple_from_text(parsed, self.kind)
            except ValueError as err:
                raise typer.BadParameter(f"{parsed!r}: {err}", param_hint=f"'{self.flag}'") from err
        return str(parsed) if self.field.metadata.get("path") else parsed


@dataclasses.dataclass(frozen=True)
class RenamedOption:
    """The flag a config field had before a rename (``option(was=...)``), kept for one release:
    hidden from ``--help`` and refused with a hint naming the flag that replaced it."""

    param: str  # the former flag with underscores
    current: CliOption

    @property
    def flag(self) -> str:
        return "--" + self.param.replace("_", "-")

    def parameter(self) -> inspect.Parameter:
        """The hidden parameter typer reads the former flag from."""
        info = typer.Option(None, hidden=True)
        return inspect.Parameter(self.param, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=str | None)

    def refuse(self, given: Any) -> None:
        """A ``typer.BadParameter`` when the former flag was given."""
        if given is not None:
            raise typer.BadParameter(f"renamed: use {self.current.flag}", param_hint=f"'{self.flag}'")


def renamed_options(options: list[CliOption], taken: set[str]) -> list[RenamedOption]:
    """The former flags of ``options`` (same prefix, the field's former name) that no parameter
    in ``taken`` holds today (a former name now naming another field is that field's flag)."""
    found = []
    for option in options:
        was = option.field.metadata.get("was")
        if not was:
            continue
        name = (option.field.metadata.get("flag") or option.field.name).replace("-", "_")
        param = option.param[: len(option.param) - len(name)] + was.replace("-", "_")
        if param not in taken:
            found.append(RenamedOption(param, option))
    return found


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
        kind, optional = without_none(hints[field.name])
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
        kwargs[name] = _construct(without_none(hints[name])[0], inner_base, inner)
    return dataclasses.replace(base, **kwargs) if base is not None else cls(**kwargs)


RECIPE = "config"  # the parameter of ``--config FILE``
CONTEXT = "cli_context"  # the parameter typer passes its context in
_GIVEN: ContextVar[frozenset[str]] = ContextVar("given", default=frozenset())


def given(param: str) -> bool:
    """Whether the command running now was given its parameter ``param`` (on the command line or
    from the environment), rather than left at its default."""
    return param in _GIVEN.get()


def _given_params(context: typer.Context) -> frozenset[str]:
    sources = {name: context.get_parameter_source(name) for name in context.params}
    return frozenset(
        name for name, source in sources.items() if source and source.name not in ("DEFAULT", "DEFAULT_MAP")
    )


def from_recipe(group: Options, path: Path, values: dict[str, Any], options: list[CliOption]) -> Any:
    """The config of the recipe file ``path`` with the options the command line gave over it."""
    recipe = load_config(group.cls, path)
    return _construct(group.cls, recipe, [(o.path, o.value(values[o.param])) for o in options if given(o.param)])


def _recipe_parameter(cls: type) -> inspect.Parameter:
    info = typer.Option(
        None,
        "--config",
        help=f"A recipe: a YAML file of {cls.__name__} fields (nested sections for nested configs), e.g. recipes/NAME.yaml; options given on the command line override it.",
    )
    return inspect.Parameter(RECIPE, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=Path | None)


def config_options(**groups: Options | type) -> Callable[[Callable], Callable]:
    """Give a command the options of config dataclasses: each keyword names a parameter of the
    command and the config (class, instance, or ``Options``) it receives. The returned function
    carries ``config_groups`` (parameter name -> its ``Options``), ``config_options``
    (parameter name -> its ``CliOption`` list) and ``renamed_options`` (the hidden former flags
    it refuses, ``RenamedOption``)."""

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
        renamed = [r for name in chosen for r in renamed_options(options[name], seen)]
        parameters += [r.parameter() for r in renamed]
        recipe_groups = [name for name, group in chosen.items() if group.from_file]
        if len(recipe_groups) > 1 or (recipe_groups and RECIPE in seen):
            raise TypeError(f"{command.__name__}: one config at most is read from --config")
        if recipe_groups:
            parameters.append(_recipe_parameter(chosen[recipe_groups[0]].cls))
        parameters.append(inspect.Parameter(CONTEXT, inspect.Parameter.KEYWORD_ONLY, annotation=typer.Context))

        @functools.wraps(command)
        def run(**values):
            token = _GIVEN.set(_given_params(values.pop(CONTEXT)))
            try:
                return _run(values)
            finally:
                _GIVEN.reset(token)

        def _run(values: dict):
            for former in renamed:
                former.refuse(values.pop(former.param))
            recipe = values.pop(RECIPE) if recipe_groups else None
            mine = {name: {o.param: values.pop(o.param) for o in options[name]} for name in chosen}
            configs = {}
            for name, group in chosen.items():
                try:
                    if recipe is not None and group.from_file:
                        configs[name] = from_recipe(group, recipe, mine[name], options[name])
                    else:
                        configs[name] = build(group, mine[name], options[name])
                except ValueError as err:  # a config that checks its values, or a recipe file's error
                    raise typer.BadParameter(str(err), param_hint="'--config'" if recipe else None) from err
            return command(**values, **configs)

        run.__signature__ = inspect.Signature(parameters)
        run.__annotations__ = {p.name: p.annotation for p in parameters}
        run.config_groups, run.config_options, run.renamed_options = chosen, options, renamed
        return run

    return decorate
