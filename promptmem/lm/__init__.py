"""Language models: LM specs and their backends (embedded GGUFs under llama.cpp, transformers
checkpoints, hosted models through litellm), the output grammar and the local server."""

from promptmem.lm.specs import (
    HF_PREFIX,
    LOCAL_PREFIX,
    Backend,
    LMConfig,
    adapter_for,
    backend_for,
    is_local,
    local_gguf,
    make_lm,
    register_backend,
    window_chars,
)

__all__ = [
    "HF_PREFIX",
    "LOCAL_PREFIX",
    "Backend",
    "LMConfig",
    "adapter_for",
    "backend_for",
    "is_local",
    "local_gguf",
    "make_lm",
    "register_backend",
    "window_chars",
]
