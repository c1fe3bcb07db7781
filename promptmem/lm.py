"""LM specs -> DSPy LMs.

``local:<name>`` (or ``local`` for the default; or ``local:PATH.gguf``) runs a GGUF in-process through
llama-cpp-python, as a DSPy custom engine with JSON-schema-constrained output. ``hf:PATH``
runs a transformers checkpoint in-process (a distilled student; the ``distill`` extra). Any other
string goes to ``dspy.LM`` unchanged (``openai/gpt-4.1-mini``, ``hosted_vllm/...`` with an
``api_base``, …).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import dspy
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

from promptmem.grammar import NoteIdsAdapter
from promptmem.local_models import DEFAULT_LOCAL_MODEL, gguf_path

LOCAL_PREFIX = "local"
HF_PREFIX = "hf:"


@dataclass(frozen=True)
class LMConfig:
    """How to build the LM for a spec."""

    spec: str = f"{LOCAL_PREFIX}:{DEFAULT_LOCAL_MODEL}"  # LM spec string
    api_base: str | None = None  # server URL for hosted specs (hosted_vllm/..., openai/...)
    temperature: float = 0.0  # sampling temperature (0 = greedy)
    max_tokens: int = 256  # completion limit per call (an 800-char notes rewrite is ~220 tokens)
    context: int = 4096  # context window for local models, in tokens
    threads: int | None = None  # CPU threads for local models (default: all cores)
    contexts: int = 4  # local models: llama.cpp contexts, one per prompt family (1 = one shared)
    timeout: float = 120.0  # seconds per call for hosted LMs


def window_chars(config: LMConfig, prompt_overhead_tokens: int = 700, chars_per_token: float = 3.0) -> int:
    """How many characters of history fit the context window next to the prompt's own text
    and the completion (a conservative 3 characters per token)."""
    return int((config.context - config.max_tokens - prompt_overhead_tokens) * chars_per_token)


def text_of(parts) -> str:
    """The text of a DSPy message part list (or a plain string)."""
    if parts is None or isinstance(parts, str):
        return parts or ""
    return "".join(getattr(part, "text", "") or "" for part in parts)


def reused_prefix(cached: Sequence[int], prompt: Sequence[int]) -> int:
    """How many of ``prompt``'s tokens llama.cpp takes from a context holding ``cached``
    instead of processing them: the longest common prefix, less the one token it re-evaluates
    for fresh logits when the whole prompt matched (llama-cpp-python's ``Llama.generate`` rule)."""
    common = 0
    for a, b in zip(cached, prompt):
        if a != b:
            break
        common += 1
    return common - 1 if common == len(prompt) and common else common


class LlamaCppEngine:
    """A DSPy engine over one GGUF, serving one call at a time, with one llama.cpp context
    per prompt family so each reuses its own longest common prefix.

    A family is the system message: a predictor's instructions and fields, so the actor, the
    writer, a reflection or a judge predictor each keep their own context (and KV cache) and a
    call re-processes only what changed since that predictor's previous prompt. Up to
    ``contexts`` contexts share the mmapped weights; past that, the least recently used one is
    handed to the new family. ``contexts=1`` is one shared context. Each response reports the
    reused prompt tokens as ``Usage.cache_read_tokens`` (DSPy: ``prompt_tokens_details.cached_tokens``).
    """

    supports_response_schema = True
    supported_params = ("response_format", "temperature", "max_tokens", "seed", "stop")

    def __init__(self, path: Path, *, context: int = 4096, threads: int | None = None, contexts: int = 4):
        if contexts < 1:
            raise ValueError(f"contexts must be at least 1, got {contexts}")
        self.path, self.context, self.contexts = Path(path), context, contexts
        self.threads = threads or len(os.sched_getaffinity(0))
        self._pool: OrderedDict[str, object] = OrderedDict()  # family -> Llama, least recent first
        self._lock = threading.Lock()

    def _new_llama(self):
        from promptmem.fast_grammar import TopKGrammarLlama  # the `local` extra

        return TopKGrammarLlama(model_path=str(self.path), n_ctx=self.context, n_threads=self.threads,
                     n_threads_batch=self.threads, verbose=False, seed=0)

    def _model(self, family: str):
        """The context serving ``family`` (created, or taken from the least recently used)."""
        if family in self._pool:
            self._pool.move_to_end(family)
        else:
            self._pool[family] = (self._pool.popitem(last=False)[1] if len(self._pool) >= self.contexts
                                  else self._new_llama())
        return self._pool[family]

    def complete(self, request) -> Response:
        system = text_of(request.system)
        messages = [{"role": "system", "content": system}] if request.system else []
        messages += [{"role": m.role, "content": m.text or ""} for m in request.messages]
        config = request.config
        kwargs = {"temperature": config.temperature or 0.0, "max_tokens": config.max_tokens,
                  "seed": config.seed if config.seed is not None else 0,
                  "stop": list(config.stop) or None}
        fmt = config.response_format
        if fmt and fmt.get("type") in ("json_schema", "json_object"):
            schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
            kwargs["response_format"] = {"type": "json_object", **({"schema": schema} if schema else {})}
        with self._lock:
            llama = self._model(system)
            cached = llama.input_ids[:llama.n_tokens].tolist()
            out = llama.create_chat_completion(messages=messages, **kwargs)
            usage = out.get("usage", {})
            prompt = llama.input_ids[:usage.get("prompt_tokens", 0)].tolist()
        choice = out["choices"][0]
        return Response(
            id=out.get("id"), model=f"{LOCAL_PREFIX}/{self.path.name}",
            message=Message.assistant([TextPart(choice["message"]["content"] or "")]),
            finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
            usage=Usage(input_tokens=usage.get("prompt_tokens"),
                        output_tokens=usage.get("completion_tokens"),
                        cache_read_tokens=reused_prefix(cached, prompt)))

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self) -> None:
        with self._lock:
            for llama in self._pool.values():
                llama.close()
            self._pool.clear()


def is_local(spec: str) -> bool:
    """The spec names a model that runs in this process (one call at a time)."""
    return spec == LOCAL_PREFIX or spec.startswith((f"{LOCAL_PREFIX}:", HF_PREFIX))


def local_gguf(spec: str) -> Path | None:
    """The GGUF file a ``local`` spec runs (None for other specs)."""
    if spec != LOCAL_PREFIX and not spec.startswith(f"{LOCAL_PREFIX}:"):
        return None
    return gguf_path(spec.partition(":")[2] or DEFAULT_LOCAL_MODEL)


def make_lm(config: LMConfig) -> dspy.LM:
    """The DSPy LM for ``config.spec`` (uncached, so timings and token counts are real)."""
    common = {"temperature": config.temperature, "max_tokens": config.max_tokens, "cache": False}
    if config.spec.startswith(HF_PREFIX):
        from promptmem.distill.hf_engine import TransformersEngine  # the `distill` extra

        engine = TransformersEngine(Path(config.spec[len(HF_PREFIX):]).expanduser(), threads=config.threads)
        return dspy.LM(f"hf/{engine.path.name}", engine=engine, **common)
    if is_local(config.spec):
        name = config.spec.partition(":")[2] or DEFAULT_LOCAL_MODEL
        engine = LlamaCppEngine(local_gguf(config.spec), context=config.context, threads=config.threads,
                                contexts=config.contexts)
        return dspy.LM(f"{LOCAL_PREFIX}/{Path(name).stem if name.endswith('.gguf') else name}", engine=engine, **common)
    hosted = {"api_base": config.api_base} if config.api_base else {}
    return dspy.LM(config.spec, timeout=config.timeout, num_retries=2, **hosted, **common)


def adapter_for(spec: str) -> dspy.Adapter:
    """JSON for in-process models (a grammar guarantees parseable output from GGUFs, and typed
    ops may name only the notes shown; students learn the teacher's JSON); DSPy's chat format
    (with its JSON fallback) for the rest."""
    return NoteIdsAdapter() if is_local(spec) else dspy.ChatAdapter()
