"""Optimization: GEPA over the actor's and writer's instructions (``gepa``), the compact
instruction proposer, and Optuna over a run's settings (``tune``)."""
