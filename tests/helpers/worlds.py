"""What every generated world (household, on-call) promises, checked the same way for each: seeded
bytes, the documented meta on every question, an origin that states the answer, a notes budget
that holds what is still needed."""

from promptmem.programs.select import statements
from promptmem.signals.hindsight import statement_holds
from promptmem.tasks import Fact, Task

META = {"subject", "revealed_in", "updated_in", "stale", "current", "kind", "question_type", "delay", "states"}


def assert_seeded(write, tmp_path) -> None:
    """``write(path, streams, seed, prefix=...)``: the same seed gives the same bytes, another seed
    other streams."""
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        write(tmp_path / f"{name}.jsonl", 2, seed, prefix="x")
    a, b, c = ((tmp_path / f"{name}.jsonl").read_bytes() for name in "abc")
    assert a == b and a != c


def checked_questions(suite) -> list[tuple[Task, Task]]:
    """The questions of the first six streams, each with the task that revealed its answer, once
    checked: the documented meta, an origin no later than the question (the question itself exactly
    when it is a `current` one), as many stale values as updates (the last update the origin, no
    stale value the answer), the answer scoring 1 and every stale value 0."""
    found = []
    for stream in suite.streams(6):
        by_id = {t.id: t for t in stream.tasks}
        for position, task in enumerate(stream.tasks):
            if not task.is_question:
                continue
            meta, value = task.meta, task.answer[0]
            assert META <= set(meta), task.id
            origin = by_id[meta["revealed_in"]]
            assert stream.tasks.index(origin) <= position
            assert meta["current"] == (origin is task) == (meta["question_type"] == "current")
            assert value not in meta["stale"] and len(meta["stale"]) == len(meta["updated_in"])
            if meta["updated_in"]:
                assert meta["updated_in"][-1] == meta["revealed_in"]
            assert suite.score(task, value).score == 1.0
            assert all(suite.score(task, old).score == 0.0 for old in meta["stale"])
            found.append((task, origin))
    return found


def assert_the_origin_states_the_answer(suite, task: Task, origin: Task) -> None:
    """One statement of ``origin`` holds ``task``'s answer beside its subject, none a stale value."""
    evidence = suite.evidence(task)
    shown = statements(origin.observation)
    assert any(statement_holds(s, fact) for s in shown for fact in evidence.needed), task.id
    subject = task.meta["subject"]
    assert not any(statement_holds(s, Fact(old, subject)) for s in shown for old in evidence.stale), task.id


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
