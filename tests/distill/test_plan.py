"""The plan a distill run prints first: each stage's minutes from the measured rates, the stages
its folder already holds (resumed, or adopted with --teacher-from) marked done, not counted."""

from promptmem.distill.config import DistillConfig
from promptmem.distill.plan import Suites, plan, plan_lines, resolved
from promptmem.distill.training import TrainConfig


def config(**fields) -> DistillConfig:
    return resolved(DistillConfig(tasks=12, hindsight_streams=2, test_streams=2, **fields))


def test_the_plan_marks_adopted_stages_done_and_counts_only_what_is_left():
    run = config(compare=("student+sft", "student+grpo"))
    suites = Suites.of(run)
    fresh = plan(run, suites)
    assert all(minutes > 0 for _, minutes in fresh)
    adopted = plan(run, suites, {"traces", "actor_samples", "sft", "eval/teacher"})
    minutes = [m for _, m in adopted]
    assert minutes[:3] == [None] * 3 and minutes[3] == fresh[3][1]
    assert 0 < minutes[4] < fresh[4][1] and "teacher (its row done) + 2 student(s)" in adopted[4][0]
    lines = plan_lines(run, adopted)
    assert sum("   done   " in line for line in lines) == 3
    assert lines[-1].startswith(f"  ~{minutes[3] + minutes[4]:5.1f} min  to run")


def test_grpo_is_done_only_when_every_phase_of_the_schedule_is():
    run = config(schedule=(("writer",), ("actor",)))
    suites = Suites.of(run)
    assert plan(run, suites, {"grpo"})[3][1] is not None
    assert plan(run, suites, {"grpo", "grpo-2"})[3][1] is None


def test_grpo_minutes_grow_with_the_completions_of_a_step():
    base, wider = config(), config(train=TrainConfig(generations=8))
    assert plan(wider, Suites.of(wider))[3][1] == 2 * plan(base, Suites.of(base))[3][1]
