"""The CPUs a local model may use, and the other local model processes it would share them with.

Two llama.cpp processes whose threads spin on the same cores slow each other down many times
over (measured: 438.5 s for six tasks beside another run, 15.0 s pinned to a core of its own);
``shared_cores_warning`` says so before a local model starts.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path

# command lines of programs that run a local model: llama.cpp's own, llama-cpp-python's server, ollama
MARKERS = ("llama-server", "llama-cli", "llama_cpp.server", "ollama")
LIBRARY = "libllama"  # a process that mapped llama.cpp's library (promptmem with a local model) runs one

log = logging.getLogger(__name__)


def usable_cpus(pid: int = 0) -> set[int]:
    """The CPUs process ``pid`` (0: this one) may run on: its affinity (``taskset``, cgroup
    cpusets), or every CPU where affinity is unknown."""
    try:
        return set(os.sched_getaffinity(pid))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _command(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def _runs_a_model(pid: int, command: str) -> bool:
    if any(marker in command for marker in MARKERS):
        return True
    try:
        return LIBRARY in Path(f"/proc/{pid}/maps").read_text(errors="replace")
    except OSError:
        return False


def _family(pid: int) -> set[int]:
    """``pid`` and its ancestors (a process's own parents, e.g. the shell, are not rivals)."""
    family = set()
    while pid > 1 and pid not in family:
        family.add(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return family


def _descends_from(pid: int, ancestor: int) -> bool:
    return ancestor in _family(pid)


def rival_processes(cpus: set[int] | None = None) -> list[tuple[int, str, set[int]]]:
    """Other processes that run a local model on any of ``cpus`` (default: this process's), as
    (pid, command line, the CPUs they share with it); this process, its ancestors and its own
    children (a model server it started) are not counted. Empty where /proc is not readable."""
    cpus = usable_cpus() if cpus is None else cpus
    me, rivals = os.getpid(), []
    mine = _family(me)
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) in mine:
            continue
        pid = int(entry.name)
        command = _command(pid)
        if not command or not _runs_a_model(pid, command) or _descends_from(pid, me):
            continue
        shared = cpus & usable_cpus(pid)
        if shared:
            rivals.append((pid, command[:120], shared))
    return rivals


def shared_cores_warning(threads: int, cpus: set[int] | None = None) -> str:
    """A warning (logged, and returned; "" when there is none) when another local model process
    runs on the cores a local model with ``threads`` threads is about to use."""
    rivals = rival_processes(cpus)
    if not rivals:
        return ""
    pid, command, shared = rivals[0]
    others = f" (and {len(rivals) - 1} more)" if len(rivals) > 1 else ""
    message = (
        f"another local model process runs on the same cores: pid {pid}, `{command}`{others}, on CPUs "
        f"{','.join(map(str, sorted(shared)))}. Two llama.cpp processes on shared cores can run many times "
        f"slower (this one would use {threads} threads): wait for it, or give each its own cores "
        "(e.g. `taskset -c 1 promptmem eval --lm-threads 1 ...`)"
    )
    log.warning(message)
    return message
