"""Student models: aliases to checkpoints on this machine, or to the embedded GGUFs.

``resolve_student`` turns an alias (``qwen-4b``, ``qwen-0.5b``) or a path into a local
checkpoint directory. Embedded aliases (``EMBEDDED``) are dequantized once from the
verified GGUF into a transformers checkpoint under the promptmem cache. Nothing is ever
downloaded: a missing checkpoint is a ``StudentNotFound`` that says what was looked for,
where, and how to provide it.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path

from promptmem.files import manifest_problems, write_manifest

STUDENTS = {
    "qwen-4b": "Qwen/Qwen3-4B-Instruct-2507",
    "qwen-1.7b": "Qwen/Qwen3-1.7B",
    "qwen-0.6b": "Qwen/Qwen3-0.6B",
}


# alias -> embedded GGUF (promptmem.lm.embedded), dequantized to float32 on first use
EMBEDDED = {
    "qwen-0.5b": "qwen2.5-coder-0.5b",
    "qwen-1.5b": "qwen2.5-coder-1.5b",
    "smollm2-135m": "smollm2-135m",
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


def dequantized(alias: str) -> Path:
    """The transformers checkpoint of an ``EMBEDDED`` student, built from its GGUF once and
    checked against its manifest (size and sha256 of every file) on each use; a checkpoint that
    fails the check is rebuilt, with a warning that says what was wrong."""
    from promptmem.lm.embedded import cache_dir, model_path

    out = cache_dir() / "students" / alias
    if out.exists():
        problems = manifest_problems(out)
        if not problems:
            return out
        logging.getLogger(__name__).warning(
            "student cache %s is damaged (%s); rebuilding it from %s", out, "; ".join(problems[:3]), EMBEDDED[alias]
        )
        shutil.rmtree(out)
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    gguf = model_path(EMBEDDED[alias])
    loaded = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config = AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
    config.__dict__.pop("quantization_config", None)  # else save_pretrained refuses
    model = AutoModelForCausalLM.from_config(config)
    model.load_state_dict(loaded.state_dict())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=out.parent, prefix=out.name + ".partial-"))  # one per build: builds may race
    model.save_pretrained(tmp)
    AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name).save_pretrained(tmp)
    write_manifest(tmp)
    try:
        tmp.rename(out)  # a half-written checkpoint is never mistaken for a finished one
    except OSError:
        if not out.is_dir():
            raise
        shutil.rmtree(tmp)  # another process finished the same build first
    return out


def resolve_student(name_or_path: str) -> Path:
    """The local checkpoint directory for an alias in ``EMBEDDED`` or ``STUDENTS``, a hub
    id in the local cache, or a path."""
    if name_or_path in EMBEDDED:
        return dequantized(name_or_path)
    path = Path(name_or_path).expanduser()
    if path.is_dir():
        if not (path / "config.json").is_file():
            raise StudentNotFound(f"{path} is a directory but holds no config.json: not a checkpoint")
        return path
    repo_id = STUDENTS.get(name_or_path, name_or_path)
    if "/" not in repo_id:
        raise StudentNotFound(
            f"unknown student {name_or_path!r}: use one of {', '.join([*EMBEDDED, *STUDENTS])}, "
            "a Hugging Face id already in the local cache, or a checkpoint path"
        )
    snapshot = _cached_snapshot(repo_id)
    if snapshot is None:
        raise StudentNotFound(
            f"student {name_or_path!r} ({repo_id}) is not in the local Hugging Face cache "
            f"({hub_cache()}), and this machine cannot download it. On a machine with internet "
            f"access run `huggingface-cli download {repo_id}` and copy its cache here (or set "
            f"HF_HUB_CACHE), or pass the checkpoint directory itself."
        )
    return snapshot
