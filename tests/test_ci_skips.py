"""A skip in CI (CI=true) fails the run unless it is on the short list in
tests/conftest.py (docs/host.md, "Testing"): run pytest on two skipping tests
with the suite's own conftest, once as CI and once not."""
from __future__ import annotations

import pytest
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _suite_conftest():
    # tests/conftest.py by its path: a plain `import conftest` finds whichever
    # folder's conftest pytest imported first (tests/conformance has its own)
    spec = importlib.util.spec_from_file_location("suite_conftest", HERE / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conftest = _suite_conftest()


def _run(folder: Path, ci: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(folder)],
                          cwd=folder, env=env, capture_output=True, text=True, timeout=120)
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.process
def test_an_unlisted_skip_fails_only_in_ci(tmp_path):
    for support in ("conftest.py", "machine.py"):
        shutil.copy(HERE / support, tmp_path / support)
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\n"
        "def test_listed():\n"
        "    pytest.skip('needs micropython.heap_lock: runs in the MicroPython pass')\n\n"
        "@pytest.mark.skipif(True, reason='mosquitto is not installed')\n"
        "def test_unlisted_mark():\n"
        "    pass\n\n"
        "def test_unlisted_call():\n"
        "    pytest.skip('no /usr/bin/chromium')\n")
    assert _run(tmp_path, None).startswith("3 skipped")
    assert _run(tmp_path, "false").startswith("3 skipped")
    # the skip in the test fails it; the one of a mark (taken at setup) is an error: both fail the run
    assert _run(tmp_path, "true").startswith("1 failed, 1 skipped, 1 error")
    # a module skipped whole, at collection
    (tmp_path / "test_two.py").unlink()
    (tmp_path / "test_module.py").write_text(
        "import pytest\n"
        "pytest.skip('needs openssl', allow_module_level=True)\n\n"
        "def test_one():\n"
        "    pass\n")
    assert _run(tmp_path, None).startswith("1 skipped")
    assert "1 error" in _run(tmp_path, "true")


def test_every_listed_skip_says_why():
    assert 0 < len(conftest.SKIPS_ALLOWED_IN_CI) <= 5
    assert all(len(why) > 40 for why in conftest.SKIPS_ALLOWED_IN_CI.values())
    assert not conftest.skip_refused_in_ci("mosquitto is not installed", {})
    assert conftest.skip_refused_in_ci("mosquitto is not installed", {"CI": "true"})


@pytest.mark.process
def test_a_test_that_starts_a_process_without_its_marker_fails_the_run(tmp_path):
    for support in ("conftest.py", "machine.py"):
        shutil.copy(HERE / support, tmp_path / support)
    unix_port = tmp_path / "bin" / "micropython"        # a stand-in that exits 0: only its name counts
    unix_port.parent.mkdir()
    unix_port.write_text("#!/bin/sh\nexit 0\n")
    unix_port.chmod(0o755)
    (tmp_path / "test_starts.py").write_text(
        "import subprocess, sys\n"
        "import pytest\n\n"
        "def test_unmarked():\n"
        "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n\n"
        "@pytest.mark.process\n"
        "def test_marked():\n"
        "    subprocess.run([sys.executable, '-c', 'pass'], check=True)\n\n"
        "@pytest.mark.process\n"
        "def test_marked_but_not_for_the_unix_port():\n"
        f"    subprocess.run([{str(unix_port)!r}, '-c', 'pass'], check=True)\n\n"
        "def test_in_process():\n"
        "    assert sum(range(4)) == 6\n")
    assert _run(tmp_path, None).startswith("2 failed, 2 passed")
    # the quick tier: the tests marked with none of the tiers (the unmarked one that starts a process fails there too)
    quick = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "quick", str(tmp_path)],
                           cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert quick.stdout.strip().splitlines()[-1].startswith("1 failed, 1 passed, 2 deselected"), quick.stdout


def test_every_tier_says_what_it_needs():
    assert set(conftest.TIERS) == {"emulator", "twin", "broker", "browser", "process", "slow"}
    assert set(conftest.STARTED_UNDER.values()) <= set(conftest.TIERS)


@pytest.mark.process
def test_a_pytest_a_test_runs_leaves_the_outer_runs_home_in_place(tmp_path):
    # the outer run's folder for the archive, the emulator's flash and the compile cache
    # (TALLYBOARD_TEST_HOME) is inherited by a pytest a test runs; its passing end removed it once,
    # and the outer run's next emulator found its cache folder gone (a loaded CI run, 3ef1301)
    outer_home = tmp_path / "tbhome-outer"
    (outer_home / "cache").mkdir(parents=True)
    inner = tmp_path / "inner"
    inner.mkdir()
    for support in ("conftest.py", "machine.py"):
        shutil.copy(HERE / support, inner / support)
    (inner / "test_passes.py").write_text("def test_one():\n    assert 2 + 2 == 4\n")
    env = dict(os.environ, TALLYBOARD_TEST_HOME=str(outer_home), XDG_CACHE_HOME=str(outer_home / "cache"))
    env.pop("CI", None)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(inner)],
                          cwd=inner, env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.strip().splitlines()[-1].startswith("1 passed"), done.stdout
    assert (outer_home / "cache").is_dir()
