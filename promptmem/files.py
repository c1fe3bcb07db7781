"""Files a run writes: atomically, so a kill at any moment leaves the old file or the new
one, never half of one (a rerun resumes from what it finds)."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, fsynced and
    renamed over ``path``; on any error ``path`` is untouched and the temporary file removed."""
    path = Path(path)
    handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: str | Path, data: Any, indent: int | None = 2) -> None:
    """``data`` as JSON at ``path``, atomically (see ``write_text``); serialized before the
    temporary file is opened, so unserializable data raises with ``path`` untouched."""
    write_text(path, json.dumps(data, indent=indent))
