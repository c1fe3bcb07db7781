"""The CPUs a local model may use, and the other local model processes it would share them with.

Two llama.cpp processes whose threads spin on the same cores slow each other down many times
over (measured: 438.5 s for six tasks beside another run, 15.0 s pinned to a core of its own);
``claim_cores`` says so before a local model starts.

A promptmem process that is about to run a local model registers itself first: a file
``<cache>/processes/<pid>.json`` (pid, start time, threads, CPUs, command line), there from
before its model is loaded until it exits, so two runs started together see each other whatever
stage the other has reached. A file whose process is gone (killed: no exit hook ran) is removed
by the next reader. Other programs that run llama.cpp are found in /proc by their command line
or by llama.cpp's library in their memory map.
"""

from __future__ import annotations

import atexit
import functools
import json
import logging
import os
import sys
from pathlib import Path

from promptmem.lm.embedded import cache_dir

# command lines of programs that run a local model: llama.cpp's own, llama-cpp-python's server, ollama
MARKERS = ("llama-server", "llama-cli", "llama_cpp.server", "ollama")
LIBRARY = "libllama"  # a process that mapped llama.cpp's library (promptmem with a local model) runs one
REGISTRY = "processes"  # under the cache directory: one file per promptmem process running a local model

log = logging.getLogger(__name__)


def usable_cpus(pid: int = 0) -> set[int]:
    """The CPUs process ``pid`` (0: this one) may run on: its affinity (``taskset``, cgroup
    cpusets), or every CPU where affinity is unknown."""
    try:
        return set(os.sched_getaffinity(pid))
    except (AttributeError, OSError):
        return set(range(os.cpu_count() or 1))


def _cpus_of(pid: int) -> set[int]:
    """``usable_cpus`` of another process; none once it is gone."""
    try:
        return set(os.sched_getaffinity(pid))
    except ProcessLookupError:
        return set()
    except (AttributeError, OSError):
        return usable_cpus(pid)


def _command(pid: int) -> str:
    try:
        return " ".join(Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").replace("\0", " ").split())
    except OSError:
        return ""


def _started(pid: int) -> str | None:
    """When ``pid`` started (clock ticks since boot, from /proc; "" where /proc is not
    readable but the pid lives), None when no such process runs: a pid and its start time
    name one process, even after the pid is reused."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[19]
    except (OSError, IndexError):
        if Path("/proc/self").is_dir():
            return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except OSError:
        pass  # it runs, under another user
    return ""


def registry() -> Path:
    """The folder of registration files (``$PROMPTMEM_CACHE/processes``)."""
    return cache_dir() / REGISTRY


def register(threads: int) -> Path:
    """Mark this process as one that runs a local model with ``threads`` threads, until it
    exits; the file's path. Registering again rewrites the same file."""
    pid = os.getpid()
    folder = registry()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{pid}.json"
    entry = {
        "pid": pid,
        "started": _started(pid),
        "threads": threads,
        "cpus": sorted(usable_cpus()),
        "command": " ".join(sys.argv)[:200],
    }
    partial = folder / f".{pid}.partial"
    partial.write_text(json.dumps(entry))
    partial.replace(path)  # readers never see half a file
    _remove_at_exit(path)
    return path


@functools.cache
def _remove_at_exit(path: Path) -> None:
    atexit.register(_remove_if_mine, path, os.getpid())


def _remove_if_mine(path: Path, pid: int) -> None:
    if os.getpid() == pid:  # not in a forked child that inherited the hook
        path.unlink(missing_ok=True)


def registered_processes() -> list[tuple[int, str]]:
    """(pid, command line) of every registered process that still runs; the files of those
    that are gone (or whose pid now names another process) are removed."""
    found = []
    for path in sorted(registry().glob("*.json")) if registry().is_dir() else ():
        try:
            entry = json.loads(path.read_text())
            pid = int(entry["pid"])
        except FileNotFoundError:
            continue  # removed meanwhile
        except (OSError, ValueError, KeyError, TypeError):
            path.unlink(missing_ok=True)  # not a registration file
            continue
        started = _started(pid)
        if started is None or (started and entry.get("started") and started != entry["started"]):
            path.unlink(missing_ok=True)
            continue
        command = _command(pid) or str(entry.get("command", ""))
        found.append((pid, f"{command[:120]} (threads: {entry.get('threads')})"))
    return found


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


def _unregistered_processes(skip: set[int]) -> list[tuple[int, str]]:
    """(pid, command line) of the processes /proc shows running a local model, but those in
    ``skip`` and this process's descendants (a model server it started)."""
    me, found = os.getpid(), []
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        pid = int(entry.name)
        command = _command(pid)
        if command and _runs_a_model(pid, command) and not _descends_from(pid, me):
            found.append((pid, command))
    return found


def rival_processes(cpus: set[int] | None = None) -> list[tuple[int, str, set[int]]]:
    """Other processes that run a local model on any of ``cpus`` (default: this process's), as
    (pid, command line, the CPUs they share with it): registered promptmem processes first (this
    process's children included: each registered to run a model of its own), then the others
    /proc shows. This process and its ancestors are never counted."""
    cpus = usable_cpus() if cpus is None else cpus
    mine = _family(os.getpid())
    candidates = [(pid, command) for pid, command in registered_processes() if pid not in mine]
    candidates += _unregistered_processes(mine | {pid for pid, _ in candidates})
    rivals = []
    for pid, command in candidates:
        shared = cpus & _cpus_of(pid)
        if shared:
            rivals.append((pid, command[:160], shared))
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


def claim_cores(threads: int) -> str:
    """Before a local model starts in this process: register it, then ``shared_cores_warning``
    (registering first, two processes starting at once cannot both miss each other)."""
    try:
        register(threads)
    except OSError as err:  # an unwritable cache: the warning still looks
        log.debug("could not register this local model process: %s", err)
    return shared_cores_warning(threads)
