"""Kill a run with SIGKILL at a random moment, rerun it, and compare with an uninterrupted run.

Targets run in a subprocess (``python -m tests.helpers.kill_harness TARGET OUT``, from the
repository root) with scripted LMs that take a few milliseconds per call, so a kill lands
anywhere: in an LM call, a task's or a stream file's write, GEPA's checkpoint. ``kill_and_resume`` returns what the rerun kept,
how its results differ from the reference run's and, for eval runs, how many started tasks the
kill lost (each task start is logged beside the run directory: OUT.started).

Distill's weights are compared within ``DRIFT``, not bit for bit: float32 training on CPU is not
bit-stable between processes (here two reruns of about 90 differed, one with an SFT loss one ulp
off at step 2 and weights up to 9e-7 away; in one CI run all three reruns differed). Training
moves them far more (SFT's six steps 1.6e-3 at most, GRPO's two 3.5e-4, its last step alone
9e-5), so a lost or repeated step still fails.
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
ROOT = HERE.parents[1]  # the repository root: a target runs there, as a module of tests.helpers


def _slow(lm, seconds: float):
    forward = lm.forward

    def slow_forward(*args, **kwargs):
        time.sleep(seconds)
        return forward(*args, **kwargs)

    lm.forward = slow_forward
    return lm


def _log_task_starts(out: str) -> None:
    """Append a line to OUT.started as each task starts (what a kill can have lost)."""
    from promptmem import runner

    run_task, log = runner.run_task, Path(f"{out}.started")

    def logged(agent, task, *args, **kwargs):
        with log.open("a") as started:
            started.write(f"{task.id}\n")
        return run_task(agent, task, *args, **kwargs)

    runner.run_task = logged


def _evaluate(config, out: str, lm) -> None:
    from promptmem.evaluate import evaluate
    from promptmem.lm.specs import LMConfig

    _log_task_starts(out)
    evaluate(config, LMConfig(spec="dummy/x"), out, lm=_slow(lm, 0.01), show_progress=False)


def eval_target(out: str) -> None:
    from promptmem.evaluate import EvalConfig
    from tests.helpers.scripted import scripted_lm, typed_ops

    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")})
    _evaluate(EvalConfig(writer="ops", streams=6, tasks=6, threads=1), out, lm)


def locomo_conversation(sessions: int = 12) -> dict:
    """A LoCoMo-format conversation (made up here): a session per fact, a question after each."""
    conversation = {"speaker_a": "Ana", "speaker_b": "Ben"}
    qa = []
    for n in range(1, sessions + 1):
        conversation[f"session_{n}_date_time"] = f"{n} May 2023"
        conversation[f"session_{n}"] = [
            {"speaker": "Ana", "dia_id": f"D{n}:1", "text": f"My locker number is now {100 + n}."},
            {"speaker": "Ben", "dia_id": f"D{n}:2", "text": "Noted."},
        ]
        answer = str(100 + n)
        qa.append(
            {"question": "What is Ana's locker number?", "answer": answer, "evidence": [f"D{n}:1"], "category": 4}
        )
    return {"sample_id": "conv-kill", "conversation": conversation, "qa": qa}


def locomo_target(out: str) -> None:
    """One LoCoMo conversation, SQLite store: a kill lands inside the conversation."""
    from promptmem.evaluate import EvalConfig
    from promptmem.files import write_json
    from tests.helpers.scripted import scripted_lm, typed_ops

    data = Path(out).parent / "locomo-kill.json"
    data.parent.mkdir(parents=True, exist_ok=True)
    write_json(data, [locomo_conversation()])
    lm = scripted_lm("101", {"operations": typed_ops("ADD Ana's locker number changed")})
    _evaluate(EvalConfig(suite="locomo", data=str(data), writer="ops", streams=1, threads=1, store="sqlite"), out, lm)


def optimize_target(out: str) -> None:
    import dspy

    from promptmem.lm.specs import LMConfig
    from promptmem.optimize.gepa import optimize
    from tests.helpers.gepa_world import CONFIG, ScriptedWorld, reflection_lm

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
    from promptmem.distill.pipeline import DistillConfig, distill
    from promptmem.distill.training import TrainConfig
    from promptmem.lm.specs import LMConfig
    from tests.helpers.scripted import scripted_lm, typed_ops

    lm = _slow(scripted_lm("42", {"operations": typed_ops("ADD session-store listens on port 3134")}), 0.01)
    config = DistillConfig(
        student=str(Path(out).parent / "student"),
        writer="ops",
        hindsight_share=0.0,
        actor_samplers=(),
        writer_reward="recall",
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
            grpo_lr=1e-4,  # a GRPO step moves the weights well past DRIFT
        ),
    )
    distill(config, LMConfig(spec="scripted", max_tokens=24), out, lm=lm, until="grpo", say=lambda _: None)


TARGETS = {"eval": eval_target, "locomo": locomo_target, "optimize": optimize_target, "distill": distill_target}
DRIFT = 1e-5  # largest weight difference distill results may show and still be equal
EVALS = ("eval", "locomo")  # targets that run `evaluate`: their kills lose at most the task in progress
DONE = {
    "eval": "streams/*/*.json",
    "locomo": "streams/*/*.json",
    "optimize": "gepa/gepa_state.bin",
    "distill": "traces/*.jsonl",
}  # units of work a rerun must keep as they are


def prepare(target: str, root: Path) -> None:
    """Make what ``target``'s runs under ``root`` read beside them (distill: the scratch student,
    made by running tests/helpers/scratch_student.py, so that the fault benchmark can import this
    file without torch)."""
    if target == "distill":
        subprocess.run([sys.executable, str(HERE / "scratch_student.py"), str(root / "student")], check=True)


def run(target: str, out: Path, kill_after: float | None = None) -> int | None:
    """Run ``target`` into ``out``; with ``kill_after``, SIGKILL it after that many seconds (the
    exit code, or None when it was killed)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.helpers.kill_harness", target, str(Path(out).resolve())],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
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
    if target in EVALS:
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


def _weights(checkpoint: Path) -> dict:
    from safetensors.torch import load_file

    return dict(sorted(load_file(str(checkpoint / "model.safetensors")).items()))


def weight_drift(got: dict, reference: dict) -> dict[str, float | None]:
    """Per distill stage, the largest difference between two ``results``' weights (0.0: bit for
    bit; None: the tensors differ in name or shape)."""
    drift: dict[str, float | None] = {}
    for stage in ("sft", "grpo"):
        mine, theirs = got[stage], reference[stage]
        same_tensors = mine.keys() == theirs.keys() and all(mine[n].shape == theirs[n].shape for n in theirs)
        drift[stage] = max((mine[n] - theirs[n]).abs().max().item() for n in theirs) if same_tensors else None
    return drift


def differences(target: str, got: dict, reference: dict, drift: dict[str, float | None]) -> dict[str, object]:
    """What differs between two ``results``: for each distill stage its ``weight_drift`` where it
    exceeds ``DRIFT`` (or "other tensors"), for everything else the key; empty when equal."""
    if target != "distill":
        return {key: True for key in reference if got.get(key) != reference[key]}
    found: dict[str, object] = {"traces": True} if got["traces"] != reference["traces"] else {}
    for stage, largest in drift.items():
        if largest is None or largest > DRIFT:
            found[stage] = "other tensors" if largest is None else largest
    return found


def finished_units(target: str, out: Path) -> dict[str, bytes]:
    """Units of work already on disk (stream files; GEPA's checkpoint; trace files) and their bytes."""
    return {p.relative_to(out).as_posix(): p.read_bytes() for p in out.glob(DONE[target])}


def kept_tasks(out: Path) -> int:
    """Tasks an eval run directory keeps: those of finished streams and those in progress files."""
    finished = list(out.glob("streams/*/*.json"))
    progress = [
        p
        for p in out.glob("streams/*/*.progress.jsonl")
        if p.parent / p.name.replace(".progress.jsonl", ".json") not in finished
    ]
    return sum(len(json.loads(p.read_text())["records"]) for p in finished) + sum(
        p.read_bytes().count(b"\n") for p in progress
    )


def kill_and_resume(target: str, out: Path, reference: dict, rng: random.Random, duration: float) -> dict:
    """Kill ``target`` at a random moment of an uninterrupted run's ``duration`` (past the first
    quarter, most of which is start-up), rerun it to the end; report what was kept, how its
    results differ from ``reference`` (eval targets: also the tasks started before the kill and
    how many of them were lost; distill: each stage's weight drift)."""
    killed = run(target, out, kill_after=rng.uniform(duration / 4, duration)) is None
    before = finished_units(target, out) if target != "optimize" else {}
    stamps = {name: (out / name).stat().st_mtime_ns for name in before}
    tasks = {}
    if target in EVALS:
        started = Path(f"{out}.started")
        begun = started.read_text().count("\n") if started.exists() else 0
        tasks = {"tasks_started": begun, "tasks_lost": begun - kept_tasks(out)}
    run(target, out)
    kept = all(
        (out / name).read_bytes() == data and (out / name).stat().st_mtime_ns == stamps[name]
        for name, data in before.items()
    )
    rerun = results(target, out)
    drift = weight_drift(rerun, reference) if target == "distill" else {}
    return {
        "killed": killed,
        "finished_before_kill": len(before),
        "kept_unchanged": kept,
        "differences": differences(target, rerun, reference, drift),
        **tasks,
        **({"weight_drift": drift} if drift else {}),
    }


if __name__ == "__main__":  # run as a module from the repository root: `tests` imports from there
    from tests.helpers.temp_cache import use_a_temporary_dspy_cache

    use_a_temporary_dspy_cache()
    TARGETS[sys.argv[1]](sys.argv[2])
