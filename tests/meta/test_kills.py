"""SIGKILL at random moments: the rerun finishes, keeps what was done, and equals an
uninterrupted run (eval, a LoCoMo conversation, optimize and distill, scripted LMs; distill with
a scratch student, its weights within float32 drift); an eval kill loses at most the task in
progress."""

import random
import time

import pytest

from tests.helpers.kill_harness import EVALS, kill_and_resume, prepare, results, run


@pytest.mark.parametrize("target", ["eval", "locomo", "optimize", "distill"])
def test_killed_runs_resume_to_the_same_results(tmp_path, target):
    if target == "distill":
        pytest.importorskip("trl", reason="the distill extra is not installed")
    prepare(target, tmp_path)
    start = time.perf_counter()
    run(target, tmp_path / "reference")
    duration = time.perf_counter() - start
    reference = results(target, tmp_path / "reference")
    rng = random.Random(7)
    outcomes = [kill_and_resume(target, tmp_path / f"killed-{i}", reference, rng, duration) for i in range(3)]
    assert all(o["kept_unchanged"] and not o["differences"] for o in outcomes), outcomes
    assert target not in EVALS or all(o["tasks_lost"] <= 1 for o in outcomes), outcomes
    assert any(o["killed"] for o in outcomes)
