"""One redaction for everything promptmem writes or prints about an error: ``redact``.

It takes out API keys (the values of the environment's ``*_API_KEY``, ``*_TOKEN`` and
``*_SECRET`` variables, and the secrets of an ``--api-base``: ``remember_url``), the user and
password of URLs (``user:secret@host``), ``Bearer`` tokens, ``sk-``-shaped keys and the values
of parameters that name a key, token, secret or password (``?key=…``, ``api_key=…``,
``"api_key": "…"``). A URL that is the whole text (a config's ``api_base``) loses those
parameters altogether, so a run's ``config.json`` compares equal whatever key it was run with.

The secrets of ``--api-base`` URLs are remembered for the life of the process (the one piece
of process-wide state here: a secret given once stays secret wherever a message quotes it).
Log records pass through ``RedactingFilter``; the command line makes every record of its
process redacted as it is made (``redact_log_records``).
"""

from __future__ import annotations

import logging
import os
import re
import threading
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

HIDDEN = "[redacted]"
MIN_SECRET = 8  # shorter values (a "1", a "true") would redact ordinary words
_ENV_NAME = re.compile(r"(API_KEY|_TOKEN|_SECRET)$")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")
_SECRET_PARAM = re.compile(r"key|token|secret|password|passwd|signature|sig|auth", re.IGNORECASE)
# user:password@ before a host name with a dot, localhost or an [IPv6] address; a bare token@ after ://
_USERINFO = re.compile(r"(?<![\w.%+-])[\w.%~+-]+:[^\s/@]+@(?=[\w-]+\.[\w-]|localhost|\[)")
_URL_USER = re.compile(r"(?<=://)[^\s/@:]+@")
_BEARER = re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=-]+", re.IGNORECASE)
_SK = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")
# a parameter whose name ends in a secret's word (api_key=, access_token=; not max_tokens=)
_ASSIGNED = re.compile(
    r"(?<![\w-])([\w-]*?(?:key|token|secret|passw(?:or)?d|signature|sig|auth)=)([^\s&#'\"]+)", re.IGNORECASE
)
_QUOTED = re.compile(
    r"\b(api[_-]?key|x-api-key|access[_-]?token|secret|password|passwd)(['\"]?\s*:\s*['\"]?)([^\s'\",}]+)",
    re.IGNORECASE,
)
_remembered: set[str] = set()
_lock = threading.Lock()


def remember_url(url: str | None) -> None:
    """Keep the password and the secret parameters of ``url`` (an ``--api-base``) secret in
    every later ``redact`` of this process."""
    if not url or not _URL.match(url):
        return
    try:
        parts = urlsplit(url)
    except ValueError:  # not a URL: nothing of it to remember
        return
    found = [unquote(parts.password or ""), unquote(parts.username or "") if parts.password is None else ""]
    found += [v for k, v in parse_qsl(parts.query, keep_blank_values=True) if _SECRET_PARAM.search(k)]
    with _lock:
        _remembered.update(secret for secret in found if len(secret) >= MIN_SECRET)


def _secrets() -> list[str]:
    """The literal secrets to hide, longest first (so a key is never half hidden)."""
    env = [v for k, v in os.environ.items() if _ENV_NAME.search(k.upper()) and len(v) >= MIN_SECRET]
    with _lock:
        return sorted(set(env) | _remembered, key=len, reverse=True)


def _strip_url(text: str) -> str:
    """A URL without its user and password and without parameters naming a secret (a text
    that does not parse as a URL is left to the other patterns)."""
    try:
        parts = urlsplit(text)
    except ValueError:
        return text
    host = parts.netloc.rpartition("@")[2]
    query = urlencode(
        [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not _SECRET_PARAM.search(k)]
    )
    return urlunsplit((parts.scheme, host, parts.path, query, parts.fragment))


def redact_text(text: str) -> str:
    """``text`` with every secret the module docstring lists taken out."""
    if _URL.match(text) and not any(c.isspace() for c in text):
        text = _strip_url(text)
    for secret in _secrets():
        text = text.replace(secret, HIDDEN)
    text = _USERINFO.sub("", text)
    text = _URL_USER.sub("", text)
    text = _BEARER.sub(rf"\1 {HIDDEN}", text)
    text = _SK.sub(HIDDEN, text)
    text = _ASSIGNED.sub(rf"\1{HIDDEN}", text)
    return _QUOTED.sub(rf"\1\2{HIDDEN}", text)


def redact(value):
    """``value`` (text or JSON data: dicts, lists) with ``redact_text`` applied to every
    string value in it; keys and other values are returned as they are."""
    if isinstance(value, str):
        return redact_text(value)
    if isinstance(value, dict):
        return {key: redact(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(item) for item in value]
    return value


class RedactingFilter(logging.Filter):
    """A logging filter that redacts each record's message (arguments merged in) and the
    traceback it carries; it lets every record through."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact_text(record.getMessage()), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = redact_text(logging.Formatter().formatException(record.exc_info))
        return True


def redact_log_records() -> None:
    """Make every log record of this process pass through ``RedactingFilter`` as it is made,
    whichever library logs it and whichever handler prints it (once per process)."""
    make = logging.getLogRecordFactory()
    if getattr(make, "redacting", False):
        return

    def redacted(*args, **kwargs) -> logging.LogRecord:
        record = make(*args, **kwargs)
        RedactingFilter().filter(record)
        return record

    redacted.redacting = True
    logging.setLogRecordFactory(redacted)
