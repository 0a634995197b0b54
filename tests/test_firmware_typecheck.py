"""Type-check firmware/ against the MicroPython stubs (micropython-rp2-rpi-pico-stubs),
so a CPython-only API fails here and not on the board."""
import importlib.metadata as md
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent
STUB_DISTS = ("micropython-rp2-rpi_pico-stubs", "micropython-stdlib-stubs")
# Stub modules with errors of their own (not ours to fix).
STUB_MODULES = ["machine", "umachine", "rp2", "rp2.*", "_mpy_shed", "_mpy_shed.*", "_thread",
                "uasyncio", "uasyncio.*", "asyncio", "asyncio.*", "network", "bluetooth", "ubluetooth", "vfs"]
# The Pico W's modules (the Pico's stubs have none): firmware/tallynet loads
# them only on a board with Wi-Fi.
WIFI_MODULES = ["network", "socket"]


def stub_tree(dst: Path) -> Path:
    for name in STUB_DISTS:
        dist = md.distribution(name)
        for f in dist.files or ():
            if f.suffix == ".pyi" or f.name == "VERSIONS":
                target = dst / f
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy(dist.locate_file(f), target)
    return dst


def firmware_sources():
    files = [p for p in (ROOT / "firmware").rglob("*.py")
             if "__pycache__" not in p.parts and "emu" not in p.relative_to(ROOT / "firmware").parts]
    return sorted(files)


def test_firmware_type_checks_against_micropython_stubs(tmp_path):
    try:
        stubs = stub_tree(tmp_path / "stubs")
    except md.PackageNotFoundError as exc:  # pragma: no cover - test extra missing
        pytest.fail(f"install the test extra (pip install -e '.[test]'): {exc}")
    config = tmp_path / "mypy.ini"
    config.write_text(
        "[mypy]\n"
        f"mypy_path = {stubs}:{ROOT / 'firmware'}\n"
        f"custom_typeshed_dir = {stubs}\n"
        "python_version = 3.11\n"
        "explicit_package_bases = True\n"
        "namespace_packages = True\n"
        "check_untyped_defs = True\n"
        "allow_redefinition = True\n"
        "disable_error_code = var-annotated, no-redef\n"
        f"\n[mypy-{','.join(STUB_MODULES)}]\nignore_errors = True\n"
        f"\n[mypy-{','.join(WIFI_MODULES)}]\nignore_missing_imports = True\n")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), *map(str, firmware_sources())],
        capture_output=True, text=True, cwd=ROOT / "firmware", timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
