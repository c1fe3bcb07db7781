"""LM specs -> DSPy LMs, through one registry of backends that declare what they can do.

``local:<name>`` (or ``local`` for the default; or ``local:PATH.gguf``) runs a GGUF in-process through
llama-cpp-python, as a DSPy custom engine with JSON-schema-constrained output. ``hf:PATH``
runs a transformers checkpoint in-process (a distilled student; the ``distill`` extra). Any other
string goes to ``dspy.LM`` unchanged (``openai/gpt-4.1-mini``, ``hosted_vllm/...`` with an
``api_base``, …). A new backend is one ``Backend`` passed to ``register_backend`` (see
docs/development.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import dspy

from promptmem.lm.cores import claim_cores, usable_cpus
from promptmem.lm.embedded import DEFAULT_LOCAL_MODEL, gguf_path
from promptmem.lm.engine import Engine
from promptmem.lm.grammar import NoteIdsAdapter
from promptmem.options import option
from promptmem.redact import remember_url

LOCAL_PREFIX = "local"
HF_PREFIX = "hf:"


@dataclass(frozen=True)
class LMConfig:
    """How to build the LM for a spec."""

    spec: str = option(
        f"{LOCAL_PREFIX}:{DEFAULT_LOCAL_MODEL}",
        "LM spec: local:qwen2.5-coder-1.5b | local:qwen2.5-coder-0.5b | local:smollm2-135m | any DSPy/litellm model (openai/gpt-4.1-mini, hosted_vllm/NAME with --api-base).",
        flag="lm",
    )
    api_base: str | None = option(None, "Server URL for hosted LMs (vLLM, an OpenAI-compatible server).")
    temperature: float = option(0.0, "Sampling temperature (0 = greedy).", cli=False)
    max_tokens: int = option(
        256, "Completion limit per LM call (an 800-character notes rewrite is ~220 tokens).", min=1
    )
    context: int = option(4096, "Context window for local models, in tokens.", cli=False)
    threads: int | None = option(
        None,
        "CPU threads of a local model (default: as many as the CPUs this process may use, `taskset` included). Give two local runs on one machine their own cores: `taskset -c 0 promptmem eval --lm-threads 1 ...`.",
        min=1,
        flag="lm-threads",
        pace=True,
    )
    contexts: int = option(
        4,
        "Local models: llama.cpp contexts, one per prompt family (actor, writer, ...), each re-processing only what changed since its own previous prompt; 1 = one shared context.",
        min=1,
    )
    timeout: float = option(120.0, "Seconds per call for hosted LMs.", cli=False, pace=True)

    def __post_init__(self):
        """Refuse a completion limit no call can meet before any run starts (a provider would
        refuse every call)."""
        if not isinstance(self.max_tokens, int) or self.max_tokens < 1:
            raise ValueError(f"max-tokens: {self.max_tokens!r} is not a completion limit; give a whole number >= 1")


def window_chars(config: LMConfig, prompt_overhead_tokens: int = 700, chars_per_token: float = 3.0) -> int:
    """How many characters of history fit the context window next to the prompt's own text
    and the completion (a conservative 3 characters per token)."""
    return int((config.context - config.max_tokens - prompt_overhead_tokens) * chars_per_token)


@dataclass(frozen=True)
class Backend:
    """One kind of LM spec: which specs it takes, how it builds their DSPy LM, what it can do.

    ``in_process``: the model runs in this process and serves one call at a time (runs use one
    thread; its ``threads`` setting is the CPU threads of the model). ``adapter``: the DSPy
    adapter its output is read with (``NoteIdsAdapter`` decodes under the signature's JSON
    schema where ``grammar`` is true, so output always parses).
    """

    name: str
    matches: Callable[[str], bool]
    build: Callable[[LMConfig, dict], dspy.LM]
    in_process: bool = False
    grammar: bool = False
    adapter: Callable[[], dspy.Adapter] = dspy.ChatAdapter


def _is_gguf_spec(spec: str) -> bool:
    return spec == LOCAL_PREFIX or spec.startswith(f"{LOCAL_PREFIX}:")


def local_gguf(spec: str) -> Path | None:
    """The GGUF file a ``local`` spec runs (None for other specs)."""
    return gguf_path(spec.partition(":")[2] or DEFAULT_LOCAL_MODEL) if _is_gguf_spec(spec) else None


def _llama_cpp(config: LMConfig, common: dict) -> dspy.LM:
    from promptmem.lm.llama_cpp import LlamaCppEngine  # the `local` extra

    name = config.spec.partition(":")[2] or DEFAULT_LOCAL_MODEL
    threads = config.threads or len(usable_cpus())
    path = local_gguf(config.spec)
    claim_cores(threads)
    engine: Engine = LlamaCppEngine(path, context=config.context, threads=threads, contexts=config.contexts)
    return dspy.LM(f"{LOCAL_PREFIX}/{Path(name).stem if name.endswith('.gguf') else name}", engine=engine, **common)


def _transformers(config: LMConfig, common: dict) -> dspy.LM:
    from promptmem.lm.hf_engine import TransformersEngine  # the `distill` extra

    path = Path(config.spec[len(HF_PREFIX) :]).expanduser()
    engine: Engine = TransformersEngine(path, threads=config.threads)
    return dspy.LM(f"hf/{path.name}", engine=engine, **common)


def _hosted(config: LMConfig, common: dict) -> dspy.LM:
    remember_url(config.api_base)  # its password stays out of every message (promptmem.redact)
    hosted = {"api_base": config.api_base} if config.api_base else {}
    return dspy.LM(config.spec, timeout=config.timeout, num_retries=2, **hosted, **common)


BACKENDS: list[Backend] = [
    Backend("llama.cpp", _is_gguf_spec, _llama_cpp, in_process=True, grammar=True, adapter=NoteIdsAdapter),
    # students learn the teacher's JSON, so they are read as JSON too (no grammar: parsed text)
    Backend(
        "transformers", lambda spec: spec.startswith(HF_PREFIX), _transformers, in_process=True, adapter=NoteIdsAdapter
    ),
]
HOSTED = Backend("litellm", lambda spec: True, _hosted)  # any other spec: dspy.LM unchanged


def register_backend(backend: Backend) -> None:
    """Make ``backend`` serve the specs it matches (checked before those registered earlier)."""
    BACKENDS.insert(0, backend)


def backend_for(spec: str) -> Backend:
    """The backend that serves ``spec`` (hosted through litellm when no other matches)."""
    return next((backend for backend in BACKENDS if backend.matches(spec)), HOSTED)


def is_local(spec: str) -> bool:
    """The spec names a model that runs in this process (one call at a time)."""
    return backend_for(spec).in_process


def make_lm(config: LMConfig) -> dspy.LM:
    """The DSPy LM for ``config.spec`` (uncached, so timings and token counts are real)."""
    common = {"temperature": config.temperature, "max_tokens": config.max_tokens, "cache": False}
    return backend_for(config.spec).build(config, common)


def adapter_for(spec: str) -> dspy.Adapter:
    """The adapter ``spec``'s backend declares: JSON for in-process models (a grammar guarantees
    parseable output from GGUFs, and typed ops may name only the notes shown); DSPy's chat
    format (with its JSON fallback) for the rest."""
    return backend_for(spec).adapter()
