"""The future writer reward in ``promptmem distill``, no training: the horizon curriculum (short
to long over the GRPO steps of the whole schedule), its options, the writer's GRPO prompts at the
tasks where the notes are full, and each logged step's horizon."""

import re

import pytest
from typer.testing import CliRunner

import promptmem.distill.pipeline as pipeline
from promptmem.cli import app
from promptmem.distill.config import DistillConfig
from promptmem.distill.curriculum import Curriculum, horizon_at
from promptmem.distill.stages import grpo_prompt_source, phase_curve
from promptmem.lm.specs import HF_PREFIX, adapter_for
from promptmem.programs import build_agent
from promptmem.signals.future import eviction_tasks
from promptmem.signals.hindsight_rows import writer_rows
from promptmem.signals.traces import TraceRow
from promptmem.suites import SyntheticSuite


def test_the_horizons_split_the_steps_into_stages_short_to_long():
    assert [horizon_at(step, (4, 8, 16), 6) for step in range(8)] == [4, 4, 8, 8, 16, 16, 16, 16]
    assert [horizon_at(step, (4, 8, 16), 7) for step in range(7)] == [4, 4, 4, 8, 8, 16, 16]
    assert [horizon_at(step, (4, 8, 16), 2) for step in range(2)] == [4, 8]  # fewer steps than horizons
    assert {horizon_at(step, (8,), 6) for step in range(6)} == {8}
    with pytest.raises(ValueError, match="at least one horizon"):
        horizon_at(0, (), 6)


def test_the_curriculum_runs_once_over_the_phases_of_the_schedule():
    first, second = (Curriculum((4, 8), steps=3, phase=phase, phases=2) for phase in (1, 2))
    assert [first(step) for step in range(3)] + [second(step) for step in range(3)] == [4, 4, 4, 8, 8, 8]
    assert [Curriculum((4, 8), steps=4)(step) for step in range(4)] == [4, 4, 8, 8]


def test_the_horizons_are_a_flag_short_to_long(monkeypatch, tmp_path):
    assert DistillConfig().horizons == (8,) and DistillConfig().writer_reward == "hindsight"
    for wrong in ((), (8, 4), (0, 4)):
        with pytest.raises(ValueError, match=re.escape("horizons: one or more tasks ahead")):
            DistillConfig(horizons=wrong)
    DistillConfig(writer_reward="future", hindsight_streams=6, grpo_streams=2)  # held-back streams: allowed
    seen = {}
    monkeypatch.setattr(pipeline, "distill", lambda config, lm, out, **_: seen.update(config=config) or {})
    flags = ["--writer-reward", "future", "--horizons", "4,8,16", "--eviction-fill", "0.5"]
    result = CliRunner().invoke(app, ["distill", *flags, "--out", str(tmp_path / "r"), "--until", "grpo"])
    assert result.exit_code == 0, result.output
    assert (seen["config"].writer_reward, seen["config"].horizons, seen["config"].eviction_fill) == (
        "future",
        (4, 8, 16),
        0.5,
    )


def actor_row(stream_id: str, task_id: str) -> TraceRow:
    return TraceRow("actor", "actor.predict", stream_id, 0, [], "", 1.0, "", [], 1, 800, 0.0, task_id=task_id)


def test_the_future_reward_prompts_the_writer_where_the_notes_are_full():
    suite = SyntheticSuite(tasks=24)
    streams = suite.streams(2, seed=3000)
    agent = build_agent("seed", writer="select")
    student = adapter_for(HF_PREFIX)
    hindsight = writer_rows(agent, streams, suite, suite.notes_budget, student, "stated")
    traced = [actor_row(streams[0].id, "t03"), *hindsight[:3]]  # the teacher's writes stand in
    full = eviction_tasks(streams, suite, suite.notes_budget, "stated")

    def prompts(config: DistillConfig, roles: tuple[str, ...]) -> list[TraceRow]:
        return grpo_prompt_source(config, traced, hindsight, streams, suite, suite.notes_budget)(roles)

    future = DistillConfig(writer_reward="future", hindsight_target="stated")
    writer = prompts(future, ("writer",))
    assert writer and {(r.stream_id, r.task_id) for r in writer} == full & {(r.stream_id, r.task_id) for r in hindsight}
    assert prompts(future, ("actor",)) == traced[:1]
    assert len(prompts(DistillConfig(), ("writer",))) == len(hindsight)  # hindsight: every task
    assert prompts(DistillConfig(writer_reward="recall"), ("writer",)) == traced[1:]
    every = DistillConfig(writer_reward="future", hindsight_target="stated", eviction_fill=0.0)
    assert len(prompts(every, ("writer",))) == len(hindsight) > len(writer)


def test_each_logged_step_of_the_future_reward_says_its_horizon():
    log = [{"step": step, "reward": 0.5} for step in (1, 2, 3)] + [{"train_runtime": 9.0, "step": 3}]
    curve = phase_curve(log, phase=2, offset=3, horizon=Curriculum((4, 8), steps=3, phase=2, phases=2))
    assert [(p["step"], p["phase"], p["horizon"]) for p in curve] == [(4, 2, 8), (5, 2, 8), (6, 2, 8)]
    assert "horizon" not in phase_curve(log, phase=1, offset=0)[0]
