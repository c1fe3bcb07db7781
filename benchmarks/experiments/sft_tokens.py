"""Where the SFT stage's minutes go, from the rows alone: the SFT rows of a distill run rendered
and tokenized as TRL's ``SFTTrainer`` does (the student's chat template, prompt then prompt +
completion, loss on the completion), then per world the tokens per row, the rows past
``max_length``, the fixed text every prompt repeats, the padding of batches of 2 in the trainer's
random order against length-grouped order and padding-free batches, and a compute model (matmul
FLOPs per position) that turns the measured seconds per SFT step into tokens per second and the
minutes each pure-efficiency change (same rows, same loss) would save. No model runs: tokenization
only (seconds). Time is taken as proportional to FLOPs; the CPU head's elementwise passes over the
vocabulary are not counted, so its share of the time is likely larger than its share of FLOPs.

Rows: the select writer's hindsight rows (``signals.hindsight_rows.writer_rows``, the seed
teacher's program, no LM) over the run's training streams; the actor rows need sampled answers,
so their prompts are those of the actor's cases (the hindsight notes before each question) with
the gold answer as completion, counted as many times as the measured run kept actor rows. Where a
run directory is given (``--run runs/NAME``), its own rows are rebuilt with ``sft_dataset`` and their
tokens per step in the trainer's order checked against the ``num_tokens`` its trainer logged.

    python -m benchmarks.experiments.sft_tokens    # benchmarks/results/sft_tokens.json
"""

from __future__ import annotations

import argparse
import json
import statistics
from dataclasses import dataclass
from pathlib import Path

from benchmarks import DATA, RESULTS
from promptmem.distill.run import STUDENT_FORMAT
from promptmem.distill.sft_data import sft_dataset
from promptmem.distill.students import resolve_student
from promptmem.programs.agent import resolve_agent
from promptmem.signals.hindsight_rows import actor_cases, writer_rows
from promptmem.signals.inferred import InferredSuite, infer_streams
from promptmem.signals.traces import read_traces
from promptmem.suites import JsonlSuite

OUT = RESULTS / "sft_tokens.json"
MAX_LENGTH, BATCH, TRAIN_STREAMS = 2048, 2, 2  # TrainConfig / DistillConfig defaults of the runs


@dataclass(frozen=True)
class World:
    """A measured distill run: its training file and target, the streams its writer rows come
    from, its SFT rows by role and its measured SFT stage (steps, seconds)."""

    data: str
    target: str
    streams: int
    actor_rows: int  # actor rows the run trained on (traces + sampled)
    results: str
    steps: int
    seconds: float
    seed: int = 0


WORLDS = {  # the runs behind stage_seconds / timings in their results files
    "oncall": World("oncall_train.jsonl", "inferred", 8, 17 + 16 + 15, "distill_own_oncall.json", 120, 3201.2),
    "household": World(
        "household_train.jsonl", "stated", 12, 19 + 34 + 33, "distill_hindsight_household_stated12.json", 187, 3047.8
    ),
    "household_stripped": World("household_train_stripped.jsonl", "inferred", 12, 19 + 34 + 31, "", 0, 0.0),
}


def labelled(world: World) -> tuple[list, object]:
    suite = JsonlSuite(DATA / world.data)
    streams = suite.streams(world.streams, seed=world.seed)
    if world.target == "inferred":
        return infer_streams(streams, suite), InferredSuite(suite)
    return streams, suite


def world_rows(world: World) -> tuple[list[tuple], list[tuple]]:
    """(writer rows, actor rows) as (prompt messages, completion text)."""
    agent = resolve_agent("seed", "select")
    streams, suite = labelled(world)
    budget, target = suite.notes_budget, "stated" if world.target == "inferred" else world.target
    writer = [(r.prompt, r.completion) for r in writer_rows(agent, streams, suite, budget, STUDENT_FORMAT, target)]
    predictor = agent.actor.predict
    actor = []
    for stream in streams[:TRAIN_STREAMS]:
        for case in actor_cases(stream, suite, budget, target):
            task = case.step.task
            inputs = {"notes": case.step.notes, "observation": task.observation, "question": task.question}
            prompt = STUDENT_FORMAT.format(predictor.signature, predictor.demos, inputs)
            gold = task.answer[0] if isinstance(task.answer, list | tuple) else task.answer
            completion = STUDENT_FORMAT.format_assistant_message_content(predictor.signature, {"answer": str(gold)})
            actor.append((prompt, completion))
    return writer, actor


def tokenized(tokenizer, prompt: list[dict], completion: str) -> tuple[list[int], int]:
    """(prompt + completion ids, the prompt's length) as TRL's SFTTrainer tokenizes a
    conversational prompt-completion row (the completion starts where the two diverge)."""
    prompt_ids = tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True, return_dict=True)
    full = tokenizer.apply_chat_template(
        [*prompt, {"role": "assistant", "content": completion}], tokenize=True, return_dict=True
    )
    prompt_ids, full = list(prompt_ids["input_ids"]), list(full["input_ids"])
    shared = next((i for i, (a, b) in enumerate(zip(prompt_ids, full)) if a != b), min(len(prompt_ids), len(full)))
    return full, shared


def spread(values: list[int]) -> dict:
    ordered = sorted(values)
    at = lambda q: ordered[min(len(ordered) - 1, int(q * len(ordered)))]  # noqa: E731
    return {"mean": round(statistics.mean(ordered), 1), "p50": at(0.5), "p90": at(0.9), "max": ordered[-1]}


def fixed_tokens(rows: list[list[int]], prompt_lengths: list[int]) -> dict:
    """Tokens every prompt of ``rows`` shares at its start and at its end."""
    prompts = [ids[:n] for ids, n in zip(rows, prompt_lengths)]
    head = 0
    while all(len(p) > head and p[head] == prompts[0][head] for p in prompts):
        head += 1
    tail = 0
    while all(len(p) - tail > head and p[-1 - tail] == prompts[0][-1 - tail] for p in prompts):
        tail += 1
    return {
        "prefix": head,
        "suffix": tail,
        "share_of_prompt": round((head + tail) / statistics.mean(map(len, prompts)), 3),
    }


def trainer_order(n: int, seed: int) -> list[int]:
    """The order the Trainer draws an epoch of ``n`` rows in (accelerate's seedable sampler:
    ``torch.randperm`` seeded with the training seed; checked against a run's logged tokens)."""
    import torch

    return torch.randperm(n, generator=torch.Generator().manual_seed(seed)).tolist()


def grouped_order(lengths: list[int], seed: int) -> list[int]:
    """``train_sampling_strategy="group_by_length"``'s order (transformers' ``LengthGroupedSampler``)."""
    import torch
    from transformers.trainer_pt_utils import get_length_grouped_indices

    return get_length_grouped_indices(lengths, BATCH, generator=torch.Generator().manual_seed(seed))


def batches(order: list[int]) -> list[list[int]]:
    return [order[i : i + BATCH] for i in range(0, len(order), BATCH)]


@dataclass(frozen=True)
class Costs:
    """Matmul FLOPs per position of LoRA training on CPU: the body forward and its input-gradient
    backward (frozen weights), the LM head as TRL's fused head runs it off Triton (forward, the
    backward's recomputed tile and the hidden-state gradient: every position, labelled or not),
    and attention per pair of positions (scores and values, forward and backward)."""

    body: float
    head: float
    attention: float

    @classmethod
    def of(cls, config: dict) -> Costs:
        h, layers, inter = config["hidden_size"], config["num_hidden_layers"], config["intermediate_size"]
        kv = h * config["num_key_value_heads"] // config["num_attention_heads"]
        linear = layers * (2 * h * h + 2 * h * kv + 3 * h * inter)
        return cls(body=2 * 2 * linear, head=3 * 2 * h * config["vocab_size"], attention=3 * 2 * 2 * layers * h)

    def step(self, lengths: list[int], labelled: list[int], *, compact_head: bool, padded: bool) -> float:
        """FLOPs of one batch (``lengths``: its rows' tokens, ``labelled``: their completion tokens):
        padded to its longest row or padding-free; the head over every position or only labelled ones."""
        width = max(lengths)
        positions = len(lengths) * width if padded else sum(lengths)
        head_positions = sum(labelled) if compact_head else positions
        pairs = len(lengths) * width * width if padded else sum(n * n for n in lengths)
        return self.body * positions + self.head * head_positions + self.attention * pairs


def padding(rows: list[tuple[int, int]], order: list[int]) -> dict:
    steps = batches(order)
    real = sum(n for n, _ in rows)
    padded = sum(BATCH * max(rows[i][0] for i in step) if len(step) == BATCH else rows[step[0]][0] for step in steps)
    return {
        "steps": len(steps),
        "tokens_per_step": round(real / len(steps), 1),
        "padded_per_step": round(padded / len(steps), 1),
        "padding_share": round(1 - real / padded, 4),
    }


def epoch_flops(costs: Costs, rows: list[tuple[int, int]], order: list[int], **how) -> float:
    return sum(costs.step([rows[i][0] for i in step], [rows[i][1] for i in step], **how) for step in batches(order))


def token_rows(tokenizer, chats: list[tuple]) -> list[tuple[int, int]]:
    """(tokens, completion tokens) of each (prompt, completion) row, truncated like TRL at ``MAX_LENGTH``."""
    found = []
    for prompt, completion in chats:
        ids, prompt_length = tokenized(tokenizer, prompt, completion)
        found.append((min(len(ids), MAX_LENGTH), max(0, min(len(ids), MAX_LENGTH) - prompt_length)))
    return found


def role_summary(tokenizer, chats: list[tuple]) -> dict:
    full = [tokenized(tokenizer, prompt, completion) for prompt, completion in chats]
    return {
        "rows": len(chats),
        "prompt": spread([n for _, n in full]),
        "completion": spread([len(ids) - n for ids, n in full]),
        "over_max_length": sum(len(ids) > MAX_LENGTH for ids, _ in full),
        "fixed_prompt_tokens": fixed_tokens([ids for ids, _ in full], [n for _, n in full]),
    }


def cycled(rows: list, count: int) -> list:
    return [rows[i % len(rows)] for i in range(count)] if rows else []


def stage_model(costs: Costs, rows: list[tuple[int, int]], seconds: float, seed: int = 0) -> dict:
    """The SFT epoch of ``rows`` in the trainer's order against each pure-efficiency change, in
    FLOPs and, with the measured ``seconds``, in minutes (time taken proportional to FLOPs)."""
    lengths = [n for n, _ in rows]
    base_order, grouped = trainer_order(len(rows), seed), grouped_order(lengths, seed)
    variants = {
        "as run (random order, padded, LM head on every position)": (base_order, False, True),
        "length-grouped batches": (grouped, False, True),
        "LM head on completion positions only": (base_order, True, True),
        "both": (grouped, True, True),
        "padding-free, LM head on completions (ideal)": (base_order, True, False),
    }
    flops = {
        name: epoch_flops(costs, rows, order, compact_head=c, padded=p) for name, (order, c, p) in variants.items()
    }
    base = flops["as run (random order, padded, LM head on every position)"]
    real = sum(lengths)
    head_share = epoch_flops(Costs(0, costs.head, 0), rows, base_order, compact_head=False, padded=True) / base
    model = {
        "flops_per_step_tera": round(base / len(batches(base_order)) / 1e12, 3),
        "lm_head_share_of_flops": round(head_share, 3),
        "completion_share_of_tokens": round(sum(c for _, c in rows) / real, 4),
    }
    if seconds:
        model |= {
            "tokens_per_second": round(real / seconds, 1),
            "padded_tokens_per_second": round(
                padding(rows, base_order)["padded_per_step"] * len(batches(base_order)) / seconds, 1
            ),
            "effective_gflops": round(base / seconds / 1e9, 1),
        }
    model["variants"] = {
        name: {
            "flops_vs_as_run": round(value / base, 3),
            **({"minutes": round(seconds * value / base / 60, 1)} if seconds else {}),
            **({"minutes_saved": round(seconds * (1 - value / base) / 60, 1)} if seconds else {}),
        }
        for name, value in flops.items()
    }
    return model


def padding_table(rows: list[tuple[int, int]], seeds: int = 50) -> dict:
    lengths = [n for n, _ in rows]
    mean = lambda orders: round(statistics.mean(padding(rows, o)["padding_share"] for o in orders), 4)  # noqa: E731
    return {
        "trainer_order_seed0": padding(rows, trainer_order(len(rows), 0)),
        "random_mean": mean([trainer_order(len(rows), s) for s in range(seeds)]),
        "length_grouped_mean": mean([grouped_order(lengths, s) for s in range(seeds)]),
        "sorted": padding(rows, sorted(range(len(rows)), key=lengths.__getitem__))["padding_share"],
    }


def world_result(tokenizer, costs: Costs, name: str, world: World) -> dict:
    writer, cases = world_rows(world)
    actor = cycled(cases, world.actor_rows)  # the measured run's actor rows, from the cases' prompts
    rows = token_rows(tokenizer, actor) + token_rows(tokenizer, writer)  # sft_dataset's order: actor, then writer
    return {
        "data": world.data,
        "target": world.target,
        "streams": world.streams,
        "rows": len(rows),
        "measured": {"results": world.results, "steps": world.steps, "seconds": world.seconds}
        if world.results
        else None,
        "seconds_per_step": round(world.seconds / world.steps, 2) if world.steps else None,
        "writer": role_summary(tokenizer, writer),
        "actor_cases": role_summary(tokenizer, cases),
        "actor_rows_estimated_from_cases": world.actor_rows,
        "tokens_per_row": spread([n for n, _ in rows]),
        "padding": padding_table(rows),
        "compute": stage_model(costs, rows, world.seconds),
    }


def run_check(tokenizer, costs: Costs, folder: Path) -> dict:
    """A run directory's own SFT rows (traces, hindsight writer and sampled actor rows through
    ``sft_dataset``), checked against the tokens its trainer logged per step."""
    config = json.loads((folder / "config.json").read_text())["distill"]
    traces = [row for path in sorted((folder / "traces").glob("*.jsonl")) for row in read_traces(path)]
    actor = {m: read_traces(folder / "hindsight" / f"actor-{m}.jsonl") for m in config["actor_samplers"]}
    rows, sources = sft_dataset(
        traces,
        read_traces(folder / "hindsight" / "writer.jsonl"),
        actor,
        hindsight_share=config["hindsight_share"],
        seed=config["seed"],
        min_actor_score=config["min_actor_score"],
        min_writer_credit=config["min_writer_credit"],
    )
    tokens = token_rows(tokenizer, [(r.prompt, r.completion) for r in rows])
    states = sorted((folder / "sft").glob("checkpoints/checkpoint-*/trainer_state.json"))
    logged = json.loads((folder / "sft" / "log.json").read_text()) if (folder / "sft" / "log.json").is_file() else []
    logged = logged or (json.loads(states[-1].read_text())["log_history"] if states else [])
    totals = [int(e["num_tokens"]) for e in logged if "num_tokens" in e]
    steps = [b - a for a, b in zip([0, *totals], totals)]
    predicted = [sum(tokens[i][0] for i in step) for step in batches(trainer_order(len(rows), config["train"]["seed"]))]
    return {
        "run": str(folder),
        "data": config["data"],
        "rows": len(rows),
        "sources": sources,
        "tokens_per_row": spread([n for n, _ in tokens]),
        "logged_steps_checked": len(steps),
        "logged_tokens_match": steps == predicted[: len(steps)],
        "padding": padding_table(tokens),
        "compute": stage_model(costs, tokens, 0.0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worlds", default=",".join(WORLDS))
    parser.add_argument("--run", type=Path, help="a distill run directory whose own rows are checked too")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    from transformers import AutoTokenizer

    student = resolve_student("qwen-0.5b")
    tokenizer = AutoTokenizer.from_pretrained(str(student))
    costs = Costs.of(json.loads((student / "config.json").read_text()))
    result = {
        "benchmark": "sft_tokens",
        "student": "qwen-0.5b",
        "batch_size": BATCH,
        "max_length": MAX_LENGTH,
        "flops_per_position": {"body": costs.body, "lm_head": costs.head, "attention_per_pair": costs.attention},
        "worlds": {name: world_result(tokenizer, costs, name, WORLDS[name]) for name in args.worlds.split(",")},
    }
    if args.run:
        result["run_check"] = run_check(tokenizer, costs, args.run)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    for name, world in result["worlds"].items():
        compute, pad = world["compute"], world["padding"]
        print(
            f"{name:18} rows {world['rows']:4}  tokens/row {world['tokens_per_row']}  padding random "
            f"{pad['random_mean']:.1%} grouped {pad['length_grouped_mean']:.1%}  head share "
            f"{compute['lm_head_share_of_flops']:.0%}  tok/s {compute.get('tokens_per_second')}"
        )
        for variant, row in compute["variants"].items():
            print(f"   {variant:55} {row}")


if __name__ == "__main__":
    main()
