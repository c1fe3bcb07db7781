"""A recorded distill run (``benchmarks.experiments.distill``) keeps its rows' per-question scores,
so that the students of two runs held out on the same streams compare paired (``--vs``), and the
student after GRPO compares with the same run's student after SFT (``--rl``)."""

import json

import pytest

from benchmarks.experiments import distill
from benchmarks.experiments.distill import rl_versus_sft, versus


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


def test_what_grpo_added_pairs_the_runs_two_students_and_their_notes_recall():
    run = {
        "run": "runs/rl",
        "comparison": {"teacher": {}, "student+sft": {"notes_recall": 0.5}, "student+grpo": {"notes_recall": 0.625}},
        "question_scores": {
            "student+sft": {"s/0": {"t01": 0.0, "t02": 1.0}, "s/1": {"t01": 1.0}},
            "student+grpo": {"s/0": {"t01": 1.0, "t02": 1.0}, "s/1": {"t01": 1.0}},
        },
    }
    vs = rl_versus_sft(run)
    assert (vs["mean_a"], vs["mean_b"], vs["wins"], vs["losses"]) == (0.75, 1.0, 1, 0)
    assert vs["notes_recall"] == {"student+sft": 0.5, "student+grpo": 0.625} and vs["notes_recall_gain"] == 0.125


def test_a_run_that_adopted_its_sft_pairs_with_that_runs_sft_student(tmp_path, monkeypatch):
    source = tmp_path / "sft-run"
    source.mkdir()
    (source / "summary.json").write_text(json.dumps({"comparison": {"student+sft": {"notes_recall": 0.5}}}))
    monkeypatch.setattr(
        distill, "_scores", lambda row: {"s/0": {"t01": 0.0, "t02": 1.0}} if row.parent.parent == source else {}
    )
    run = {
        "run": "runs/grpo-variant",
        "comparison": {"teacher": {}, "student+grpo": {"notes_recall": 0.75}},
        "timings": {"sft": {"adopted_from": str(source)}},
        "question_scores": {"student+grpo": {"s/0": {"t01": 1.0, "t02": 1.0}}},
    }
    vs = distill.rl_versus_sft(run)
    assert (vs["mean_a"], vs["mean_b"], vs["wins"], vs["sft_row_from"]) == (0.5, 1.0, 1, str(source))
    assert vs["notes_recall_gain"] == 0.25
    recorded = {  # the SFT student recorded from another run of the same SFT model (--sft-from)
        "run": "runs/sft-recorded",
        "student": "student+sft",
        "comparison": {"student+sft": {"notes_recall": 0.75}},
        "question_scores": {"student+sft": {"s/0": {"t01": 1.0, "t02": 1.0}}},
    }
    vs = distill.rl_versus_sft({**run, "timings": {}}, recorded)
    assert (vs["ties"], vs["sft_row_from"], vs["notes_recall_gain"]) == (2, "runs/sft-recorded", 0.0)


def test_what_grpo_added_needs_an_sft_students_row():
    run = {"run": "runs/grpo-only", "comparison": {"teacher": {}, "student+grpo": {}}, "timings": {}}
    with pytest.raises(
        ValueError, match="its SFT stage is its own: run it with --compare student\\+sft,student\\+grpo"
    ):
        distill.rl_versus_sft(run)


def test_a_record_names_the_student_asked_for_or_refuses_a_row_the_run_lacks(tmp_path, monkeypatch):
    monkeypatch.setattr(distill, "_scores", lambda row: {})
    (tmp_path / "config.json").write_text(json.dumps({"distill": {}, "teacher_lm": {}}))
    (tmp_path / "student.json").write_text("{}")
    rows = {
        "teacher": {},
        "student+sft": {"paired": {"teacher": {"diff": 0.1}}},
        "student+grpo": {"paired": {"teacher": {}}},
    }
    summary = {"comparison": rows, "timings": {}, "student_card": str(tmp_path / "STUDENT.md")}
    summary |= dict.fromkeys(("sft_rows", "sft_sources", "actor_cases", "flat_share", "grpo_rewards"))
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    result = distill.record(tmp_path, "synthetic", "none", student="student+sft")
    assert result["student"] == "student+sft" and result["vs_teacher"] == {"diff": 0.1}
    assert distill.record(tmp_path, "synthetic", "none")["student"] == "student+grpo"
    with pytest.raises(ValueError, match="not student\\+rl"):
        distill.record(tmp_path, "synthetic", "none", student="student+rl")
