"""GEPA end to end with scripted LMs: instructions change, artifacts land, runs resume."""

import json
import re
from dataclasses import replace

import dspy
import pytest
from dspy.utils.dummies import DummyLM

from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import OptimizeConfig, continual_metric, optimize
from promptmem.programs import load_agent
from promptmem.roles import role_of
from promptmem.runner import StreamResult
from promptmem.suites.synthetic import SyntheticSuite
from tests.helpers.gepa_world import CONFIG, NEW, ScriptedWorld, reflection_lm


def run(tmp_path, reflection, config=CONFIG, world=ScriptedWorld):
    """``optimize`` with ``config`` over the scripted ``world`` (tests change CONFIG's fields)."""
    task_lm = dspy.LM("scripted/world", engine=world(), cache=False)
    return optimize(
        config,
        LMConfig(spec="dummy/task"),
        LMConfig(spec="dummy/reflect"),
        tmp_path,
        lm=task_lm,
        reflection_lm=reflection,
    )


def test_gepa_changes_the_instructions_and_writes_the_run(tmp_path):
    summary = run(tmp_path, reflection_lm())
    assert summary["optimized_instructions"]["agent.writer.predict"].endswith("\n" + NEW)
    assert summary["best_val_score"] > summary["seed_val_score"]
    assert NEW in summary["proposals"]["accepted"] and summary["proposals"]["tried"] >= 1
    candidates = json.loads((tmp_path / "candidates.json").read_text())["candidates"]
    assert len(candidates) >= 2
    assert any(NEW in text for c in candidates[1:] for text in c["instructions"].values())
    assert set(candidates[0]["instructions"]) == {"agent.actor.predict", "agent.writer.predict"}
    for name in ("program.json", "pareto.json", "optimize_curve.png", "comparison.json", "summary.json"):
        assert (tmp_path / name).stat().st_size > 0
    comparison = json.loads((tmp_path / "comparison.json").read_text())
    assert set(comparison) == {"seed", "optimized"}
    loaded = load_agent(tmp_path / "program.json")
    assert loaded.writer_kind == "ops" and loaded.writer.predict.signature.instructions.endswith(NEW)
    assert comparison["optimized"]["score"] > comparison["seed"]["score"]
    paired = comparison["optimized"]["paired"]["seed"]  # per question, on the same held-out streams
    assert paired["diff"] == round(comparison["optimized"]["score"] - comparison["seed"]["score"], 4)
    assert paired["wins"] > paired["losses"] == 0 and "paired" not in comparison["seed"]
    assert "| optimized vs seed |" in (tmp_path / "comparison.md").read_text()


def test_rerun_resumes_from_the_gepa_checkpoint(tmp_path):
    first = run(tmp_path, reflection_lm())
    again = reflection_lm()
    second = run(tmp_path, again)
    assert second["metric_calls"] == first["metric_calls"]
    assert again.history == []  # no new proposals: GEPA resumed at its finished state


def test_metric_routes_feedback_by_role():
    assert role_of("agent.writer.predict") == "writer" and role_of("agent.actor.predict") == "actor"
    assert role_of(None) is None
    result = StreamResult("s", "seed", [], [], [])
    pred = dspy.Prediction(result=result, suite=SyntheticSuite())
    out = continual_metric(None, pred, pred_name="agent.writer.predict")
    assert out.score == 0.0 and "No problems found" in out.feedback


def synthetic_as_jsonl(path, streams: int, tasks: int, seed: int):
    """Synthetic streams written as a user's JSONL file, with the documented ground-truth meta."""
    from promptmem.suites import make_suite

    lines = []
    for stream in make_suite("synthetic", tasks=tasks).streams(streams, seed=seed):
        rows = []
        for t in stream.tasks:
            meta = {"subject": t.meta["service"], "stale": t.meta["stale_values"]} if t.question else {}
            rows.append(
                {
                    "id": t.id,
                    "observation": t.observation,
                    "question": t.question,
                    "answer": list(t.answer) or None,
                    "scorer": "contains",
                    "meta": meta,
                }
            )
        lines.append(json.dumps({"stream_id": stream.id, "tasks": rows}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_optimize_on_a_jsonl_file_uses_disjoint_streams_and_writes_the_split(tmp_path):
    data = synthetic_as_jsonl(tmp_path / "mine.jsonl", streams=5, tasks=10, seed=11)
    config = OptimizeConfig(
        writer="ops",
        suite="jsonl",
        data=str(data),
        max_metric_calls="10",
        train_streams=2,
        val_streams=2,
        test_streams=1,
        window=5,
        minibatch=2,
    )
    task_lm = dspy.LM("scripted/world", engine=ScriptedWorld(), cache=False)
    summary = optimize(
        config,
        LMConfig(spec="dummy/task"),
        LMConfig(spec="dummy/reflect"),
        tmp_path / "run",
        lm=task_lm,
        reflection_lm=reflection_lm(),
    )
    split = json.loads((tmp_path / "run" / "split.json").read_text())
    assert len(split["train"]) == 2 and len(split["val"]) == 2 and len(split["test"]) == 1
    assert not set(split["train"]) & set(split["val"]) and not (set(split["train"]) | set(split["val"])) & set(
        split["test"]
    )
    assert split["train_windows"] >= 2
    assert summary["optimized_instructions"]["agent.writer.predict"].endswith("\n" + NEW)
    held_out = json.loads((tmp_path / "run" / "test" / "optimized" / "report.json").read_text())
    assert list(held_out["agent"]["per_stream"]) == split["test"]


def test_a_file_too_small_to_split_is_a_clear_error(tmp_path):
    import pytest

    data = synthetic_as_jsonl(tmp_path / "small.jsonl", streams=3, tasks=6, seed=12)
    config = OptimizeConfig(writer="ops", suite="jsonl", data=str(data), train_streams=2, val_streams=2, test_streams=1)
    with pytest.raises(ValueError, match="holds 3 streams; optimize needs 5 disjoint ones"):
        optimize(
            config,
            LMConfig(spec="dummy/task"),
            LMConfig(spec="dummy/reflect"),
            tmp_path / "run",
            lm=DummyLM([]),
            reflection_lm=DummyLM([]),
        )


def test_the_mem0_agent_is_refused_before_the_run_directory_is_claimed(tmp_path):
    import pytest

    with pytest.raises(ValueError, match="keeps its memories in mem0"):
        optimize(
            OptimizeConfig(writer="ops", agent="mem0"),
            LMConfig(spec="dummy/task"),
            LMConfig(spec="dummy/reflect"),
            tmp_path / "run",
            lm=DummyLM([]),
            reflection_lm=DummyLM([]),
        )
    assert not (tmp_path / "run").exists()


class CountingWorld(ScriptedWorld):
    """ScriptedWorld that counts the actor's calls."""

    actor_calls = 0

    def complete(self, request):
        if "[[ ## outcome ## ]]" not in request.messages[-1].text:
            CountingWorld.actor_calls += 1
        return super().complete(request)


def test_recall_objective_runs_the_writer_alone_and_evolves_only_the_writer(tmp_path):
    summary = run(
        tmp_path,
        reflection_lm(),
        replace(CONFIG, max_metric_calls="10", test_streams=0, objective="recall"),
        world=CountingWorld,
    )
    assert CountingWorld.actor_calls == 0
    assert summary["optimized_instructions"]["agent.writer.predict"].endswith("\n" + NEW)
    assert (
        summary["optimized_instructions"]["agent.actor.predict"] == summary["seed_instructions"]["agent.actor.predict"]
    )
    assert summary["best_val_score"] > summary["seed_val_score"] == 0.0  # the seed writer keeps nothing


def test_gepa_evolves_the_select_writer(tmp_path):
    summary = run(
        tmp_path,
        reflection_lm(),
        replace(CONFIG, max_metric_calls="10", test_streams=0, objective="recall", writer="select"),
    )
    assert summary["optimized_instructions"]["agent.writer.predict"].endswith("\n" + NEW)
    assert summary["best_val_score"] > summary["seed_val_score"]
    assert load_agent(tmp_path / "program.json").writer_kind == "select"


def test_the_topics_proposer_tries_rules_read_off_the_feedback_without_a_reflection_model(tmp_path):
    config = replace(
        CONFIG, max_metric_calls="10", test_streams=0, objective="recall", writer="select", proposer="topics"
    )
    summary = run(tmp_path, reflection=None, config=config)
    tried = summary["proposals"]["tried_examples"]
    assert tried and all(re.fullmatch(r"(Keep every statement|Leave out statements) about [a-z ]+\.", r) for r in tried)
    assert json.loads((tmp_path / "proposals.json").read_text())["log"]


def test_gepa_default_proposer_still_works(tmp_path):
    summary = run(tmp_path, reflection_lm(), replace(CONFIG, test_streams=0, proposer="gepa"))
    assert summary["optimized_instructions"]["agent.writer.predict"] == NEW


def test_when_no_candidate_is_accepted_the_held_out_comparison_runs_the_seed_once(tmp_path):
    useless = "Be careful."  # the scripted writer ignores it: no candidate can beat the seed
    summary = run(
        tmp_path, DummyLM([{"new_instruction": useless, "rules": [useless]}] * 50, adapter=dspy.JSONAdapter())
    )
    assert summary["optimized_instructions"] == summary["seed_instructions"]
    assert set(summary["test"]) == {"seed"} and not (tmp_path / "test" / "optimized").exists()


def test_demos_are_compared_held_out_alone_and_after_the_instructions(tmp_path):
    summary = run(tmp_path, reflection_lm(), replace(CONFIG, writer="select", demos=2))
    assert {"seed", "seed + demos"} <= set(summary["test"])
    assert len(summary["demos"]["writer"]) == 2 and "keep" in summary["demos"]["writer"][0]
    assert len(load_agent(tmp_path / "seed_demos.json").writer.predict.demos) == 2


def test_a_second_run_into_a_held_run_directory_is_refused(tmp_path):
    from promptmem.files import RunDirError
    from promptmem.rundir import run_lock

    with run_lock(tmp_path), pytest.raises(RunDirError, match="in use by another run"):
        run(tmp_path, reflection_lm())
    assert not (tmp_path / "config.json").exists()


def test_an_unknown_demos_target_is_refused_before_any_work(tmp_path):
    with pytest.raises(ValueError, match=r"demos-target: 'asked' is not one of needed \| stated"):
        run(tmp_path, reflection_lm(), replace(CONFIG, writer="select", demos=2, demos_target="asked"))
    assert not (tmp_path / "config.json").exists()
