"""What a DSPy custom engine provides (the contract every in-process backend meets), and the
helpers engines share."""

from __future__ import annotations

from typing import Protocol


class Engine(Protocol):
    """A DSPy ``engine=``: answers one request with a ``dspy.lm15.Response``.

    ``supports_response_schema`` says whether ``response_format`` with a JSON schema is
    honoured (decoding constrained by a grammar); ``supported_params`` names the request
    settings it reads. ``close`` frees the model.
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
