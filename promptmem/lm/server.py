"""llama-cpp-python's OpenAI-compatible server, run for the length of a block.

For libraries that call an OpenAI-compatible endpoint themselves (mem0): ``llama_server``
starts ``python -m llama_cpp.server`` on a GGUF at a free port on 127.0.0.1, waits until it
answers, yields its base URL and stops it when the block ends. Needs the server extra of
llama-cpp-python (the ``peers`` extra).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from promptmem.lm.cores import claim_cores, usable_cpus

OUTPUT_TAIL = 2000  # characters of the server's output (stdout and stderr) quoted in a LlamaServerError


class LlamaServerError(RuntimeError):
    """The server exited or did not answer in time; the message ends with the tail of its output."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    return log.read().decode(errors="replace")[-OUTPUT_TAIL:].strip()


def _wait_until_up(process: subprocess.Popen, url: str, log: IO[bytes], timeout: float) -> None:
    """Return once ``GET url/models`` answers; LlamaServerError if the process exits or
    ``timeout`` seconds pass first."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1: no proxy
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        try:
            with opener.open(f"{url}/models", timeout=5):
                return
        except OSError:
            time.sleep(0.25)
    state = (
        f"exited with code {process.returncode}"
        if process.poll() is not None
        else f"did not answer within {timeout:.0f} s"
    )
    raise LlamaServerError(f"llama-cpp-python's server {state}; its output ends with:\n{_tail(log)}")


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def llama_server(
    gguf: str | Path, *, context: int, threads: int | None = None, startup_timeout: float = 300.0
) -> Iterator[str]:
    """Serve ``gguf`` with a ``context``-token window and ``threads`` CPU threads (default:
    all cores) for the block; yields the base URL (``http://127.0.0.1:PORT/v1``). Greedy
    requests are reproducible (seed 0); only the last token's logits are kept (llama-cpp's
    server keeps all of them by default: gigabytes at a 16k window and a 150k vocabulary)."""
    port, threads = free_port(), threads or len(usable_cpus())
    claim_cores(threads)  # the server is this process's model: register it and look for rivals
    command = [
        sys.executable,
        "-m",
        "llama_cpp.server",
        "--model",
        str(gguf),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(context),
        "--n_threads",
        str(threads),
        "--n_threads_batch",
        str(threads),
        "--logits_all",
        "false",
        "--seed",
        "0",
        "--verbose",
        "false",
    ]
    url = f"http://127.0.0.1:{port}/v1"
    with tempfile.TemporaryFile() as log:  # a file, not a pipe: a full pipe would stall the server
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        try:
            _wait_until_up(process, url, log, startup_timeout)
            yield url
        finally:
            _stop(process)
