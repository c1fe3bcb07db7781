"""Files a command writes at a path the user gave (``report --html``, ``memory export --out``):
never over one of the command's inputs or a file of a run directory, and a path that cannot be
written is one message naming it, not a traceback."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from promptmem.files import RunDirError, write_text
from promptmem.rundir import LOCK


def run_dir_of(path: Path) -> Path | None:
    """The run directory ``path`` is or lies in (the nearest folder holding a run's lock, which
    every run leaves behind), or None."""
    target = Path(path).resolve()
    return next((folder for folder in (target, *target.parents) if (folder / LOCK).is_file()), None)


def check_output(out: Path, inputs: Iterable[Path], flag: str) -> None:
    """Refuse (``RunDirError``) writing ``out`` when it resolves to one of ``inputs``, lies in a
    run directory (its files are the run's, read back by reruns and reports) or is a folder."""
    target = Path(out).resolve()
    if any(target == Path(given).resolve() for given in inputs):
        raise RunDirError(f"{flag} {out} is an input of this command; write it elsewhere")
    if run := run_dir_of(target):
        raise RunDirError(f"{flag} {out} is in the run directory {run}; write it outside the run")
    if target.is_dir():
        raise RunDirError(f"{flag} {out} is a folder; give a file name")


def write_output(out: Path, text: str, flag: str, inputs: Iterable[Path] = ()) -> None:
    """``text`` at ``out`` (its folder made if missing) after ``check_output``; a path that
    cannot be written is a ``RunDirError`` naming it and ``flag``."""
    check_output(out, inputs, flag)
    try:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        write_text(out, text)
    except OSError as err:
        raise RunDirError(f"cannot write {flag} {out} ({err.strerror or err}); choose another path") from err
