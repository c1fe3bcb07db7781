"""The select writer's reward over the future (``signals.future``), no model: on a hand-made
stream a kept statement the budget evicts before its question scores below one kept alive to it,
where the per-write reward says the opposite; stale values cost from their update on; GRPO's
writer prompts are the tasks where the notes are full, each group scored from one snapshot."""

import json

import pytest

from promptmem.lm.specs import HF_PREFIX, adapter_for
from promptmem.memory.store import notes_size
from promptmem.programs import build_agent
from promptmem.signals.future import eviction_steps, eviction_tasks, future_reward, needs_at_stake
from promptmem.signals.hindsight import write_reward
from promptmem.signals.hindsight_rows import hindsight_replay, writer_rows
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.role_rewards import RewardSettings, RoleRewards, check_writer_reward
from promptmem.suites import SyntheticSuite
from promptmem.tasks import Stream, Task

STUDENT = adapter_for(HF_PREFIX)


def shown(i: int, observation: str, *facts: tuple[str, str]) -> Task:
    """An observe-only task stating ``facts`` ((service, port), tracked by the world)."""
    meta = {"facts": [{"value": port, "service": service, "type": "port"} for service, port in facts]}
    return Task(f"t{i:02d}", observation, None, meta=meta)


def asked(i: int, service: str, port: str, stated_in: int, updated_in=(), stale=()) -> Task:
    meta = {
        "service": service,
        "kind": "port",
        "stated_in": stated_in,
        "updated_in": list(updated_in),
        "stale_values": list(stale),
    }
    return Task(f"t{i:02d}", "", f"Which port does {service} use?", (port,), "synthetic", meta)


BUDGET = 70  # characters: two of the statements below fit, three do not
EVICTION = Stream(
    "eviction",
    (
        shown(0, "billing-api listens on port 8642.\ngeo-cache listens on port 9100.",
              ("billing-api", "8642"), ("geo-cache", "9100")),
        shown(1, "ledger-db listens on port 5432.", ("ledger-db", "5432")),
        asked(2, "billing-api", "8642", 0),
        shown(3, "auth-svc listens on port 7000.", ("auth-svc", "7000")),
        asked(4, "ledger-db", "5432", 1),
        asked(5, "geo-cache", "9100", 0),
    ),
)  # fmt: skip


def test_a_statement_the_budget_evicts_before_its_question_scores_below_one_kept_alive_to_it():
    replay = list(hindsight_replay(EVICTION, SyntheticSuite(), BUDGET, "stated"))
    assert [step.keep for step in replay] == [[1, 2], [1], [], [1], [], []]  # later writes: fixed
    both, billing = frozenset({1, 2}), frozenset({1})
    # both: ledger-db's note (t1) pushes billing-api's out before t2 asks, auth-svc's (t3) geo-cache's
    # before t5; billing alone: its note is still there at t2
    future = {kept: future_reward(replay, 0, kept, BUDGET, 5, target="stated") for kept in (both, billing)}
    assert future == {both: 0.0, billing: 0.5}
    per_write = {kept: write_reward(replay[0].labels, kept, BUDGET, target="stated") for kept in (both, billing)}
    assert per_write == {both: 1.0, billing: 0.5}  # the per-write reward says the opposite
    assert future_reward(replay, 0, both, BUDGET, 2, target="stated") == 0.0  # t2 within 2 tasks
    assert future_reward(replay, 0, billing, BUDGET, 2, target="stated") == 1.0  # t5 is not
    assert future_reward(replay, 0, both, BUDGET, 1, target="stated") == 1.0  # no question within 1 task


def test_needs_at_stake_are_those_of_the_write_and_of_the_notes_before_it_within_the_horizon():
    replay = list(hindsight_replay(EVICTION, SyntheticSuite(), BUDGET, "stated"))

    def stake(position: int, end: int) -> set:
        return {(label.task_id, label.number, q) for label, q in needs_at_stake(replay, position, end)}

    assert stake(1, 5) == {("t00", 1, 2), ("t00", 2, 5), ("t01", 1, 4)}
    assert stake(1, 3) == {("t00", 1, 2)}
    assert stake(2, 5) == {("t00", 2, 5), ("t01", 1, 4)}  # billing-api's note left at t1's write


UPDATE = Stream(
    "update",
    (
        shown(0, "billing-api listens on port 8642.", ("billing-api", "8642")),
        shown(1, "geo-cache listens on port 9100.", ("geo-cache", "9100")),
        shown(2, "billing-api has moved to port 9200.", ("billing-api", "9200")),
        asked(3, "billing-api", "9200", 2, updated_in=[2], stale=["8642"]),
        asked(4, "geo-cache", "9100", 1),
    ),
)


def test_a_stale_value_kept_costs_its_budget_share_from_its_update_on_while_it_stays():
    replay = list(hindsight_replay(UPDATE, SyntheticSuite(), 100, "stated"))
    assert replay[0].labels[0].label == "superseded" and replay[0].labels[0].tracked
    assert write_reward(replay[0].labels, {1}, 100, target="stated") == 1.0  # tracked: wanted when written
    stale = len(replay[0].labels[0].text) / 100  # at t2, t3 and t4: t1's, t2's notes fit beside it
    assert future_reward(replay, 0, {1}, 100, 4, target="stated") == pytest.approx(1.0 - 0.5 * stale * 3 / 4)
    assert future_reward(replay, 0, set(), 100, 4, target="stated") == 1.0
    squeezed = list(hindsight_replay(UPDATE, SyntheticSuite(), 70, "stated"))  # evicted at t2's write
    assert future_reward(squeezed, 0, {1}, 70, 4, target="stated") == pytest.approx(1.0 - 0.5 * (33 / 70) / 4)
    assert future_reward(replay, 0, {1}, 100, 4, weight=0.0, target="stated") == 1.0
    # the needed target wants it at no time: it costs from the write on; the last task: right after it
    assert future_reward(replay, 0, {1}, 100, 4) == pytest.approx(1.0 - 0.5 * stale)
    assert future_reward(replay, 4, set(), 100, 4) == 1.0


def test_grpo_groups_are_rerolled_from_one_snapshot_where_the_notes_are_full():
    suite = SyntheticSuite(tasks=24)
    stream = suite.streams(1, seed=3000)[0]
    budget = suite.notes_budget
    replay = list(hindsight_replay(stream, suite, budget, "stated"))
    chosen = eviction_steps(replay, budget)
    assert chosen and all(step.labels and notes_size(step.before.notes) >= 0.9 * budget for step in chosen)
    assert len(eviction_steps(replay, budget, fill=0.0)) == sum(bool(step.labels) for step in replay) > len(chosen)
    agent = build_agent("seed", writer="select")
    tasks = eviction_tasks([stream], suite, budget, "stated")
    assert tasks == {(stream.id, step.task.id) for step in chosen}
    rows = [
        r for r in writer_rows(agent, [stream], suite, budget, STUDENT, "stated") if (r.stream_id, r.task_id) in tasks
    ]
    settings = RewardSettings(writer_reward="future", hindsight_target="stated")
    rewards = RoleRewards(Pipeline(agent, suite, None, STUDENT), rows, [stream], settings)
    differ = 0
    for i, row in enumerate(rows):
        step = replay[row.position]  # the group's one snapshot: the notes a writer that knew the future holds
        assert row.notes == [[note.id, note.text] for note in step.before.notes]
        keeps = [step.keep, step.keep, [1], list(range(1, len(step.labels) + 1))]
        scores = rewards([row.prompt] * len(keeps), [json.dumps({"keep": keep}) for keep in keeps], [i] * len(keeps))
        expected = [future_reward(replay, row.position, set(keep), budget, 8, 0.5, "stated") for keep in keeps]
        assert scores == pytest.approx(expected) and scores[0] == scores[1]
        differ += len(set(scores)) > 1
    assert differ > len(rows) / 2  # keep-lists change what survives: most groups are not flat


class Step:
    global_step = 5


def test_the_future_reward_reads_its_horizon_at_the_trainers_step_and_needs_the_select_writer():
    suite = SyntheticSuite()
    agent = build_agent("seed", writer="select")
    rows = writer_rows(agent, [EVICTION], suite, BUDGET, STUDENT, "stated")
    first = next(i for i, row in enumerate(rows) if row.task_id == "t00")
    seen = []

    def curriculum(step: int) -> int:
        seen.append(step)
        return 2 if step < 5 else 5

    settings = RewardSettings(writer_reward="future", hindsight_target="stated", future_horizon=curriculum)
    rewards = RoleRewards(Pipeline(agent, suite, None, STUDENT), rows, [EVICTION], settings)
    keep = json.dumps({"keep": [1]})
    assert rewards(None, [keep], [first]) == [1.0] and rewards(None, [keep], [first], trainer_state=Step()) == [0.5]
    assert seen == [0, 5]
    assert rewards.reward(rows[first], json.dumps({"keep": [1, 9]})) == pytest.approx(0.5)  # 1.0 - parse penalty
    assert rewards.reward(rows[first], "no json here") == -0.5
    check_writer_reward(agent, "future")
    with pytest.raises(ValueError, match="the future writer reward needs the select writer"):
        check_writer_reward(build_agent("seed", writer="ops"), "future")
