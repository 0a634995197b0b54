"""tallyboard's own image on the device twin (image/README.md): the RP2040 Pico image with a
ROMFS partition, its partition kept with the flash image across power cuts. `tallyboard deploy`
writes the packages into the partition and none onto littlefs; the app imports them from /rom
(in place from flash); a second deploy writes nothing; the board comes back from a power cut."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_support import TWIN_TESTS, deploy_output, deployed_twin, device_twin  # noqa: E402
from waiting import until  # noqa: E402

# tallyboard's Pico image with its ROMFS partition (bench/twin_harness.py IMAGES; the run deploys it once)
TWIN_IMAGE = "pico"
pytestmark = [*TWIN_TESTS, pytest.mark.process]
DEPLOY_S = device_twin.DEPLOY_S    # bounds against a hang only (the harness's PATIENCE)
BOOT_S = device_twin.BOOT_S


def _hello(twin) -> dict:
    """The board's STATS, once its app answers (after deploy's reset, after a power cut)."""
    failed: list[Exception] = []

    def answered():
        try:
            board = twin.board()
            try:
                return board.request("STATS")
            finally:
                board.link.close()
        except Exception as exc:      # booting: no answer yet
            failed[:] = [exc]
            return None

    return until(answered, BOOT_S, "the app's answer to STATS", every=0.1,
                 explain=lambda: f"the last try: {failed[0]!r}" if failed else "")


def test_deploy_puts_the_packages_in_the_romfs_and_the_app_runs_them_from_there(tmp_path_factory):
    # the blank chip's deploy is the run's one onto this image (twin_support.deployed_image: tests/test_twin_update.py
    # starts from it too); what it printed, then the chip powered up from the flash it left
    said = deploy_output(tmp_path_factory, TWIN_IMAGE)
    assert "the packages in its ROMFS partition (" in said, said
    with deployed_twin(tmp_path_factory, "twin-romfs", TWIN_IMAGE) as twin:
        stats = _hello(twin)
        assert stats["errors"] == "0", stats
        repl = device_twin.RawRepl(twin.link)
        try:
            out = repl.run("import sys, vfs, os\n"
                           "print('mounts', sorted(p for _, p in vfs.mount()))\n"
                           "print('path', sys.path[:2])\n"
                           "print('app', sys.modules['tallyrun.app'].__file__)\n"
                           "print('root', sorted(os.listdir('/')))\n")
        finally:
            repl.close()
        lines = out.splitlines()
        assert "mounts ['/', '/rom']" in lines, out                  # no /fw: /rom answers the importer
        assert "path ['.frozen', '/rom']" in lines, out
        assert "app /rom/tallyrun/app.mpy" in lines, out
        root = next(line for line in lines if line.startswith("root "))
        assert not any(f"'{package}'" in root for package in ("tallycore", "tallyrun", "tallypanel", "tallynet")), root

        twin.power_cut()
        twin.start()
        assert _hello(twin)["errors"] == "0"
        again = twin.tallyboard("deploy", timeout=DEPLOY_S)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "all of them already there" in again.stdout, again.stdout
        assert _hello(twin)["errors"] == "0"
