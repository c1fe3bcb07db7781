"""LM calls that did not return, sorted by what a retry can do about them.

- ``fatal``: no call can succeed until the user fixes something (no or a rejected API key,
  an unknown model, nothing listening at the server's address): the run stops, saying what.
- ``transient``: this call failed after DSPy's retries, a later one may not (a rate limit, a
  timeout, a server error, a dropped connection, a truncated reply): the task records it and
  its stream is not finished, so the next run retries it.
- anything else (an unparseable answer, a prompt past the context window) is the task's own
  result: retrying the same call gives the same failure.
"""

from __future__ import annotations

import socket

from dspy.utils.exceptions import (
    LMAuthError,
    LMBillingError,
    LMConfigurationError,
    LMError,
    LMInvalidRequestError,
    LMTransportError,
    LMUnsupportedModelError,
)


class LMUnavailable(RuntimeError):
    """The run's LM cannot answer any call (``fatal``); the message says what to fix."""


def _causes(err: BaseException | None):
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        yield err
        err = err.__cause__ or err.__context__


def _unreachable(err: BaseException) -> bool:
    """Nothing listens at the address, or the host name does not resolve."""
    return any(isinstance(e, (ConnectionRefusedError, socket.gaierror)) for e in _causes(err))


def fatal(err: BaseException) -> str:
    """What to fix when ``err`` means no LM call can succeed ("" when a retry might)."""
    lm_errors = [e for e in _causes(err) if isinstance(e, LMError)]
    if not lm_errors:
        return ""
    first = lm_errors[0]
    status = getattr(first, "status", None)
    if isinstance(first, LMConfigurationError):
        return "set the provider's API key in the environment (e.g. OPENAI_API_KEY) or fix --lm"
    if isinstance(first, LMAuthError) or status in (401, 403):
        return "the provider refused the API key: check the key in the environment"
    if isinstance(first, LMBillingError) or status == 402:
        return "the provider refused the request for billing or quota: check the account"
    if isinstance(first, LMUnsupportedModelError) or status == 404:
        return "the provider does not know this model: check the name in --lm (and --api-base)"
    if isinstance(first, LMTransportError) and _unreachable(first):
        return "nothing answers at the LM's address: start the server or fix --api-base"
    return ""


def transient(err: BaseException) -> bool:
    """``err`` is an LM call that failed for now (see the module docstring)."""
    lm_errors = [e for e in _causes(err) if isinstance(e, LMError)]
    return bool(lm_errors) and not fatal(err) and not isinstance(lm_errors[0], LMInvalidRequestError)
