"""Student models: aliases to checkpoints that must already be on this machine.

``resolve_student`` turns an alias (``qwen-4b``) or a path into a local checkpoint
directory. Nothing is ever downloaded: a missing checkpoint is a ``StudentNotFound`` that
says what was looked for, where, and how to provide it.
"""

from __future__ import annotations

import os
from pathlib import Path

STUDENTS = {
    "qwen-4b": "Qwen/Qwen3-4B-Instruct-2507",
    "qwen-1.7b": "Qwen/Qwen3-1.7B",
    "qwen-0.6b": "Qwen/Qwen3-0.6B",
}


class StudentNotFound(RuntimeError):
    """No local checkpoint for the requested student."""


def hub_cache() -> Path:
    """Where Hugging Face keeps downloaded models ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"])
    return Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub"


def _cached_snapshot(repo_id: str) -> Path | None:
    snapshots = hub_cache() / f"models--{repo_id.replace('/', '--')}" / "snapshots"
    found = sorted(snapshots.glob("*/config.json"), key=lambda p: p.stat().st_mtime)
    return found[-1].parent if found else None


def resolve_student(name_or_path: str) -> Path:
    """The local checkpoint directory for an alias in ``STUDENTS``, a hub id, or a path."""
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise StudentNotFound(f"{path} is a directory but holds no config.json: not a checkpoint")
        return path
    repo_id = STUDENTS.get(name_or_path, name_or_path)
    if "/" not in repo_id:
        raise StudentNotFound(f"unknown student {name_or_path!r}: use one of {', '.join(STUDENTS)}, "
                              "a Hugging Face id already in the local cache, or a checkpoint path")
    snapshot = _cached_snapshot(repo_id)
    if snapshot is None:
        raise StudentNotFound(
            f"student {name_or_path!r} ({repo_id}) is not in the local Hugging Face cache "
            f"({hub_cache()}), and this machine cannot download it. On a machine with internet "
            f"access run `huggingface-cli download {repo_id}` and copy its cache here (or set "
            f"HF_HUB_CACHE), or pass the checkpoint directory itself.")
    return snapshot
