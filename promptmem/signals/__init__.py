"""Learning signals, one reward for three consumers (GEPA's feedback, the recall objective,
GRPO): the role calls a run makes (``traces``), the writer's rewards (``rewards``) and each
role's reward over a trace row (``role_rewards``)."""
