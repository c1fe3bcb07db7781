"""What a DSPy custom engine provides (the contract every in-process backend meets), and the
helpers engines share."""

from __future__ import annotations

from typing import Protocol, runtime_checkable


@runtime_checkable
class Engine(Protocol):
    """A DSPy ``engine=``: answers one request with a ``dspy.lm15.Response``.

    ``supports_response_schema`` says whether ``response_format`` with a JSON schema is
    honoured (decoding constrained by a grammar); ``supported_params`` names the request
    settings it reads. An engine that holds a model may also have ``close``, which frees it.
    The engines here: ``llama_cpp.LlamaCppEngine``, ``hf_engine.TransformersEngine`` and the
    verifiers policy's ``integrations.verifiers_env.TurnEngine``.
    """

    supports_response_schema: bool
    supported_params: tuple[str, ...]

    def complete(self, request): ...

    def stream(self, request): ...


def text_of(parts) -> str:
    """The text of a DSPy message part list (or a plain string)."""
    if parts is None or isinstance(parts, str):
        return parts or ""
    return "".join(getattr(part, "text", "") or "" for part in parts)
