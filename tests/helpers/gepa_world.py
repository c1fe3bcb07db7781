"""A scripted GEPA world: a task LM whose writer keeps the observation only once its
instructions say NEW and whose actor answers from the text it is shown, a reflection LM that
proposes NEW, and a small optimize config over it (the optimize tests, the kill harness and the
hosted-fault tests run GEPA on it)."""

import json
import re

import dspy
from dspy.utils.dummies import DummyLM

from promptmem.optimize.gepa import OptimizeConfig
from promptmem.suites.synthetic import KEY_KINDS, SERVICES

NEW = "Keep one line per service with its port, owner, region and version; drop everything else."
# one window per 5-task stream (warm starts from the seed's notes: empty, as the seed writer keeps nothing)
CONFIG = OptimizeConfig(
    writer="ops",
    max_metric_calls="14",
    train_streams=2,
    val_streams=2,
    test_streams=1,
    window=5,
    stream_tasks=5,
    test_tasks=6,
    seed=3,
    minibatch=2,
)


def reflection_lm() -> DummyLM:
    return DummyLM([{"new_instruction": NEW, "rules": [NEW]}] * 50, adapter=dspy.JSONAdapter())


class ScriptedWorld:
    """A task-LM engine whose writer keeps the observation only once its instructions say
    NEW, and whose actor answers from whatever text it is shown: so GEPA can find a better
    writer prompt, and only that."""

    def complete(self, request):
        system = request.system if isinstance(request.system, str) else "".join(p.text for p in request.system)
        user = request.messages[-1].text
        if "[[ ## lines ## ]]" in user:  # the select writer: every statement, or only the first
            numbers = re.findall(r"^\[(\d+)\] ", user, re.MULTILINE)
            return reply("keep", json.dumps([int(n) for n in numbers] if NEW in system else [1]))
        if "[[ ## outcome ## ]]" in user:
            observation = user.split("[[ ## observation ## ]]")[1].split("[[ ## question ## ]]")[0]
            ops = [
                {"action": "ADD", "note_id": "", "text": line.strip()}
                for line in observation.splitlines()
                if line.strip()
            ]
            return reply("operations", json.dumps(ops if NEW in system else []))
        question = user.split("[[ ## question ## ]]")[1].split("Respond")[0]
        service = next(s for s in SERVICES if s in question)
        kind = next(
            k
            for k, word in (("port", "port"), ("owner", "owns"), ("region", "region"), ("version", "version"))
            if word in question
        )
        found = [
            v
            for line in user.split("[[ ## question")[0].splitlines()
            if service in line
            for v in re.findall(KEY_KINDS[kind].pattern, line)
        ]
        return reply("answer", found[-1] if found else "unknown")

    def stream(self, request):
        raise NotImplementedError

    def close(self):
        pass


def reply(field, text):
    from dspy.lm15 import Message, Response, TextPart, Usage

    body = f"[[ ## {field} ## ]]\n{text}\n\n[[ ## completed ## ]]"
    return Response(
        id=None,
        model="scripted",
        message=Message.assistant([TextPart(body)]),
        finish_reason="stop",
        usage=Usage(input_tokens=1, output_tokens=1),
    )
