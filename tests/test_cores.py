"""Local model threads: --lm-threads, a default from the CPUs this process may use, and a warning
when another local model process runs on the same cores (no model is loaded here: the rival is
a dummy process whose command line looks like a llama.cpp server)."""

import logging
import os
import signal
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from promptmem.cli import app
from promptmem.lm.cores import rival_processes, shared_cores_warning, usable_cpus
from promptmem.lm.llama_cpp import LlamaCppEngine


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
        for _ in range(100):  # until exec has renamed it
            if "llama-server" in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                break
            os.sched_yield()
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
        for _ in range(100):
            if "llama-server" in Path(f"/proc/{child.pid}/cmdline").read_text(errors="replace"):
                break
            os.sched_yield()
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
