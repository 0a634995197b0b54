"""The host type-checks with mypy (pyproject.toml's [tool.mypy]: host/tallyboard, with firmware/ on
its path for the rules and the protocol tables it imports). Proven on a copy with a planted error."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent


def mypy(root: Path, cache: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(cache)], cwd=root,
                          capture_output=True, text=True, timeout=300)


def test_the_host_type_checks(tmp_path):
    done = mypy(ROOT, tmp_path / "cache")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_type_error_planted_in_a_copy_of_the_host_is_found(tmp_path):
    copy = tmp_path / "tree"
    copy.mkdir()
    shutil.copy(ROOT / "pyproject.toml", copy)
    shutil.copytree(ROOT / "host", copy / "host", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    shutil.copytree(ROOT / "firmware", copy / "firmware", ignore=shutil.ignore_patterns("__pycache__"))
    planted = copy / "host" / "tallyboard" / "common" / "names.py"
    planted.write_text(planted.read_text(encoding="utf-8") + "\n\ndef _planted() -> int:\n    return 'a str'\n",
                       encoding="utf-8")
    done = mypy(copy, tmp_path / "cache")
    assert done.returncode == 1 and 'names.py:' in done.stdout and "return-value" in done.stdout, done.stdout
