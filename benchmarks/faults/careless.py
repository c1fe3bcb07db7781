"""The hostile or careless user of issue #42, each case one command line run in-process against
the fake OpenAI-compatible server (``bench``): provider errors, secrets in error bodies
and URLs, run directories without their config, outputs over inputs, malformed inputs that
used to be accepted or to end in a traceback. ``cases.CASES`` holds them too."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.faults.bench import NO_STREAM_FINISHED, WIDE, Bench, jsonl, shows, stream
from promptmem.cli import app
from promptmem.rundir import run_lock

ISSUE = "42"
SECRET = "hunter2-secret-0042"  # a password in --api-base; the API key is tests/helpers/fake_openai.py's KEY


def _finished(bench: Bench, *args: str) -> Path:
    """``bench.out`` after a finished sqlite run (the fake server answers every call)."""
    CliRunner().invoke(app, bench.eval("--store", "sqlite", *args), env=WIDE)
    return bench.out


def _store(bench: Bench) -> Path:
    return next((_finished(bench) / "memory" / "agent").glob("*.db"))


def _refused_request(fault: str):
    def build(bench: Bench):
        bench.server.faults[:] = [fault] * 400
        return bench.eval(), 2, f"fake {fault} for Bearer [redacted]", (), NO_STREAM_FINISHED

    return build


def _max_tokens(bench: Bench):
    made = shows("--out not made", lambda b, r: not b.out.exists())
    return bench.eval("--max-tokens", "-5"), 2, "--max-tokens", (), made


def _key_echoed(bench: Bench):
    bench.server.faults[:] = ["401"] * 400
    return bench.eval(), 2, "the provider refused the API key", (), NO_STREAM_FINISHED


def _judge_credential(bench: Bench):
    _finished(bench)
    base = f"http://user:{SECRET}@127.0.0.1:9/v1"
    return ["judge", str(bench.out), "--lm", "openai/m", "--api-base", base], 2, "nothing answers", (), None


def _judge_no_key(bench: Bench):
    _finished(bench)
    os.environ.pop("OPENAI_API_KEY")
    return ["judge", str(bench.out), "--lm", "openai/m"], 2, "OPENAI_API_KEY", (), None


def _config_deleted(bench: Bench):
    (_finished(bench) / "config.json").unlink()
    args = bench.eval("--store", "sqlite", lm=False) + ["--lm", "openai/other", "--api-base", bench.server.url]
    return args, 2, "holds results of an unknown configuration (no config.json)", (), None


def _rollback_during_a_run(bench: Bench):
    path = _store(bench)
    holder = run_lock(bench.out)
    holder.__enter__()
    before = path.read_bytes()

    def unchanged(b, r):
        """the store unchanged (the run's lock released afterwards)"""
        holder.__exit__(None, None, None)
        return path.read_bytes() == before

    return (
        ["memory", "rollback", str(path), "--to", "1"],
        2,
        "is in use by another run",
        (),
        shows(unchanged.__doc__, unchanged),
    )


def _export_over_its_store(bench: Bench):
    path = bench.root / "notes.db"
    path.write_bytes(_store(bench).read_bytes())
    before = path.read_bytes()
    kept = shows("the store unchanged", lambda b, r: path.read_bytes() == before)
    return ["memory", "export", str(path), "--out", str(path)], 2, "is an input of this command", (), kept


def _html_over_the_config(bench: Bench):
    config = _finished(bench) / "config.json"
    before = config.read_bytes()
    kept = shows("config.json unchanged", lambda b, r: config.read_bytes() == before)
    return ["report", str(bench.out), "--html", str(config)], 2, "is in the run directory", (), kept


def _ignored_writer(bench: Bench):
    made = shows("--out not made", lambda b, r: not b.out.exists())
    args = bench.eval("--agent", "append-raw", "--writer", "nosuch")
    return args, 2, "--writer 'nosuch' applies to the seed agent", (), made


def _missing_stream_file(bench: Bench):
    next((_finished(bench) / "streams" / "agent").glob("*.json")).unlink()
    page = bench.root / "page.html"
    return ["report", str(bench.out), "--html", str(page)], 2, "is missing: stream", (), None


def _config_of_another_shape(bench: Bench):
    (_finished(bench) / "config.json").write_text(json.dumps({"eval": [], "lm": {"spec": "x"}}))
    page = bench.root / "page.html"
    return ["report", str(bench.out), "--html", str(page)], 2, "config.json: field eval", (), None


def _export_to(where: str, expected: int, names: str):
    def build(bench: Bench):
        path = bench.root / "notes.db"
        path.write_bytes(_store(bench).read_bytes())
        out = bench.root / where
        return ["memory", "export", str(path), "--out", str(out)], expected, names, ("missing/",), None

    return build


def _dotted(option: str, names: str):
    def build(bench: Bench):
        return bench.eval(option, "os:system"), 2, names, (), None

    return build


def _memory_bound(command: str, option: str, value: str):
    def build(bench: Bench):
        return ["memory", command, str(_store(bench)), option, value], 2, option, (), None

    return build


def _data(names: str, *lines):
    def build(bench: Bench):
        return bench.data("jsonl", jsonl(bench.root / "s.jsonl", *lines)), 2, names, (), None

    return build


def _fewer_streams(bench: Bench):
    """More --streams than the file holds: they run, and a warning says so."""
    said: list[str] = []
    handler = logging.Handler(logging.WARNING)
    handler.emit = lambda record: said.append(record.getMessage())
    logging.getLogger("promptmem.evaluate").addHandler(handler)

    def warned(b, r):
        """a warning: not the 9 --streams asked for: running 1"""
        logging.getLogger("promptmem.evaluate").removeHandler(handler)
        return any("not the 9 --streams asked for: running 1" in line for line in said)

    args = bench.data("jsonl", jsonl(bench.root / "s.jsonl", stream("s")), "--streams", "9")
    return args, 0, "wrote", (), shows(warned.__doc__, warned)


DEEP = '{"stream_id": "s", "tasks": [{"id": "t", "meta": ' + '{"m": ' * 100_000 + "1" + "}" * 100_001 + "]}"
NAN = '{"stream_id": "s", "tasks": [{"id": "t", "observation": "x", "meta": {"w": NaN}}]}'

CASES = [
    ("hosted LM answering every call with 400", ISSUE, _refused_request("400")),
    ("hosted LM answering every call with 422", ISSUE, _refused_request("422")),
    ("--max-tokens -5", ISSUE, _max_tokens),
    ("a 401 whose body echoes the API key", ISSUE, _key_echoed),
    ("judge with user:password@ in --api-base, at a closed port", ISSUE, _judge_credential),
    ("judge with a hosted LM and no API key", ISSUE, _judge_no_key),
    ("config.json deleted, rerun with another --lm", ISSUE, _config_deleted),
    ("memory rollback while a run holds its directory", ISSUE, _rollback_during_a_run),
    ("memory export S.db --out S.db", ISSUE, _export_over_its_store),
    ("report R --html R/config.json", ISSUE, _html_over_the_config),
    ("--agent append-raw --writer nosuch", ISSUE, _ignored_writer),
    ("report on a run missing a stream file", ISSUE, _missing_stream_file),
    ("report on a config.json of another shape", ISSUE, _config_of_another_shape),
    ("memory export --out at a folder", ISSUE, _export_to("", 2, "is a folder")),
    ("memory export --out into a missing folder", ISSUE, _export_to("missing/x.json", 0, "wrote")),
    ("--suite os:system", ISSUE, _dotted("--suite", "os.system is not a suite class")),
    ("--writer os:system", ISSUE, _dotted("--writer", "os.system is not a writer class")),
    ("memory history --limit 0", ISSUE, _memory_bound("history", "--limit", "0")),
    ("memory show --top-k -3", ISSUE, _memory_bound("show", "--top-k", "-3")),
    ("JSONL: meta nested 100,000 deep", ISSUE, _data("nested too deep", DEEP)),
    ("JSONL: NaN in meta", ISSUE, _data("NaN is not a JSON value", NAN)),
    ("JSONL: an empty question", ISSUE, _data(".question: is empty", stream("s", question=""))),
    (
        "JSONL: a numeric scorer with a gold answer that is no number",
        ISSUE,
        _data("holds no number", stream("s", scorer="numeric", answer="Lisbon")),
    ),
    ("JSONL: an unknown stream-level field", ISSUE, _data("unknown field(s) ['notes']", {**stream("s"), "notes": 1})),
    ("--streams 9 on a one-stream file", ISSUE, _fewer_streams),
]
