# How the chip finds the firmware's modules. MicroPython's importer asks the
# filesystem three questions a module ("tallyrun/app" a folder? "app.py"?
# "app.mpy"?), each a lookup on littlefs from its root: ~1.8 ms on the chip,
# ~5 ms a module before the file is even opened, most of a second's power-up
# spent on some two dozen modules (docs/benchmarks.md, issue 20). The
# firmware's packages hold only .mpy files (tallyboard deploy writes them so),
# so the answers are known: a small read-only filesystem mounted at /fw gives
# them at once and opens each .mpy on littlefs with its one lookup.
#
# Every answer is one of two tuples made here, so a module's import allocates
# nothing more than the importer itself does: the heap's layout after boot
# stays as littlefs's (a hole a module would leave is a block a game switch
# cannot use).
#
# On tallyboard's own images (image/README.md) the packages are in the ROMFS
# partition MicroPython mounts at /rom: their bytecode runs in place from
# flash instead of being copied into the heap (a Pico W's heap cannot hold
# both the firmware and its club link otherwise). /rom answers the importer
# at once itself, so it goes first and /fw is not mounted.
import sys

MOUNT = "/fw"
ROM = "/rom"
PACKAGES = ("tallycore", "tallyrun", "tallypanel", "tallynet")
# the folders inside them that are packages too (tallycore.reasons: each
# game's words, tallycore.why), asked for before the package that holds them
SUBPACKAGES = ("tallycore/reasons",)
_FOLDERS = tuple("/" + name for name in SUBPACKAGES + PACKAGES)
# os.stat's ten fields; the importer reads only the mode (a folder, a file)
_FOLDER = (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
_FILE = (0x8000, 0, 0, 0, 0, 0, 0, 0, 0, 0)


class FirmwareFS:
    """The firmware's packages as the importer sees them, read from fs (the
    littlefs mounted at /, or any filesystem with the packages at its root);
    folders: the packages, each as "/name", a package inside another before
    the one that holds it."""

    def __init__(self, fs, folders=_FOLDERS):
        self.fs = fs
        self.folders = folders

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def stat(self, path):
        for folder in self.folders:
            if path.startswith(folder):
                end = len(folder)
                if len(path) == end:
                    return _FOLDER
                if path.startswith("/", end):
                    # inside a package: "x.py" answers as a folder, so the importer goes on
                    # to "x.mpy" (there is no source here); "x" and "x.mpy" as files. open()
                    # says whether the .mpy is really there.
                    return _FOLDER if path.endswith(".py") else _FILE
        raise OSError(2)     # not the firmware's: the importer looks further along sys.path

    def open(self, path, mode):
        try:
            return self.fs.open(path, mode)
        except OSError:
            # as the importer would say it: `try: import x except ImportError` still works
            raise ImportError("no module file %s on the board" % path)


def mount(fs=None):
    """Put the firmware's packages first after the image's frozen modules on
    sys.path, and point the packages already imported there: /rom when the
    image's ROMFS holds them, else the packages of fs mounted at /fw. fs: the
    filesystem holding the packages; by default the littlefs at / on a board
    (elsewhere, the emulator's folders, nothing is mounted). Returns where
    the packages are found (ROM or MOUNT), or None."""
    try:
        import vfs
    except ImportError:  # CPython, or an image without the vfs module
        return None
    lfs = getattr(vfs, "VfsLfs2", None)
    rom = None
    for mounted, point in vfs.mount():
        if point == MOUNT:
            return MOUNT       # mounted already (main.py did, and the REPL asks again)
        if point == ROM:
            rom = mounted
        if fs is None and point == "/" and lfs is not None and isinstance(mounted, lfs):
            fs = mounted
    if rom is not None and _holds_firmware(rom):
        _first(ROM)
        return ROM
    if fs is None:
        return None
    vfs.mount(FirmwareFS(fs), MOUNT)
    _first(MOUNT)
    return MOUNT


def _holds_firmware(fs):
    try:
        return fs.stat("/" + PACKAGES[0])[0] & 0x4000 != 0
    except OSError:
        return False


def _first(where):
    path = sys.path
    # the image's frozen modules (asyncio) first: a lookup among them costs next to nothing
    for name in (".frozen", where):
        if name in path:
            path.remove(name)
    path.insert(0, ".frozen")
    path.insert(1, where)
    for name in PACKAGES:
        package = sys.modules.get(name)
        if package is not None:
            # a str in MicroPython (the importer joins the module name to it)
            package.__path__ = where + "/" + name  # type: ignore[assignment]
