"""Recipes: `promptmem distill --config FILE` reads a YAML file of DistillConfig fields (nested
`train:` too), flags given on the command line override it, unknown keys and values outside a
field's choices are refused with the same message from the CLI, a recipe file and Python; every
DistillConfig field is a flag; the shipped recipes load, the transfer ones holding their world out."""

import dataclasses
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

import promptmem.distill.pipeline as pipeline
from promptmem.cli import app
from promptmem.cli_options import Options, cli_options
from promptmem.config_files import ConfigFileError, load_config
from promptmem.distill.config import DistillConfig
from promptmem.distill.pipeline import _eval_configs
from promptmem.distill.plan import Suites, resolved
from promptmem.distill.training import TrainConfig
from tests.helpers.paths import ROOT

RECIPES = ROOT / "recipes"


@pytest.fixture
def captured(monkeypatch):
    """The configs `promptmem distill` would run with (nothing runs)."""
    seen = {}

    def fake(config, lm, out, **kwargs):
        seen["config"], seen["lm"] = config, lm
        return {"grpo_rewards": []}

    monkeypatch.setattr(pipeline, "distill", fake)
    return seen


def recipe(tmp_path, text: str) -> Path:
    path = tmp_path / "recipe.yaml"
    path.write_text(text)
    return path


def test_every_distill_field_nested_ones_too_is_a_flag():
    paths = {option.path for option in cli_options(Options(DistillConfig))}
    fields = {(f.name,) for f in dataclasses.fields(DistillConfig) if f.name != "train"}
    fields |= {("train", f.name) for f in dataclasses.fields(TrainConfig)}
    assert fields == paths


@pytest.mark.parametrize("path", sorted(RECIPES.glob("*.yaml")), ids=lambda p: p.name)
def test_the_shipped_recipes_load(path):
    config = load_config(DistillConfig, path)
    assert config.hindsight_streams == 12 and config.train_streams == 2


@pytest.mark.parametrize("world", ["household", "oncall", "synthetic"])
def test_a_transfer_recipe_trains_without_the_world_it_holds_out(world):
    config = load_config(DistillConfig, RECIPES / f"transfer_to_{world}.yaml")
    assert config.data == f"benchmarks/data/transfer_without_{world}.jsonl" and config.hindsight_target == "inferred"
    held_out = (world, None) if world == "synthetic" else ("jsonl", f"benchmarks/data/{world}_heldout.jsonl")
    assert (config.held_out_suite, config.held_out_data) == held_out


def test_the_stripped_synthetic_recipe_is_compared_on_the_annotated_recipes_held_out_streams():
    """Trained on the file of gold answers, held out on the generated streams themselves: the same
    streams, scorer and notes budget as the annotated recipe's comparison."""
    stripped = resolved(load_config(DistillConfig, RECIPES / "synthetic_inferred.yaml"))
    annotated = resolved(load_config(DistillConfig, RECIPES / "synthetic_stated12.yaml"))
    assert (stripped.suite, stripped.held_out_suite, stripped.held_out_data) == ("jsonl", "synthetic", None)
    assert dataclasses.replace(_eval_configs(stripped)[1], budget=None) == _eval_configs(annotated)[1]
    suites = Suites.of(stripped)
    assert suites.train.notes_budget == stripped.budget == Suites.of(annotated).test.notes_budget
    assert [s.id for s in suites.train.streams(12)] == [s.id for s in Suites.of(annotated).train.streams(12, seed=3000)]


def test_a_recipe_with_a_nested_section_and_flags_over_it(tmp_path, captured):
    path = recipe(
        tmp_path,
        "hindsight_target: stated\ntest_streams: 3\ncompare: [student, student+grpo]\ntrain:\n  grpo_steps: 2\n",
    )
    result = CliRunner().invoke(
        app,
        [
            "distill",
            "--config",
            str(path),
            "--test-streams",
            "5",
            "--grpo-steps",
            "4",
            "--out",
            str(tmp_path / "r"),
            "--until",
            "grpo",
        ],
    )
    assert result.exit_code == 0, result.output
    config = captured["config"]
    assert (config.hindsight_target, config.test_streams, config.train.grpo_steps) == ("stated", 5, 4)
    assert config.compare == ("student", "student+grpo") and config.train.batch_size == TrainConfig().batch_size


def test_unknown_keys_and_wrong_types_are_refused_with_the_key(tmp_path, captured):
    with pytest.raises(ConfigFileError, match=re.escape("unknown key 'train.lr' (TrainConfig has no field 'lr')")):
        load_config(DistillConfig, recipe(tmp_path, "train:\n  lr: 0.1\n"))
    with pytest.raises(ConfigFileError, match=re.escape("test_streams: must be int, not 'many'")):
        load_config(DistillConfig, recipe(tmp_path, "test_streams: many\n"))
    result = CliRunner().invoke(app, ["distill", "--config", str(recipe(tmp_path, "students: 2\n"))])
    assert result.exit_code == 2 and "unknown key 'students'" in result.output and "config" not in captured


def test_a_value_outside_its_choices_gets_one_message_from_python_a_recipe_and_the_cli(tmp_path, captured):
    message = "hindsight-target: 'asked' is not one of needed | stated | inferred"
    with pytest.raises(ValueError, match=re.escape(message)):
        DistillConfig(hindsight_target="asked")
    with pytest.raises(ConfigFileError, match=re.escape(message)):
        load_config(DistillConfig, recipe(tmp_path, "hindsight_target: asked\n"))
    result = CliRunner().invoke(app, ["distill", "--hindsight-target", "asked"], terminal_width=400)
    assert result.exit_code == 2 and message in " ".join(re.sub("[│╭╮╰╯─]", " ", result.output).split())
    with pytest.raises(ValueError, match=re.escape("vllm: 'remote' is not one of colocate | server")):
        TrainConfig(vllm="remote")


def test_a_writer_the_teacher_ignores_is_refused(captured):
    result = CliRunner().invoke(app, ["distill", "--teacher", "append-raw", "--writer", "ops"], terminal_width=400)
    assert result.exit_code == 2 and "writer" in result.output and "config" not in captured
