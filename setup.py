"""Build hook: a regular (non-editable) install must be able to deploy and
emulate, so the wheel carries the board's file set too: main.py, boot.py,
the firmware packages (tallycore: the rules, tallyrun: the runtime,
tallypanel: display and input), the emulator's stand-ins (firmware/emu) and the board
definitions, under tallyboard/firmware_files/ (see tallyboard.mpunix)."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
FIRMWARE_FILES = (
    ("firmware", "*.py", ""),
    ("firmware/tallycore", "*.py", "tallycore"),
    ("firmware/tallyrun", "*.py", "tallyrun"),
    ("firmware/tallypanel", "*.py", "tallypanel"),
    ("firmware/emu", "*.py", "emu"),
    ("board", "*.json", "board"),
)


class BuildWithFirmwareFiles(build_py):
    def run(self):
        super().run()
        dest = Path(self.build_lib) / "tallyboard" / "firmware_files"
        for folder, pattern, target in FIRMWARE_FILES:
            for src in sorted((ROOT / folder).glob(pattern)):
                out = dest / target / src.name
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, out)


setup(cmdclass={"build_py": BuildWithFirmwareFiles})
