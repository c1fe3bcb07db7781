"""A recorded distill run (``benchmarks.experiments.distill``) keeps its rows' per-question scores,
so that the students of two runs held out on the same streams compare paired (``--vs``)."""

from benchmarks.experiments.distill import versus


def results(run: str, scores: dict[str, dict[str, float]]) -> dict:
    return {"run": run, "student": "student+grpo", "question_scores": {"teacher": {}, "student+grpo": scores}}


def test_two_runs_students_compare_paired_on_the_questions_both_scored():
    annotated = results("runs/a", {"s/0": {"t01": 1.0, "t02": 0.0}, "s/1": {"t01": 1.0, "t05": 1.0}})
    stripped = results(
        "runs/b", {"s/0": {"t01": 1.0, "t02": 1.0}, "s/1": {"t01": 0.0, "t05": 1.0}, "s/2": {"t01": 1.0}}
    )
    vs = versus(stripped, annotated)
    assert vs["results"] == "runs/a" and (vs["questions"], vs["streams"]) == (4, 2)
    assert (vs["wins"], vs["losses"], vs["ties"]) == (1, 1, 2)
    assert (vs["mean_a"], vs["mean_b"], vs["diff"]) == (0.75, 0.75, 0.0) and vs["verdict"] == "within noise"
