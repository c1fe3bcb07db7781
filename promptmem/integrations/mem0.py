"""The real mem0 (``mem0ai`` 2.2.1, the ``peers`` extra) behind promptmem's memory protocol.

mem0 2.x extracts memories from each message it is given with ONE LLM call (its
``ADDITIVE_EXTRACTION_PROMPT``, ~7,900 tokens, JSON mode) and only ever adds them (md5
dedup against the 10 most similar; mem0 1.0.x also decided ADD/UPDATE/DELETE/NONE per
fact). Everything runs offline: the LLM is an OpenAI-compatible endpoint (for a ``local:``
spec, llama-cpp-python's server on the same GGUF, started for the run), the embedder is
the packaged all-MiniLM-L6-v2 (``promptmem.memory.embedding``), the vector store an embedded qdrant
and the history a SQLite file, both under the stream's directory; telemetry is off. Without
spaCy and fastembed (mem0's optional extras) its search is semantic only, as in a default
install of mem0.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import dspy

from promptmem.failures import describe
from promptmem.files import safe_name
from promptmem.lm.embedded import cache_dir
from promptmem.lm.server import llama_server
from promptmem.lm.specs import LMConfig, local_gguf
from promptmem.memory import (
    NO_MATCH,
    InMemoryStore,
    Memory,
    Note,
    Op,
    OpResult,
    Snapshot,
    When,
    WriteFailed,
    format_notes,
    render_notes,
)
from promptmem.memory.embedding import model_dir

MEM0_VERSION = "2.2.1"
EMBEDDING_DIMS = 384  # all-MiniLM-L6-v2; mem0's qdrant default (1536) would not match
SERVER_CONTEXT = 16384  # tokens: mem0's system prompt (~7,900) + messages, memories, its JSON answer


def mem0_memory_class():
    """mem0's ``Memory`` class, imported with telemetry off (mem0 reads ``MEM0_TELEMETRY``
    once, at import) and its config directory in promptmem's cache instead of ``~/.mem0``."""
    os.environ["MEM0_TELEMETRY"] = "False"
    os.environ.setdefault("MEM0_DIR", str(cache_dir() / "mem0"))
    try:
        from mem0 import Memory
        from mem0.memory import telemetry
    except ImportError as err:
        raise ImportError(f"--agent mem0 needs mem0ai {MEM0_VERSION}: pip install 'promptmem[peers]'") from err
    if telemetry.MEM0_TELEMETRY:
        raise RuntimeError("mem0 was imported with telemetry on before promptmem could turn it off")
    return Memory


@dataclass(frozen=True)
class Endpoint:
    """An OpenAI-compatible chat endpoint, as mem0's ``openai`` LLM provider takes it; None
    lets mem0 read ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY``."""

    model: str
    base_url: str | None = None
    api_key: str | None = None


def hosted_endpoint(config: LMConfig) -> Endpoint:
    """The endpoint of a hosted spec: ``openai/MODEL`` or ``hosted_vllm/MODEL`` at
    ``config.api_base`` (required for hosted_vllm); any other spec is a ValueError."""
    provider, _, model = config.spec.partition("/")
    if provider == "hosted_vllm" and config.api_base:
        return Endpoint(model, config.api_base, os.environ.get("HOSTED_VLLM_API_KEY") or "none")
    if provider == "openai":
        return Endpoint(model, config.api_base)
    raise ValueError(
        f"--agent mem0 calls an OpenAI-compatible endpoint: use a local:... spec, openai/MODEL "
        f"or hosted_vllm/MODEL with --api-base (got {config.spec!r})"
    )


def check_setup(config: LMConfig) -> None:
    """Fail before a run starts if mem0 is not installed (ImportError), the local GGUF is
    missing (LocalModelError) or mem0 cannot call ``config.spec`` offline (ValueError)."""
    mem0_memory_class()
    if os.environ.get("OPENROUTER_API_KEY"):
        raise ValueError("mem0 sends every LLM call to OpenRouter while OPENROUTER_API_KEY is set: unset it")
    if local_gguf(config.spec) is None:  # the same rule llm_endpoint follows
        hosted_endpoint(config)


@contextmanager
def llm_endpoint(config: LMConfig) -> Iterator[Endpoint]:
    """The endpoint mem0 calls for ``config.spec``, up for the block: for ``local:...``,
    llama-cpp-python's server on its GGUF, started and stopped here; else ``hosted_endpoint``."""
    gguf = local_gguf(config.spec)
    if gguf is None:
        yield hosted_endpoint(config)
        return
    with llama_server(gguf, context=max(config.context, SERVER_CONTEXT), threads=config.threads) as url:
        yield Endpoint(gguf.stem, url, "none")


def count_usage(llm, response, params) -> None:
    """mem0's response callback: each of its LLM calls joins the DSPy usage tracker of the
    step that made it (if any), so the run's cost counts mem0's calls too."""
    tracker = dspy.settings.usage_tracker
    if tracker is not None and response.usage is not None:
        tracker.add_usage(f"mem0/{params['model']}", response.usage.model_dump())


def mem0_config(endpoint: Endpoint, directory: Path, temperature: float = 0.0) -> dict:
    """mem0's config: its ``openai`` LLM on ``endpoint`` (mem0's defaults but ``temperature``),
    the packaged MiniLM embedder, an embedded qdrant and the history db under ``directory``."""
    return {
        "llm": {
            "provider": "openai",
            "config": {
                "model": endpoint.model,
                "openai_base_url": endpoint.base_url,
                "api_key": endpoint.api_key,
                "temperature": temperature,
                "response_callback": count_usage,
            },
        },
        "embedder": {
            "provider": "huggingface",
            "config": {"model": str(model_dir()), "model_kwargs": {"device": "cpu"}},
        },
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "path": str(directory / "qdrant"),
                "collection_name": "memories",
                "embedding_model_dims": EMBEDDING_DIMS,
            },
        },
        "history_db_path": str(directory / "history.db"),
    }


class Mem0Store:
    """The memory protocol over one mem0 ``Memory`` and scope (``run_id``).

    ``apply``: an ADD hands its text to ``Memory.add`` as a user message; its results are
    mem0's ADD events, one per memory stored (a NOOP when it stored none), not one per op;
    NOOP is kept; UPDATE and DELETE are rejected (mem0 2.x only adds). A failing add (mem0's
    ``LLMError`` and the like) raises ``WriteFailed``. ``notes`` mirrors what mem0 stored,
    oldest first, with short ids (n1, n2, ...) instead of mem0's UUIDs. ``render(query)``
    shows ``Memory.search(query, top_k)`` (mem0's default top-k, 20, when ``top_k`` is None)
    as ``[id] text`` lines. ``budget`` is not enforced: mem0 keeps every memory it extracts.
    """

    def __init__(self, memory, scope: str, budget: int, top_k: int | None = None, show_time: bool = False):
        self._memory, self._filters = memory, {"run_id": "_".join(scope.split())}  # mem0 ids hold no spaces
        self.budget, self.top_k, self.show_time = budget, top_k, show_time
        self._notes: dict[str, Note] = {}  # short id -> note, oldest first
        self._short_ids: dict[str, str] = {}  # mem0 id -> short id
        self._next_id = 1
        self.trace: list[dict] = []

    @classmethod
    def open(
        cls,
        directory: Path,
        scope: str,
        endpoint: Endpoint,
        *,
        temperature: float = 0.0,
        budget: int,
        top_k: int | None = None,
        show_time: bool = False,
    ) -> Mem0Store:
        """A store on a fresh mem0 whose files live in ``directory`` (what was there is removed:
        an unfinished stream starts over)."""
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        memory = mem0_memory_class().from_config(mem0_config(endpoint, directory, temperature))
        return cls(memory, scope, budget, top_k, show_time)

    def notes(self) -> list[Note]:
        return list(self._notes.values())

    def render(self, query: str | None = None) -> str:
        if not query or not self._notes:
            return render_notes(self.notes(), self.show_time)
        hits = self._memory.search(query, filters=self._filters, **({"top_k": self.top_k} if self.top_k else {}))[
            "results"
        ]
        return format_notes([self._notes[self._short_ids[hit["id"]]] for hit in hits], self.show_time) or NO_MATCH

    def apply(self, ops: Sequence[Op], *, step: str = "", when: When = When()) -> list[OpResult]:  # noqa: B008
        results: list[OpResult] = []
        try:
            for op in ops:
                results += self._apply_one(op, when)
        except Exception as err:  # mem0 raises its own errors, openai's, qdrant's, ...
            raise WriteFailed(f"mem0: {describe(err)}", results) from err
        finally:
            self.trace.extend({"step": step, **result.to_json()} for result in results)
        return results

    def _apply_one(self, op: Op, when: When) -> list[OpResult]:
        if op.kind == "NOOP":
            return [OpResult(op, True)]
        if op.kind != "ADD":
            return [OpResult(op, False, f"mem0 {MEM0_VERSION} only adds memories")]
        if not op.text.strip():
            return [OpResult(op, False, "ADD with empty text")]
        events = self._memory.add(op.text, **self._filters)["results"]
        return [self._remember(event["id"], event["memory"], when) for event in events] or [
            OpResult(Op("NOOP"), True, "mem0 stored no new memory")
        ]

    def _remember(self, mem0_id: str, text: str, when: When) -> OpResult:
        note = Note(f"n{self._next_id}", text, when.label, when.position)
        self._next_id += 1
        self._notes[note.id], self._short_ids[mem0_id] = note, note.id
        return OpResult(Op("ADD", text=text), True, note_id=note.id)

    def snapshot(self) -> Snapshot:
        return Snapshot(tuple(self._notes.values()), self._next_id, len(self.trace))

    def restore(self, snapshot: Snapshot) -> None:
        """Back to an earlier state: the memories added since are deleted from mem0. A
        snapshot holding a memory that is gone is a ValueError (mem0 cannot bring it back)."""
        kept = {note.id for note in snapshot.notes}
        if not kept <= self._notes.keys():
            raise ValueError("a mem0 store can go back to an earlier snapshot only")
        for mem0_id, note_id in list(self._short_ids.items()):
            if note_id not in kept:
                self._memory.delete(mem0_id)
                del self._short_ids[mem0_id], self._notes[note_id]
        self._next_id = snapshot.next_id
        del self.trace[snapshot.trace_len :]

    def close(self) -> None:
        """Release the history db and the embedded qdrant's lock on its directory."""
        self._memory.close()
        self._memory.vector_store.client.close()


@contextmanager
def mem0_stores(
    lm_config: LMConfig, root: Path, *, budget: int, top_k: int | None = None, show_time: bool = False
) -> Iterator[Callable[[str], Mem0Store]]:
    """For the block: a factory of fresh stores, one per stream id, with their files in
    ``root/<safe_name(stream id)>/``, all calling the endpoint of ``lm_config`` (``llm_endpoint``), which
    comes up with the first store (a resumed run with nothing left to run starts no server)."""
    lock, endpoints = threading.Lock(), []
    with ExitStack() as stack:

        def make(stream_id: str) -> Mem0Store:
            with lock:
                if not endpoints:
                    endpoints.append(stack.enter_context(llm_endpoint(lm_config)))
            return Mem0Store.open(
                root / safe_name(stream_id),
                stream_id,
                endpoints[0],
                temperature=lm_config.temperature,
                budget=budget,
                top_k=top_k,
                show_time=show_time,
            )

        yield make


# The mem0 agent's memory backend (``MemoryAgent.memory_backend``): how `promptmem eval` checks and
# opens it.


def check_run(config, lm_config: LMConfig) -> None:
    """Before a mem0 run claims its directory: mem0 is installed and can call the LM, and no
    option that chooses promptmem's stores is given (they do not apply to mem0's memory)."""
    check_setup(lm_config)
    given = {
        "--store": config.store != "memory",
        "--retriever": config.retriever != "lexical",
        "--rank": bool(config.rank),
        "--max-deletes": config.max_deletes is not None,
    }
    if any(given.values()):
        raise ValueError(
            f"--agent mem0 keeps its memories in mem0 (embedded qdrant, searched by embeddings); "
            f"these options choose promptmem's stores: {', '.join(f for f, on in given.items() if on)}"
        )


@contextmanager
def run_memory(config, lm_config: LMConfig, budget: int, out: Path) -> Iterator[Callable[[str, str], Memory]]:
    """The run's memory factory for (label, stream id): mem0 itself for the agent (files under
    ``OUT/memory/agent/<safe_name(stream id)>/``, its LLM endpoint up for the block); the no-memory
    reference gets an unused in-process store."""
    with mem0_stores(
        lm_config, out / "memory" / "agent", budget=budget, top_k=config.top_k, show_time=config.show_time
    ) as make_mem0:
        yield lambda label, stream_id: make_mem0(stream_id) if label == "agent" else InMemoryStore(budget)
