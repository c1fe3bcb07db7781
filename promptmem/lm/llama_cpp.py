"""The llama.cpp engine: a GGUF in-process, one llama.cpp context per prompt family."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

from promptmem.lm.cores import usable_cpus
from promptmem.lm.engine import text_of


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
        self.threads = threads or len(usable_cpus())
        self._pool: OrderedDict[str, object] = OrderedDict()  # family -> Llama, least recent first
        self._lock = threading.Lock()

    def _new_llama(self):
        from promptmem.lm.fast_grammar import TopKGrammarLlama  # the `local` extra

        return TopKGrammarLlama(
            model_path=str(self.path),
            n_ctx=self.context,
            n_threads=self.threads,
            n_threads_batch=self.threads,
            verbose=False,
            seed=0,
        )

    def _model(self, family: str):
        """The context serving ``family`` (created, or taken from the least recently used)."""
        if family in self._pool:
            self._pool.move_to_end(family)
        else:
            self._pool[family] = (
                self._pool.popitem(last=False)[1] if len(self._pool) >= self.contexts else self._new_llama()
            )
        return self._pool[family]

    def complete(self, request) -> Response:
        system = text_of(request.system)
        messages = [{"role": "system", "content": system}] if request.system else []
        messages += [{"role": m.role, "content": m.text or ""} for m in request.messages]
        config = request.config
        kwargs = {
            "temperature": config.temperature or 0.0,
            "max_tokens": config.max_tokens,
            "seed": config.seed if config.seed is not None else 0,
            "stop": list(config.stop) or None,
        }
        fmt = config.response_format
        if fmt and fmt.get("type") in ("json_schema", "json_object"):
            schema = fmt.get("schema") or (fmt.get("json_schema") or {}).get("schema")
            kwargs["response_format"] = {"type": "json_object", **({"schema": schema} if schema else {})}
        with self._lock:
            llama = self._model(system)
            cached = llama.input_ids[: llama.n_tokens].tolist()
            out = llama.create_chat_completion(messages=messages, **kwargs)
            usage = out.get("usage", {})
            prompt = llama.input_ids[: usage.get("prompt_tokens", 0)].tolist()
        choice = out["choices"][0]
        return Response(
            id=out.get("id"),
            model=f"local/{self.path.name}",
            message=Message.assistant([TextPart(choice["message"]["content"] or "")]),
            finish_reason="length" if choice.get("finish_reason") == "length" else "stop",
            usage=Usage(
                input_tokens=usage.get("prompt_tokens"),
                output_tokens=usage.get("completion_tokens"),
                cache_read_tokens=reused_prefix(cached, prompt),
            ),
        )

    def stream(self, request):
        return response_to_events(self.complete(request))

    def close(self) -> None:
        with self._lock:
            for llama in self._pool.values():
                llama.close()
            self._pool.clear()
