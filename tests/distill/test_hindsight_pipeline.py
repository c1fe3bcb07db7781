"""The hindsight pipeline on CPU: a GRPO step of the test student (SmolLM2-135M) on select-writer
prompts with the dense hindsight reward, where groups differ and the share of flat groups is
logged; and `promptmem distill` end to end with its defaults (the select writer, hindsight
targets, sampled actor rows, the dense writer reward) on a scripted teacher and a scratch student."""

import json
import re
from pathlib import Path

import pytest

from tests.helpers.paths import DATA

pytest.importorskip("trl", reason="the distill extra is not installed")

from dspy.utils.dummies import DummyLM  # noqa: E402

from promptmem.config_files import load_config  # noqa: E402
from promptmem.distill.pipeline import STUDENT_FORMAT, DistillConfig, distill  # noqa: E402
from promptmem.distill.plan import resolved  # noqa: E402
from promptmem.distill.students import resolve_student  # noqa: E402
from promptmem.distill.training import TrainConfig, grpo, reward_curve  # noqa: E402
from promptmem.lm.specs import LMConfig  # noqa: E402
from promptmem.optimize.demos import hindsight_demos, with_demos  # noqa: E402
from promptmem.programs import build_agent  # noqa: E402
from promptmem.signals.hindsight_rows import actor_cases, writer_rows  # noqa: E402
from promptmem.signals.pipeline import Pipeline  # noqa: E402
from promptmem.signals.role_rewards import RewardSettings, RoleRewards  # noqa: E402
from promptmem.signals.traces import read_traces  # noqa: E402
from promptmem.suites import make_suite  # noqa: E402
from tests.helpers.scratch_student import make_scratch_student  # noqa: E402
from tests.helpers.scripted import ACTOR_KEY  # noqa: E402

LINES_KEY = "[[ ## lines ## ]]"


def test_a_grpo_step_of_the_test_student_on_the_dense_writer_reward_has_groups_that_differ(tmp_path):
    suite = make_suite("synthetic", tasks=24)
    stream = suite.streams(1, seed=5)[0]
    demos = hindsight_demos(suite.streams(2, seed=9), suite, suite.notes_budget, k=1)  # the format, shown once
    agent = with_demos(build_agent("seed", writer="select"), demos)
    rows = writer_rows(agent, [stream], suite, suite.notes_budget, STUDENT_FORMAT)
    pipeline = Pipeline(agent, suite, None, STUDENT_FORMAT)
    rewards = RoleRewards(pipeline, rows, [stream], RewardSettings(writer_reward="hindsight"))
    config = TrainConfig(
        grpo_steps=1,
        generations=4,
        prompts_per_step=1,
        max_completion_tokens=20,
        temperature=1.0,
        max_resamples=2,
        lora=True,
        save_steps=100,
        gradient_checkpointing=False,
    )
    trained = grpo(resolve_student("smollm2-135m"), rows, [rewards], tmp_path / "grpo", config)
    log = json.loads((trained.parent / "log.json").read_text())
    (step,) = reward_curve(log)
    assert step["flat_share"] in (0.0, 1.0)  # one group per step: flat at its first generation, or not
    assert step["reward_std"] > 0 and step["skipped_groups"] == 0  # the group trained on differs
    assert next(e for e in log if "reward" in e)["rewards/role_reward/std"] > 0  # in the dense reward itself


def teacher_lm(answer: str) -> DummyLM:
    """The select writer keeps the first two statements; the actor always says ``answer``."""
    return DummyLM({LINES_KEY: {"keep": [1, 2]}, ACTOR_KEY: {"answer": answer}})


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("hindsight")
    config = DistillConfig(
        student=str(make_scratch_student(root / "student")),
        seed=3000,
        train_streams=1,
        hindsight_streams=2,
        tasks=10,
        test_streams=1,
        schedule=(("writer",),),
        actor_samples=2,
        compare=("student+grpo",),
        train=TrainConfig(
            sft_epochs=1,
            batch_size=4,
            grpo_steps=1,
            generations=2,
            prompts_per_step=2,
            max_completion_tokens=16,
            save_steps=100,
            gradient_checkpointing=False,
        ),
    )
    suite = make_suite("synthetic", tasks=10)
    case = actor_cases(suite.streams(1, seed=config.seed)[0], suite, suite.notes_budget)[0]
    lm = teacher_lm(case.step.task.answer[0])  # right on that question
    summary = distill(config, LMConfig(spec="scripted", max_tokens=16), root / "run", lm=lm, say=lambda _: None)
    return root / "run", config, lm, summary, case


def test_the_default_pipeline_trains_on_hindsight_rows_and_records_sources_flat_groups_and_timings(run):
    out, config, _, summary, case = run
    writer = read_traces(out / "hindsight" / "writer.jsonl")
    assert writer and summary["sft_sources"]["writer_hindsight"] == len(writer)
    traced = {row.stream_id for row in read_traces(out / "traces" / f"{case.stream_id}.jsonl")}
    assert traced == {case.stream_id} and len({row.stream_id for row in writer}) == 2  # hindsight_streams=2
    assert summary["sft_sources"]["writer_teacher"] == 0  # hindsight_share 1: no teacher keep-list
    teacher_rows = read_traces(out / "hindsight" / "actor-teacher.jsonl")
    assert (case.step.task.id, 1.0) in {(r.task_id, r.score) for r in teacher_rows}
    assert summary["sft_sources"]["actor_teacher"] == len(teacher_rows)
    assert (out / "hindsight" / "actor-student.jsonl").is_file() and "actor_student" in summary["sft_sources"]
    assert summary["actor_cases"]["cases"] >= 1
    (step,) = summary["grpo_rewards"]
    assert step["flat_share"] is not None and summary["flat_share"] == step["flat_share"]
    for stage, unit in (("traces", "task"), ("actor_samples", "question"), ("sft", "step"), ("grpo", "step")):
        assert summary["timings"][stage][f"seconds_per_{unit}"] >= 0, stage
    assert set(summary["comparison"]) == {"teacher", "student+grpo"}
    assert "teacher" in summary["comparison"]["student+grpo"]["paired"]


def test_the_final_student_gets_a_card_beside_its_weights_and_a_command_that_uses_it(run):
    out, config, _, summary, _ = run
    card = Path(summary["student_card"])
    assert card.parent == out / "grpo" / "model" and (card.parent / "config.json").is_file()  # beside the weights
    data = json.loads((card.parent / "student.json").read_text())
    paired = summary["comparison"]["student+grpo"]["paired"]["teacher"]
    assert data["held_out"]["vs_teacher"]["diff"] == paired["diff"] and data["recipe"]["seed"] == 3000
    assert summary["use"] == data["use"] == f"promptmem eval --lm hf:{card.parent} --suite synthetic --writer select"
    assert f"{paired['diff']:+.3f}" in card.read_text() and summary["use"] in card.read_text()
    assert load_config(DistillConfig, card.parent / "recipe.yaml") == resolved(config)  # the recipe runs it again


def test_a_rerun_samples_nothing_again(run):
    out, config, lm, summary, _ = run
    stamp = (out / "hindsight" / "actor-teacher.jsonl").stat().st_mtime
    calls = len(lm.history)
    again = distill(config, LMConfig(spec="scripted", max_tokens=16), out, lm=lm, say=lambda _: None)
    assert again["comparison"] == summary["comparison"] and again["timings"] == summary["timings"]
    assert (out / "hindsight" / "actor-teacher.jsonl").stat().st_mtime == stamp and len(lm.history) == calls


def test_grpo_streams_held_back_from_sft_give_grpo_its_writer_prompts_and_the_sft_stage_is_adopted(run, tmp_path):
    """A run that only holds one more hindsight stream back for GRPO trains SFT on the same rows,
    so it adopts the finished run's SFT model and sampled answers, calls no model before GRPO,
    and GRPO's writer prompts are the held-back stream's rows alone."""
    out, config, lm, *_ = run
    held = DistillConfig(**{**config.__dict__, "hindsight_streams": 3, "grpo_streams": 1})
    calls, said = len(lm.history), []
    distill(
        held,
        LMConfig(spec="scripted", max_tokens=16),
        tmp_path / "g",
        lm=lm,
        until="grpo",
        teacher_from=out,
        say=said.append,
    )
    assert any("hindsight/actor-teacher.jsonl" in line and "sft" in line for line in said) and len(lm.history) == calls
    sft_model = "sft/model/model.safetensors"
    assert (tmp_path / "g" / sft_model).read_bytes() == (out / sft_model).read_bytes()
    sft_writer = {row.stream_id for row in read_traces(tmp_path / "g" / "hindsight" / "writer.jsonl")}
    grpo_writer = read_traces(tmp_path / "g" / "hindsight" / "grpo-writer.jsonl")
    assert sft_writer == {row.stream_id for row in read_traces(out / "hindsight" / "writer.jsonl")}
    assert len({row.stream_id for row in grpo_writer}) == 1 and not sft_writer & {row.stream_id for row in grpo_writer}
    assert any(f"on {len(grpo_writer)} prompts (writer)" in line for line in said)
    timings = json.loads((tmp_path / "g" / "timings.json").read_text())
    assert timings["sft"] == {"adopted_from": str(out), **json.loads((out / "timings.json").read_text())["sft"]}
    assert "adopted_from" not in timings["grpo"] and timings["actor_samples"]["adopted_from"] == str(out)


def test_hindsight_targets_and_the_dense_reward_are_refused_for_other_writers_before_any_work(tmp_path):
    lm, scripted = teacher_lm("x"), LMConfig(spec="scripted")
    with pytest.raises(ValueError, match="--hindsight-share 1.0 labels the select writer"):
        distill(DistillConfig(writer="ops"), scripted, tmp_path / "a", lm=lm, until="traces")
    with pytest.raises(ValueError, match="needs the select writer"):
        distill(DistillConfig(writer="ops", hindsight_share=0.0), scripted, tmp_path / "b", lm=lm, until="traces")
    with pytest.raises(ValueError, match=re.escape("actor-samplers: 'oracle' is not one of teacher | student")):
        DistillConfig(actor_samplers=("oracle",))
    with pytest.raises(
        ValueError, match=re.escape("hindsight-target: 'asked' is not one of needed | stated | inferred")
    ):
        DistillConfig(hindsight_target="asked")
    with pytest.raises(
        ValueError, match="--hindsight-streams must be at least --train-streams \\+ --grpo-streams \\(7\\)"
    ):
        DistillConfig(train_streams=4, hindsight_streams=6, grpo_streams=3)
    with pytest.raises(ValueError, match="holding back hindsight rows needs --writer-reward hindsight"):
        DistillConfig(hindsight_streams=6, grpo_streams=2, writer_reward="recall")
    with pytest.raises(ValueError, match=re.escape("serve-quantization: 'q4' is not one of q8_0 | f16 | teacher")):
        DistillConfig(serve_quantization="q4")
    with pytest.raises(ValueError, match=re.escape("compare: 'student+dpo' is not one of")):
        DistillConfig(compare=("student+dpo",))
    with pytest.raises(
        ValueError, match="streams synthetic-s4000-0, synthetic-s4000-1, synthetic-s4000-2 are also held out"
    ):
        distill(DistillConfig(seed=4000, hindsight_streams=3), scripted, tmp_path / "e", lm=lm, until="traces")
    household = {"suite": "jsonl", "data": str(DATA / "household_train.jsonl"), "seed": 0, "test_seed": 0}
    household["test_data"] = str(DATA / "household_heldout.jsonl")
    with pytest.raises(ValueError, match="13 training streams asked for from stream 0; the suite has 12 from there"):
        distill(DistillConfig(**household, hindsight_streams=13), scripted, tmp_path / "f", lm=lm, until="traces")
    assert not any(tmp_path.iterdir()) and lm.history == []
