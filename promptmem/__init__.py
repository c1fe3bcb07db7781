"""promptmem: memory-writing agents that learn across a stream of tasks.

``import promptmem`` is light: it sets the offline defaults and resolves the public
names below on first use.
"""

import sys
from importlib import import_module
from importlib.machinery import PathFinder
from pathlib import Path

from promptmem.offline import apply_offline_defaults

apply_offline_defaults()

_ROOT_PACKAGES = ("programs", "distill")  # at the repository root, installed as promptmem.<name>


class _CheckoutFinder:
    """Finds ``promptmem.programs`` and ``promptmem.distill`` next to this folder, for Python
    started at the root of a clone (whose ``promptmem/`` shadows the installed package). Asked
    last, so an installed or editable package is found first."""

    root = Path(__file__).resolve().parent.parent

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        parent, _, name = fullname.rpartition(".")
        if parent == __name__ and name in _ROOT_PACKAGES and (cls.root / "pyproject.toml").is_file():
            return PathFinder.find_spec(fullname, [str(cls.root)])
        return None


if _CheckoutFinder not in sys.meta_path:
    sys.meta_path.append(_CheckoutFinder)

__version__ = "0.1.0"

_EXPORTS = {
    "Task": "promptmem.tasks",
    "Stream": "promptmem.tasks",
    "Suite": "promptmem.tasks",
    "Outcome": "promptmem.tasks",
    "make_suite": "promptmem.suites",
    "InMemoryStore": "promptmem.memory",
    "Op": "promptmem.memory",
    "Note": "promptmem.memory",
    "run_stream": "promptmem.runner",
    "evaluate": "promptmem.evaluate",
    "EvalConfig": "promptmem.evaluate",
    "LMConfig": "promptmem.lm",
    "make_lm": "promptmem.lm",
    "build_agent": "promptmem.programs",
    "load_agent": "promptmem.programs",
    "save_agent": "promptmem.programs",
}
__all__ = sorted(_EXPORTS) + ["__version__"]


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'promptmem' has no attribute {name!r}")
