"""Rejection-sampled teacher traces: each call sampled k times, the row keeps the best by its
role's reward (an answer's score; a write's notes recall of the next questions)."""

import json
import re

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

from promptmem.programs.agent import build_agent
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.traces import Sampling, export_traces, sampling_report
from promptmem.suites import make_suite
from tests.helpers.scripted import ACTOR_KEY, WRITER_KEY


class SeededTeacher:
    """A DSPy engine standing in for a sampled teacher: greedy calls answer "no idea" and write
    NOOP; the sample with seed 2 answers right (from ``answers``) and every sample writes the
    observation down."""

    def __init__(self, answers: dict[str, str]):
        self.answers = answers

    def complete(self, request):
        text = "\n".join(m.text or "" for m in request.messages)
        seed = request.config.seed if request.config.temperature else 0
        if WRITER_KEY in text:
            observation = re.search(r"\[\[ ## observation ## \]\]\n(.*?)\n\n\[\[", text, re.S).group(1)
            op = (
                {"action": "ADD", "note_id": "", "text": observation[:300], "importance": 3}
                if seed
                else {"action": "NOOP", "note_id": "", "text": "", "importance": 3}
            )
            reply = {"operations": [op]}
        else:
            assert ACTOR_KEY in text
            gold = next(answer for question, answer in self.answers.items() if question in text)
            reply = {"answer": gold if seed == 2 else "no idea"}
        return Response(
            id="x",
            model="seeded",
            message=Message.assistant([TextPart(json.dumps(reply))]),
            finish_reason="stop",
            usage=Usage(input_tokens=1, output_tokens=1),
        )

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self):
        pass


def test_each_row_keeps_the_best_of_k_samples_and_the_report_gives_pass_at_1_and_k(tmp_path):
    suite = make_suite("synthetic", tasks=10)
    (stream,) = suite.streams(1, seed=7)
    lm = dspy.LM(
        "test/seeded",
        engine=SeededTeacher({t.question: t.answer[0] for t in stream.tasks if t.is_question}),
        cache=False,
        num_retries=0,
    )
    agent, adapter = build_agent("seed", "ops"), dspy.JSONAdapter()
    teacher = Pipeline(agent, suite, lm, adapter)
    plain = export_traces(teacher, [stream], 800, tmp_path / "plain", show_progress=False)
    sampled = export_traces(
        teacher, [stream], 800, tmp_path / "sampled", sampling=Sampling(samples=3), show_progress=False
    )
    assert len(plain) == len(sampled) and all(not r.sample_rewards for r in plain)

    actors = [r for r in sampled if r.role == "actor"]
    assert actors and all(r.sample_rewards == [0.0, 0.0, 1.0] and r.score == 1.0 for r in actors)
    assert all(json.loads(r.completion)["answer"] != "no idea" for r in actors)
    assert all(r.score == 0.0 for r in plain if r.role == "actor")

    writers = [r for r in sampled if r.role == "writer" and r.sample_rewards]
    improved = [r for r in writers if max(r.sample_rewards) > r.sample_rewards[0]]
    assert improved and all('"ADD"' in r.completion for r in improved)
    assert all('"NOOP"' in r.completion for r in writers if max(r.sample_rewards) == r.sample_rewards[0])

    report = sampling_report(sampled, threshold=0.5)
    assert report["actor"] == {
        "rows": len(actors),
        "sampled": len(actors),
        "samples": 3,
        "greedy_reward": 0.0,
        "best_reward": 1.0,
        "pass_at_1": 0.0,
        "pass_at_k": 1.0,
    }
    assert report["writer"]["best_reward"] > report["writer"]["greedy_reward"]
    # the stream went on with the greedy outputs: every row starts from the teacher's own memory
    assert [(r.position, r.notes) for r in sampled] == [(r.position, r.notes) for r in plain]
