"""A finished eval run read back for a report: its config, its report.json, every stream its
config names finished, and the suite's streams; anything missing or of the wrong shape is a
``RunDirError`` naming the file and the field."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from promptmem.evaluate import run_streams
from promptmem.files import RunDirError, read_json, safe_name
from promptmem.resume import finished_streams
from promptmem.runner import StreamResult
from promptmem.tasks import Stream, Suite

# (file, dotted field, type): what a report reads of a run's files
SHAPE = (
    ("config.json", "eval", dict),
    ("config.json", "lm", dict),
    ("config.json", "lm.spec", str),
    ("report.json", "agent", dict),
    ("report.json", "agent.agent", str),
    ("report.json", "agent.score", (int, float)),
    ("report.json", "agent.cost", dict),
    ("report.json", "agent.learning_curve", list),
)


@dataclass(frozen=True)
class FinishedRun:
    """One finished eval run: ``results`` are the agent's streams in the order of ``streams``."""

    name: str
    config: dict
    report: dict
    results: list[StreamResult]
    suite: Suite
    streams: dict[str, Stream]


def _field(data, dotted: str):
    for key in dotted.split("."):
        data = data.get(key) if isinstance(data, dict) else None
    return data


def _check_shape(run_dir: Path, files: dict[str, object], fix: str) -> None:
    for name, dotted, kind in SHAPE:
        if not isinstance(_field(files[name], dotted), kind):
            raise RunDirError(f"{run_dir / name}: field {dotted} is missing or of the wrong type; {fix}")


def _suite_streams(run_dir: Path, settings: dict, fix: str) -> tuple[Suite, dict[str, Stream]]:
    try:
        return run_streams(settings)
    except (TypeError, KeyError, AttributeError) as err:
        raise RunDirError(f"{run_dir / 'config.json'}: field eval does not build a suite ({err}); {fix}") from err


def load_run(run_dir: Path) -> FinishedRun:
    """The finished eval run in ``run_dir`` (see the module docstring): a stream its config
    names without a finished file is refused, not reported from a stale report.json."""
    if not (run_dir / "report.json").is_file():
        raise RunDirError(f"{run_dir}: not a finished `promptmem eval` run (no report.json)")
    fix = f"rerun the `promptmem eval` command that wrote {run_dir}"
    files = {name: read_json(run_dir / name, fix) for name in ("config.json", "report.json")}
    _check_shape(run_dir, files, fix)
    suite, streams = _suite_streams(run_dir, files["config.json"]["eval"], fix)
    found = {r.stream_id: r for r in finished_streams(run_dir / "streams" / "agent")}
    for stream_id in streams:
        if stream_id not in found:
            where = run_dir / "streams" / "agent" / f"{safe_name(stream_id)}.json"
            raise RunDirError(f"{where} is missing: stream {stream_id!r} of the run is not finished; {fix} to run it")
    results = [found[stream_id] for stream_id in streams]
    return FinishedRun(
        run_dir.name or str(run_dir), files["config.json"], files["report.json"], results, suite, streams
    )
