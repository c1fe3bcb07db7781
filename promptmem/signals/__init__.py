"""Learning signals, one reward for three consumers (GEPA's feedback, the recall objective,
GRPO): the role calls a run makes (``traces``) by a ``pipeline.Pipeline`` (agent, suite, LM,
adapters), the terms of each role's reward: a write's, an answer's (``reward_terms``), rewards
composed as named, weighted callables over one ``rollout.Rollout`` (``rubric``), each role's
rubric over a trace row (``role_rewards``), the hindsight labels of the statements a selection
writer is shown (``hindsight``) and the feedback built on them (``select_feedback``)."""
