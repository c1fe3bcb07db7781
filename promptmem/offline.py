"""Offline defaults: keep litellm, DSPy and the HF hub from reaching the network at import.

Set with ``setdefault`` so a user's own environment always wins. Must run before litellm
or dspy is imported, which is why ``promptmem/__init__.py`` calls it first.
"""

import os

OFFLINE_DEFAULTS = {
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_OFFLINE_MODE": "true",
    "HF_HUB_OFFLINE": "1",
    "TOKENIZERS_PARALLELISM": "false",
}


def apply_offline_defaults() -> None:
    """Set the offline environment variables that the user has not set."""
    for key, value in OFFLINE_DEFAULTS.items():
        os.environ.setdefault(key, value)
