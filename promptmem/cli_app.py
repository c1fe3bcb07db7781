"""The command line's application object: a ``typer.Typer`` whose uncaught errors print a
redacted traceback (``promptmem.redact``; no local variables, which hold configs and URLs)
and exit 1, instead of Typer's traceback with every frame's locals; its log lines are
redacted too."""

from __future__ import annotations

import sys
import traceback

import typer

from promptmem.redact import redact, redact_log_records


def redacted_traceback(err: BaseException) -> str:
    """``err``'s traceback as Python prints it, with every secret taken out."""
    return redact("".join(traceback.format_exception(type(err), err, err.__traceback__)))


class App(typer.Typer):
    """``typer.Typer`` that redacts its process's log records and prints an uncaught error's
    traceback redacted, then exits 1."""

    def __init__(self, **kwargs):
        super().__init__(pretty_exceptions_show_locals=False, **kwargs)

    def __call__(self, *args, **kwargs):
        redact_log_records()
        try:
            return super().__call__(*args, **kwargs)
        except Exception as err:  # noqa: BLE001 - printed redacted, never raw
            sys.stderr.write(redacted_traceback(err))
            raise SystemExit(1) from None
