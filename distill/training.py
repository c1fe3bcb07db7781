"""SFT and GRPO on trace rows with TRL, on CPU or GPU; every stage resumes and ends in a
plain transformers checkpoint (LoRA merged) that ``hf:PATH`` can serve.

GPU: bf16, and GRPO generation with vLLM (``vllm="colocate"`` in-process, or ``"server"``
against ``trl vllm-serve``); multi-GPU / multi-node through ``accelerate launch``.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from promptmem.files import write_json
from promptmem.options import check_choices, option

if TYPE_CHECKING:  # the rows' type only: training runs without DSPy (the GPU check)
    from promptmem.signals.traces import TraceRow


@dataclass(frozen=True)
class TrainConfig:
    """Training knobs shared by the SFT and GRPO stages (written to the run directory)."""

    sft_epochs: float = option(1.0, "SFT epochs over the kept trace rows.", min=0.0)
    sft_lr: float = option(2e-4, "SFT learning rate.", min=0.0)
    batch_size: int = option(2, "SFT batch size.", min=1)
    max_length: int = option(2048, "Tokens per SFT example (prompt + completion).", min=16)
    lora: bool = option(True, "LoRA (merged at the end) instead of full fine-tuning.")
    lora_r: int = option(16, "LoRA rank (alpha: twice the rank).", min=1)
    grpo_steps: int = option(6, "GRPO steps.", min=0)
    grpo_lr: float = option(2e-5, "GRPO learning rate.", min=0.0)
    generations: int = option(4, "Completions per prompt (the GRPO group).", min=2)
    max_completion_tokens: int = option(48, "GRPO completion limit in tokens.", min=1)
    temperature: float = option(
        1.2,
        "GRPO sampling temperature: high enough that a group's completions differ (grpo_rewards.json logs each step's share of groups whose rewards were all equal).",
        flag="grpo-temperature",
    )
    beta: float = option(
        0.0, "GRPO KL weight (0: no reference model, as in recent GRPO practice).", flag="kl-beta", min=0.0
    )
    vllm: Literal["colocate", "server"] | None = option(
        None, "GPU only: generate GRPO completions with vLLM, colocate | server."
    )
    save_steps: int = option(10, "Steps between checkpoints.", min=1)
    seed: int = option(0, "Training seed.", flag="train-seed")
    gradient_checkpointing: bool = option(
        False,
        "Recompute activations in the backward pass: less memory, more compute (~15% per SFT step for the 135M student on CPU: off for small students).",
    )
    prompts_per_step: int = option(
        2, "GRPO groups per optimizer step (gradient accumulation; more: steadier updates).", min=1
    )
    max_resamples: int = option(
        1,
        "GRPO dynamic sampling (DAPO): times a step's groups are generated again, with fresh prompts in place of groups whose rewards were all equal (no gradient); groups still flat are logged as skipped. 0: off.",
        min=0,
    )

    def __post_init__(self) -> None:
        check_choices(self)


def _device_args() -> dict:
    import torch

    gpu = torch.cuda.is_available()
    return {"use_cpu": not gpu, "bf16": gpu}


def _common_args(config: TrainConfig, out: Path) -> dict:
    return {
        "output_dir": str(out / "checkpoints"),
        "logging_steps": 1,
        "save_steps": config.save_steps,
        "save_total_limit": 1,
        "report_to": "none",
        "seed": config.seed,
        "disable_tqdm": False,
        "gradient_checkpointing": config.gradient_checkpointing,
        **_device_args(),
    }


def _peft(config: TrainConfig):
    if not config.lora:
        return None
    from peft import LoraConfig

    return LoraConfig(
        r=config.lora_r,
        lora_alpha=2 * config.lora_r,
        lora_dropout=0.0,
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )


def _merged(trained: Path, target: Path) -> None:
    """``trained`` (a full model, or LoRA adapters over a local base) as one plain checkpoint."""
    from transformers import AutoTokenizer

    tmp = target.with_name(target.name + ".partial")
    if (trained / "adapter_config.json").is_file():
        from peft import AutoPeftModelForCausalLM

        AutoPeftModelForCausalLM.from_pretrained(trained).merge_and_unload().save_pretrained(tmp)
        AutoTokenizer.from_pretrained(trained).save_pretrained(tmp)
        shutil.rmtree(trained)
    else:
        trained.rename(tmp)
    tmp.rename(target)


def last_complete_checkpoint(checkpoints: Path) -> str | None:
    """The newest ``checkpoint-N`` folder whose trainer state (the file transformers writes
    last) is whole JSON: one a kill interrupted while saving is passed over."""
    steps = [p for p in checkpoints.glob("checkpoint-*") if p.name.rpartition("-")[2].isdigit()]
    for folder in sorted(steps, key=lambda p: int(p.name.rpartition("-")[2]), reverse=True):
        try:
            json.loads((folder / "trainer_state.json").read_text())
        except (OSError, ValueError):
            continue
        return str(folder)
    return None


def _train_and_save(trainer, out: Path) -> Path:
    """Train (from the last complete checkpoint if one exists), save the merged model to
    out/model and the log history (loss, reward per step) to out/log.json. Under accelerate
    every rank saves together (ZeRO-3 gathers the shards) and rank 0 writes the files."""
    trainer.train(resume_from_checkpoint=last_complete_checkpoint(out / "checkpoints"))
    trainer.save_model(str(out / "trained"))
    if trainer.accelerator.is_main_process:
        write_json(out / "log.json", trainer.state.log_history, indent=1)
        _merged(out / "trained", out / "model")
    trainer.accelerator.wait_for_everyone()
    return out / "model"


def sft(student: Path, rows: Sequence[TraceRow], out: str | Path, config: TrainConfig) -> Path:
    """Supervised fine-tuning on the rows' (prompt, completion) pairs, loss on completions
    only; returns the merged checkpoint (already there: returned without training)."""
    out = Path(out)
    if (out / "model" / "config.json").is_file():
        return out / "model"
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    data = Dataset.from_list(
        [{"prompt": r.prompt, "completion": [{"role": "assistant", "content": r.completion}]} for r in rows]
    )
    args = SFTConfig(
        num_train_epochs=config.sft_epochs,
        learning_rate=config.sft_lr,
        per_device_train_batch_size=config.batch_size,
        max_length=config.max_length,
        completion_only_loss=True,
        **_common_args(config, out),
    )
    trainer = SFTTrainer(model=str(student), args=args, train_dataset=data, peft_config=_peft(config))
    with _head_on_labelled_positions():
        return _train_and_save(trainer, out)


def _head_on_labelled_positions():
    """A context in which TRL's fused LM head scores only the labelled (completion) positions, as
    TRL does where Triton runs; elsewhere (CPU) it scores every position, ~4% of which carry loss.
    Same losses and LoRA weights, bit for bit, at 0.56x the seconds per SFT step on 2 cores
    (``benchmarks/experiments/sft_head.py``). TRL reads the switch through a private name,
    ``trl.trainer.utils._use_triton``; ``tests/distill/test_trl_api.py`` fails when that moves."""
    from unittest import mock

    return mock.patch("trl.trainer.utils._use_triton", return_value=True)


def grpo(
    model: Path,
    rows: Sequence[TraceRow],
    rewards: Sequence[Callable],
    out: str | Path,
    config: TrainConfig,
    weights: Sequence[float] | None = None,
) -> Path:
    """GRPO on the rows' prompts with ``rewards`` (TRL reward functions reading the ``row``
    column, summed with ``weights``); returns the merged checkpoint (already there:
    returned without training)."""
    out = Path(out)
    if (out / "model" / "config.json").is_file():
        return out / "model"
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    data = Dataset.from_list([{"prompt": r.prompt, "row": i} for i, r in enumerate(rows)])
    vllm = {"use_vllm": True, "vllm_mode": config.vllm} if config.vllm else {}
    args = GRPOConfig(
        max_steps=config.grpo_steps,
        learning_rate=config.grpo_lr,
        num_generations=config.generations,
        per_device_train_batch_size=config.generations,
        gradient_accumulation_steps=config.prompts_per_step,
        max_completion_length=config.max_completion_tokens,
        temperature=config.temperature,
        beta=config.beta,
        reward_weights=list(weights) if weights else None,
        **vllm,
        **_common_args(config, out),
    )
    trainer = dynamic_sampling_trainer(GRPOTrainer)(
        model=str(model),
        reward_funcs=list(rewards),
        args=args,
        train_dataset=data,
        peft_config=_peft(config),
        max_resamples=config.max_resamples,
    )
    return _train_and_save(trainer, out)


# a group's largest |advantage| below which its rewards count as equal: rewards apart by float
# rounding (1e-7 on 1.2) give ~1e-3 after TRL's scaling by std + 1e-4, apart by 1e-5 or more ~0.05
FLAT_ADVANTAGE = 0.01


def dynamic_sampling_trainer(base):
    """``base`` (TRL's GRPOTrainer) with DAPO's dynamic sampling: a group whose rewards are all
    equal has zero advantage and carries no gradient, so before a step trains, the prompts of
    such groups are replaced by prompts drawn from the rest of the dataset and the step's
    groups generated and scored again, up to ``max_resamples`` times. Groups still flat after
    that stay in the step with zero advantage (no gradient). The step's reward metrics are those
    of the groups it trains on. Logged per step: ``dynamic_sampling/groups`` (the step's
    groups), ``.../flat_groups`` (flat at the first generation), ``.../resamples`` and
    ``.../skipped_groups`` (still flat). Single-process: a step's groups are all local."""

    class DynamicSamplingGRPOTrainer(base):
        def __init__(self, *args, max_resamples: int = 2, **kwargs):
            super().__init__(*args, **kwargs)
            self.max_resamples = max_resamples
            self._draw = random.Random(self.args.seed)

        def _flat_groups(self, batch) -> list[int]:
            """The groups whose rewards are equal: advantages (reward minus the group's mean, over
            its std + 1e-4) all under ``FLAT_ADVANTAGE``, float rounding of equal sums included."""
            spread = batch["advantages"].view(-1, self.num_generations).abs().amax(dim=1)
            return [g for g, value in enumerate(spread.tolist()) if value < FLAT_ADVANTAGE]

        def _generate_and_score_completions(self, inputs):
            metrics = self._metrics["train"]
            marks = {name: len(values) for name, values in metrics.items()}
            batch = super()._generate_and_score_completions(inputs)
            if not self.model.training:
                return batch
            flat, resamples, tried = self._flat_groups(batch), 0, {x["row"] for x in inputs}
            first = len(flat)
            while flat and resamples < self.max_resamples:
                for name in list(metrics):  # the step logs the rewards of the groups it trains on
                    del metrics[name][marks.get(name, 0) :]
                inputs, resamples = self._replace_groups(inputs, flat, tried), resamples + 1
                tried |= {x["row"] for x in inputs}
                batch = super()._generate_and_score_completions(inputs)
                flat = self._flat_groups(batch)
            counts = {"groups": len(inputs) // self.num_generations, "flat_groups": first}
            for name, value in (*counts.items(), ("resamples", resamples), ("skipped_groups", len(flat))):
                self._metrics["train"][f"dynamic_sampling/{name}"].append(float(value))
            return batch

        def _replace_groups(self, inputs: list[dict], groups: list[int], tried: set[int]) -> list[dict]:
            """``inputs`` with ``groups`` given prompts not ``tried`` in this step (while any are left)."""
            size = self.num_generations
            fresh = [i for i, row in enumerate(self.train_dataset["row"]) if row not in tried]
            replaced = list(inputs)
            for g, i in zip(groups, self._draw.sample(fresh, min(len(groups), len(fresh)))):
                replaced[g * size : (g + 1) * size] = [dict(self.train_dataset[i]) for _ in range(size)]
            return replaced

    return DynamicSamplingGRPOTrainer


def reward_curve(log_history: list[dict]) -> list[dict]:
    """Each logged GRPO step: its mean reward and reward std (of the groups trained on), the
    share of its groups whose rewards were all equal at the first generation (``flat_share``;
    None when not logged), and dynamic sampling's groups, resamples and groups still flat
    (skipped: nothing to learn from)."""
    curve = []
    for e in log_history:
        if "reward" in e and "step" in e:
            groups = e.get("dynamic_sampling/groups")
            flat = e.get("dynamic_sampling/flat_groups", 0.0)
            curve.append(
                {
                    "step": e["step"],
                    "reward": e["reward"],
                    "reward_std": e.get("reward_std", 0.0),
                    "flat_share": round(flat / groups, 4) if groups else None,
                    "groups": groups,
                    "skipped_groups": e.get("dynamic_sampling/skipped_groups", 0.0),
                    "resamples": e.get("dynamic_sampling/resamples", 0.0),
                }
            )
    return curve


def logged_steps(stage: Path) -> int:
    """The optimizer steps a finished training stage logged (the last step in ``stage/log.json``)."""
    return max((e.get("step", 0) for e in json.loads((Path(stage) / "log.json").read_text())), default=0)
