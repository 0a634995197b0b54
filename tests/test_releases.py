"""The director's releases (issue 43; host/tallyboard/club/releases.py, `tallyboard release`): a release
made from the checkout's file set is signed with the club's update key and read back whole, checked by
the firmware's own Ed25519 (tallynet.ed25519, what a board runs); a release changed anywhere after
signing (a byte of a file, the manifest, a file added) or made with another key is refused, naming
what; the key file is made 0600 and refused when others may read it."""
from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.club import releases
from tallyboard.tooling import fileset
from tallynet import ed25519

SEED = bytes(range(32))            # a fixed key: the same signature every run
OTHER = bytes(range(1, 33))


def _files() -> list[fileset.FirmwareFile]:
    """A small file set of the shape build() makes: two modules, the release file, main.py last."""
    here = Path(__file__)
    files = [fileset.FirmwareFile("tallycore/a.mpy", b"M\x06a", here), fileset.FirmwareFile("tallyrun/b.mpy", b"M\x06bb", here),
             fileset.FirmwareFile("main.py", b"import tallypanel.start\n", here)]
    # the release file names the id of every other file, and goes before main.py
    files.insert(2, fileset.FirmwareFile(fileset.RELEASE, (fileset.release_id(files) + "\n").encode(), here))
    return files


def _rewrite(path: Path, change) -> None:
    """The release file with its members changed by change(dict name -> bytes)."""
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    change(members)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    path.write_bytes(buffer.getvalue())


def test_a_release_is_signed_and_read_back_whole_by_the_boards_own_check(tmp_path):
    files = _files()
    release = releases.make(files, 7, SEED)
    manifest = release.manifest
    # the manifest by hand: every file with its size and SHA-256, in the set's order
    assert [(e["dest"], e["size"]) for e in manifest["files"]] == [
        ("tallycore/a.mpy", 3), ("tallyrun/b.mpy", 4), ("release", 13), ("main.py", 24)]
    assert manifest["files"][1]["sha256"] == hashlib.sha256(b"M\x06bb").hexdigest()
    assert (manifest["number"], manifest["downgrade"], manifest["chunk"]) == (7, False, 1024)
    assert manifest["release"] == fileset.release_id(files)
    # what is signed: the SHA-256 of the manifest's canonical JSON, checked as a board checks it
    public = releases.public_key(SEED)
    signed = hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()).digest()
    assert ed25519.verify(public, signed, release.signature)
    path = tmp_path / f"{release.id}.tbrel"
    releases.write(release, path)
    back = releases.read(path, public)
    assert back.files == {f.dest: f.data for f in files} and back.number == 7


@pytest.mark.parametrize("change, refused", [
    (lambda m: m.__setitem__("files/tallyrun/b.mpy", b"M\x06bX"), "tallyrun/b.mpy is not the file that was signed"),
    (lambda m: m.__setitem__("manifest.json", m["manifest.json"].replace(b'"number":7', b'"number":9')),
     "its signature is not the club's update key's"),
    (lambda m: m.__setitem__("files/tallycore/evil.mpy", b"x"), "tallycore/evil.mpy not in the signed manifest"),
    (lambda m: m.pop("files/main.py"), "main.py is listed but missing"),
    (lambda m: m.__setitem__("manifest.json", m["manifest.json"].replace(b",", b", ", 1)),
     "not the canonical JSON that was signed"),
])
def test_a_release_changed_after_signing_is_refused_naming_what(tmp_path, change, refused):
    release = releases.make(_files(), 7, SEED)
    path = tmp_path / "r.tbrel"
    releases.write(release, path)
    _rewrite(path, change)
    with pytest.raises(releases.ReleaseError, match=refused):
        releases.read(path, releases.public_key(SEED))


@pytest.mark.parametrize("dest", ["../boot.py", "/main.py", "tallycore/../../x", "tallycore/./a.mpy", "a b.py", ".."])
def test_a_signed_release_naming_a_place_off_the_flash_is_refused(tmp_path, dest):
    here = Path(__file__)
    files = _files() + [fileset.FirmwareFile(dest, b"x", here)]
    path = tmp_path / "r.tbrel"
    releases.write(releases.make(files, 7, SEED), path)         # signed with the club's own key
    with pytest.raises(releases.ReleaseError, match="is not a place on the board's flash"):
        releases.read(path, releases.public_key(SEED))


def test_a_release_signed_with_another_key_is_refused(tmp_path):
    path = tmp_path / "r.tbrel"
    releases.write(releases.make(_files(), 7, OTHER), path)
    with pytest.raises(releases.ReleaseError, match="not the club's update key's"):
        releases.read(path, releases.public_key(SEED))


def test_the_commands_make_the_key_a_release_and_check_it(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    runner = CliRunner()
    made = runner.invoke(main, ["release", "key"])
    assert made.exit_code == 0, made.output
    key = tmp_path / "config" / "tallyboard" / "update-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and "made now" in made.output
    public = releases.public_key(bytes.fromhex(key.read_text().strip())).hex()
    assert public in made.output
    again = runner.invoke(main, ["release", "key"])
    assert "kept" in again.output and public in again.output       # the same key, not a new one

    monkeypatch.setattr(fileset, "build", lambda *a, **k: _files())
    out = tmp_path / "releases"
    result = runner.invoke(main, ["release", "make", "--number", "3", "--out", str(out)])
    assert result.exit_code == 0, result.output
    [path] = out.glob("*.tbrel")
    assert path.name == f"{fileset.release_id(_files())}.tbrel"
    assert "4 files, 44 bytes" in result.output                 # 3 + 4 + 13 + 24 bytes
    shown = runner.invoke(main, ["release", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "number 3" in shown.output and "signed with this club's update key" in shown.output
    # on a laptop without the key: its public half given
    elsewhere = runner.invoke(main, ["release", "show", str(path), "--public", public, "--key", str(tmp_path / "none")])
    assert elsewhere.exit_code == 0 and "number 3" in elsewhere.output, elsewhere.output
    other = releases.public_key(OTHER).hex()
    refused = runner.invoke(main, ["release", "show", str(path), "--public", other])
    assert refused.exit_code != 0 and "not the club's update key's" in refused.output

    os.chmod(key, 0o644)                                         # a key others may read makes no release
    refused = runner.invoke(main, ["release", "make", "--number", "4", "--out", str(out)])
    assert refused.exit_code != 0 and "chmod 600" in refused.output


def test_wifi_enrol_gives_the_board_the_update_key_given_or_this_laptops(tmp_path, monkeypatch, capsys):
    from tallyboard.commands import wifi

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    assert wifi._update_key(None) is None                      # no key here: none, and said
    assert "no update key on this laptop" in capsys.readouterr().out
    assert wifi._update_key("-") is None
    assert wifi._update_key("ab" * 32) == b"\xab" * 32
    with pytest.raises(releases.ReleaseError, match="--update-key abab.*64 hex digits"):
        wifi._update_key("ab" * 31)
    seed = releases.load_key(releases.update_key_path(), create=True)
    assert wifi._update_key(None) == releases.public_key(seed)   # this laptop's key's public half
