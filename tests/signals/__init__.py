"""promptmem.signals: hindsight labels and rows, inferred annotations, rewards and rubrics, traces,
the select writer's feedback."""
