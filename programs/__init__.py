"""DSPy programs: the actor, the writers and the baselines (``promptmem.programs``)."""

from promptmem.programs.actor import Actor, SolveTask
from promptmem.programs.agent import (
    AGENTS,
    WRITERS,
    MemoryAgent,
    build_agent,
    load_agent,
    register_writer,
    resolve_agent,
    save_agent,
)
from promptmem.programs.baselines import AppendRawWriter
from promptmem.programs.ops_format import ParsedOps, parse_ops
from promptmem.programs.writers import EditNotes, NotesWriter, OpsWriter, RewriteNotes
from promptmem.roles import Write

__all__ = [
    "Actor",
    "SolveTask",
    "AGENTS",
    "WRITERS",
    "MemoryAgent",
    "build_agent",
    "register_writer",
    "load_agent",
    "resolve_agent",
    "save_agent",
    "AppendRawWriter",
    "ParsedOps",
    "parse_ops",
    "EditNotes",
    "NotesWriter",
    "OpsWriter",
    "RewriteNotes",
    "Write",
]
