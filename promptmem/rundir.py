"""A run directory: one run at a time holds it (``run_lock``), and its ``config.json`` says which
run it holds (``claim_run_dir``), written without credentials (``promptmem.redact``)."""

from __future__ import annotations

import fcntl
import functools
import inspect
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, fields, is_dataclass
from pathlib import Path

from promptmem.files import RunDirError, read_json, write_json
from promptmem.options import with_current_names
from promptmem.redact import redact

LOCK = ".promptmem.lock"
CONFIG = "config.json"


def _folder(out: Path) -> Path:
    """``out`` as a folder this process can write in (made if missing), or a ``RunDirError``."""
    if out.exists() and not out.is_dir():
        raise RunDirError(f"--out {out} is a file, not a folder; choose a folder for the run")
    try:
        out.mkdir(parents=True, exist_ok=True)
        if not os.access(out, os.W_OK | os.X_OK):
            raise PermissionError(13, "Permission denied")
    except OSError as err:
        raise RunDirError(f"cannot write to --out {out} ({err.strerror or err}); choose another folder") from err
    return out


@contextmanager
def run_lock(out: str | Path) -> Iterator[Path]:
    """Hold ``out`` (made if missing) for the block: a second run into it, from any process, is
    a ``RunDirError`` while this one runs. The lock is the kernel's (``flock``), so a killed run
    leaves none behind; a folder it made that holds nothing else afterwards is removed."""
    made = not Path(out).exists()
    out = _folder(Path(out))
    path = out / LOCK
    try:
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as err:
        raise RunDirError(f"cannot write to --out {out} ({err.strerror}); choose another folder") from err
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(handle, 32, 0).decode(errors="replace").strip() or "unknown"
            raise RunDirError(
                f"{out} is in use by another run (process {holder}); wait for it to finish or use another --out"
            ) from None
        os.ftruncate(handle, 0)
        os.pwrite(handle, f"{os.getpid()}\n".encode(), 0)
        yield out
    finally:
        os.close(handle)  # releases the lock
        if made and [p.name for p in out.iterdir()] == [LOCK]:  # a run refused before any work leaves nothing
            path.unlink(missing_ok=True)
            out.rmdir()


def holds_run_dir(run: Callable) -> Callable:
    """Decorate a run function taking ``out``: each call holds ``out`` with ``run_lock``."""
    signature = inspect.signature(run)

    @functools.wraps(run)
    def held(*args, **kwargs):
        with run_lock(signature.bind(*args, **kwargs).arguments["out"]):
            return run(*args, **kwargs)

    return held


def _differences(old: dict, new: dict, prefix: str = "") -> list[str]:
    """Dotted names of the entries that differ between two nested dicts."""
    names = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if isinstance(a, dict) and isinstance(b, dict):
            names += _differences(a, b, f"{prefix}{key}.")
        elif a != b:
            names.append(f"{prefix}{key}")
    return names


def _as_stored(value):
    """A config section as ``config.json`` holds it (dataclasses as dicts, tuples as lists,
    no credentials in URLs)."""
    return redact(json.loads(json.dumps(asdict(value) if is_dataclass(value) else value)))


def _with_defaults(stored: dict, defaults: dict) -> dict:
    """``stored`` with every key it lacks (nested) taken from ``defaults``."""
    filled = dict(stored)
    for key, value in defaults.items():
        if key not in filled:
            filled[key] = value
        elif isinstance(filled[key], dict) and isinstance(value, dict):
            filled[key] = _with_defaults(filled[key], value)
    return filled


def _paced(value) -> dict:
    """The fields of a config dataclass declared ``option(pace=True)``, nested as ``_as_stored``
    nests them (``{"threads": None, "lm": {"timeout": None}}``)."""
    found = {}
    for field in fields(value):
        inner = getattr(value, field.name)
        if field.metadata.get("pace"):
            found[field.name] = None
        elif is_dataclass(inner) and (nested := _paced(inner)):
            found[field.name] = nested
    return found


def _without(stored: dict, paced: dict) -> dict:
    """``stored`` without the (nested) keys ``paced`` names."""
    kept = {}
    for key, value in stored.items():
        inner = paced.get(key, {})
        if inner is not None:
            kept[key] = _without(value, inner) if inner and isinstance(value, dict) else value
    return kept


def _holds_work(out: Path) -> bool:
    """Something besides the config, its temporary file while another process writes it
    (``files.write_text``) and the lock is in ``out`` (a run got under way)."""
    return any(entry.name not in (CONFIG, LOCK) and not _config_being_written(entry.name) for entry in out.iterdir())


def _config_being_written(name: str) -> bool:
    return name.startswith(f".{CONFIG}.") and name.endswith(".tmp")


def _renamed(stored: dict, sections: dict) -> dict:
    """``stored`` with each config section under today's field names (a run directory written
    before a rename: ``options.with_current_names``)."""
    return {
        name: with_current_names(type(sections[name]), value)
        if is_dataclass(sections.get(name)) and isinstance(value, dict)
        else value
        for name, value in stored.items()
    }


def changed_settings(stored: dict, sections: dict) -> list[str]:
    """Dotted names of the settings in which ``sections`` (dataclass configs or plain values)
    differ from ``stored`` (a ``config.json``'s content, read under today's field names), except
    settings of pace (``option(pace=True)``: threads, timeouts) and settings ``stored`` lacks
    while ``sections`` keeps their default (an option added after that run)."""
    defaults = {name: _as_stored(type(value)()) for name, value in sections.items() if is_dataclass(value)}
    paced = {name: _paced(value) for name, value in sections.items() if is_dataclass(value)}
    config = {name: _as_stored(value) for name, value in sections.items()}
    previous = _with_defaults(redact(_renamed(stored, sections)), defaults)
    return _differences(_without(previous, paced), _without(config, paced))


def _stored_config(out: Path, sections: dict) -> dict:
    """The ``config.json`` of ``out``, a folder that holds work: a RunDirError when it is missing,
    unreadable or lacks a section of ``sections`` (the work was done under a configuration
    nobody can tell, and is never adopted by another)."""
    path = out / CONFIG
    unknown = f"{out} holds results of an unknown configuration"
    keep = f"restore its {CONFIG}, or use another --out (or empty {out} to start over)"
    if not path.is_file():
        raise RunDirError(f"{unknown} (no {CONFIG}); {keep}")
    stored = read_json(path, f"so {unknown}; {keep}")
    wanted = [name for name, value in sections.items() if is_dataclass(value)]
    if not isinstance(stored, dict) or not all(isinstance(stored.get(name), dict) for name in wanted):
        raise RunDirError(f"{unknown} ({path} is not a configuration of this command's runs); {keep}")
    return stored


def claim_run_dir(out: Path, sections: dict) -> dict:
    """Write ``sections`` (dataclass configs or plain values) to ``out/config.json`` and return
    them as written, or refuse if ``out`` holds work done under another config
    (``changed_settings``: a new option at its default and a setting of pace may change) or
    under no readable config (``_stored_config``); a config with no work beside it (a run
    refused before it began) is replaced."""
    out = _folder(Path(out))
    path = out / CONFIG
    if _holds_work(out):
        stored = _stored_config(out, sections)
        if changed := changed_settings(stored, sections):
            raise RunDirError(
                f"{out} holds a run with another configuration (differs in: "
                f"{', '.join(changed)}); use another --out to start a new run"
            )
    config = {name: _as_stored(value) for name, value in sections.items()}
    write_json(path, config)
    return config
