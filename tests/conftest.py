import os
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The shared core checks in tests/mp import plain module names.
sys.path.insert(0, str(ROOT / "tests" / "mp"))
# Every Python process a test starts prints its threads' stacks on SIGABRT: a process that does not
# end when it should is stopped that way, and the test fails with where it was (emu_fixtures.end_with_ctrl_c).
os.environ.setdefault("PYTHONFAULTHANDLER", "1")
# Started in the background by a shell without job control (nohup, `&` in a script: how CI systems
# and loops often run it), the suite would have Ctrl-C ignored, and every process it starts would
# inherit that: the tests that stop a process as a user does, with Ctrl-C, would wait in vain.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


# ---------------------------------------------------------------- skips in CI
# Under CI=true a skip fails the test unless its reason holds one of these
# (docs/host.md, "Testing"): the only ones a clean CI machine may take.
SKIPS_ALLOWED_IN_CI = {
    "runs in the MicroPython pass":
        "a tests/mp check that needs MicroPython itself (heap_lock, framebuf, littlefs, viper): under CPython "
        "it is skipped, and tests/test_micropython_port.py runs it under the unix port, counting its passes",
}


def skip_refused_in_ci(reason: str, environ: dict | None = None) -> bool:
    """Whether a skip with this reason fails the run: CI=true and not on the list."""
    import os
    environ = os.environ if environ is None else environ
    if environ.get("CI", "").lower() != "true":
        return False
    return not any(allowed in reason for allowed in SKIPS_ALLOWED_IN_CI)


def _fail_unlisted_skip(report, nodeid: str) -> None:
    if report.skipped and not hasattr(report, "wasxfail") and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        if skip_refused_in_ci(reason):
            report.outcome = "failed"
            report.longrepr = (f"{nodeid}: skipped under CI=true ({reason}); only the skips in "
                               "tests/conftest.py SKIPS_ALLOWED_IN_CI may be taken in CI: install what the "
                               "test needs (.ci/run does) or add the skip there with its reason")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_unlisted_skip(outcome.get_result(), item.nodeid)


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # a whole module skipped (pytest.skip(allow_module_level=True)) is taken at collection
    outcome = yield
    _fail_unlisted_skip(outcome.get_result(), collector.nodeid)
