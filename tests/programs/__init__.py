"""programs/ (promptmem.programs): the actor, the writers, the agents and baselines."""
