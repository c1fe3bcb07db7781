"""A trained student back into the teacher's engine: a GGUF holding the original file's metadata
and tokenizer with the trained tensors, quantized by llama.cpp's own quantizer, so teacher and
student are compared on the same engine, tokens and threads (``local:PATH.gguf``).

Only students dequantized from a GGUF (the embedded aliases) have an original to take the
metadata from; other checkpoints stay ``hf:PATH``.
"""

from __future__ import annotations

import ctypes
import logging
import os
from pathlib import Path

import numpy as np

# convert_hf_to_gguf.py interleaves the rotary halves of q and k for these architectures;
# transformers undoes it when it loads their GGUFs, so an export must redo it
_PERMUTED_QK = {"llama"}


class ExportError(ValueError):
    """The checkpoint does not fit the original GGUF."""


def _checkpoint_tensors(checkpoint: Path) -> dict[str, np.ndarray]:
    """Every tensor of a transformers checkpoint's safetensors files, as float32 numpy arrays."""
    from safetensors import safe_open

    files = sorted(checkpoint.glob("*.safetensors"))
    if not files:
        raise ExportError(f"{checkpoint} holds no *.safetensors files")
    tensors = {}
    for file in files:
        with safe_open(str(file), framework="pt") as handle:
            for name in handle.keys():
                tensors[name] = handle.get_tensor(name).float().numpy()
    return tensors


def _permute(weights: np.ndarray, heads: int) -> np.ndarray:
    """The q/k row order llama.cpp expects for rotary embeddings in ``_PERMUTED_QK`` archs."""
    return (
        weights.reshape(heads, 2, weights.shape[0] // heads // 2, *weights.shape[1:])
        .swapaxes(1, 2)
        .reshape(weights.shape)
    )


def _gguf_names(reader, tensors: dict[str, np.ndarray]) -> dict[str, str]:
    """GGUF tensor name -> checkpoint tensor name, through gguf's own name map for the arch."""
    import gguf

    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    arch_id = next((key for key, name in gguf.MODEL_ARCH_NAMES.items() if name == arch), None)
    if arch_id is None:
        raise ExportError(f"gguf {gguf.__version__} has no tensor names for architecture {arch!r}")
    layers = reader.fields[f"{arch}.block_count"].contents()
    name_map = gguf.get_tensor_name_map(arch_id, layers)
    names = {}
    for name in tensors:
        base, dot, suffix = name.rpartition(".")
        mapped = name_map.get_name(base) if dot else None
        if mapped:
            names[f"{mapped}.{suffix}"] = name
    return names


def export_gguf(checkpoint: str | Path, original: str | Path, out: str | Path) -> Path:
    """Write ``checkpoint`` (a transformers checkpoint of ``original``'s architecture, e.g. a
    fine-tuned student dequantized from it) as an F32 GGUF at ``out``: every metadata key of
    ``original`` (hyperparameters, tokenizer, chat template) copied, the file type set to F32,
    and each of its tensors replaced by the checkpoint's. A tensor the checkpoint lacks, or of
    another shape, is an ``ExportError``. Written aside and renamed."""
    import gguf

    checkpoint, original, out = Path(checkpoint), Path(original), Path(out)
    reader = gguf.GGUFReader(str(original))
    arch = reader.fields[gguf.Keys.General.ARCHITECTURE].contents()
    tensors = _checkpoint_tensors(checkpoint)
    names = _gguf_names(reader, tensors)
    embeddings = names.get("token_embd.weight")
    heads = {"attn_q": reader.fields[f"{arch}.attention.head_count"].contents()}
    kv = reader.fields.get(f"{arch}.attention.head_count_kv")
    heads["attn_k"] = kv.contents() if kv else heads["attn_q"]

    planned = []  # every tensor checked before anything is written
    for tensor in reader.tensors:
        source = names.get(tensor.name) or (embeddings if tensor.name == "output.weight" else None)
        if source is None:
            raise ExportError(f"{checkpoint} has no tensor for {original.name}'s {tensor.name}")
        weights = tensors[source]
        shape = tuple(int(n) for n in reversed(tensor.shape))  # GGUF lists dimensions innermost first
        if weights.shape != shape:
            raise ExportError(
                f"{source} in {checkpoint} has shape {weights.shape}, {original.name}'s {tensor.name} {shape}"
            )
        kind = tensor.name.split(".")[-2] if tensor.name.startswith("blk.") else ""
        if arch in _PERMUTED_QK and kind in heads:
            weights = _permute(weights, heads[kind])
        planned.append((tensor.name, np.ascontiguousarray(weights, dtype=np.float32)))

    partial = out.with_name(out.name + ".partial")
    out.parent.mkdir(parents=True, exist_ok=True)
    writer = gguf.GGUFWriter(str(partial), arch)
    for field in reader.fields.values():
        if field.name == gguf.Keys.General.ARCHITECTURE or field.name.startswith("GGUF."):
            continue  # written by GGUFWriter itself
        value_type = field.types[0]
        sub_type = field.types[-1] if value_type == gguf.GGUFValueType.ARRAY else None
        value = gguf.LlamaFileType.ALL_F32 if field.name == gguf.Keys.General.FILE_TYPE else field.contents()
        writer.add_key_value(field.name, value, value_type, sub_type=sub_type)
    for name, weights in planned:
        writer.add_tensor(name, weights)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    os.replace(partial, out)
    return out


def file_type(path: str | Path) -> int:
    """The llama.cpp file type (quantization) recorded in a GGUF."""
    import gguf

    field = gguf.GGUFReader(str(path)).fields.get(gguf.Keys.General.FILE_TYPE)
    return int(field.contents()) if field else int(gguf.LlamaFileType.ALL_F32)


def named_file_type(name: str) -> int:
    """The llama.cpp file type called ``name`` (e.g. q8_0, f16: ``LLAMA_FTYPE_MOSTLY_<NAME>``)."""
    import gguf

    return int(gguf.LlamaFileType[f"MOSTLY_{name.upper()}"])


def quantize(source: str | Path, out: str | Path, ftype: int, threads: int | None = None) -> Path:
    """Quantize the GGUF ``source`` to llama.cpp file type ``ftype`` (e.g. the teacher's, from
    ``file_type``) with llama.cpp's quantizer, which reports only its errors (its per-tensor log
    is the ``llama-cpp-python`` logger's, held at ERROR meanwhile). Written aside and renamed."""
    import llama_cpp

    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = ftype
    params.nthread = threads or len(os.sched_getaffinity(0))
    llama_log = logging.getLogger("llama-cpp-python")
    level = llama_log.level
    llama_log.setLevel(max(level, logging.ERROR))
    try:
        failed = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params))
    finally:
        llama_log.setLevel(level)
    if failed:
        partial.unlink(missing_ok=True)
        raise ExportError(f"llama.cpp could not quantize {source} to file type {ftype}")
    os.replace(partial, out)
    return out
