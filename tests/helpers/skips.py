"""A skip for a missing dependency is a failure (tests/conftest.py applies this to every report)."""

MISSING_DEPENDENCY = "is not installed"  # the phrase every skip for a missing extra or model uses


def fail_if_skipped_for_a_missing_dependency(report) -> None:
    """A skip for a missing dependency is a hidden failure: the README's install command
    provides every extra and model the tests use, so such a skip is reported as failed."""
    if report.skipped and MISSING_DEPENDENCY in str(report.longrepr):
        report.outcome = "failed"
        report.longrepr = f"skipped for a dependency the README's install command provides: {report.longrepr}"
