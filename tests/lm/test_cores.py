"""Local model threads: --lm-threads, a default from the CPUs this process may use, and a warning
when another local model process runs on the same cores (no model is loaded here: a rival is a
dummy process whose command line looks like a llama.cpp server, or a real process that
registered as promptmem does before it loads a model)."""

import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.lm.cores import (
    REGISTRY,
    claim_cores,
    registered_processes,
    rival_processes,
    shared_cores_warning,
    usable_cpus,
)
from promptmem.lm.llama_cpp import LlamaCppEngine


def settled(pid: int, timeout: float = 10.0) -> None:
    """Wait until ``pid`` has made its last exec (taskset and bash exec in turn, and /proc shows
    an empty command line while an exec is under way): it runs ``sleep`` under the llama name."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        if comm == "sleep" and Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"llama-server"):
            return
        time.sleep(0.01)
    raise AssertionError(f"pid {pid} never became the dummy llama-server")


@pytest.fixture
def rival():
    """A process that is not this one's descendant, named like a llama.cpp server, pinned to
    the first CPU this process may use."""
    cpu = min(usable_cpus())
    started = subprocess.run(
        [
            "bash",
            "-c",
            f"taskset -c {cpu} bash -c 'exec -a \"llama-server -m model.gguf\" sleep 60' >/dev/null 2>&1 & echo $!",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    pid = int(started.stdout.split()[-1])
    try:
        settled(pid)
        yield pid, cpu
    finally:
        os.kill(pid, signal.SIGKILL)


def test_a_local_model_on_the_same_cores_is_warned_about(rival, caplog):
    pid, cpu = rival
    rivals = rival_processes({cpu})  # other local models may run here too: the warning names the first
    assert pid in [p for p, _, _ in rivals]
    with caplog.at_level(logging.WARNING, logger="promptmem.lm.cores"):
        message = shared_cores_warning(threads=2, cpus={cpu})
    assert f"pid {rivals[0][0]}" in message and f"on CPUs {cpu}" in message
    assert "--lm-threads 1" in message and message in caplog.text
    others = usable_cpus() - {cpu}
    if others:  # a rival pinned elsewhere shares no core
        assert pid not in [p for p, _, _ in rival_processes(others)]


def test_this_process_and_its_children_are_no_rivals():
    child = subprocess.Popen(["bash", "-c", 'exec -a "llama-server -m own.gguf" sleep 30'])
    try:
        settled(child.pid)
        assert child.pid not in [p for p, _, _ in rival_processes()]
        assert os.getpid() not in [p for p, _, _ in rival_processes()]
    finally:
        child.kill()
        child.wait()


def test_threads_default_to_the_usable_cpus_and_lm_threads_is_an_option(tmp_path):
    assert usable_cpus() and usable_cpus() <= set(range(os.cpu_count()))
    assert LlamaCppEngine(tmp_path / "m.gguf").threads == len(usable_cpus())  # no model is loaded
    assert LlamaCppEngine(tmp_path / "m.gguf", threads=1).threads == 1
    assert "--lm-threads" in CliRunner().invoke(app, ["eval", "--help"]).output
    refused = CliRunner().invoke(app, ["eval", "--lm-threads", "0", "--out", str(tmp_path / "r")])
    assert refused.exit_code == 2 and not (tmp_path / "r").exists()


HOLDER = """
import sys, time
from promptmem.lm.cores import register
register(threads=1)
print("ready", flush=True)
if sys.argv[1] == "hold":
    time.sleep(60)
"""


def holder(cpu: int, mode: str = "hold") -> subprocess.Popen:
    """A child process that registers as running a local model on ``cpu`` (no model loaded,
    no llama.cpp library mapped, a plain python command line), then holds or exits."""
    proc = subprocess.Popen(
        [sys.executable, "-c", HOLDER, mode],
        stdout=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {cpu}),
    )
    assert proc.stdout.readline().strip() == "ready"
    return proc


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PROMPTMEM_CACHE", str(tmp_path))  # the children inherit it
    return tmp_path


def test_a_process_is_a_rival_from_its_registration_before_any_model_loads(cache, caplog):
    cpu = min(usable_cpus())
    proc = holder(cpu)
    try:
        assert "libllama" not in Path(f"/proc/{proc.pid}/maps").read_text()  # what /proc alone would miss
        rivals = rival_processes({cpu})
        assert rivals[0][0] == proc.pid and rivals[0][2] == {cpu}  # registered rivals come first
        assert "(threads: 1)" in rivals[0][1]
        with caplog.at_level(logging.WARNING, logger="promptmem.lm.cores"):
            message = shared_cores_warning(threads=2, cpus={cpu})
        assert f"pid {proc.pid}" in message and message in caplog.text
        others = usable_cpus() - {cpu}
        if others:
            assert proc.pid not in [p for p, _, _ in rival_processes(others)]
    finally:
        proc.kill()
        proc.wait()
    # killed: no exit hook ran, so its file is left; the next reader removes it
    assert (cache / REGISTRY / f"{proc.pid}.json").exists()
    assert proc.pid not in [p for p, _, _ in rival_processes({cpu})]
    assert not (cache / REGISTRY / f"{proc.pid}.json").exists()


def test_a_process_that_exits_removes_its_registration(cache):
    proc = holder(min(usable_cpus()), mode="exit")
    assert proc.wait(timeout=60) == 0
    assert not list((cache / REGISTRY).glob("*.json"))


def test_stale_and_foreign_registration_files_are_removed(cache):
    proc = holder(min(usable_cpus()))
    try:
        path = cache / REGISTRY / f"{proc.pid}.json"
        entry = json.loads(path.read_text())
        path.write_text(json.dumps(entry | {"started": "1"}))  # the pid now names another process
        (cache / REGISTRY / "junk.json").write_text("{")
        assert proc.pid not in [pid for pid, _ in registered_processes()]
        assert not list((cache / REGISTRY).glob("*.json"))
    finally:
        proc.kill()
        proc.wait()


def test_the_later_of_two_local_model_processes_is_warned(cache, caplog):
    """The check registers before it looks: started together, the later one sees the earlier
    whether or not that one has loaded its model yet; this process's own file goes at exit."""
    cpu = min(usable_cpus())
    proc = holder(cpu)
    try:
        with caplog.at_level(logging.WARNING, logger="promptmem.lm.cores"):
            assert f"pid {proc.pid}" in claim_cores(threads=1)
        mine = json.loads((cache / REGISTRY / f"{os.getpid()}.json").read_text())
        assert mine["pid"] == os.getpid() and mine["threads"] == 1 and set(mine["cpus"]) == usable_cpus()
    finally:
        proc.kill()
        proc.wait()
        (cache / REGISTRY / f"{os.getpid()}.json").unlink()
