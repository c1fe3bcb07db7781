"""Every option declared once: a command's options come from its config dataclasses' fields
(help, bounds, default, flag), the configs are built back from them, and cli.py declares by
hand only the few options no config holds."""

import ast
import dataclasses
import os
import subprocess
import sys
import typing
from pathlib import Path

import pytest
import typer
import typer.main
from rich.markup import escape
from typer.testing import CliRunner

from promptmem import cli
from promptmem.cli import app
from promptmem.cli_options import RECIPE, Options, config_options
from promptmem.distill.pipeline import DistillConfig
from promptmem.evaluate import EvalConfig
from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import REFLECTION_LM, TASK_LM
from promptmem.options import check_choices, choices_of, help_of, option, with_current_names
from tests.helpers.paths import ROOT

# command -> (its function, the options it declares itself: none of them is a config field)
COMMANDS = {
    "eval": (cli.eval_command, {"out"}),
    "optimize": (cli.optimize_command, {"out"}),
    "distill": (cli.distill_command, {"until", "out", "teacher_from"}),
    "tune": (cli.tune_command, {"out"}),
    "judge": (cli.judge_command, {"out"}),
    "export verifiers": (cli.export_verifiers_command, {"out"}),
}


def click_command(path: str):
    command = typer.main.get_command(app)
    for name in path.split():
        command = command.commands[name]
    return command


def cli_fields(cls, only=None, exclude=()) -> list[dataclasses.Field]:
    """Every field of ``cls`` an option should show, read from the dataclass itself: cli=True,
    picked by only/exclude, the fields of a nested config dataclass in its place."""
    hints = typing.get_type_hints(cls)
    found = []
    for field in dataclasses.fields(cls):
        if not field.metadata.get("cli", True) or field.name in exclude or (only and field.name not in only):
            continue
        kind = hints[field.name]
        found += cli_fields(kind) if dataclasses.is_dataclass(kind) else [field]
    return found


@pytest.mark.parametrize("name", COMMANDS)
def test_every_config_field_is_an_option_with_the_fields_help_bounds_and_default(name):
    function, own = COMMANDS[name]
    params = {param.name: param for param in click_command(name).params}
    shown = set()
    for group_name, group in function.config_groups.items():
        options = function.config_options[group_name]
        expected = cli_fields(group.cls, group.only, group.exclude)
        assert [o.field for o in options] == expected, f"{name} {group_name}: fields and options differ"
        for o in options:
            param = params[o.param]
            assert help_of(o.field), f"{name} {o.flag}: the field {o.field.name} has no help"
            assert param.help == escape(help_of(o.field)), f"{name} {o.flag}"
            assert (getattr(param, "min", None), getattr(param, "max", None)) == (
                o.field.metadata["min"],
                o.field.metadata["max"],
            ), f"{name} {o.flag}"
            shown.add(o.param)
    shown |= {former.param for former in function.renamed_options}  # hidden, refused (test_config_names)
    if any(group.from_file for group in function.config_groups.values()):
        shown.add(RECIPE)  # --config FILE (test_recipes)
    # every option is a config field's or one of the command's own short list
    assert set(params) - shown == own, name
    assert not own & shown


def test_cli_py_declares_only_the_commands_own_options():
    tree = ast.parse((ROOT / "promptmem" / "cli.py").read_text())
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    for name, (function, own) in COMMANDS.items():
        node = functions[function.__name__]
        assert any(
            isinstance(d, ast.Call) and getattr(d.func, "id", "") == "config_options" for d in node.decorator_list
        ), name
        arguments = node.args.args + node.args.kwonlyargs
        defaults = dict(zip([a.arg for a in node.args.args][::-1], node.args.defaults[::-1]))
        defaults |= {a.arg: d for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults) if d is not None}
        declared = {arg for arg, default in defaults.items() if isinstance(default, ast.Call)}
        assert declared == own, f"{name}: options declared by hand: {declared - own}"
        groups = {a.arg for a in arguments} - declared
        assert groups == set(function.config_groups), name
        helps = [k for call in ast.walk(node) if isinstance(call, ast.Call) for k in call.keywords if k.arg == "help"]
        assert len(helps) == len(own), f"{name}: help written in cli.py beside its own options"


def test_eval_help_renders_at_80_columns():
    result = subprocess.run(
        [sys.executable, "-m", "promptmem.cli", "eval", "--help"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "COLUMNS": "80", "TERMINAL_WIDTH": "80"},
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = result.stdout.splitlines()
    assert max(map(len, lines)) <= 80
    text = result.stdout
    assert "--buffer-share" in text and "--lm" in text and "--out" in text and "Examples" in text
    assert "promptmem[peers" in text.replace("\\", "")  # the field's brackets survive Rich markup


@pytest.mark.parametrize("name", COMMANDS)
def test_every_commands_help_renders(name):
    result = CliRunner().invoke(app, [*name.split(), "--help"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output


def test_the_configs_are_built_back_from_the_options(tmp_path, monkeypatch):
    import promptmem.distill.pipeline
    import promptmem.evaluate
    import promptmem.integrations.verifiers_export
    import promptmem.optimize.tune

    calls = {}

    def recorded(module, name):
        def stub(*args, **kwargs):
            calls[name] = args
            raise typer.Exit(0)

        monkeypatch.setattr(module, name, stub)

    def run(*args):
        result = CliRunner().invoke(app, list(args))
        assert result.exit_code == 0, result.output
        return result

    recorded(promptmem.optimize.tune, "tune")
    run("tune", "--budgets", "100, 200", "--writers", "ops", "--reflection-lm", "openai/x", "--out", "t")
    config, lm, reflection, out = calls["tune"]
    assert (config.budgets, config.writers, config.top_ks, config.seed) == ((100, 200), ("ops",), (0, 4, 8), 500)
    assert lm == TASK_LM and reflection == dataclasses.replace(REFLECTION_LM, spec="openai/x") and out == Path("t")

    recorded(promptmem.distill.pipeline, "distill")
    run("distill", "--schedule", "writer,actor+writer", "--grpo-steps", "3", "--no-lora", "--max-tokens", "64")
    config, lm, _ = calls["distill"]
    assert config.schedule == (("writer",), ("actor", "writer")) and lm == LMConfig(max_tokens=64)
    assert config.train == dataclasses.replace(DistillConfig().train, grpo_steps=3, lora=False)
    assert (
        dataclasses.replace(config, schedule=DistillConfig().schedule, train=DistillConfig().train) == DistillConfig()
    )

    recorded(promptmem.evaluate, "evaluate")
    run("eval", "--data", "d.jsonl", "--suite", "jsonl", "--no-baseline", "--contexts", "2", "--out", "e")
    config, lm, out = calls["evaluate"]
    assert config == EvalConfig(suite="jsonl", data="d.jsonl", baseline=False) and lm == LMConfig(contexts=2)

    recorded(promptmem.integrations.verifiers_export, "export_verifiers")
    run("export", "verifiers", "--horizon", "5", "--out", str(tmp_path / "p"))
    config, _, package = calls["export_verifiers"]
    assert config == EvalConfig(streams=8) and (package.horizon, package.writer_weight, package.name) == (5, 0.5, None)

    result = CliRunner().invoke(app, ["tune", "--budgets", "100,many", "--out", "t"])
    assert result.exit_code == 2 and "--budgets" in result.output and "many" in result.output


def test_a_field_declared_with_option_becomes_an_option_of_every_command_that_takes_its_config():
    @dataclasses.dataclass(frozen=True)
    class Inner:
        retries: int = option(2, "Times a failed call is retried.", min=0)

    @dataclasses.dataclass(frozen=True)
    class Outer:
        name: str = option("x", "The name.", flag="called")
        phases: tuple[tuple[str, ...], ...] = option((("a", "b"),), "Phases.")
        hidden: int = option(1, "Not on the command line.", cli=False)
        inner: Inner = option(help="Inner settings.", default_factory=Inner)

    sample = typer.Typer()
    seen = []

    @sample.command()
    @config_options(outer=Outer, lm=Options(LMConfig(max_tokens=9), prefix="judge", only=("spec",)))
    def command(outer: Outer, lm: LMConfig, verbose: bool = typer.Option(False, help="Say more.")) -> None:
        seen.append((outer, lm, verbose))

    text = CliRunner().invoke(sample, ["--help"], env={"COLUMNS": "200"}).output
    assert all(flag in text for flag in ("--called", "--phases", "--retries", "--judge-lm", "--verbose"))
    assert "--hidden" not in text and "a+b" in text
    result = CliRunner().invoke(sample, ["--retries", "5", "--phases", "c,d+e", "--judge-lm", "m", "--verbose"])
    assert result.exit_code == 0, result.output
    assert seen == [(Outer(phases=(("c",), ("d", "e")), inner=Inner(5)), LMConfig(spec="m", max_tokens=9), True)]
    assert CliRunner().invoke(sample, ["--retries", "-1"]).exit_code == 2

    with pytest.raises(TypeError, match="--lm is declared twice"):

        @config_options(a=Options(LMConfig, only=("spec",)), b=Options(LMConfig, only=("spec",)))
        def twice(a: LMConfig, b: LMConfig) -> None: ...

    with pytest.raises(TypeError, match="no field nope"):
        config_options(a=Options(LMConfig, only=("nope",)))(lambda a: None)


@dataclasses.dataclass(frozen=True)
class Closed:
    mode: typing.Literal["a", "b"] = "a"
    maybe: typing.Literal["x", "y"] | None = None
    many: tuple[typing.Literal["p", "q"], ...] = ("p",)
    phases: tuple[tuple[typing.Literal[1, 2], ...], ...] = ((1, 2),)
    free: str = "anything"

    def __post_init__(self):
        check_choices(self)


def test_choices_of_reads_literal_types_inside_optional_and_tuples():
    hints = typing.get_type_hints(Closed)
    assert [choices_of(hints[name]) for name in ("mode", "maybe", "many", "phases", "free")] == [
        ("a", "b"),
        ("x", "y"),
        ("p", "q"),
        (1, 2),
        None,
    ]
    assert choices_of(int) is None and choices_of(tuple[int, ...]) is None and choices_of(LMConfig) is None


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"mode": "c"}, "mode: 'c' is not one of a | b"),
        ({"maybe": "z"}, "maybe: 'z' is not one of x | y"),
        ({"many": ("p", "r")}, "many: 'r' is not one of p | q"),
        ({"phases": ((1,), (2, 3))}, "phases: 3 is not one of 1 | 2"),
    ],
)
def test_check_choices_refuses_a_value_outside_them_at_any_depth(values, message):
    assert Closed(maybe="y", many=("q", "p"), phases=((2,), (1, 2)), free="z").maybe == "y"  # admitted
    with pytest.raises(ValueError) as refused:
        Closed(**values)
    assert str(refused.value) == message


def test_a_renamed_field_refuses_its_former_flag_and_reads_its_former_name():
    @dataclasses.dataclass(frozen=True)
    class Renamed:
        calls: int = option(3, "Calls.", was="budget")
        budget: int = option(9, "Characters.", was="size")
        streams: int = option(1, "Streams.", was="count")

    sample = typer.Typer()
    seen = []

    @sample.command()
    @config_options(config=Renamed)
    def command(config: Renamed) -> None:
        seen.append(config)

    assert {r.flag for r in command.renamed_options} == {"--size", "--count"}  # --budget is a field's today
    assert "--count" not in CliRunner().invoke(sample, ["--help"]).output
    result = CliRunner().invoke(sample, ["--count", "2"])
    assert result.exit_code == 2 and "renamed: use --streams" in result.output and not seen
    assert CliRunner().invoke(sample, ["--budget", "5", "--streams", "2"]).exit_code == 0
    assert seen == [Renamed(budget=5, streams=2)]
    # a saved config under the former names: every former name at once (calls and budget swap)
    assert with_current_names(Renamed, {"budget": 4, "size": 8, "count": 2}) == {"calls": 4, "budget": 8, "streams": 2}
    assert with_current_names(Renamed, {"calls": 4, "budget": 8}) == {"calls": 4, "budget": 8}  # today's


# every command that runs an LM: where its configs go (module, function) and its LM flags with
# the position of their LMConfig in that function's arguments
LM_COMMANDS = {
    "eval": ("promptmem.evaluate", "evaluate", {"--lm-threads": 1}, ["--out", "e"]),
    "optimize": (
        "promptmem.optimize.gepa",
        "optimize",
        {"--lm-threads": 1, "--reflection-lm-threads": 2},
        ["--out", "o"],
    ),
    "tune": ("promptmem.optimize.tune", "tune", {"--lm-threads": 1, "--reflection-lm-threads": 2}, ["--out", "t"]),
    "distill": ("promptmem.distill.pipeline", "distill", {"--lm-threads": 1}, ["--out", "d"]),
    "judge": ("promptmem.lm.specs", "make_lm", {"--lm-threads": 0}, ["run"]),
}


def test_every_lm_a_command_builds_takes_lm_threads():
    """No command builds an LMConfig without --lm-threads (a local model's CPU threads): checked
    on every command of the app, so a new one cannot miss it."""

    def commands(typer_app, path=()):
        for info in typer_app.registered_commands:
            yield " ".join((*path, info.name or info.callback.__name__)), info.callback
        for info in typer_app.registered_groups:
            yield from commands(info.typer_instance, (*path, info.name))

    with_lm = set()
    for name, function in commands(app):
        for group_name, group in getattr(function, "config_groups", {}).items():
            if issubclass(group.cls, LMConfig):
                with_lm.add(name)
                fields = [o.field.name for o in function.config_options[group_name]]
                assert "threads" in fields, f"{name}: its {group_name} LM has no threads option"
    assert with_lm == set(LM_COMMANDS)


@pytest.mark.parametrize("name", LM_COMMANDS)
def test_lm_threads_is_listed_and_reaches_the_lm_config(name, monkeypatch):
    import importlib

    module_name, function, flags, rest = LM_COMMANDS[name]
    text = CliRunner().invoke(app, [name, "--help"], env={"COLUMNS": "200"}).output
    assert all(flag in text for flag in flags), text
    calls = []

    def stub(*args, **kwargs):
        calls.append(args)
        raise typer.Exit(0)

    monkeypatch.setattr(importlib.import_module(module_name), function, stub)
    values = [value for i, flag in enumerate(flags) for value in (flag, str(i + 1))]
    result = CliRunner().invoke(app, [name, *values, *rest])
    assert result.exit_code == 0, result.output
    for i, position in enumerate(flags.values()):
        assert isinstance(calls[0][position], LMConfig) and calls[0][position].threads == i + 1
    assert CliRunner().invoke(app, [name, next(iter(flags)), "0", *rest]).exit_code == 2  # at least 1
