"""promptmem: memory-writing agents that learn across a stream of tasks.

``import promptmem`` is light: it sets the offline defaults and resolves the public
names below on first use.
"""

from importlib import import_module

from promptmem.offline import apply_offline_defaults

apply_offline_defaults()

__version__ = "0.1.0"

_EXPORTS = {
    "Task": "promptmem.tasks", "Stream": "promptmem.tasks", "Suite": "promptmem.tasks",
    "Outcome": "promptmem.tasks", "make_suite": "promptmem.suites",
    "InMemoryStore": "promptmem.memory", "Op": "promptmem.memory", "Note": "promptmem.memory",
    "run_stream": "promptmem.runner", "evaluate": "promptmem.evaluate",
    "EvalConfig": "promptmem.evaluate", "LMConfig": "promptmem.lm", "make_lm": "promptmem.lm",
    "build_agent": "promptmem.programs", "load_agent": "promptmem.programs",
    "save_agent": "promptmem.programs",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'promptmem' has no attribute {name!r}")
