"""tallyrun.importfs under the real MicroPython unix port: the importer finds a
package's modules through FirmwareFS's answers alone (no lookup of its own),
imports the .mpy files deploy writes, says ImportError for a module that is not
there, and leaves every other import to the rest of sys.path."""
from __future__ import annotations

import pytest
import subprocess
from pathlib import Path

from tallyboard.tooling.fileset import compile_mpy
from tallyboard.tooling.mpunix import micropython_binary

pytestmark = [pytest.mark.emulator, pytest.mark.process]

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = r"""
import sys, vfs
sys.path.insert(0, %(firmware)r)
from tallyrun.importfs import FirmwareFS, mount
asked = []
class Counted(vfs.VfsPosix):
    def stat(self, path):
        asked.append(path)
        return super().stat(path)
fs = FirmwareFS(Counted(%(flash)r), ("/zzpkg/sub", "/zzpkg"))
# the answers, as the importer reads them: st_mode's folder bit
print("stat", [fs.stat(p)[0] for p in ("/zzpkg", "/zzpkg/mod", "/zzpkg/mod.py", "/zzpkg/mod.mpy")])
print("sub", [fs.stat(p)[0] for p in ("/zzpkg/sub", "/zzpkg/sub/word", "/zzpkg/subx", "/zzpkg/sub.py")])
for path in ("/zz", "/zzpkgx", "/other/mod.mpy", "/json"):
    try:
        fs.stat(path)
        print("answered", path)
    except OSError:
        pass
vfs.mount(fs, "/fwt")
sys.path.insert(0, "/fwt")
import zzpkg.mod
print("value", zzpkg.mod.VALUE, zzpkg.mod.twice(21), zzpkg.__path__)
import zzpkg.sub.word
print("word", zzpkg.sub.word.WORD)
try:
    import zzpkg.missing
    print("imported a missing module")
except ImportError as exc:
    print("ImportError", exc)
print("missing left out of sys.modules", "zzpkg.missing" not in sys.modules)
import json
print("json", json.dumps([1]))
print("littlefs asked", asked)
print("mount elsewhere", mount())
"""


def test_modules_are_imported_through_the_firmware_fs_with_no_lookup_of_their_own(tmp_path):
    package = tmp_path / "src" / "zzpkg"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text("VALUE = 7\n\ndef twice(x):\n    return 2 * x\n")
    flash = tmp_path / "flash" / "zzpkg"
    flash.mkdir(parents=True)
    cache = tmp_path / "cache"
    (package / "sub").mkdir()
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "word.py").write_text("WORD = b'why'\n")
    (flash / "sub").mkdir()
    for name in ("__init__", "mod", "sub/__init__", "sub/word"):
        (flash / f"{name}.mpy").write_bytes(compile_mpy(package / f"{name}.py", f"zzpkg/{name}.py", cache))
    script = tmp_path / "check.py"
    script.write_text(SCRIPT % {"firmware": str(ROOT / "firmware"), "flash": str(tmp_path / "flash")})
    result = subprocess.run([micropython_binary(), str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    # a package is a folder (0x4000); "mod" and "mod.mpy" files (0x8000); "mod.py" a folder, so
    # the importer goes on to the .mpy
    assert lines[0] == "stat [16384, 32768, 16384, 32768]"
    # a package inside the package (tallycore.reasons) is a folder too; a name beside it is not
    assert lines[1] == "sub [16384, 32768, 32768, 16384]"
    assert "word b'why'" in lines
    assert not any(line.startswith("answered") for line in lines), lines
    assert "value 7 42 /fwt/zzpkg" in lines
    assert any(line.startswith("ImportError no module file /zzpkg/missing.mpy") for line in lines), lines
    assert "missing left out of sys.modules True" in lines
    assert "json [1]" in lines
    # every question the importer asked was answered by FirmwareFS itself: the backing
    # filesystem was only opened, never asked to look a path up
    assert "littlefs asked []" in lines
    # the unix port's root is not littlefs: mount() leaves it alone
    assert "mount elsewhere None" in lines


ROM_SCRIPT = r"""
import sys, vfs
sys.path.insert(0, %(firmware)r)
from tallyrun import importfs
with open(%(image)r, "rb") as f:
    image = f.read()
vfs.mount(vfs.VfsRom(image), "/rom")
print("mounted", importfs.mount())
print("again", importfs.mount())
print("path", sys.path[:2], sys.path.count("/rom"))
print("mounts", sorted(point for _, point in vfs.mount()))
print("tallyrun from", sys.modules["tallyrun"].__path__)
from tallycore import points
print("points from", points.__file__)
from tallycore.reasons import skicket
print("reasons from", skicket.__file__, skicket.REASONS[0][1])
"""


def test_the_packages_in_a_romfs_at_rom_go_first_and_fw_is_not_mounted(tmp_path):
    """On tallyboard's own images the packages are in the ROMFS MicroPython mounts
    at /rom (image/README.md): mount() puts /rom after the frozen modules, points
    the package imported before it (tallyrun, main.py's own import) there, and
    mounts no /fw; the .mpy files deploy makes import from it."""
    from tallyboard.tooling import fileset

    files = [f for f in fileset.build(boards=False, cache=tmp_path / "cache") if f.dest.endswith(".mpy")]
    image = tmp_path / "firmware.romfs"
    image.write_bytes(fileset.romfs_image(files))
    script = tmp_path / "check.py"
    script.write_text(ROM_SCRIPT % {"firmware": str(ROOT / "firmware"), "image": str(image)})
    result = subprocess.run([micropython_binary(), str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[:3] == ["mounted /rom", "again /rom", "path ['.frozen', '/rom'] 1"], lines
    assert lines[3] == "mounts ['/', '/rom']", lines          # no /fw
    # tallyrun came from the checkout's firmware folder (the script's own import); now /rom's
    assert lines[4] == "tallyrun from /rom/tallyrun", lines
    assert lines[5] == "points from /rom/tallycore/points.mpy", lines
    # a package inside a package (the games' reasons) is a folder of the image
    assert lines[6] == "reasons from /rom/tallycore/reasons/skicket.mpy b'SK3'", lines
