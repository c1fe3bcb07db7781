"""GEPA end to end with scripted LMs: instructions change, artifacts land, runs resume."""

import json
import re

import dspy
from dspy.utils.dummies import DummyLM

from promptmem.lm import LMConfig
from promptmem.optimize import OptimizeConfig, continual_metric, optimize, role_of
from promptmem.programs import load_agent
from promptmem.runner import StreamResult
from promptmem.suites.synthetic import KEY_KINDS, SERVICES

NEW = "Keep one line per service with its port, owner, region and version; drop everything else."
CONFIG = OptimizeConfig(budget="14", train=2, val=2, test=1, window=5, test_tasks=6, seed=3, minibatch=2)


def reflection_lm() -> DummyLM:
    return DummyLM([{"new_instruction": NEW}] * 50, adapter=dspy.JSONAdapter())


class ScriptedWorld:
    """A task-LM engine whose writer keeps the observation only once its instructions say
    NEW, and whose actor answers from whatever text it is shown: so GEPA can find a better
    writer prompt, and only that."""

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
        user = request.messages[-1].text
        if "[[ ## outcome ## ]]" in user:
            observation = user.split("[[ ## observation ## ]]")[1].split("[[ ## question ## ]]")[0]
            lines = [f"ADD {line.strip()}" for line in observation.splitlines() if line.strip()]
            text = "\n".join(lines) if NEW in system else "NOOP"
            return _reply("operations", text)
        question = user.split("[[ ## question ## ]]")[1].split("Respond")[0]
        service = next(s for s in SERVICES if s in question)
        kind = next(k for k, word in (("port", "port"), ("owner", "owns"), ("region", "region"),
                                      ("version", "version")) if word in question)
        found = [v for line in user.split("[[ ## question")[0].splitlines() if service in line
                 for v in re.findall(KEY_KINDS[kind].pattern, line)]
        return _reply("answer", found[-1] if found else "unknown")

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def _reply(field, text):
    from dspy.lm15 import Message, Response, TextPart, Usage

    body = f"[[ ## {field} ## ]]\n{text}\n\n[[ ## completed ## ]]"
    return Response(id=None, model="scripted", message=Message.assistant([TextPart(body)]),
                    finish_reason="stop", usage=Usage(input_tokens=1, output_tokens=1))


def run(tmp_path, reflection):
    task_lm = dspy.LM("scripted/world", engine=ScriptedWorld(), cache=False)
    return optimize(CONFIG, LMConfig(spec="dummy/task"), LMConfig(spec="dummy/reflect"), tmp_path,
                    lm=task_lm, reflection_lm=reflection)


def test_gepa_changes_the_instructions_and_writes_the_run(tmp_path):
    summary = run(tmp_path, reflection_lm())
    assert summary["optimized_instructions"]["agent.writer.predict"] == NEW
    assert summary["best_val_score"] > summary["seed_val_score"]
    candidates = json.loads((tmp_path / "candidates.json").read_text())["candidates"]
    assert len(candidates) >= 2
    assert any(NEW in c["instructions"].values() for c in candidates[1:])
    assert set(candidates[0]["instructions"]) == {"agent.actor.predict", "agent.writer.predict"}
    for name in ("program.json", "pareto.json", "optimize_curve.png", "comparison.json", "summary.json"):
        assert (tmp_path / name).stat().st_size > 0
    comparison = json.loads((tmp_path / "comparison.json").read_text())
    assert set(comparison) == {"seed", "optimized"}
    loaded = load_agent(tmp_path / "program.json")
    assert loaded.writer_kind == "ops" and loaded.writer.predict.signature.instructions == NEW
    assert comparison["optimized"]["score"] > comparison["seed"]["score"]


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
    pred = dspy.Prediction(result=result)
    out = continual_metric(None, pred, pred_name="agent.writer.predict")
    assert out.score == 0.0 and "No problems found" in out.feedback
