"""The release id a board says it runs in its health (issue 43; tallynet.health's
`release`): the host's file set writes it to the board's flash as `release`, the
first 12 hex digits of the SHA-256 of the sorted "<sha256> <dest>" lines of every
other file of the set. Worked out here with hashlib, not with release_id."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from tallyboard.tooling import fileset


def test_the_release_id_is_the_sets_files_hashed_in_the_order_of_their_names():
    a = fileset.FirmwareFile("tallycore/a.mpy", b"alpha", Path("a"))
    b = fileset.FirmwareFile("main.py", b"import a\n", Path("b"))
    # sha256("alpha") and sha256("import a\n"), then the two lines in the order of their names
    lines = (hashlib.sha256(b"import a\n").hexdigest() + " main.py\n"
             + hashlib.sha256(b"alpha").hexdigest() + " tallycore/a.mpy\n")
    expected = hashlib.sha256(lines.encode()).hexdigest()[:12]
    assert fileset.release_id([a, b]) == expected
    assert fileset.release_id([b, a]) == expected                      # the order built in does not count
    old = fileset.FirmwareFile(fileset.RELEASE, b"0123456789ab", Path("r"))
    assert fileset.release_id([a, old, b]) == expected                 # nor an earlier release file
    changed = fileset.FirmwareFile("main.py", b"import a  # changed\n", Path("b"))
    assert fileset.release_id([a, changed]) != expected


@pytest.mark.process
def test_the_real_file_set_carries_its_release_before_boot_and_main():
    files = fileset.build()
    dests = [f.dest for f in files]
    assert dests[-3:] == [fileset.RELEASE, "boot.py", "main.py"]
    release = files[-3].data
    others = sorted((f.dest, hashlib.sha256(f.data).hexdigest()) for f in files if f.dest != fileset.RELEASE)
    lines = "".join(f"{sha} {dest}\n" for dest, sha in others)
    assert release == hashlib.sha256(lines.encode()).hexdigest()[:12].encode()
