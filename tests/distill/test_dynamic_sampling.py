"""GRPO dynamic sampling (DAPO): a step's groups whose rewards are all equal are replaced by
fresh prompts and generated again; groups still flat after the limit are counted as skipped."""

from types import SimpleNamespace

import pytest

pytest.importorskip("trl", reason="the distill extra is not installed")

from promptmem.distill.stages import untrained_steps  # noqa: E402
from promptmem.distill.training import TrainConfig, grpo, reward_curve  # noqa: E402
from promptmem.signals.traces import TraceRow  # noqa: E402
from tests.helpers.scratch_student import make_scratch_student  # noqa: E402


def rows(count: int) -> list[TraceRow]:
    return [
        TraceRow(
            role="actor",
            predictor="actor.predict",
            stream_id="s",
            position=i,
            prompt=[{"role": "user", "content": f"Which port does service {i} use?"}],
            completion="",
            score=None,
            write_error="",
            notes=[],
            next_id=1,
            budget=800,
            baseline=0.0,
        )
        for i in range(count)
    ]


class ScriptedReward:
    """Rewards by prompt row: rows in ``spread`` get each completion's length (a spread), the
    rest 1.0 for every completion (a flat group); remembers the rows it scored."""

    __name__ = "scripted"

    def __init__(self, spread: set[int]):
        self.spread, self.seen = spread, []

    def __call__(self, prompts, completions, row, **_):
        self.seen.append(sorted(set(row)))
        return [float(len(str(c))) if r in self.spread else 1.0 for c, r in zip(completions, row)]


def train(tmp_path, spread: set[int], resamples: int) -> tuple[list[dict], ScriptedReward]:
    reward = ScriptedReward(spread)
    config = TrainConfig(
        grpo_steps=1,
        generations=2,
        prompts_per_step=1,
        max_completion_tokens=8,
        lora=False,
        save_steps=100,
        gradient_checkpointing=False,
        max_resamples=resamples,
        temperature=1.5,
    )
    out = grpo(make_scratch_student(tmp_path / "student"), rows(6), [reward], tmp_path / "grpo", config)
    import json

    return reward_curve(json.loads((out.parent / "log.json").read_text())), reward


def test_flat_groups_are_replaced_by_fresh_prompts_until_the_step_has_a_signal(tmp_path):
    (step,), reward = train(tmp_path, spread={5}, resamples=10)
    first = reward.seen[0][0]
    assert reward.seen[-1] == [5] and step["skipped_groups"] == 0
    assert step["resamples"] == len(reward.seen) - 1 == (0 if first == 5 else step["resamples"]) >= (first != 5)
    assert step["reward_std"] > 0  # the logged rewards are those of the group trained on
    assert untrained_steps([step]) == 0


def test_groups_still_flat_after_the_limit_are_counted_as_skipped(tmp_path):
    (step,), reward = train(tmp_path, spread=set(), resamples=2)
    assert step["resamples"] == 2 and step["skipped_groups"] == 1 and len(reward.seen) == 3
    assert len({tuple(rows) for rows in reward.seen}) == 3  # each resample draws a prompt not used before
    assert step["groups"] == 1 and untrained_steps([step]) == 1  # the run says this step learned nothing


def test_rewards_apart_only_by_float_rounding_make_a_flat_group():
    import torch

    from promptmem.distill.training import dynamic_sampling_trainer

    trainer = SimpleNamespace(num_generations=4)
    rounding = [1.2, 1.2, 1.2 - 2.4e-7, 1.2]  # 1.0 + 0.2 summed in another order
    tiny = [1.2, 1.2, 1.1925, 1.2]  # a real difference: one write wasted a little budget
    advantages = [(torch.tensor(r) - torch.tensor(r).mean()) / (torch.tensor(r).std() + 1e-4) for r in (rounding, tiny)]
    flat = dynamic_sampling_trainer(object)._flat_groups(trainer, {"advantages": torch.cat(advantages)})
    assert flat == [0]
