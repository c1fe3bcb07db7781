"""One meaning per name across commands, former flags refused with a hint, old run directories
still resumed, and configs that check their own closed vocabularies: the CLI, a recipe file and a
Python caller get the same refusal, from the config."""

import dataclasses
import json
import re
import typing
from collections import defaultdict

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.config_files import ConfigFileError, load_config
from promptmem.files import RunDirError
from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import OptimizeConfig
from promptmem.options import choices_of, without_none
from promptmem.rundir import claim_run_dir

# the library function each command hands its configs to: stubbed, so no test here runs a model
RUNS = {
    "eval": ("promptmem.evaluate", "evaluate"),
    "optimize": ("promptmem.optimize.gepa", "optimize"),
    "tune": ("promptmem.optimize.tune", "tune"),
    "distill": ("promptmem.distill.pipeline", "distill"),
    "judge": ("promptmem.lm.specs", "make_lm"),
    "export verifiers": ("promptmem.integrations.verifiers_export", "export_verifiers"),
}


def commands(typer_app=app, path=()):
    """(name, callback) of every command built from config dataclasses."""
    for info in typer_app.registered_commands:
        if hasattr(info.callback, "config_groups"):
            yield " ".join((*path, info.name or info.callback.__name__)), info.callback
    for info in typer_app.registered_groups:
        yield from commands(info.typer_instance, (*path, info.name))


def config_classes() -> set[type]:
    """Every config dataclass a command takes, nested ones included."""
    found, todo = set(), [group.cls for _, f in commands() for group in f.config_groups.values()]
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.add(cls)
            hints = typing.get_type_hints(cls)
            todo += [without_none(hints[f.name])[0] for f in dataclasses.fields(cls)]
            todo = [kind for kind in todo if dataclasses.is_dataclass(kind)]
    return found


@pytest.fixture(autouse=True)
def no_runs(monkeypatch):
    import importlib

    def ran(*args, **kwargs):
        raise AssertionError("the command ran")

    for module, function in RUNS.values():
        monkeypatch.setattr(importlib.import_module(module), function, ran)


def invoke(name: str, *args: str):
    rest = [] if name == "judge" else ["--out", "runs/x"]
    return CliRunner().invoke(app, [*name.split(), *args, *rest], env={"COLUMNS": "200"})


def test_no_option_name_has_two_meanings_across_commands():
    """A flag, and a field name across every config a command takes (cli=False fields too),
    holds one type of value wherever it appears: `--budget` is not notes characters on one
    command and GEPA's metric calls on another, `train` not a stream count beside a TrainConfig."""
    kinds = defaultdict(set)
    for _, function in commands():
        for options in function.config_options.values():
            for option in options:
                kinds[option.flag].add(option.kind)
    for cls in config_classes():
        hints = typing.get_type_hints(cls)
        for field in dataclasses.fields(cls):
            kinds[field.name].add(without_none(hints[field.name])[0])
    assert {name: kind for name, kind in kinds.items() if len(kind) > 1} == {}


def renamed():
    return [(name, former) for name, function in commands() for former in function.renamed_options]


def test_the_renamed_flags_are_these():
    assert {(name, r.flag, r.current.flag) for name, r in renamed()} == {
        ("optimize", "--notes-budget", "--budget"),
        ("optimize", "--train", "--train-streams"),
        ("optimize", "--val", "--val-streams"),
        ("optimize", "--test", "--test-streams"),
        ("tune", "--gepa-budget", "--max-metric-calls"),
    }


@pytest.mark.parametrize(("name", "former"), renamed(), ids=lambda v: getattr(v, "flag", v))
def test_a_former_flag_is_hidden_and_refused_with_the_new_one(name, former):
    assert not re.search(rf"{former.flag}(?![\w-])", invoke(name, "--help").output)
    result = invoke(name, former.flag, "4")
    assert result.exit_code == 2, result.output
    assert f"renamed: use {former.current.flag}" in result.output and former.flag in result.output


# OptimizeConfig's fields under the names an older release wrote to config.json
FORMER = {
    "max_metric_calls": "budget",
    "budget": "notes_budget",
    "train_streams": "train",
    "val_streams": "val",
    "test_streams": "test",
}


def test_a_run_directory_from_before_the_renames_resumes(tmp_path):
    """Its config.json holds the former names: read under today's, the same run goes on (and the
    file is written back under today's names); a setting that did change is still refused."""
    config = OptimizeConfig(max_metric_calls="14", budget=500, train_streams=2, val_streams=2, test_streams=1)
    old = {FORMER.get(name, name): value for name, value in dataclasses.asdict(config).items()}
    sections = {"optimize": config, "lm": LMConfig()}
    (tmp_path / "gepa").mkdir()  # work done under it
    (tmp_path / "config.json").write_text(json.dumps({"optimize": old, "lm": {}}))
    written = claim_run_dir(tmp_path, sections)["optimize"]
    assert (written["max_metric_calls"], written["budget"], written["train_streams"]) == ("14", 500, 2)
    assert "notes_budget" not in written
    (tmp_path / "config.json").write_text(json.dumps({"optimize": old | {"train": 3}, "lm": {}}))
    with pytest.raises(RunDirError, match=r"differs in: optimize\.train_streams\)"):
        claim_run_dir(tmp_path, sections)


def closed_fields() -> list[tuple[type, str]]:
    """(config class, field) of every field with a closed vocabulary (a ``Literal`` type)."""
    return sorted(
        (
            (cls, name)
            for cls in config_classes()
            for name, hint in typing.get_type_hints(cls).items()
            if choices_of(hint) is not None
        ),
        key=lambda item: (item[0].__name__, item[1]),
    )


def unknown(cls: type, name: str):
    """A value outside the field's choices, shaped as the field holds it."""
    kind = without_none(typing.get_type_hints(cls)[name])[0]
    depth = 0
    while typing.get_origin(kind) is tuple:
        kind, depth = typing.get_args(kind)[0], depth + 1
    value = "nope"
    for _ in range(depth):
        value = (value,)
    return value


def test_the_closed_vocabularies_include_these():
    assert {(cls.__name__, name) for cls, name in closed_fields()} >= {
        ("EvalConfig", "actor"),
        ("EvalConfig", "store"),
        ("EvalConfig", "retriever"),
        ("OptimizeConfig", "objective"),
        ("OptimizeConfig", "proposer"),
        ("OptimizeConfig", "demos_target"),
        ("OptimizeConfig", "warm_start"),
        ("OptimizeConfig", "components"),
    }


@pytest.mark.parametrize(("cls", "name"), closed_fields(), ids=lambda v: getattr(v, "__name__", v))
def test_an_unknown_choice_is_refused_with_one_message_from_python_a_recipe_and_the_cli(cls, name, tmp_path):
    with pytest.raises(ValueError) as refused:
        cls(**{name: unknown(cls, name)})
    message = str(refused.value)
    allowed = " | ".join(map(str, choices_of(typing.get_type_hints(cls)[name])))
    assert message == f"{name.replace('_', '-')}: 'nope' is not one of {allowed}"
    recipe = tmp_path / "recipe.yaml"
    recipe.write_text(json.dumps({name: unknown(cls, name)}))  # JSON is YAML; tuples become lists
    with pytest.raises(ConfigFileError) as refused:
        load_config(cls, recipe)
    assert str(refused.value) == f"{recipe}: {message}"
    for command, function in commands():
        for options in function.config_options.values():
            for option in options:
                if option.field is cls.__dataclass_fields__[name]:
                    result = invoke(command, option.flag, "nope")
                    assert result.exit_code == 2, result.output
                    assert message in re.sub(r"\s*│\s*", " ", result.output), result.output


def test_other_checks_of_a_config_run_when_it_is_built():
    with pytest.raises(ValueError, match="max-metric-calls: 'lots' is not one of light"):
        OptimizeConfig(max_metric_calls="lots")
    result = invoke("tune", "--max-metric-calls", "0")
    assert result.exit_code == 2 and "max-metric-calls: '0'" in result.output


def test_a_vocabulary_names_what_its_table_holds():
    from promptmem.optimize.gepa import OBJECTIVES, Objective
    from promptmem.programs.actor import ACTORS, ActorKind

    assert typing.get_args(ActorKind) == tuple(ACTORS) and typing.get_args(Objective) == tuple(OBJECTIVES)
