"""The packages and the board's file set of a regular (non-editable) install.

The host (`tallyboard`) and the firmware's packages (`tallycore`, `tallyrun`, ...: every package in
firmware/, the same list the board's importer answers for, tallyrun.importfs.PACKAGES; a test holds
the two equal) install as Python packages. A wheel must also deploy and emulate, so it carries the
board's file set as package data of `tallyboard.firmware_files`: the whole firmware/ folder (main.py,
boot.py, the packages, the emulator's stand-ins in emu/) and the board definitions in board/
(tallyboard.sources finds them there). The firmware's modules outside its packages (`tallyboot`)
install as modules, held equal to fileset.ROOT_MODULES by a test. Nothing else is listed by hand: a package added to firmware/ is
in the next wheel. The rules, docs/rules.md, go with it as package data of `tallyboard.docs_files`
(`tallyboard rules` prints them; tallyboard.scorebook.rulescard)."""
from setuptools import find_packages, setup

HOST_PACKAGES = find_packages("host")
FIRMWARE_PACKAGES = find_packages("firmware")
package_dir = {name: "host/" + name.replace(".", "/") for name in HOST_PACKAGES}
package_dir.update({name: "firmware/" + name.replace(".", "/") for name in FIRMWARE_PACKAGES})
package_dir["tallyboard.firmware_files"] = "firmware"
package_dir["tallyboard.firmware_files.board"] = "board"
package_dir["tallyboard.docs_files"] = "docs"
package_dir[""] = "firmware"         # the firmware's modules outside its packages (fileset.ROOT_MODULES)
ROOT_MODULES = ["tallyboot"]

setup(
    package_dir=package_dir,
    py_modules=ROOT_MODULES,
    packages=HOST_PACKAGES + FIRMWARE_PACKAGES + ["tallyboard.firmware_files", "tallyboard.firmware_files.board",
                                                 "tallyboard.docs_files"],
    package_data={
        "tallyboard": ["data/*.json"],
        "tallyboard.evening": ["page/*.html", "page/*.css", "page/*.js"],
        "tallyboard.firmware_files": ["*/*.py"],
        "tallyboard.firmware_files.board": ["*.json"],
        "tallyboard.docs_files": ["rules.md"],
    },
)
