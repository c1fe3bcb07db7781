import atexit
import os
import shutil
import tempfile

# Before dspy is imported anywhere: no network, and no DSPy disk cache outside a temp dir,
# removed when the session ends.
if "DSPY_CACHEDIR" not in os.environ:
    os.environ["DSPY_CACHEDIR"] = tempfile.mkdtemp(prefix="promptmem-dspy-cache-")
    atexit.register(shutil.rmtree, os.environ["DSPY_CACHEDIR"], ignore_errors=True)
import dspy  # noqa: E402
import pytest  # noqa: E402
from dspy.utils.dummies import DummyLM  # noqa: E402

import promptmem  # noqa: E402,F401  (sets the offline defaults)

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


@pytest.fixture
def synthetic_suite():
    from promptmem.suites import make_suite

    return make_suite("synthetic", tasks=8)


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


MISSING_DEPENDENCY = "is not installed"  # the phrase every skip for a missing extra or model uses


def fail_if_skipped_for_a_missing_dependency(report) -> None:
    """A skip for a missing dependency is a hidden failure: the README's install command
    provides every extra and model the tests use, so such a skip is reported as failed."""
    if report.skipped and MISSING_DEPENDENCY in str(report.longrepr):
        report.outcome = "failed"
        report.longrepr = f"skipped for a dependency the README's install command provides: {report.longrepr}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    fail_if_skipped_for_a_missing_dependency((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # a module skipped at import (module-level importorskip)
    fail_if_skipped_for_a_missing_dependency((yield).get_result())


def assert_budget_holds_the_needed_statements(suite, budget: int) -> None:
    """A generated world's streams (the first six): the statements still needed at any point fit in
    half the notes budget, while the raw observations need five budgets and more."""
    from promptmem.signals.hindsight import hindsight_labels

    for stream in suite.streams(6):
        labels = hindsight_labels(stream, suite)
        pending = [
            sum(len(x.text) for x in labels if x.needed_by and x.position < p <= x.last_need)
            for p in range(len(stream.tasks))
        ]
        assert 0 < max(pending) <= budget / 2
        assert sum(len(t.observation) for t in stream.tasks) > 5 * budget
