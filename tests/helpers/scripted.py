"""Scripted LMs: a DummyLM that answers the actor and the writer by role, and an LM whose every
call raises."""

import dspy
from dspy.utils.dummies import DummyLM

WRITER_KEY = "[[ ## outcome ## ]]"  # only writer prompts have an outcome field
ACTOR_KEY = "[[ ## question ## ]]"


def typed_ops(text: str) -> list[dict]:
    """The typed ``operations`` output for ops written one per line (``ADD x`` / ``DELETE n1``)."""
    from promptmem.programs.ops_format import parse_ops

    return [
        {"action": op.kind, "note_id": op.note_id or "", "text": op.text, "importance": 3} for op in parse_ops(text).ops
    ]


def scripted_lm(answer: str, writer_output: dict, adapter=None) -> DummyLM:
    """A DummyLM that answers every actor call with ``answer`` and every writer call with
    ``writer_output`` (a dict of output fields), in ``adapter``'s format (default: chat)."""
    return DummyLM({WRITER_KEY: writer_output, ACTOR_KEY: {"answer": answer}}, adapter=adapter)


class RaisingEngine:
    """A DSPy engine whose every call raises ``error``."""

    def __init__(self, error: Exception):
        self.error = error

    def complete(self, request):
        raise self.error

    def stream(self, request):
        raise self.error

    def close(self):
        pass


def raising_lm(error: Exception) -> dspy.LM:
    return dspy.LM("test/raising", engine=RaisingEngine(error), cache=False, num_retries=0)
