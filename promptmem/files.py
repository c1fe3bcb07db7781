"""Files a run writes: atomically, so a kill at any moment leaves the old file or the new
one, never half of one (a rerun resumes from what it finds)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from pathlib import Path
from typing import Any


class RunDirError(ValueError):
    """A run directory that cannot be used: it holds a run with another configuration, or it is
    not a finished run where one is needed."""


_AS_IS = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def safe_name(key: str) -> str:
    """The file name (extension aside) that stands for ``key``, an id from a data file: the id
    itself when it is at most 64 lowercase ASCII letters, digits, ``.``, ``_`` or ``-``, starting
    with a letter or digit; otherwise its readable part, ``~`` and a hash of the whole id
    (``../x`` -> ``x~1f2e...``). The same id always gets the same name, distinct ids distinct
    names (an id kept as it is holds no ``~``; case never tells two names apart), and no name
    leaves its folder or holds a glob character."""
    if _AS_IS.fullmatch(key):
        return key
    readable = re.sub(r"[^a-z0-9._-]+", "-", key.lower()).strip(".-_")[:40] or "id"
    return f"{readable}~{hashlib.sha256(key.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def read_json(path: str | Path, fix: str) -> Any:
    """The JSON a run wrote at ``path``, read back; an unreadable or malformed file is a
    ``RunDirError`` that names it and says ``fix`` (what to do about it)."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        problem = f"cannot be read ({err.strerror or err})"
    except UnicodeDecodeError:
        problem = "is not UTF-8 text"
    except json.JSONDecodeError as err:
        problem = f"is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno})"
    raise RunDirError(f"{path} {problem}; {fix}")


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


def append_jsonl(path: str | Path, entry: Any) -> None:
    """``entry`` as one JSON line at the end of ``path``, on disk before this returns."""
    with Path(path).open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry) + "\n")
        out.flush()
        os.fsync(out.fileno())


def complete_lines(path: str | Path) -> list[bytes]:
    """The complete lines of an append-only file (none if it is missing). A last line cut short
    by a kill is cut from the file too, so the next append starts a line of its own."""
    path = Path(path)
    if not path.exists():
        return []
    data = path.read_bytes()
    complete = data[: data.rfind(b"\n") + 1]
    if len(complete) < len(data):
        os.truncate(path, len(complete))
    return complete.splitlines()


MANIFEST = "promptmem-manifest.json"


def _digest(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as data:
        while chunk := data.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def write_manifest(folder: str | Path) -> None:
    """Record the size and sha256 of every file under ``folder`` in ``folder/MANIFEST``."""
    folder = Path(folder)
    files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != MANIFEST)
    write_json(
        folder / MANIFEST,
        {p.relative_to(folder).as_posix(): {"size": p.stat().st_size, "sha256": _digest(p)} for p in files},
    )


def manifest_problems(folder: str | Path) -> list[str]:
    """What differs from ``folder``'s manifest (a missing manifest, a missing, resized or
    changed file), or [] when every file matches."""
    folder = Path(folder)
    try:
        expected = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        return [f"no readable {MANIFEST}"]
    problems = []
    for name, want in expected.items():
        path = folder / name
        if not path.is_file():
            problems.append(f"{name} is missing")
        elif path.stat().st_size != want["size"]:
            problems.append(f"{name} has {path.stat().st_size} bytes, expected {want['size']}")
        elif _digest(path) != want["sha256"]:
            problems.append(f"{name} fails its sha256 check")
    return problems
