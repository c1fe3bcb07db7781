"""Kill a run with SIGKILL at a random moment, rerun it, and compare with an uninterrupted run.

Targets run in a subprocess (``python tests/kill_harness.py TARGET OUT``) with scripted LMs
that take a few milliseconds per call, so a kill lands anywhere: in an LM call, a stream
file's write, GEPA's checkpoint. ``kill_and_resume`` returns what the rerun kept and whether
its results equal the reference run's.
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _slow(lm, seconds: float):
    forward = lm.forward

    def slow_forward(*args, **kwargs):
        time.sleep(seconds)
        return forward(*args, **kwargs)

    lm.forward = slow_forward
    return lm


def eval_target(out: str) -> None:
    from conftest import scripted_lm, typed_ops

    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.lm.specs import LMConfig

    lm = _slow(scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")}), 0.01)
    evaluate(
        EvalConfig(writer="ops", streams=6, tasks=6, threads=1),
        LMConfig(spec="dummy/x"),
        out,
        lm=lm,
        show_progress=False,
    )


def optimize_target(out: str) -> None:
    import dspy
    from test_optimize import CONFIG, ScriptedWorld, reflection_lm

    from promptmem.lm.specs import LMConfig
    from promptmem.optimize.gepa import optimize

    engine = ScriptedWorld()
    complete = engine.complete
    engine.complete = lambda request: (time.sleep(0.005), complete(request))[1]
    optimize(
        CONFIG,
        LMConfig(spec="dummy/task"),
        LMConfig(spec="dummy/reflect"),
        out,
        lm=dspy.LM("scripted/world", engine=engine, cache=False),
        reflection_lm=reflection_lm(),
    )


def distill_target(out: str) -> None:
    """Traces, SFT and GRPO (checkpoints every step) of the scratch student made beside ``out``."""
    from conftest import scripted_lm, typed_ops
    from promptmem.distill.pipeline import DistillConfig, distill
    from promptmem.distill.training import TrainConfig

    from promptmem.lm.specs import LMConfig

    lm = _slow(scripted_lm("42", {"operations": typed_ops("ADD session-store listens on port 3134")}), 0.01)
    config = DistillConfig(
        student=str(Path(out).parent / "student"),
        train_streams=2,
        tasks=6,
        train=TrainConfig(
            sft_epochs=2,
            batch_size=4,
            grpo_steps=2,
            generations=2,
            prompts_per_step=1,
            max_completion_tokens=12,
            save_steps=1,
            gradient_checkpointing=False,
            max_resamples=0,
        ),
    )
    distill(config, LMConfig(spec="scripted", max_tokens=24), out, lm=lm, until="grpo", say=lambda _: None)


TARGETS = {"eval": eval_target, "optimize": optimize_target, "distill": distill_target}
DONE = {
    "eval": "streams/*/*.json",
    "optimize": "gepa/gepa_state.bin",
    "distill": "traces/*.jsonl",
}  # units of work a rerun must keep as they are


def run(target: str, out: Path, kill_after: float | None = None) -> int | None:
    """Run ``target`` into ``out``; with ``kill_after``, SIGKILL it after that many seconds (the
    exit code, or None when it was killed)."""
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__)), target, str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        proc.wait(timeout=kill_after if kill_after is not None else 600)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        return None
    if proc.returncode:
        raise RuntimeError(f"{target} failed: {proc.stderr.read().decode()[-2000:]}")
    return proc.returncode


def results(target: str, out: Path) -> dict:
    """What must not depend on interruptions: scores, answers, ops and notes (not seconds)."""
    if target == "eval":
        streams = {
            p.relative_to(out).as_posix(): [
                (r["answer"], r["score"], r["ops"]) for r in json.loads(p.read_text())["records"]
            ]
            for p in sorted((out / "streams").rglob("*.json"))
        }
        report = json.loads((out / "report.json").read_text())
        return {"streams": streams, "score": report["agent"]["score"]}
    if target == "distill":
        return {
            "traces": [p.read_text() for p in sorted((out / "traces").glob("*.jsonl"))],
            **{stage: _weights(out / stage / "model") for stage in ("sft", "grpo")},
        }
    program = json.loads((out / "program.json").read_text())
    candidates = json.loads((out / "candidates.json").read_text())["candidates"]
    return {"program": program["state"], "candidates": [c["instructions"] for c in candidates]}


def _weights(checkpoint: Path) -> dict[str, list]:
    from safetensors.torch import load_file

    return {
        name: tensor.flatten().tolist()
        for name, tensor in sorted(load_file(str(checkpoint / "model.safetensors")).items())
    }


def finished_units(target: str, out: Path) -> dict[str, bytes]:
    """Units of work already on disk (stream files; GEPA's checkpoint; trace files) and their bytes."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.glob(DONE[target])}


def kill_and_resume(target: str, out: Path, reference: dict, rng: random.Random, duration: float) -> dict:
    """Kill ``target`` at a random moment of an uninterrupted run's ``duration`` (past the first
    quarter, most of which is start-up), rerun it to the end; report what was kept."""
    killed = run(target, out, kill_after=rng.uniform(duration / 4, duration)) is None
    before = finished_units(target, out) if target != "optimize" else {}
    stamps = {name: (out / name).stat().st_mtime_ns for name in before}
    run(target, out)
    kept = all(
        (out / name).read_bytes() == data and (out / name).stat().st_mtime_ns == stamps[name]
        for name, data in before.items()
    )
    return {
        "killed": killed,
        "finished_before_kill": len(before),
        "kept_unchanged": kept,
        "equal_to_reference": results(target, out) == reference,
    }


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    TARGETS[sys.argv[1]](sys.argv[2])
