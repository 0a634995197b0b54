"""What the suite needs from the machine (tests/machine.py, issue 39): the README's test command
sets the machine up before any test, or refuses naming each missing package and how to install
it; docs/host.md says the same table; a test that runs a program the machine lacks is a skip
with that reason, never an error, and the run's last lines say what was left out."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import machine

ROOT = Path(__file__).resolve().parent.parent


def readme_test_command() -> str:
    block = (ROOT / "README.md").read_text().split("```")[1]
    line = next(line for line in block.splitlines() if "pytest" in line)
    return line.split("#", 1)[0].strip()


def test_the_readme_test_command_sets_the_machine_up_before_anything_else():
    command = readme_test_command()
    assert command.startswith("python3 tests/machine.py && "), command
    assert command.endswith(".venv/bin/pytest"), command
    # .ci/run runs that line, read from the README, not a copy of it
    ci = (ROOT / ".ci" / "run").read_text()
    assert "README.md" in ci and ".venv/bin/pytest" not in ci and "machine.py &&" not in ci


def test_docs_say_what_the_machine_needs_as_the_table_does():
    host = (ROOT / "docs" / "host.md").read_text()
    section = host.split("### What the machine needs", 1)[1].split("\n### ", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| `([^`]+)` \| (.+?) \|$", section, re.M)
    assert rows == [(need.program, need.package, need.what) for need in machine.NEEDS]
    assert "docs/host.md#what-the-machine-needs" in (ROOT / "README.md").read_text()


def test_each_tier_a_need_names_is_a_tier_of_the_suite():
    from test_ci_skips import conftest    # the suite's, by its path (tests/conformance has a conftest too)

    assert {need.tier for need in machine.NEEDS} <= set(conftest.TIERS)


def test_a_machine_that_cannot_install_is_refused_naming_each_package_and_its_line(monkeypatch, capsys):
    missing = (machine.Need("/nonexistent/tb-broker", "tb-broker-pkg", "broker", "a broker no machine has"),
               machine.Need("tb-no-such-browser", "tb-browser-pkg", "browser", "a browser no machine has"))
    monkeypatch.setattr(machine, "NEEDS", missing)
    monkeypatch.setattr(machine, "_installed_as_package", lambda package: package == "tb-browser-pkg")
    asked = []
    monkeypatch.setattr(machine, "_apt_install", lambda packages: asked.append(packages) or "no apt-get here")
    assert machine.main() == machine.EXIT_REFUSED
    err = capsys.readouterr().err
    # the one not installed as a package is asked of apt; both are named, each with its install line
    assert asked == [["tb-broker-pkg"]]
    assert "tb-broker" in err and "tb-no-such-browser" in err
    assert "apt-get install tb-broker-pkg" in err
    assert "apt-get install --reinstall tb-browser-pkg" in err
    assert "They could not be installed here: no apt-get here." in err
    assert err.rstrip().endswith("No test was run.")


def test_a_program_found_runs_only_with_its_execute_bit(tmp_path):
    program = tmp_path / "tool"
    program.write_text("#!/bin/sh\n")
    need = machine.Need(str(program), "tool", "process", "a tool")
    program.chmod(0o644)             # on disk, but not to be run (as a fresh machine's mounted-over binary)
    assert not machine.runs(need)
    program.chmod(0o755)
    assert machine.runs(need)


@pytest.mark.process
def test_a_test_that_runs_a_missing_program_is_a_skip_that_the_last_lines_explain(tmp_path):
    for support in ("conftest.py", "machine.py"):
        shutil.copy(ROOT / "tests" / support, tmp_path / support)
    with open(tmp_path / "machine.py", "a") as more:
        more.write('\nNEEDS = NEEDS + (Need("/nonexistent/tb-missing-tool", "tb-missing", "process", '
                   '"a tool no machine has"),)\n')
    (tmp_path / "test_runs_it.py").write_text(
        "import subprocess\nimport pytest\n\n"
        "@pytest.mark.process\n"
        "def test_runs_the_tool():\n"
        "    subprocess.run(['/nonexistent/tb-missing-tool'])\n")

    def run(ci: str | None) -> list[str]:
        env = {k: v for k, v in os.environ.items() if k != "CI"}
        if ci:
            env["CI"] = ci
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n0", str(tmp_path)],
                              cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
        return done.stdout.strip().splitlines()

    lines = run(None)
    assert lines[-1].startswith("1 skipped"), lines
    said = "\n".join(lines[-6:])
    assert "tests left out on this machine" in said
    assert ("1 left out (process: test_runs_it.py): needs tb-missing-tool (a tool no machine has), which does "
            "not run here; get it: ") in said and "apt-get install tb-missing" in said
    assert run("true")[-1].startswith("1 failed"), "under CI a program the tests need must be there"
