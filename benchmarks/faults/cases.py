"""The adversarial inputs of issue #28 and the earlier malformed-input probes, each run through
the `promptmem` command line (in-process) against a fake OpenAI-compatible server.

A case is handled when the command exits as expected (0, or 2 with one message), the message
names what it must (the file, line, id or the fix), no traceback escapes, no planted secret
(``bench.SECRETS``) is printed or written, and nothing is written outside the run's
--out (or the file the command was asked to write). Issue #42's cases live in
``careless.py`` and are counted here too.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.faults.bench import (
    NO_STREAM_FINISHED,
    TASK,
    WIDE,
    Bench,
    conversation,
    counts,
    jsonl,
    run_case,
    shows,
    store,
    stream,
)
from benchmarks.faults.careless import CASES as CARELESS
from promptmem.cli import app
from promptmem.files import safe_name
from promptmem.lm.cores import rival_processes, shared_cores_warning
from promptmem.programs import build_agent, save_agent
from promptmem.rundir import run_lock
from tests.helpers.fake_openai import KEY, FakeOpenAI, reply


def _no_key(bench: Bench):
    os.environ.pop("OPENAI_API_KEY")
    return bench.eval(), 2, "OPENAI_API_KEY", (), NO_STREAM_FINISHED


def _closed_port(bench: Bench):
    args = bench.eval(lm=False) + ["--lm", "openai/fake-model", "--api-base", "http://127.0.0.1:9/v1"]
    return args, 2, "nothing answers at the LM's address", (), NO_STREAM_FINISHED


def _never_answers(bench: Bench):
    bench.server.faults[:] = ["ok"] * bench.server.requests + ["500"] * 400
    return bench.eval(), 1, "streams unfinished: rerun to retry them", (), NO_STREAM_FINISHED


def _escaping_id(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("../../../escaped"), stream("a/b"))
    return bench.data("jsonl", data, "--store", "sqlite"), 0, "wrote", (), None


def _star_id(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("keep"), stream("*"))

    def kept(b, r):
        """the other stream's memory file is kept"""
        return (b.out / "memory" / "agent" / "keep.db").is_file() and (
            b.out / f"memory/agent/{safe_name('*')}.db"
        ).is_file()

    return bench.data("jsonl", data, "--store", "sqlite"), 0, "wrote", (), shows(kept.__doc__, kept)


def _odd_ids(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("nul\x00id"), stream("x" * 300), stream("ünïcødé ☃"))
    return bench.data("jsonl", data, "--streams", "3", "--store", "sqlite"), 0, "wrote", (), None


def _duplicate_sample_ids(bench: Bench):
    data = bench.root / "locomo.json"
    data.write_text(json.dumps([conversation(), conversation()]))
    return bench.data("locomo", data), 2, "conversations #0 and #1 share the sample_id 'conv-1'", (), None


def _duplicate_stream_ids(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("a"), stream("a"))
    return bench.data("jsonl", data), 2, "line 2, stream_id: 'a' already used on line 1", (), None


def _foreign_sqlite(command: str):
    def build(bench: Bench):
        path = bench.root / "app.db"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE things (a)")
        size = path.stat().st_size
        return (
            ["memory", command, str(path)],
            2,
            "not a promptmem notes store",
            (),
            shows("the file keeps its size", lambda b, r: path.stat().st_size == size),
        )

    return build


def _read_only_store(bench: Bench):
    path = store(bench.root / "m.db")
    path.chmod(0o444)
    return ["memory", "show", str(path)], 0, "2 notes", (), None


def _damaged_store(content: bytes | None):
    def build(bench: Bench):
        path = store(bench.root / "m.db")
        path.write_bytes(content if content is not None else path.read_bytes()[:3000])
        return ["memory", "history", str(path)], 2, "m.db: not a readable SQLite file", (), None

    return build


def _rollback(to: str):
    def build(bench: Bench):
        path = store(bench.root / "m.db")
        return ["memory", "rollback", str(path), "--to", to], 2, f"history row {to} does not exist", (), None

    return build


def _typo_then_fixed(bench: Bench):
    refused = CliRunner().invoke(app, bench.eval(lm=False) + ["--lm", "local:smollm2-135"], env=WIDE)
    untouched = not bench.out.exists()

    def accepted(b, r):
        """the typo is refused before --out is made; the corrected command runs"""
        return refused.exit_code == 2 and "smollm2-135" in refused.output and untouched

    return bench.eval(), 0, "wrote", (), shows(accepted.__doc__, accepted)


def _rerun_after(damage: Callable[[Bench], Path], names: str):
    def build(bench: Bench):
        CliRunner().invoke(app, bench.eval(), env=WIDE)
        path = damage(bench)
        return bench.eval(), 2, f"{path.name}{names}", (), None

    return build


def _truncate(name: str) -> Callable[[Bench], Path]:
    def damage(bench: Bench) -> Path:
        path = next(bench.out.glob(name))
        path.write_text(path.read_text()[:40])
        return path

    return damage


def _empty_stream(bench: Bench) -> Path:
    path = next(bench.out.glob("streams/agent/*.json"))
    path.write_text("{}")
    return path


def _out_is_a_file(bench: Bench):
    (bench.root / "file").write_text("x")
    return bench.eval(out=bench.root / "file"), 2, "is a file, not a folder", (), None


def _out_unwritable(bench: Bench):
    if os.geteuid() == 0:  # root writes anywhere but in /sys
        return bench.eval(out=Path("/sys/promptmem-faults/run")), 2, "cannot write to --out", (), None
    locked = bench.root / "locked"
    locked.mkdir(mode=0o555)
    return bench.eval(out=locked / "run"), 2, "cannot write to --out", (), None


def _seed_past_the_end(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("a"), stream("b"))
    return bench.data("jsonl", data, "--seed", "5"), 2, "--seed 5 is past the last stream of", (), None


def _html_into_a_missing_folder(bench: Bench):
    CliRunner().invoke(app, bench.eval(), env=WIDE)
    page = bench.root / "new" / "folder" / "page.html"
    return (
        ["report", str(bench.out), "--html", str(page)],
        0,
        "wrote",
        ("new/",),
        shows("page written", lambda b, r: page.is_file()),
    )


def _credential_in_api_base(bench: Bench):
    url = bench.server.url.replace("http://", "http://user:sk-secret-9@")
    args = bench.eval(lm=False) + ["--lm", "openai/fake-model", "--api-base", url]

    def clean(b, r):
        """the credential is in no file and not in the message"""
        return "sk-secret-9" not in r.output and not any(
            b"sk-secret-9" in p.read_bytes() for p in b.out.rglob("*") if p.is_file()
        )

    return (
        args,
        2,
        "nothing answers",
        (),
        shows(clean.__doc__, clean),
    )  # lm15 takes user:password@host for the host name


def _program(mutate: Callable[[dict], dict], names: str):
    def build(bench: Bench):
        path = bench.root / "program.json"
        save_agent(build_agent("seed", "facts"), path)
        path.write_text(json.dumps(mutate(json.loads(path.read_text()))))
        return bench.eval("--agent", str(path), writer=False), 2, f"program.json: {names}", (), None

    return build


def _empty_gold(bench: Bench):
    data = jsonl(bench.root / "s.jsonl", stream("a", answer=""))
    return bench.data("jsonl", data), 2, "line 1, tasks[0] (id 't1').answer: holds an empty answer", (), None


def _second_run(bench: Bench):
    holder = run_lock(bench.out)
    holder.__enter__()

    def released(b, r):
        """(the first run's lock released afterwards)"""
        holder.__exit__(None, None, None)
        return True

    return bench.eval(), 2, "is in use by another run", (), shows("", released)


def _rival_local_model(bench: Bench):
    rival = subprocess.run(
        ["bash", "-c", "exec -a 'llama-server -m model.gguf' sleep 30 >/dev/null 2>&1 & echo $!"],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(rival.stdout.split()[-1])

    def warned(b, r):
        """a warning names the process and the fix (--lm-threads, taskset)"""
        try:
            return pid in [p for p, _, _ in rival_processes()] and bool(shared_cores_warning(threads=2))
        finally:
            os.kill(pid, signal.SIGKILL)

    return ["eval", "--help"], 0, "--lm-threads", (), shows(warned.__doc__, warned)


def _malformed(suite: str, content: str | bytes, names: str):
    def build(bench: Bench):
        path = bench.root / ("s.jsonl" if suite == "jsonl" else "locomo.json")
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
        return bench.data(suite, path), 2, names, (), None

    return build


def _line(value) -> str:
    return json.dumps(value) + "\n"


CASES = [
    ("hosted LM, no API key", "1", _no_key),
    ("hosted LM, --api-base at a closed port", "1", _closed_port),
    ("hosted LM that answers every call with 500", "1", _never_answers),
    ("stream id ../../../escaped with --store sqlite", "2", _escaping_id),
    ("stream id * beside another stream (sqlite)", "2", _star_id),
    ("stream ids with NUL, 300 characters, Unicode", "2", _odd_ids),
    ("two LoCoMo conversations with one sample_id", "2", _duplicate_sample_ids),
    ("two JSONL streams with one id", "2", _duplicate_stream_ids),
    ("memory show on another application's SQLite file", "3", _foreign_sqlite("show")),
    ("memory history on another application's SQLite file", "3", _foreign_sqlite("history")),
    ("memory show on a read-only store", "3", _read_only_store),
    ("memory history on a truncated store", "3", _damaged_store(None)),
    ("memory history on a file that is not SQLite", "3", _damaged_store(b"not a database")),
    ("memory rollback --to 0", "3", _rollback("0")),
    ("memory rollback --to -1", "3", _rollback("-1")),
    ("memory rollback --to 999 on a 4-row history", "3", _rollback("999")),
    ("--lm local:smollm2-135 (a typo), then the corrected command", "4", _typo_then_fixed),
    ("a truncated streams/*.json, rerun", "5", _rerun_after(_truncate("streams/agent/*.json"), " is not valid JSON")),
    ("a truncated config.json, rerun", "5", _rerun_after(_truncate("config.json"), " is not valid JSON")),
    ("a stream file holding {}, rerun", "5", _rerun_after(_empty_stream, " is not a finished stream")),
    ("--out at a regular file", "5", _out_is_a_file),
    ("--out where nothing can be written", "5", _out_unwritable),
    ("--seed past the last stream of a file", "5", _seed_past_the_end),
    ("report --html into a missing folder", "5", _html_into_a_missing_folder),
    ("a credential inside --api-base (DSPy's client reads user:key@host as the host)", "5", _credential_in_api_base),
    ("a program of another format version", "6", _program(lambda p: {**p, "format": "promptmem.agent/2"}, "format")),
    (
        "a program whose state is another writer's",
        "6",
        _program(lambda p: {**p, "writer": "ops"}, "its state does not fit writer 'ops'"),
    ),
    ("a program naming an unknown writer", "6", _program(lambda p: {**p, "writer": "crud"}, "unknown writer")),
    ("an empty gold answer", "6", _empty_gold),
    ("a second run into the same --out while the first runs", "9", _second_run),
    ("another local model process on the same cores", "8", _rival_local_model),
    (
        "JSONL: a line that is not JSON",
        "earlier",
        _malformed("jsonl", '{"stream_id": "s",\n', "s.jsonl, line 1: not valid JSON"),
    ),
    (
        "JSONL: a line that is not an object",
        "earlier",
        _malformed("jsonl", "[1, 2]\n", "line 1: must be a JSON object"),
    ),
    ("JSONL: no stream_id", "earlier", _malformed("jsonl", _line({"tasks": [TASK]}), "line 1, stream_id")),
    ("JSONL: empty tasks", "earlier", _malformed("jsonl", _line({"stream_id": "s", "tasks": []}), "line 1, tasks")),
    ("JSONL: a task without id", "earlier", _malformed("jsonl", _line(stream("s", id="")), "tasks[0].id")),
    ("JSONL: a question without answer", "earlier", _malformed("jsonl", _line(stream("s", answer=None)), ".answer")),
    ("JSONL: a numeric answer", "earlier", _malformed("jsonl", _line(stream("s", answer=3)), ".answer")),
    ("JSONL: an unknown scorer", "earlier", _malformed("jsonl", _line(stream("s", scorer="bleu")), ".scorer")),
    ("JSONL: an unknown field", "earlier", _malformed("jsonl", _line(stream("s", qestion="x")), "unknown field")),
    ("JSONL: a duplicate task id", "earlier", _malformed("jsonl", _line(stream("s", id="t2")), "duplicate task id")),
    ("JSONL: not UTF-8", "earlier", _malformed("jsonl", b'{"stream_id": "\xff"}\n', "line 1: not UTF-8")),
    ("JSONL: an empty file", "earlier", _malformed("jsonl", "", "holds no streams")),
    ("LoCoMo: not JSON", "earlier", _malformed("locomo", "[{", "locomo.json: not valid JSON")),
    ("LoCoMo: not a list", "earlier", _malformed("locomo", "{}", "expected a non-empty list")),
    (
        "LoCoMo: an unknown category",
        "earlier",
        _malformed("locomo", json.dumps([conversation(category=7)]), "locomo.json, conversation conv-1.qa[0].category"),
    ),
    (
        "LoCoMo: an empty gold answer",
        "earlier",
        _malformed(
            "locomo", json.dumps([conversation(answer=" ")]), "locomo.json, conversation conv-1.qa[0].answer: is empty"
        ),
    ),
]


CASES += CARELESS  # issue #42


def fault_cases(root: Path, cases: list = CASES) -> dict:
    """Every case in ``cases``, each in its own folder under ``root``: the counts
    (``bench.counts``; ``handled`` is ``clear``) and a row per case."""
    rows = []
    with FakeOpenAI([], reply, max_requests=100_000) as server:
        for index, (name, issue, build) in enumerate(cases):
            os.environ["OPENAI_API_KEY"] = KEY
            server.faults[:] = []
            rows.append(run_case(name, issue, build, root / f"case-{index:02d}", server))
            shutil.rmtree(root / f"case-{index:02d}", ignore_errors=True)
    found = counts(rows)
    return {**found, "handled": found["clear"], "rows": rows}
