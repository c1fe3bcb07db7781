"""MemoryAgent: an actor and a writer (or none), plus the named agents and their save/load."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from importlib.metadata import version
from pathlib import Path

import dspy

from promptmem.dotted import is_dotted, load_dotted
from promptmem.files import write_json
from promptmem.programs.actor import ACTORS, Actor
from promptmem.programs.baselines import AppendRawWriter, ForwardWriter
from promptmem.programs.facts import FactsWriter
from promptmem.programs.hybrid import HybridWriter
from promptmem.programs.mem0_style import Mem0StyleWriter
from promptmem.programs.select import SelectWriter
from promptmem.programs.writers import NotesWriter, OpsWriter
from promptmem.roles import OneCallWriter

MEM0_MEMORY = "promptmem.integrations.mem0"  # the memory backend the mem0 agent brings (check_run, run_memory)


@dataclass(frozen=True)
class Registered:
    """A registry entry: what builds it, and one line on what it is good for (the help text)."""

    build: Callable
    about: str


# The default first: the best held-out results (numbers: 1.5B, synthetic suite, the results file named).
WRITERS: dict[str, Registered] = {
    "select": Registered(
        SelectWriter,
        "chooses which numbered statements of the observation to keep, stored word for word in a recency buffer; "
        "the best measured writer (0.744 vs append-raw 0.667 on 6 fresh streams, select_writer_s3000.json)",
    ),
    "ops": Registered(
        OpsWriter,
        "typed ADD/UPDATE/DELETE/NOOP edits of notes by id; the small models rarely keep anything with it "
        "(0.308 = no memory, notes recall 0.00, writers.json)",
    ),
    "facts": Registered(FactsWriter, "subject/attribute/value facts, upserted per subject (0.385, writers.json)"),
    "notes": Registered(NotesWriter, "rewrites the whole notes; slowest (0.423, baseline.json)"),
    "mem0": Registered(
        Mem0StyleWriter,
        "extracts facts, then one op per fact against similar notes (LoCoMo F1 0.161, locomo_writers.json)",
    ),
}


def register_writer(name: str, writer: type, about: str) -> None:
    """Make ``writer`` (a class built with no arguments) the seed agent's ``--writer name``."""
    WRITERS[name] = Registered(writer, about)


def _is_module_class(found: object) -> bool:
    return isinstance(found, type) and issubclass(found, dspy.Module)


def make_writer(spec: str) -> dspy.Module:
    """A fresh writer: a ``WRITERS`` name, or a ``pkg.module:Class`` path to a writer class."""
    if is_dotted(spec):
        return load_dotted(spec, "--writer", _is_module_class, "a writer class (a dspy.Module subclass)")()
    if spec not in WRITERS:
        raise ValueError(f"unknown writer {spec!r}; known: {', '.join(WRITERS)} or a pkg.module:Class path")
    return WRITERS[spec].build()


def one_call_writers() -> list[str]:
    """The registered writers whose write is one LM call (``OneCallWriter``: GRPO can re-roll them)."""
    return [name for name, entry in WRITERS.items() if isinstance(entry.build(), OneCallWriter)]


def writer_help(lead: str = "The seed agent's writer", one_call: bool = False) -> str:
    """The ``--writer`` help after ``lead``, from ``WRITERS`` (``one_call``: only the writers
    GRPO can train)."""
    names = one_call_writers() if one_call else list(WRITERS)
    known = " | ".join(f"{name}: {WRITERS[name].about}" for name in names)
    return f"{lead}. {known} | pkg.module:Class: a writer class of your own."


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


def _no_memory(name: str, actor: str, writer: str, buffer_share: float) -> MemoryAgent:
    return MemoryAgent(ACTORS[actor](), None, name, actor_kind=actor)


def _append_raw(
    name: str, actor: str, writer: str, buffer_share: float, per_line: bool = False, fills_window: bool = False
) -> MemoryAgent:
    raw = AppendRawWriter(per_line=per_line)
    return MemoryAgent(ACTORS[actor](), raw, name, "append-raw", fills_window=fills_window, actor_kind=actor)


def _mem0(name: str, actor: str, writer: str, buffer_share: float) -> MemoryAgent:
    return MemoryAgent(ACTORS[actor](), ForwardWriter(), name, "forward", memory_backend=MEM0_MEMORY, actor_kind=actor)


def _seed(name: str, actor: str, writer: str, buffer_share: float) -> MemoryAgent:
    lm_writer = make_writer(writer)
    if buffer_share:
        lm_writer = HybridWriter(lm_writer, buffer_share)
    return MemoryAgent(ACTORS[actor](), lm_writer, name, writer, buffer_share=buffer_share, actor_kind=actor)


SEED_AGENT = "seed"  # the agent whose LM writer --writer picks (and --buffer-share splits)
AGENTS: dict[str, Registered] = {
    SEED_AGENT: Registered(_seed, "the actor plus an LM writer (--writer) with first-draft instructions"),
    "no-memory": Registered(_no_memory, "the actor alone, with empty notes: the reference for memory gain"),
    "append-raw": Registered(_append_raw, "the actor over a recency buffer of raw observations (no LM writer)"),
    "append-lines": Registered(
        partial(_append_raw, per_line=True),
        "append-raw with one note per observation line (a LoCoMo turn), so retrieval (--top-k) picks lines, "
        "not whole observations; --show-time gives each line its date",
    ),
    "full-context": Registered(
        partial(_append_raw, fills_window=True),
        "the actor over the whole history, cut to the LM's context window (no budget)",
    ),
    "mem0": Registered(
        _mem0,
        "the real mem0 library (mem0ai 2.2.1; pip install 'promptmem[peers]') keeps the memories: each observation "
        "goes to its Memory.add (one LLM call extracts memories; mem0 2.x only adds, never updates or deletes), the "
        "actor sees Memory.search's top-k; same LM (a local model is served to mem0 by llama-cpp-python's server for "
        "the run), MiniLM embeddings, embedded qdrant under OUT/memory/",
    ),
}


def agent_help() -> str:
    """The ``--agent`` help, from ``AGENTS``."""
    known = " | ".join(f"{name}: {entry.about}" for name, entry in AGENTS.items())
    return f"The agent. {known} | PATH.json: a saved program (e.g. optimize's OUT/program.json)."


def build_agent(name: str, writer: str = "ops", buffer_share: float = 0.0, actor: str = "plain") -> MemoryAgent:
    """A named agent (see ``AGENTS``); ``writer`` picks the seed agent's writer (a ``WRITERS``
    name or a ``pkg.module:Class`` path), ``buffer_share`` > 0 gives that share of the budget
    to a recency buffer of raw observations (``HybridWriter``) and ``actor`` picks the actor
    (``ACTORS``: plain | filter)."""
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {', '.join(AGENTS)} or a saved PATH.json")
    if buffer_share and name != SEED_AGENT:
        raise ValueError(f"--buffer-share applies to the seed agent's LM writer, not to {name!r}")
    if actor not in ACTORS:
        raise ValueError(f"unknown actor {actor!r}; known: {', '.join(ACTORS)}")
    return AGENTS[name].build(name, actor, writer, buffer_share)


AGENT_FORMAT = "promptmem.agent/1"


def save_agent(agent: MemoryAgent, path: str | Path) -> None:
    """Write the agent's prompts and how to rebuild it as JSON with version metadata."""
    payload = {
        "format": AGENT_FORMAT,
        "promptmem": version("promptmem"),
        "dspy": dspy.__version__,
        "agent": agent.name,
        "writer": agent.writer_kind,
        "buffer_share": agent.buffer_share,
        "actor": agent.actor_kind,
        "state": agent.dump_state(),
    }
    write_json(path, payload)


def _fields(state: dict) -> dict[str, list[str]]:
    """Each predictor of a dumped state and its fields' prefixes, in order."""
    return {name: [f.get("prefix") for f in part["signature"]["fields"]] for name, part in state.items()}


def _check_state(agent: MemoryAgent, state: dict, writer: str) -> None:
    """``state`` has the predictors and fields of the agent it is loaded into (a ValueError
    naming the first that differs): a program's state only fits the writer it was saved with."""
    built, saved = _fields(agent.dump_state()), _fields(state)
    for name in sorted(set(built) | set(saved)):
        if built.get(name) != saved.get(name):
            raise ValueError(
                f"its state does not fit writer {writer!r}: predictor {name} has fields "
                f"{saved.get(name) or 'none'} where that writer's has {built.get(name) or 'none'}"
            )


def load_agent(path: str | Path) -> MemoryAgent:
    """Rebuild an agent saved by ``save_agent``: a file of another format or shape, or a state
    that does not fit the writer it names, is a ValueError naming the file."""
    path = Path(path)
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(payload, dict) or "format" not in payload:
            raise ValueError("not a promptmem agent file (it names no format)")
        if payload["format"] != AGENT_FORMAT:
            raise ValueError(
                f"format {payload['format']!r}, where this promptmem reads {AGENT_FORMAT!r}; save the "
                "program again with this version"
            )
        agent = build_agent(
            payload["agent"],
            payload["writer"] or "ops",
            payload.get("buffer_share", 0.0),
            payload.get("actor", "plain"),
        )
        _check_state(agent, payload["state"], payload["writer"] or "ops")
        agent.load_state(payload["state"])
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError, AttributeError) as err:
        raise ValueError(f"{path}: not a promptmem agent file ({type(err).__name__}: {err})") from err
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from err
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


def check_writer_taken(spec: str, writer: str | None) -> None:
    """Refuse a ``writer`` given on purpose (None: not given) to an agent that takes none: only
    the seed agent's LM writer is chosen by ``--writer``; the other agents and a saved program
    bring their own writer or none, and an ignored option would still be recorded in (and
    lock) the run's configuration."""
    if writer is not None and spec != SEED_AGENT:
        brings = "brings its own writer" if spec.endswith(".json") else "has no --writer to choose"
        raise ValueError(
            f"--writer {writer!r} applies to the {SEED_AGENT} agent's LM writer; --agent {spec} {brings}: drop --writer"
        )


def resolve_agent(spec: str, writer: str = "ops", buffer_share: float = 0.0, actor: str = "plain") -> MemoryAgent:
    """An agent name from ``AGENTS`` or the path of a saved agent (``.json``, which carries its
    own writer, buffer share and actor)."""
    return load_agent(spec) if spec.endswith(".json") else build_agent(spec, writer, buffer_share, actor)
