"""The core modules of promptmem/: evaluate, the runner and resume, run directories and files,
redaction, scoring, feedback, statistics, recall, the registries."""
