"""Experiments: agents, writers, GEPA runs and distilled students measured on streams, each
writing ``benchmarks/results/NAME.json`` (``python -m benchmarks.experiments.NAME --help``)."""
