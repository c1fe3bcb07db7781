"""No DSPy disk cache outside a temporary folder: call before dspy is imported anywhere."""

import atexit
import os
import shutil
import tempfile


def use_a_temporary_dspy_cache() -> None:
    """Point ``DSPY_CACHEDIR`` at a fresh temporary folder, removed when the process ends (unless
    it is set already: a subprocess of the tests shares their cache)."""
    if "DSPY_CACHEDIR" not in os.environ:
        os.environ["DSPY_CACHEDIR"] = tempfile.mkdtemp(prefix="promptmem-dspy-cache-")
        atexit.register(shutil.rmtree, os.environ["DSPY_CACHEDIR"], ignore_errors=True)
