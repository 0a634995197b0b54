import os
import signal
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import machine

ROOT = Path(__file__).resolve().parent.parent
# The shared core checks in tests/mp import plain module names.
sys.path.insert(0, str(ROOT / "tests" / "mp"))
# Hypothesis judges by the test's data, never by the wall clock: no deadline, and no health check that
# finds the data "too slow" to make (a loaded machine made it so, and turned a property red that holds)
from hypothesis import HealthCheck, settings  # noqa: E402

settings.register_profile("tallyboard", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("tallyboard")
# Every Python process a test starts prints its threads' stacks on SIGABRT: a process that does not
# end when it should is stopped that way, and the test fails with where it was (emu_fixtures.end_with_ctrl_c).
os.environ.setdefault("PYTHONFAULTHANDLER", "1")
# Started in the background by a shell without job control (nohup, `&` in a script: how CI systems
# and loops often run it), the suite would have Ctrl-C ignored, and every process it starts would
# inherit that: the tests that stop a process as a user does, with Ctrl-C, would wait in vain.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# The suite never reads or writes the user's own data: the archive ($XDG_DATA_HOME), the evenings and
# the emulator's flash ($XDG_STATE_HOME), the views' cache ($XDG_CACHE_HOME) live in a folder made for
# this run, which its xdist workers and every process a test starts inherit (TALLYBOARD_TEST_HOME says
# it is made). A newer tallyboard's archive in the user's home broke an older checkout's tests.
# Only the run that made it removes it: a pytest a test runs (tests/test_ci_skips.py) inherits the
# folder, and its passing end removed it under the outer run's other tests (a loaded CI run, 3ef1301).
_HOME_MADE_HERE = None
if "TALLYBOARD_TEST_HOME" not in os.environ:
    _home = _HOME_MADE_HERE = tempfile.mkdtemp(prefix="tbhome")
    os.environ["TALLYBOARD_TEST_HOME"] = _home
    for _name in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        os.environ[_name] = os.path.join(_home, _name.split("_")[1].lower())
    for _name in ("TALLYBOARD_ARCHIVE", "TALLYBOARD_EMULATOR_HOME"):
        os.environ.pop(_name, None)
    # Every tallyboard command, table host, bench and helper a test starts is a Python process. Where
    # PYTHONDONTWRITEBYTECODE is set (some sandboxes and CI images set it) each compiled the host's and
    # the firmware's modules from their source again: a `tallyboard --help` took 0.38 s of CPU, 0.19 s
    # with the bytecode kept. It is kept for the run, in its folder: the checkout stays untouched.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = os.path.join(_home, "pycache")


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


def _skip_missing_program(report, call) -> None:
    """A test that ran a program the machine lacks (tests/machine.py NEEDS) without its needs() mark is
    skipped with the same reason as a marked one, never an error: what to install, not a traceback."""
    error = call.excinfo.value if call.excinfo is not None else None
    if report.passed or not isinstance(error, (FileNotFoundError, PermissionError)) or not error.filename:
        return
    name = os.path.basename(os.fsdecode(error.filename))
    try:
        why = machine.why_not(name)
    except KeyError:
        return
    if why:
        report.outcome = "skipped"
        report.longrepr = (str(report.fspath), report.location[1] or 0, f"Skipped: {why}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _skip_missing_program(outcome.get_result(), call)
    _fail_unlisted_skip(outcome.get_result(), item.nodeid)
    _fail_unmarked_start(outcome.get_result(), item.nodeid)


QUICK_MOST_S = 5.0     # a quick test that takes longer, on a quiet machine, is marked slow or made fast


def _say_slow_quick_tests(terminalreporter) -> None:
    """The quick tier's promise (docs/host.md, "Tiers"): a quick test over QUICK_MOST_S is named, to be
    marked slow or made fast. Said, not failed: on a busy machine any test may take longer."""
    slow = sorted((r.duration, r.nodeid) for r in terminalreporter.stats.get("passed", [])
                  if r.when == "call" and r.duration > QUICK_MOST_S and QUICK in r.keywords)
    for duration, nodeid in slow[::-1][:10]:
        terminalreporter.write_line(f"quick test over {QUICK_MOST_S:g} s ({duration:.1f} s): {nodeid}: mark it slow "
                                    "or make it fast (on a busy machine, ignore this)")


def pytest_terminal_summary(terminalreporter):
    """A run that left tests out says so in its last lines: how many, of which tiers, why, and how to
    get them (never a bare `s`). The tests/mp checks that run under MicroPython instead are not counted."""
    left: dict[str, list] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if hasattr(report, "wasxfail") or not isinstance(report.longrepr, tuple):
            continue
        reason = str(report.longrepr[2]).removeprefix("Skipped: ")
        if any(allowed in reason for allowed in SKIPS_ALLOWED_IN_CI):
            continue
        left.setdefault(reason, []).append(report)
    _say_slow_quick_tests(terminalreporter)
    if not left:
        return
    terminalreporter.write_sep("=", "tests left out on this machine", yellow=True)
    for reason, reports in sorted(left.items(), key=lambda kv: -len(kv[1])):
        tiers = sorted({name for r in reports for name in TIERS if name in getattr(r, "keywords", {})}) or [QUICK]
        modules = sorted({r.nodeid.split("::", 1)[0].removeprefix("tests/") for r in reports})
        shown = ", ".join(modules[:3]) + (f" and {len(modules) - 3} more" if len(modules) > 3 else "")
        terminalreporter.write_line(f"{len(reports)} left out ({'/'.join(tiers)}: {shown}): {reason}")
    terminalreporter.write_line("python3 tests/machine.py installs what they need (the README's test command "
                                "runs it first; docs/host.md, \"What the machine needs\")")


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    # a whole module skipped (pytest.skip(allow_module_level=True)) is taken at collection
    outcome = yield
    _fail_unlisted_skip(outcome.get_result(), collector.nodeid)


# ---------------------------------------------------------------- tiers
# What a test needs beyond the test process, as its markers (docs/host.md, "Testing"). A test with
# none of them is in the quick tier (`pytest -m quick`: in-process, seconds): every test that starts
# a process carries the marker of what it starts, and one that does not fails the run.
TIERS = {
    "emulator": "runs the firmware in the emulator (the MicroPython unix port, `micropython`)",
    "twin": "runs the firmware on the device twin (an emulated RP2040: node, rp2040js, socat; bench/twin_harness.py)",
    "broker": "talks to an MQTT broker on loopback (mosquitto, or the embedded broker in this process)",
    "browser": "drives Debian's headless Chromium",
    "process": "starts another process (the tallyboard CLI, mpy-cross, pip, a helper script)",
    "slow": "in-process, but takes more than a few seconds",
}
QUICK = "quick"
# the order the modules start in, side by side: those that wait longest first
RANK = ("twin", "browser", "broker", "emulator", "process", "slow", QUICK)
# a program a test may start only under its own marker; any other needs one of the TIERS
STARTED_UNDER = {"micropython": "emulator", "mosquitto": "broker", "chromium": "browser"}


def pytest_configure(config):
    # Tests run side by side (pytest-xdist), each worker under basetemp/popen-gwN: pytest's own
    # /tmp/pytest-of-USER/pytest-N/popen-gwN/test_name0/ leaves too few of a Unix socket name's 107
    # bytes for the ports' sharer (tallyboard.boardlink.portshare). A shorter base, made for this run:
    if config.option.basetemp is None and not hasattr(config, "workerinput"):
        config.option.basetemp = tempfile.mkdtemp(prefix="tb")
        config._tallyboard_basetemp = config.option.basetemp
    for name, what in TIERS.items():
        config.addinivalue_line("markers", f"{name}: {what}")
    config.addinivalue_line("markers", f"{QUICK}: none of {', '.join(TIERS)}: the in-process tier (given, not written)")
    _warm_bytecode(config)


def _warm_bytecode(config) -> None:
    """Each xdist worker collects the whole selection, and pytest rewrites every test module's asserts
    as it imports it: six workers doing the same 6 s of it at once, before any test, held both cores
    for 20 s of a run's start. So the run (the outermost, side by side) collects once first, in a
    process of its own: the rewritten modules and the host's and firmware's bytecode land in the run's
    cache (PYTHONPYCACHEPREFIX, above), and the workers load them from there. (Two processes, each with
    half of the files, took as long: most of the 6 s is the helpers every half imports.)"""
    numprocesses = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or _HOME_MADE_HERE is None or not numprocesses \
            or config.option.collectonly:
        return
    subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist",
                    "-p", "no:cacheprovider", "-o", "addopts=", *config.args],
                   cwd=config.invocation_params.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600, check=False)


WORKERS_A_CORE = 4


@pytest.hookimpl(optionalhook=True)      # (a hook of pytest-xdist's: without it, as in the warm-up, unused)
def pytest_xdist_auto_num_workers(config):
    # `-n auto`: the suite mostly waits (on emulated boards, brokers, the twin, a browser): with two
    # workers a core the 2-core machine CI runs on was busy 61% of a quiet run (6 min 34 s), with three
    # the same run took 5 min 44 s; with four then, 7 s slower than with three. Once the twin's waits
    # had shrunk (its idle time hurried, its I2C polling skipped) three kept the cores 161% busy of 200,
    # and with four the fresh clone's quiet run went from 7 min 5 s to 6 min 46 s, the collection's
    # warm-up beside it (docs/host.md, "How long it takes")
    return WORKERS_A_CORE * (os.cpu_count() or 1)


def pytest_sessionfinish(session, exitstatus):
    # the base made above goes when every test passed; a failed run's files stay for a look
    made = getattr(session.config, "_tallyboard_basetemp", None)
    if made and exitstatus == 0:
        shutil.rmtree(made, ignore_errors=True)
        if _HOME_MADE_HERE is not None:
            shutil.rmtree(_HOME_MADE_HERE, ignore_errors=True)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if not any(item.get_closest_marker(name) for name in TIERS):
            item.add_marker(QUICK)
    # Side by side (pytest-xdist, --dist loadscope) each module's tests run in one worker, in their
    # order, so a module's shared board or twin is made once. The modules that wait longest start
    # first, so that none is left to run alone at the end: the twin's, then the browser's, the brokers',
    # the emulator's, other processes, the in-process tier last. Within a module the order stays.
    # Among the twin's, those on an image of tallyboard's own (their module's TWIN_IMAGE) first: the run
    # deploys each image once (tests/twin_support.py) and all the others wait for the stock image's
    # deploy, so the deploys run side by side rather than one of them minutes later.
    weight: dict[str, tuple[int, bool]] = {}
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        rank = min([RANK.index(name) for name in RANK if item.get_closest_marker(name)] or [len(RANK)])
        mine = (rank, getattr(getattr(item, "module", None), "TWIN_IMAGE", "stock") == "stock")
        weight[module] = min(weight.get(module, mine), mine)
    items.sort(key=lambda item: weight[item.nodeid.split("::", 1)[0]])



_running: dict = {}          # the test being run in this process: "item", and what it started unmarked


def _words(args, executable) -> list[str]:
    if isinstance(args, (str, bytes, os.PathLike)):
        words = os.fsdecode(args).split() if isinstance(args, str) else [os.fsdecode(args)]
    else:
        words = [os.fsdecode(a) for a in args]
    return [os.fsdecode(executable)] + words if executable else words


def _needed(words: list[str]) -> tuple[str, str | None]:
    """The program a command runs, and the marker it needs (None: any of the TIERS)."""
    program = os.path.basename(words[0]) if words else "?"
    if any(w.endswith("twin/run.mjs") for w in words):
        return "the device twin (node twin/run.mjs)", "twin"
    if "playwright" in words[0]:
        return "playwright's driver (it starts chromium)", "browser"
    return program, STARTED_UNDER.get(program)


def _note_start(program: str, wanted: str | None) -> None:
    item = _running.get("item")
    if item is None:
        return
    may = [wanted] if wanted is not None else [name for name in TIERS if name != "slow"]
    if not any(item.get_closest_marker(name) for name in may):
        _running.setdefault("unmarked", []).append(f"{program} (mark the test {' or '.join(may)})")


_real_popen_init = subprocess.Popen.__init__


def _watched_popen_init(self, args, *more, **options):
    _note_start(*_needed(_words(args, options.get("executable"))))
    _real_popen_init(self, args, *more, **options)


subprocess.Popen.__init__ = _watched_popen_init      # type: ignore[method-assign]
os.register_at_fork(before=lambda: _note_start("a forked copy of the test process", None))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    _running["item"] = item
    _running.pop("unmarked", None)
    try:
        yield
    finally:
        _running.pop("item", None)


def _fail_unmarked_start(report, nodeid: str) -> None:
    started = _running.pop("unmarked", None)
    if started and report.outcome != "failed":
        report.outcome = "failed"
        report.longrepr = (f"{nodeid} started {'; '.join(sorted(set(started)))} without the marker for it: "
                           "register what a test needs in tests/conftest.py TIERS (docs/host.md, \"Testing\")")
