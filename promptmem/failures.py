"""LM calls that did not return, sorted by what a retry can do about them.

- ``fatal``: no call can succeed until the user fixes something (no or a rejected API key,
  an unknown model, nothing listening at the server's address, a request the provider refuses
  as invalid: HTTP 400 or 422, e.g. a ``max_tokens`` it does not take): the run stops with the
  provider's message, saying what to fix.
- ``transient``: this call failed after DSPy's retries, a later one may not (a rate limit, a
  timeout, a server error, a dropped connection, a truncated reply): the task records it and
  its stream is not finished, so the next run retries it.
- anything else (an unparseable answer, a prompt past the context window: that task's prompt
  is too long, not every task's) is the task's own result: retrying it gives the same failure.
"""

from __future__ import annotations

import socket

from dspy.utils.exceptions import (
    ContextWindowExceededError,
    LMAuthError,
    LMBillingError,
    LMConfigurationError,
    LMError,
    LMInvalidRequestError,
    LMTransportError,
    LMUnsupportedModelError,
)

from promptmem.redact import redact


class LMUnavailable(RuntimeError):
    """The run's LM cannot answer any call (``fatal``); the message says what to fix."""


def describe(err: BaseException) -> str:
    """The error's type and first line, redacted before it is cut (it is written to a run's
    files and printed: ``promptmem.redact``)."""
    text = redact(str(err))
    return f"{type(err).__name__}: {text.splitlines()[0][:300] if text else ''}"


def stop_for(err: BaseException, role: str, otherwise: str = "") -> LMUnavailable | None:
    """The ``LMUnavailable`` that stops a run when ``role``'s LM call failed with ``err``: with
    what to fix when it is ``fatal``, else with ``otherwise`` when that is given and ``err`` is
    an LM call's failure at all; None when the run goes on."""
    fix = fatal(err) or (otherwise if _lm_errors(err) else "")
    return LMUnavailable(f"the {role}'s LM call failed: {describe(err)}; {fix}") if fix else None


def _causes(err: BaseException | None):
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        yield err
        err = err.__cause__ or err.__context__


def _unreachable(err: BaseException) -> bool:
    """Nothing listens at the address, or the host name does not resolve."""
    return any(isinstance(e, (ConnectionRefusedError, socket.gaierror)) for e in _causes(err))


def _lm_errors(err: BaseException) -> list[LMError]:
    return [e for e in _causes(err) if isinstance(e, LMError)]


def fatal(err: BaseException) -> str:
    """What to fix when ``err`` means no LM call can succeed ("" when a retry might)."""
    lm_errors = _lm_errors(err)
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
    if _refused_request(first):
        return "the provider refused the request as invalid: check --max-tokens, --lm and the other LM options"
    return ""


def _refused_request(err: BaseException) -> bool:
    """The provider refused the request itself (HTTP 400 or 422), every task's alike; a prompt
    past the context window is one task's."""
    if isinstance(err, ContextWindowExceededError):
        return False
    return isinstance(err, LMInvalidRequestError) or getattr(err, "status", None) in (400, 422)


def transient(err: BaseException) -> bool:
    """``err`` is an LM call that failed for now (see the module docstring)."""
    lm_errors = _lm_errors(err)
    return bool(lm_errors) and not fatal(err) and not isinstance(lm_errors[0], ContextWindowExceededError)
