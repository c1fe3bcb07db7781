"""The whole suite's setup: no network and a temporary DSPy cache, skips for a missing dependency
turned into failures, the `meta` marker on every test of tests/meta/, a synthetic suite fixture.
What tests share beyond fixtures lives in tests/helpers/."""

from pathlib import Path

from tests.helpers.skips import fail_if_skipped_for_a_missing_dependency
from tests.helpers.temp_cache import use_a_temporary_dspy_cache

use_a_temporary_dspy_cache()  # before dspy is imported anywhere
import pytest  # noqa: E402

import promptmem  # noqa: E402,F401  (sets the offline defaults)

META = Path(__file__).parent / "meta"  # the repository's checks, not the library's: marked `meta`


@pytest.hookimpl(tryfirst=True)  # before `-m` selects by marker
def pytest_collection_modifyitems(items):
    for item in items:
        if META in item.path.parents:
            item.add_marker(pytest.mark.meta)


@pytest.fixture
def synthetic_suite():
    from promptmem.suites import make_suite

    return make_suite("synthetic", tasks=8)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    fail_if_skipped_for_a_missing_dependency((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):  # a module skipped at import (module-level importorskip)
    fail_if_skipped_for_a_missing_dependency((yield).get_result())
