"""Rewards composed, not switched: a rubric sums named, weighted rewards over one rollout and logs
each by name; the role rewards are such rubrics, with the values the switch gave; a writer
reward that is unknown or cannot apply is refused, never replaced by another."""

import dspy
import pytest

from promptmem.lm.specs import HF_PREFIX, adapter_for
from promptmem.programs import build_agent
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.reward_terms import writer_credit, writer_recall
from promptmem.signals.role_rewards import (
    WRITER_REWARDS,
    RewardSettings,
    RoleRewards,
    actor_rubric,
    check_writer_reward,
    recall_known,
)
from promptmem.signals.rubric import Reward, Rubric
from promptmem.signals.traces import trace_stream
from promptmem.suites import SyntheticSuite
from tests.helpers.scripted import scripted_lm, typed_ops

STUDENT = adapter_for(HF_PREFIX)
SUITE = SyntheticSuite(tasks=12)


class KnowingOnly:
    """``SUITE`` knowing the answers' evidence of the tasks ``known`` (by id) only."""

    def __init__(self, known: set[str]):
        self.known = known

    def __getattr__(self, name):
        return getattr(SUITE, name)

    def evidence(self, task):
        return SUITE.evidence(task) if task.id in self.known else None


def test_a_rubric_sums_weighted_rewards_and_logs_each_by_name():
    rubric = Rubric(
        [
            Reward("half", lambda r: 0.5),
            Reward("none", lambda r: None),
            Reward("twice", lambda r: 1.0, weight=2.0),
            Reward("first", lambda r: None, otherwise=Reward("second", lambda r: 0.25, weight=4.0)),
        ]
    )
    assert rubric.score(None) == 0.5 + 2.0 + 1.0 and rubric.score(None) == 3.5
    assert rubric.log == {"half": [0.5, 0.5], "twice": [1.0, 1.0], "second": [0.25, 0.25]}  # none: no value
    assert rubric.names == ["half", "none", "twice", "first", "second"]
    assert rubric.take_means() == {"half": 0.5, "twice": 1.0, "second": 0.25} and rubric.log == {}
    with pytest.raises(ValueError, match="names each reward once"):
        Rubric([Reward("a", lambda r: 1.0), Reward("a", lambda r: 0.0)])


@pytest.fixture(scope="module")
def traced():
    agent = build_agent("seed", writer="ops")
    (stream,) = SUITE.streams(1, seed=21)
    lm = scripted_lm("42", {"operations": typed_ops("ADD session-store listens on port 3134")})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        rows = trace_stream(agent, stream, SUITE, 800, STUDENT, 3)
    return agent, stream, lm, rows


def test_the_recall_rubric_is_recall_where_known_and_credit_elsewhere_as_the_switch_was(traced):
    agent, stream, lm, rows = traced
    writes = [row for row in rows if row.role == "writer"]
    questions = [t for t in stream.tasks if t.is_question and recall_known(SUITE, t)]
    suite = KnowingOnly({t.id for t in questions[::2]})  # half the questions' answers known
    rewards = RoleRewards(Pipeline(agent, suite, lm, STUDENT), writes, [stream], RewardSettings(horizon=3))
    texts = [row.completion for row in writes] + ["not ops at all"]
    branches = set()
    for row in writes:
        for text in texts:
            rollout = rewards.rollout(row, text)
            recall = writer_recall(rollout.state, rollout.write, suite, 0.5)
            if recall is None:
                with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
                    expected = writer_credit(rollout.state, rollout.write, lambda notes, t: agent.actor(notes=notes, observation=t.observation, question=t.question), suite, 0.5)  # fmt: skip
            branches.add(recall is None)
            assert rewards.reward(row, text) == (recall if recall is not None else expected)
    assert branches == {True, False}
    means = rewards.rubrics["writer"].take_means()
    assert set(means) == {"notes_recall", "credit", "write_error"}  # each logged under its own name


def test_trl_gets_the_rubrics_rewards_logged_by_name(traced):
    agent, stream, lm, rows = traced
    writes = [row for row in rows if row.role == "writer"]
    rewards = RoleRewards(Pipeline(agent, SUITE, lm, STUDENT), writes, [stream])
    logged = {}
    scores = rewards(None, [writes[0].completion, "garbage"], [0, 0], log_metric=logged.__setitem__)
    assert scores == [rewards.reward(writes[0], writes[0].completion), rewards.reward(writes[0], "garbage")]
    assert set(logged) == {"role_reward/writer/notes_recall", "role_reward/writer/write_error"}
    assert logged["role_reward/writer/write_error"] == -0.5  # one of the two unreadable


def test_an_unknown_or_inapplicable_writer_reward_is_refused_not_replaced(traced):
    agent, stream, lm, rows = traced
    writes = [row for row in rows if row.role == "writer"]
    assert list(WRITER_REWARDS) == ["recall", "credit", "hindsight", "future"]
    with pytest.raises(ValueError, match="writer_reward must be one of recall, credit, hindsight, future, not 'vibes'"):
        RoleRewards(Pipeline(agent, SUITE, lm, STUDENT), writes, [stream], RewardSettings(writer_reward="vibes"))
    blind = KnowingOnly(set())  # no answer known: recall would be credit throughout
    with pytest.raises(ValueError, match="the recall writer reward needs questions whose answers the suite knows"):
        RoleRewards(Pipeline(agent, blind, lm, STUDENT), writes, [stream])
    with pytest.raises(ValueError, match="use the credit writer reward"):
        check_writer_reward(agent, "recall", blind, [stream])
    credit = RoleRewards(Pipeline(agent, blind, lm, STUDENT), writes, [stream], RewardSettings(writer_reward="credit"))
    assert credit.rubrics["writer"].names == ["credit", "write_error"]
    with pytest.raises(ValueError, match="needs the select writer"):
        RoleRewards(Pipeline(agent, SUITE, lm, STUDENT), writes, [stream], RewardSettings(writer_reward="hindsight"))


def test_discovery_is_refused_for_an_agent_without_a_writer_and_left_out_at_weight_zero(traced):
    agent, stream, lm, rows = traced
    no_memory = build_agent("no-memory")
    with pytest.raises(ValueError, match="has no writer: set its weight to 0"):
        actor_rubric(RewardSettings(discovery_weight=0.5), Pipeline(no_memory, SUITE, lm, STUDENT))
    assert actor_rubric(RewardSettings(discovery_weight=0.0), Pipeline(no_memory, SUITE, lm, STUDENT)).names == [
        "score",
        "no_answer",
    ]
    assert actor_rubric(RewardSettings(), Pipeline(agent, SUITE, lm, STUDENT)).names == [
        "score",
        "discovery",
        "no_answer",
    ]
    answers = [row for row in rows if row.role == "actor"]
    rewards = RoleRewards(Pipeline(agent, SUITE, lm, STUDENT), answers, [stream], RewardSettings(discovery_weight=0))
    row = answers[0]
    score = SUITE.score(stream.tasks[row.position], "42").score
    assert rewards.reward(row, '{"answer": "42"}') == score and rewards.reward(row, "no json") == -0.5
    with pytest.raises(ValueError, match="no writer rows were given"):
        rewards.reward(next(r for r in rows if r.role == "writer"), "x")
