"""The device twin for the tests that run the firmware on it (marked twin;
docs/twin.md): bench/twin_harness.py loaded as the module `twin_harness`, and why the twin
cannot run here (None: it can). Under CI (CI=true) a twin that cannot run
is an error when the tests are collected, never a skip: .ci/run installs
what it needs."""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _load_bench_module(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module       # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


device_twin = _load_bench_module("twin_harness")
twin_switches = _load_bench_module("twin_switches")     # game switches on the twin (it imports twin_harness)
twin_files = _load_bench_module("twin_files")           # files onto the twin's littlefs (a release's image)
WHY_NOT = device_twin.missing()
if WHY_NOT is not None and IN_CI:
    raise RuntimeError(f"CI must run the device twin: {WHY_NOT} (.ci/run installs node, socat and rp2040js; the image and the boot ROM are in image/ and twin/bootrom/)")

# a test module's pytestmark, or a test's marks
TWIN_TESTS = [pytest.mark.twin,
              pytest.mark.skipif(WHY_NOT is not None, reason=f"the device twin cannot run here: {WHY_NOT}")]


def _run_folder(tmp_path_factory) -> Path:
    """A folder this whole run shares: every pytest-xdist worker's base is a folder of the run's base."""
    base = Path(tmp_path_factory.getbasetemp())
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def deployed_image(tmp_path_factory, image: str = "stock") -> Path:
    """The flash image of a twin running `image` (bench/twin_harness.py IMAGES) onto whose blank chip
    `tallyboard deploy` wrote the firmware: deployed once for the whole run, by whichever test module asks
    first (the others, in any worker, wait for it); what the deploy printed is deploy_output()'s. Copy it
    before starting a twin on it."""
    import fcntl
    import shutil

    shared = _run_folder(tmp_path_factory) / f"twin-deployed-{image}"
    shared.mkdir(exist_ok=True)
    flash = shared / "pico.img"
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)       # released when the file closes, whatever happens
        if not flash.exists():
            blank = device_twin.Twin.running(shared / "blank", image)
            try:
                blank.start()
                (shared / "deploy.out").write_text(blank.deploy())
            finally:
                blank.stop()                   # the runner writes the whole flash region on its way out
            shutil.copyfile(blank.image, shared / "pico.img.part")
            (shared / "pico.img.part").replace(flash)
    return flash


def deploy_output(tmp_path_factory, image: str = "stock") -> str:
    """What `tallyboard deploy` printed as it made deployed_image(image): its own checks are the tests'."""
    return (deployed_image(tmp_path_factory, image).parent / "deploy.out").read_text()


def deployed_twin(tmp_path_factory, name: str, image: str = "stock", **options):
    """A twin running `image` (not started) whose flash holds the firmware as deploy writes it
    (deployed_image), in its own folder."""
    import shutil

    folder = tmp_path_factory.mktemp(name)
    shutil.copyfile(deployed_image(tmp_path_factory, image), folder / "pico.img")
    return device_twin.Twin.running(folder, image, **options)


def _running_in_group(pgid: int) -> list[int]:
    """The processes of a process group that still run (a zombie has ended: only its
    exit status waits to be collected)."""
    running = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue           # ended while we looked
        state, group = fields[0], int(fields[2])
        if group == pgid and state != "Z":
            running.append(int(stat.parent.name))
    return running


def still_running(pgids: list[int]) -> list[int]:
    """The processes of the groups (a stopped twin's) that still run once they have had STOP_S to end."""
    from waiting import NotInTime, until

    def left() -> list[int]:
        return [pid for pgid in pgids for pid in _running_in_group(pgid)]

    try:
        until(lambda: not left(), device_twin.STOP_S, "the twin's processes' end", every=0.1)
    except NotInTime:
        pass
    return left()


def roquet_peg(chip) -> None:
    """Over the chip's USB: a two-player Roquet game, and player 0's peg of 5 (player 0's pegs lit)."""
    board = chip.board()
    try:
        board.new("roquet", 2)
        board.request("PEG", 0, 5)
    finally:
        board.link.close()
