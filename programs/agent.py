"""MemoryAgent: an actor and a writer (or none), plus the named agents and their save/load."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path

import dspy
from promptmem.programs.actor import ACTORS, Actor
from promptmem.programs.baselines import AppendRawWriter, ForwardWriter
from promptmem.programs.facts import FactsWriter
from promptmem.programs.hybrid import HybridWriter
from promptmem.programs.mem0_style import Mem0StyleWriter
from promptmem.programs.select import SelectWriter
from promptmem.programs.writers import NotesWriter, OpsWriter

from promptmem.files import write_json

WRITERS = {
    "notes": NotesWriter,
    "ops": OpsWriter,
    "facts": FactsWriter,
    "mem0": Mem0StyleWriter,
    "select": SelectWriter,
}
AGENTS = {
    "seed": "the actor plus an LM writer (--writer notes|ops|facts|mem0|select) with first-draft instructions",
    "no-memory": "the actor alone, with empty notes: the reference for memory gain",
    "append-raw": "the actor over a recency buffer of raw observations (no LM writer)",
    "append-lines": "append-raw with one note per observation line (a LoCoMo turn), so retrieval (--top-k) "
    "picks lines, not whole observations; --show-time gives each line its date",
    "full-context": "the actor over the whole history, cut to the LM's context window (no budget)",
    "mem0": "the actor over the real mem0 library (mem0ai 2.2.1, the `peers` extra): each observation goes "
    "to mem0's Memory.add (one LLM extraction call; mem0 2.x only adds), each question's notes are "
    "Memory.search's top-k",
}
MEM0_AGENT = "mem0"
MEM0_MEMORY = "promptmem.integrations.mem0"  # the memory backend the mem0 agent brings (check_run, run_memory)


class MemoryAgent(dspy.Module):
    """An actor that answers from notes and a writer that edits them after each task.

    ``writer`` is None for the no-memory baseline. ``name``, ``writer_kind``, ``buffer_share``
    and ``actor_kind`` say how to rebuild the agent from a saved program. ``fills_window``: the agent ignores the
    notes budget and keeps as much as the LM's context window holds. ``memory_backend``: the module
    of the memory the agent brings instead of promptmem's stores ("" for promptmem's).
    """

    def __init__(
        self,
        actor: Actor,
        writer: dspy.Module | None,
        name: str,
        writer_kind: str = "",
        fills_window: bool = False,
        buffer_share: float = 0.0,
        actor_kind: str = "plain",
        memory_backend: str = "",
    ):
        super().__init__()
        self.actor, self.writer = actor, writer
        self.name, self.writer_kind, self.fills_window = name, writer_kind, fills_window
        self.buffer_share, self.actor_kind, self.memory_backend = buffer_share, actor_kind, memory_backend

    @property
    def uses_memory(self) -> bool:
        return self.writer is not None


def build_agent(name: str, writer: str = "ops", buffer_share: float = 0.0, actor: str = "plain") -> MemoryAgent:
    """A named agent (see ``AGENTS``); ``writer`` picks the seed agent's writer,
    ``buffer_share`` > 0 gives that share of the budget to a recency buffer of raw
    observations (``HybridWriter``) and ``actor`` picks the actor (``ACTORS``: plain | filter)."""
    if buffer_share and name != "seed":
        raise ValueError(f"--buffer-share applies to the seed agent's LM writer, not to {name!r}")
    if actor not in ACTORS:
        raise ValueError(f"unknown actor {actor!r}; known: {', '.join(ACTORS)}")
    kind = {"actor_kind": actor}
    if name == "no-memory":
        return MemoryAgent(ACTORS[actor](), None, name, **kind)
    if name in ("append-raw", "append-lines", "full-context"):
        return MemoryAgent(
            ACTORS[actor](),
            AppendRawWriter(per_line=name == "append-lines"),
            name,
            "append-raw",
            fills_window=name == "full-context",
            **kind,
        )
    if name == MEM0_AGENT:
        return MemoryAgent(ACTORS[actor](), ForwardWriter(), name, "forward", memory_backend=MEM0_MEMORY, **kind)
    if name == "seed":
        if writer not in WRITERS:
            raise ValueError(f"unknown writer {writer!r}; known: {', '.join(WRITERS)}")
        lm_writer = WRITERS[writer]()
        if buffer_share:
            lm_writer = HybridWriter(lm_writer, buffer_share)
        return MemoryAgent(ACTORS[actor](), lm_writer, name, writer, buffer_share=buffer_share, **kind)
    raise ValueError(f"unknown agent {name!r}; known: {', '.join(AGENTS)} or a saved PATH.json")


def save_agent(agent: MemoryAgent, path: str | Path) -> None:
    """Write the agent's prompts and how to rebuild it as JSON with version metadata."""
    payload = {
        "format": "promptmem.agent/1",
        "promptmem": version("promptmem"),
        "dspy": dspy.__version__,
        "agent": agent.name,
        "writer": agent.writer_kind,
        "buffer_share": agent.buffer_share,
        "actor": agent.actor_kind,
        "state": agent.dump_state(),
    }
    write_json(path, payload)


def load_agent(path: str | Path) -> MemoryAgent:
    """Rebuild an agent saved by ``save_agent``; a file of another shape is a ValueError."""
    path = Path(path)
    try:
        payload = json.loads(path.read_text())
        agent = build_agent(
            payload["agent"],
            payload["writer"] or "ops",
            payload.get("buffer_share", 0.0),
            payload.get("actor", "plain"),
        )
        agent.load_state(payload["state"])
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as err:
        raise ValueError(f"{path}: not a promptmem agent file ({type(err).__name__}: {err})") from err
    return agent


def in_process(agent: MemoryAgent, command: str) -> MemoryAgent:
    """``agent``, refused (ValueError) by a ``command`` that keeps memory in promptmem's own
    in-process store, when its memory lives elsewhere (mem0's)."""
    if agent.memory_backend:
        raise ValueError(
            f"{command} keeps memory in promptmem's in-process store; the mem0 agent keeps its "
            "memories in mem0 (run it with `promptmem eval --agent mem0`)"
        )
    return agent


def resolve_agent(spec: str, writer: str = "ops", buffer_share: float = 0.0, actor: str = "plain") -> MemoryAgent:
    """An agent name from ``AGENTS`` or the path of a saved agent (``.json``, which carries its
    own writer, buffer share and actor)."""
    return load_agent(spec) if spec.endswith(".json") else build_agent(spec, writer, buffer_share, actor)
