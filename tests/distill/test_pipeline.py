"""`promptmem distill` end to end on CPU: a scripted teacher, a tiny random student, real TRL
SFT and GRPO, held-out comparison; plus the trace schema and resumption."""

import json

import pytest

pytest.importorskip("trl", reason="the distill extra is not installed")

from datasets import load_from_disk  # noqa: E402

from promptmem.distill.pipeline import DistillConfig, _eval_configs, distill  # noqa: E402
from promptmem.distill.plan import resolved  # noqa: E402
from promptmem.distill.sft_data import sft_rows  # noqa: E402
from promptmem.distill.teacher_work import adopt_teacher_work  # noqa: E402
from promptmem.distill.training import TrainConfig  # noqa: E402
from promptmem.files import RunDirError  # noqa: E402
from promptmem.lm.specs import LMConfig  # noqa: E402
from promptmem.signals.traces import TRACE_FORMAT, TraceRow, read_traces  # noqa: E402
from tests.helpers.scratch_student import make_scratch_student  # noqa: E402
from tests.helpers.scripted import raising_lm, scripted_lm, typed_ops  # noqa: E402


def weights(checkpoint):
    from safetensors.torch import load_file

    return load_file(str(checkpoint / "model.safetensors"))


def differ(a, b) -> bool:
    import torch

    return any(not torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("distill")
    student = make_scratch_student(root / "student")
    config = DistillConfig(
        student=str(student),
        teacher="seed",
        writer="ops",
        hindsight_share=0.0,  # the teacher's ops writes (hindsight targets label the select writer)
        actor_samplers=(),
        writer_reward="recall",
        train_streams=1,
        tasks=6,
        test_streams=1,
        schedule=(("writer",), ("actor", "writer")),
        compare=("student", "student+sft", "student+grpo"),
        train=TrainConfig(
            sft_epochs=2,
            sft_lr=3e-3,
            batch_size=4,
            lora=True,
            grpo_steps=1,
            grpo_lr=1e-3,
            generations=4,
            max_completion_tokens=24,
            save_steps=100,
            prompts_per_step=2,
            gradient_checkpointing=False,
        ),
    )
    teacher = LMConfig(spec="scripted", max_tokens=24)
    lm = scripted_lm("42", {"operations": typed_ops("ADD session-store listens on port 3134")})
    summary = distill(config, teacher, root / "run", lm=lm, say=lambda _: None)
    return root, config, teacher, lm, summary


def test_sft_and_each_grpo_phase_change_the_students_weights(run):
    root, *_ = run
    before, after_sft = weights(root / "student"), weights(root / "run" / "sft" / "model")
    writer_phase, both_phase = weights(root / "run" / "grpo" / "model"), weights(root / "run" / "grpo-2" / "model")
    assert differ(before, after_sft) and differ(after_sft, writer_phase) and differ(writer_phase, both_phase)


def test_traces_schema_and_the_comparison(run):
    root, *_, summary = run
    rows = read_traces(next((root / "run" / "traces").glob("*.jsonl")))
    assert {r.role for r in rows} == {"actor", "writer"}
    line = json.loads((root / "run" / "traces").glob("*.jsonl").__next__().read_text().splitlines()[0])
    assert line["format"] == TRACE_FORMAT and line["prompt"][0]["role"] == "system"
    writer = next(r for r in rows if r.role == "writer" and r.position > 0)
    assert json.loads(writer.completion) == {"operations": typed_ops("ADD session-store listens on port 3134")}
    assert writer.notes and writer.budget == 800  # the memory the prompt was rendered from
    assert all(r.credit is None for r in rows if r.role == "actor")
    assert any(r.credit is not None for r in rows if r.role == "writer")
    all_rows = [r for path in (root / "run" / "traces").glob("*.jsonl") for r in read_traces(path)]
    dataset = load_from_disk(str(root / "run" / "traces" / "dataset"))
    assert dataset.num_rows == len(all_rows)
    assert {"role", "prompt", "completion", "score", "credit", "stream_id", "task_id", "snapshot_id"} <= set(
        dataset.column_names
    )
    assert writer.task_id and len({(r.snapshot_id, r.position) for r in rows}) == len({r.position for r in rows})
    assert len({r.snapshot_id for r in rows}) > 1  # one id per memory state: writes change it
    assert set(summary["comparison"]) == {"teacher", "student", "student+sft", "student+grpo"}
    assert [(p["step"], p["phase"]) for p in summary["grpo_rewards"]] == [(1, 1), (2, 2)]
    for name in ("comparison.json", "comparison.md", "comparison.png"):
        assert (root / "run" / "eval" / name).is_file()
    assert (root / "run" / "grpo_rewards.png").is_file()


def test_a_rerun_resumes_and_a_changed_config_is_refused(run):
    root, config, teacher, lm, summary = run
    stamp = (root / "run" / "grpo-2" / "model" / "model.safetensors").stat().st_mtime
    again = distill(config, teacher, root / "run", lm=lm, say=lambda _: None)
    assert again["comparison"] == summary["comparison"]
    assert (root / "run" / "grpo-2" / "model" / "model.safetensors").stat().st_mtime == stamp
    with pytest.raises(RunDirError, match="horizon"):
        distill(DistillConfig(**{**config.__dict__, "horizon": 5}), teacher, root / "run", lm=lm)


def test_a_run_adopts_the_teacher_work_of_a_run_traced_under_the_same_settings(run, tmp_path):
    """Another student training (fewer SFT epochs, more threads) starts from the finished run's
    traces and teacher row without calling the teacher; under another trace setting only the
    held-out row is adopted, and with other held-out streams too nothing is."""
    root, config, teacher, *_ = run
    other = DistillConfig(**{**config.__dict__, "train": TrainConfig(**{**config.train.__dict__, "sft_epochs": 1})})
    silent = raising_lm(AssertionError("adopted traces must not call the teacher"))
    faster = LMConfig(**{**teacher.__dict__, "threads": 2})
    done = distill(
        other, faster, tmp_path / "new", lm=silent, until="traces", teacher_from=root / "run", say=lambda _: None
    )
    assert done["traces"] == sum(len(read_traces(p)) for p in (root / "run" / "traces").glob("*.jsonl"))
    row = "eval/teacher/report.json"
    assert (tmp_path / "new" / row).read_text() == (root / "run" / row).read_text()
    retraced = resolved(DistillConfig(**{**other.__dict__, "horizon": 5}))
    adopted = adopt_teacher_work(root / "run", tmp_path / "y", retraced, teacher, _eval_configs(retraced)[1])
    assert adopted == ["eval/teacher"]
    elsewhere = DistillConfig(**{**retraced.__dict__, "test_seed": 7})
    with pytest.raises(RunDirError, match=r"differs in: distill\.horizon\) .*\(eval\.seed\)"):
        distill(elsewhere, teacher, tmp_path / "x", teacher_from=root / "run")


def test_trace_files_with_a_bad_line_name_the_line(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text('{"format": "promptmem.signals.traces/1"}\n')
    with pytest.raises(ValueError, match=r"s.jsonl:1: not a trace row"):
        read_traces(path)


def test_sft_keeps_usable_writes_with_credit_and_actor_rows_that_scored():
    def row(role, score=None, write_error="", credit=None):
        return TraceRow(
            role=role,
            predictor=f"{role}.predict",
            stream_id="s",
            position=1,
            prompt=[],
            completion="",
            score=score,
            write_error=write_error,
            notes=[],
            next_id=1,
            budget=800,
            baseline=0.0,
            credit=credit,
        )

    rows = [
        row("actor", 1.0),
        row("actor", 0.0),
        row("writer", credit=0.5),
        row("writer", credit=-0.5),
        row("writer", write_error="unknown id"),
        row("writer"),
    ]
    assert sft_rows(rows, 0.5) == [rows[0], rows[2], rows[3], rows[5]]
    assert sft_rows(rows, 0.5, min_writer_credit=0.0) == [rows[0], rows[2], rows[5]]


def test_a_schedule_of_unknown_roles_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="schedule"):
        distill(DistillConfig(schedule=(("critic",),)), LMConfig(spec="scripted"), tmp_path / "run")
    assert not (tmp_path / "run").exists()


def test_a_missing_student_is_refused_before_any_work(tmp_path, monkeypatch):
    from promptmem.distill.students import StudentNotFound

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    lm = scripted_lm("x", {"operations": typed_ops("NOOP")})
    with pytest.raises(StudentNotFound, match="Qwen/Qwen3-4B-Instruct-2507"):
        distill(DistillConfig(student="qwen-4b"), LMConfig(spec="scripted"), tmp_path / "run", lm=lm)
    assert not (tmp_path / "run").exists() and lm.history == []


def test_a_mem0_teacher_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match="keeps its memories in mem0"):
        distill(
            DistillConfig(teacher="mem0", student="smollm2-135m"),
            LMConfig(spec="scripted"),
            tmp_path / "run",
            lm=scripted_lm("x", {}),
        )
    assert not (tmp_path / "run").exists()


def test_resume_passes_over_a_checkpoint_a_kill_left_half_written(tmp_path):
    from promptmem.distill.training import last_complete_checkpoint

    assert last_complete_checkpoint(tmp_path / "none") is None
    for step, state in ((2, "{}"), (10, '{"global_step": 10}'), (11, '{"glob'), (12, None)):
        folder = tmp_path / f"checkpoint-{step}"
        folder.mkdir()
        if state is not None:
            (folder / "trainer_state.json").write_text(state)
    assert last_complete_checkpoint(tmp_path) == str(tmp_path / "checkpoint-10")


def test_sft_scoring_the_head_on_labelled_positions_only_changes_no_weight(run, tmp_path):
    from contextlib import nullcontext
    from unittest import mock

    from promptmem.distill.training import sft

    root = run[0]
    rows = [row for path in sorted((root / "run" / "traces").glob("*.jsonl")) for row in read_traces(path)][:4]
    train = TrainConfig(sft_epochs=1, sft_lr=3e-3, batch_size=2, save_steps=100, gradient_checkpointing=False)
    compact = sft(root / "student", rows, tmp_path / "compact", train)
    with mock.patch("promptmem.distill.training._head_on_labelled_positions", nullcontext):
        every = sft(root / "student", rows, tmp_path / "every", train)
    assert not differ(weights(compact), weights(every))
    assert differ(weights(compact), weights(root / "student"))
