"""What scoring only the completion positions in TRL's fused LM head saves on CPU, timed: real SFT
steps of the embedded Qwen2.5-0.5B student, side by side in one process, with the LoRA and trainer
settings of distill's ``sft()`` (``TrainConfig`` defaults through ``distill.training``'s helpers),
on the same rows (the first ``--rows`` of the household stripped world's SFT rows that
``sft_tokens`` rebuilds, in the trainer's order).

Variant ``as_is``: TRL 1.16 as installed; off Triton its fused head projects every position onto
the vocabulary (``compact = _use_triton(device)`` in ``trl.trainer.utils``). Variant ``compact``:
the same with ``trl.trainer.utils._use_triton`` patched to True, so the head scores only the
positions that carry loss (the path TRL takes on CUDA). That name is read at that one place only
(checked with ``inspect`` before anything runs); the kernels keep their own ``_use_triton``, so on
CPU the tiles still fold in torch and no Triton kernel runs. Each run is a fresh trainer from the
same weights and seed: same batches, same LoRA init, so each step's loss and the LoRA weights
after the steps must agree to float rounding; both are compared. Runs alternate (as_is, compact,
as_is, compact, ...) to show the noise; a step's seconds run from ``on_step_begin`` to
``on_step_end``, and the first step of each run is left out.

    python -m benchmarks.experiments.sft_head    # benchmarks/results/sft_head.json
"""

from __future__ import annotations

import argparse
import gc
import inspect
import json
import platform
import statistics
import tempfile
import time
from pathlib import Path
from unittest import mock

from benchmarks import RESULTS
from benchmarks.experiments.sft_tokens import WORLDS, cycled, trainer_order, world_rows
from promptmem.distill.students import resolve_student
from promptmem.distill.training import TrainConfig, _common_args, _peft

OUT = RESULTS / "sft_head.json"
SWITCH = "trl.trainer.utils._use_triton"
VARIANTS = ("as_is", "compact")


def check_switch() -> dict:
    """Where TRL reads ``_use_triton``: the patched name must be read by the fused forward alone,
    and the kernels must decide Triton or torch by their own binding (off CUDA/XPU: torch)."""
    import trl.kernels.chunked_divergence as divergence
    import trl.kernels.chunked_logprob as logprob
    import trl.trainer.utils as utils

    source = inspect.getsource(utils)
    reads = [line.strip() for line in source.splitlines() if "_use_triton" in line and "import" not in line]
    kernel_reads = {
        module.__name__: inspect.getsource(module).count("_use_triton(") for module in (logprob, divergence)
    }
    found = {
        "reads_in_trl_trainer_utils": reads,
        "kernel_modules_use_their_own_binding": all(
            vars(module)["_use_triton"] is logprob._use_triton for module in (logprob, divergence)
        ),
        "kernel_reads": kernel_reads,
        "triton_available": logprob._TRITON_AVAILABLE,
        "kernel_use_triton_on_cpu": logprob._use_triton(__import__("torch").device("cpu")),
    }
    if reads != ["compact = _use_triton(hidden_states.device)"] or found["kernel_use_triton_on_cpu"]:
        raise SystemExit(f"the switch is not the one measured here: {found}")
    return found


def rows(count: int) -> list[tuple]:
    """The first ``count`` SFT rows of the household stripped world in the trainer's order (actor
    rows from the cases' prompts, then the writer's rows, as ``sft_tokens`` builds them)."""
    world = WORLDS["household_stripped"]
    writer, cases = world_rows(world)
    every = cycled(cases, world.actor_rows) + writer
    return [every[i] for i in trainer_order(len(every), TrainConfig().seed)[:count]]


class StepClock:
    """Seconds of each optimizer step and the LoRA weights as training starts."""

    def __init__(self):
        from transformers import TrainerCallback

        clock = self

        class Callback(TrainerCallback):
            def on_train_begin(self, args, state, control, model=None, **kwargs):
                clock.initial = lora_weights(model)

            def on_step_begin(self, args, state, control, **kwargs):
                clock.started = time.perf_counter()

            def on_step_end(self, args, state, control, **kwargs):
                clock.seconds.append(time.perf_counter() - clock.started)

        self.callback, self.seconds, self.initial, self.started = Callback(), [], {}, 0.0


def lora_weights(model) -> dict:
    return {name: p.detach().clone() for name, p in model.named_parameters() if p.requires_grad}


def max_diff(a: dict, b: dict) -> float:
    assert a.keys() == b.keys() and a
    return max((a[k] - b[k]).abs().max().item() for k in a)


def run(student: Path, data, steps: int, compact: bool) -> dict:
    """One fresh trainer: ``steps`` SFT steps, as ``sft()`` configures them."""
    from transformers import set_seed
    from trl import SFTConfig, SFTTrainer

    config = TrainConfig()
    with tempfile.TemporaryDirectory() as out:
        args = SFTConfig(
            max_steps=steps,
            learning_rate=config.sft_lr,
            per_device_train_batch_size=config.batch_size,
            max_length=config.max_length,
            completion_only_loss=True,
            **{**_common_args(config, Path(out)), "disable_tqdm": True, "save_strategy": "no"},
        )
        set_seed(config.seed)  # the LoRA init happens before the Trainer seeds itself
        clock = StepClock()
        trainer = SFTTrainer(
            model=str(student), args=args, train_dataset=data, peft_config=_peft(config), callbacks=[clock.callback]
        )
        losses, tokens = [], []
        compute_loss = trainer.compute_loss

        def recorded(model, inputs, *a, **k):
            result = compute_loss(model, inputs, *a, **k)
            losses.append((result[0] if isinstance(result, tuple) else result).detach().item())
            tokens.append((int(inputs["input_ids"].numel()), int((inputs["labels"] != -100).sum())))
            return result

        trainer.compute_loss = recorded
        with mock.patch(SWITCH, return_value=True) if compact else mock.patch(SWITCH, wraps=_switch()) as switch:
            started = time.perf_counter()
            trainer.train()
            wall = time.perf_counter() - started
        final = lora_weights(trainer.model)
        initial = clock.initial
        del trainer
        gc.collect()
    return {
        "variant": "compact" if compact else "as_is",
        "step_seconds": [round(s, 3) for s in clock.seconds],
        "mean_seconds_after_first": round(statistics.mean(clock.seconds[1:]), 3),
        "train_seconds": round(wall, 1),
        "switch_reads": switch.call_count,
        "positions_and_labelled_per_step": tokens,
        "loss": losses,
        "_initial": initial,
        "_final": final,
    }


def _switch():
    import trl.trainer.utils as utils

    return utils._use_triton


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=16)
    parser.add_argument("--steps", type=int, default=6)
    parser.add_argument("--rounds", type=int, default=2, help="(as_is, compact) pairs, alternating")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    import torch
    import trl
    from datasets import Dataset

    switch = check_switch()
    chosen = rows(args.rows)
    data = Dataset.from_list([{"prompt": p, "completion": [{"role": "assistant", "content": c}]} for p, c in chosen])
    student = resolve_student("qwen-0.5b")
    runs = []
    for _ in range(args.rounds):
        for compact in (False, True):
            runs.append(run(student, data, args.steps, compact))
            r = runs[-1]
            print(f"{r['variant']:8} s/step {r['step_seconds']}  loss {[round(x, 5) for x in r['loss']]}", flush=True)
    by = {v: [r for r in runs if r["variant"] == v] for v in VARIANTS}
    first = runs[0]
    mean = {v: statistics.mean(s for r in by[v] for s in r["step_seconds"][1:]) for v in VARIANTS}
    pairs = [(a, b) for a, b in zip(by["as_is"], by["compact"])]
    result = {
        "benchmark": "sft_head",
        "student": "qwen-0.5b",
        "world": "household_stripped",
        "rows": args.rows,
        "steps_per_run": args.steps,
        "batch_size": TrainConfig().batch_size,
        "runs_in_order": [r["variant"] for r in runs],
        "versions": {"trl": trl.__version__, "torch": torch.__version__, "threads": torch.get_num_threads()},
        "machine": platform.processor() or platform.machine(),
        "switch": switch,
        "mean_step_seconds_after_first": {v: round(mean[v], 3) for v in VARIANTS},
        "ratio_compact_over_as_is": round(mean["compact"] / mean["as_is"], 3),
        "ratio_per_round": [round(b["mean_seconds_after_first"] / a["mean_seconds_after_first"], 3) for a, b in pairs],
        "max_abs_loss_diff_compact_vs_as_is": max(abs(x - y) for a, b in pairs for x, y in zip(a["loss"], b["loss"])),
        "max_abs_loss_diff_as_is_rerun": max(
            (abs(x - y) for r in by["as_is"][1:] for x, y in zip(first["loss"], r["loss"])), default=None
        ),
        "max_abs_initial_lora_diff": max(max_diff(first["_initial"], r["_initial"]) for r in runs[1:]),
        "max_abs_final_lora_diff_compact_vs_as_is": max(max_diff(a["_final"], b["_final"]) for a, b in pairs),
        "max_abs_final_lora_diff_as_is_rerun": max(
            (max_diff(first["_final"], r["_final"]) for r in by["as_is"][1:]), default=None
        ),
        "max_abs_lora_update": max_diff(first["_initial"], first["_final"]),
        "runs": [{k: v for k, v in r.items() if not k.startswith("_")} for r in runs],
    }
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print({k: v for k, v in result.items() if k not in ("runs", "switch")})


if __name__ == "__main__":
    main()
