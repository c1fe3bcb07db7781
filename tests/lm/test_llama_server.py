"""llama-cpp-python's server as a context manager: a server that cannot start is a clear error
that quotes its output (the real model is served in test_mem0's local_model test)."""

import pytest

from promptmem.lm.server import LlamaServerError, llama_server

pytest.importorskip(
    "llama_cpp.server.app", reason="llama-cpp-python's server extra is not installed: pip install -e '.[peers]'"
)


def test_a_server_that_exits_at_startup_is_an_error_with_its_output(tmp_path):
    missing = tmp_path / "missing.gguf"
    with (
        pytest.raises(LlamaServerError, match="exited with code") as failed,
        llama_server(missing, context=512, threads=1, startup_timeout=120),
    ):
        pass
    assert str(missing) in str(failed.value)  # llama-cpp-python's own message, quoted
