"""The harness of the input fault cases (``cases.py``): a case's folder and command line
(``Bench``), running one case and judging whether it was handled (``run_case``), and the small
builders the cases make their inputs with."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.memory import Op
from promptmem.memory.sqlite import SQLiteStore
from tests.helpers.fake_openai import FakeOpenAI

WIDE = {"COLUMNS": "2000"}  # one message, one line
# secrets the cases plant (the API key, passwords in --api-base URLs): none may be printed or written
SECRETS = ("sk-planted-secret-0123456789", "hunter2-secret-0042", "sk-secret-9")
TASK = {"id": "t1", "observation": "billing-api listens on port 42", "question": "Port?", "answer": "42"}


def jsonl(path: Path, *lines) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines))
    return path


def stream(stream_id: str, **task) -> dict:
    return {"stream_id": stream_id, "tasks": [{**TASK, **task}, {**TASK, "id": "t2"}]}


def conversation(sample_id: str = "conv-1", **qa) -> dict:
    return {
        "sample_id": sample_id,
        "conversation": {"session_1": [{"speaker": "A", "text": "I moved to Lisbon."}], "session_1_date_time": "today"},
        "qa": [{"question": "Where?", "answer": "Lisbon", "evidence": ["D1:1"], "category": 4, **qa}],
    }


def store(path: Path) -> Path:
    notes = SQLiteStore(path)
    for text in ("billing-api listens on port 42", "Priya owns billing-api", "ledger-db is in eu-west-1"):
        notes.apply([Op("ADD", text)], step="t")
    notes.apply([Op("DELETE", note_id="n1")], step="t")
    notes.close()
    return path


def shows(text: str, test: Callable) -> Callable:
    """``test(bench, result) -> bool``, described in the results by ``text``."""
    test.shows = text
    return test


NO_STREAM_FINISHED = shows("0 streams finished", lambda b, r: finished(b) == 0)


class Bench:
    """One case's folder, the fake server and the command line."""

    def __init__(self, root: Path, server: FakeOpenAI):
        self.root, self.server = root, server
        self.out = root / "run"

    def eval(self, *args: str, out: Path | None = None, lm: bool = True, writer: bool = True) -> list[str]:
        """``eval`` on the fake server (``lm``) with the ops writer (``writer``: False for an
        agent that brings its own) into ``out`` (default ``self.out``), then ``args``."""
        hosted = ["--lm", "openai/fake-model", "--api-base", self.server.url] if lm else []
        return [
            "eval",
            *(["--writer", "ops"] if writer else []),
            "--streams",
            "2",
            "--tasks",
            "4",
            *hosted,
            "--out",
            str(out or self.out),
            *args,
        ]

    def data(self, suite: str, path: Path, *args: str) -> list[str]:
        return self.eval("--suite", suite, "--data", str(path), *args)


def _files(root: Path) -> dict[str, int]:
    return {p.relative_to(root).as_posix(): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def run_case(name: str, issue: str, build: Callable, root: Path, server: FakeOpenAI) -> dict:
    """Run case ``build``: it prepares ``bench``'s folder and returns (the command's arguments,
    the exit code expected, what the output must name, paths the command may write beside
    --out, a check of the result or None)."""
    bench = Bench(root, server)
    root.mkdir(parents=True)
    args, expected, names, allowed, check = build(bench)
    before = _files(root)
    result = CliRunner().invoke(app, args, env=WIDE)
    output = " ".join(result.output.split())
    outside = [
        path
        for path, stamp in _files(root).items()
        if before.get(path) != stamp
        and not path.startswith(("run/", "other/"))
        and not any(path.startswith(a) for a in allowed)
    ]
    traceback = result.exception is not None and not isinstance(result.exception, SystemExit)
    checked = check(bench, result) if check else True
    secret = _secret_shown(root, result.output)
    handled = (
        result.exit_code == expected and names in output and not traceback and not outside and checked and not secret
    )
    said = f": `{names}`" if expected else ""
    verified = "; ".join(filter(None, [getattr(check, "shows", ""), "nothing written outside --out"]))
    return {
        "case": name,
        "issue": issue,
        "outcome": f"{'refused' if expected == 2 else 'ran'} (exit {result.exit_code}){said}; {verified}",
        "exit_code": result.exit_code,
        "expected_exit_code": expected,
        "message": output[:300],
        "names": names,
        "traceback": traceback,
        "written_outside_out": outside,
        "secret_written": secret,
        "handled": bool(handled),
    }


def _secret_shown(root: Path, output: str) -> bool:
    """A planted secret in the command's output or in any file under the case's folder."""
    files = [p.read_bytes() for p in root.rglob("*") if p.is_file()]
    return any(s in output or any(s.encode() in data for data in files) for s in SECRETS)


def counts(rows: list[dict]) -> dict:
    """The results file's counts over case rows: ``clear`` (handled: the expected exit, the
    message naming what it must, every check passed), ``silent_wrong`` (exit 0, yet not
    handled), ``secrets_written``, ``outside_out``, ``tracebacks`` (the last four 0 when all is well)."""
    return {
        "cases": len(rows),
        "clear": sum(r["handled"] for r in rows),
        "silent_wrong": sum(r["exit_code"] == 0 and not r["handled"] for r in rows),
        "secrets_written": sum(r["secret_written"] for r in rows),
        "outside_out": sum(bool(r["written_outside_out"]) for r in rows),
        "tracebacks": sum(r["traceback"] for r in rows),
    }


def finished(bench: Bench) -> int:
    return len(list(bench.out.glob("streams/*/*.json")))
