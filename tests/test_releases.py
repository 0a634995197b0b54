"""The director's releases (issue 43; host/tallyboard/club/releases.py, `tallyboard release`): a release
(format 2: docs/club-mqtt.md, "Updates over the air") made from the checkout's file set is signed with
the club's update key and read back whole, checked by the firmware's own Ed25519 (tallynet.ed25519, what
a board runs); its image's hash chain and its chunk messages, worked out here with hashlib; a release
changed anywhere after signing (a byte of a file, files.json, the manifest, a file added), re-signed with
an image or root files that are not its files', of format 1, or made with another key is refused, naming
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


def _files(big: bytes = b"") -> list[fileset.FirmwareFile]:
    """A small file set of the shape build() makes: two modules (`big` the second's, if given), tallyboot,
    the release file, boot.py and main.py last."""
    here = Path(__file__)
    files = [fileset.FirmwareFile("tallycore/a.mpy", b"M\x06a", here),
             fileset.FirmwareFile("tallyrun/b.mpy", big or b"M\x06bb", here),
             fileset.FirmwareFile("tallyboot.mpy", b"M\x06t", here),
             fileset.FirmwareFile("boot.py", b"# boot\n", here),
             fileset.FirmwareFile("main.py", b"import tallypanel.start\n", here)]
    # the release file names the id of every other file, and goes before boot.py and main.py
    files.insert(3, fileset.FirmwareFile(fileset.RELEASE, (fileset.release_id(files) + "\n").encode(), here))
    return files


def _chain(image: bytes, size: int = 1024) -> list[bytes]:
    """H[0..n] by hand: H[n] 32 zero bytes, H[i] = SHA-256(chunk i + H[i+1])."""
    pieces = [image[at:at + size] for at in range(0, len(image), size)]
    hashes = [bytes(32)]
    for piece in reversed(pieces):
        hashes.insert(0, hashlib.sha256(piece + hashes[0]).digest())
    return hashes


def _resign(path: Path, change) -> None:
    """The release file with its manifest changed by change(manifest) and signed again with the club's key:
    what only the key's holder could make."""
    def members(m):
        manifest = json.loads(m["manifest.json"])
        change(manifest)
        m["manifest.json"] = releases.canonical(manifest)
        m["manifest.sig"] = releases.ed25519_sign(SEED, releases.digest(manifest))
    _rewrite(path, members)


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
    # files.json by hand: every file with its size and SHA-256, in the set's order, as canonical JSON
    assert [(e["dest"], e["size"]) for e in release.listing] == [
        ("tallycore/a.mpy", 3), ("tallyrun/b.mpy", 4), ("tallyboot.mpy", 3), ("release", 13), ("boot.py", 7),
        ("main.py", 24)]
    assert release.listing[1]["sha256"] == hashlib.sha256(b"M\x06bb").hexdigest()
    listing = json.dumps(release.listing, sort_keys=True, separators=(",", ":")).encode()
    assert manifest["files"] == hashlib.sha256(listing).hexdigest()
    # the small manifest: format 2, the root files a board must hold, every board, the image and its chain
    assert sorted(manifest) == ["boards", "downgrade", "files", "format", "fw", "image", "number", "release", "root",
                                "trial_s"]
    assert (manifest["format"], manifest["number"], manifest["downgrade"], manifest["boards"]) == (2, 7, False, ["*"])
    assert manifest["trial_s"] == 180             # 3 minutes to link, unless the director says
    assert manifest["release"] == fileset.release_id(files)
    assert manifest["root"] == {"boot.py": hashlib.sha256(b"# boot\n").hexdigest(),
                                "main.py": hashlib.sha256(b"import tallypanel.start\n").hexdigest(),
                                "tallyboot.mpy": hashlib.sha256(b"M\x06t").hexdigest()}
    image = fileset.romfs_image(files)            # the packages and the release file, as a board mounts them
    assert manifest["image"] == {"size": len(image), "sha256": hashlib.sha256(image).hexdigest(), "chunk": 1024,
                                 "chain": _chain(image)[0].hex()}
    assert len(releases.canonical(manifest)) < 700          # small: a board holds it in its heap
    # what is signed: the SHA-256 of the manifest's canonical JSON, checked as a board checks it
    public = releases.public_key(SEED)
    signed = hashlib.sha256(json.dumps(manifest, sort_keys=True, separators=(",", ":")).encode()).digest()
    assert ed25519.verify(public, signed, release.signature)
    path = tmp_path / f"{release.id}.tbrel"
    releases.write(release, path)
    with zipfile.ZipFile(path) as archive:
        assert archive.read("files.json") == listing
    back = releases.read(path, public)
    assert back.files == {f.dest: f.data for f in files} and back.number == 7
    assert releases.image_bytes(back) == image and back.listing == release.listing


def test_the_chain_of_a_three_chunk_image_by_hand():
    image = b"a" * 1024 + b"b" * 1024 + b"c" * 5
    h3 = bytes(32)
    h2 = hashlib.sha256(b"c" * 5 + h3).digest()
    h1 = hashlib.sha256(b"b" * 1024 + h2).digest()
    h0 = hashlib.sha256(b"a" * 1024 + h1).digest()
    assert releases.chain_of(image) == (h0, h1, h2, h3)


def test_each_chunk_message_carries_the_id_its_index_the_next_hash_and_its_bytes():
    big = bytes(range(256)) * 10                 # a module of 2,560 bytes: an image of three chunks
    files = _files(big)
    release = releases.make(files, 7, SEED)
    image = fileset.romfs_image(files)
    assert 2048 < len(image) <= 3072 and releases.chunk_count(release) == 3
    hashes = _chain(image)
    for index in range(3):
        payload = releases.chunk_payload(release, index)
        assert payload[:12] == release.id.encode("ascii") and len(release.id) == 12
        assert payload[12:14] == bytes([0, index])
        assert payload[14:46] == hashes[index + 1]
        assert payload[46:] == image[index * 1024:(index + 1) * 1024]
        # what a board does with it: the chunk and the hash it carries give the hash it holds
        assert hashlib.sha256(payload[46:] + payload[14:46]).digest() == hashes[index]
    assert releases.chunk_payload(release, 2)[14:46] == bytes(32)       # the last chunk carries H[n]
    with pytest.raises(ValueError, match="chunks 0 to 2"):
        releases.chunk_payload(release, 3)


def test_a_release_for_some_boards_names_them_and_a_wrong_name_is_refused():
    release = releases.make(_files(), 7, SEED, boards=["1A2B.3", "1A2B.1", "1A2B.3"])
    assert release.manifest["boards"] == ["1A2B.1", "1A2B.3"]
    with pytest.raises(releases.ReleaseError, match="--board 'table 3' is not a board's identity"):
        releases.make(_files(), 7, SEED, boards=["table 3"])


def test_a_file_set_without_its_root_files_makes_no_release():
    with pytest.raises(releases.ReleaseError, match="no boot.py"):
        releases.make([f for f in _files() if f.dest != "boot.py"], 7, SEED)


@pytest.mark.parametrize("change, refused", [
    (lambda m: m.__setitem__("files/tallyrun/b.mpy", b"M\x06bX"), "tallyrun/b.mpy is not the file that was signed"),
    (lambda m: m.__setitem__("manifest.json", m["manifest.json"].replace(b'"number":7', b'"number":9')),
     "its signature is not the club's update key's"),
    (lambda m: m.__setitem__("files/tallycore/evil.mpy", b"x"), "tallycore/evil.mpy not in the signed files.json"),
    (lambda m: m.pop("files/main.py"), "main.py is listed but missing"),
    (lambda m: m.__setitem__("manifest.json", m["manifest.json"].replace(b",", b", ", 1)),
     "not the canonical JSON that was signed"),
    (lambda m: m.__setitem__("files.json", m["files.json"].replace(b'"size":3', b'"size":4', 1)),
     "its files.json is not the list that was signed"),
    (lambda m: m.pop("files.json"), "no files.json in it"),
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


@pytest.mark.parametrize("change, refused", [
    (lambda m: m["image"].__setitem__("chain", "00" * 32), r"the image rebuilt from its files .*its chain differs"),
    (lambda m: m["image"].__setitem__("size", m["image"]["size"] + 1), r"rebuilt .*its size differs"),
    (lambda m: m["image"].__setitem__("sha256", "ab" * 32), r"rebuilt .*its sha256 differs"),
    (lambda m: m["root"].__setitem__("boot.py", "ab" * 32), "its boot.py is not the one the manifest names"),
    (lambda m: m.__setitem__("format", 1), "a release of format 1, this host reads 2"),
    (lambda m: m["image"].__setitem__("chunk", 512), "image chunk"),
    (lambda m: m.__setitem__("boards", ["a b"]), "manifest's boards is not a release's"),
    (lambda m: m.__setitem__("trial_s", 0), "manifest's trial_s is not a release's"),
    (lambda m: m.pop("root"), "manifest's fields"),
])
def test_a_release_signed_by_the_key_yet_not_its_files_is_refused_naming_what(tmp_path, change, refused):
    path = tmp_path / "r.tbrel"
    releases.write(releases.make(_files(), 7, SEED), path)
    _resign(path, change)
    with pytest.raises(releases.ReleaseError, match=refused):
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
    assert "6 files, 54 bytes" in result.output                 # 3 + 4 + 3 + 13 + 7 + 24 bytes
    image = fileset.romfs_image(_files())
    assert f"image {len(image):,} bytes, 1 chunk; for every board" in result.output
    shown = runner.invoke(main, ["release", "show", str(path)])
    assert shown.exit_code == 0, shown.output
    assert "number 3" in shown.output and "signed with this club's update key" in shown.output
    assert f"image: {len(image):,} bytes, 1 chunk of 1,024 bytes; for every board" in shown.output
    assert "tallyboot.mpy" in shown.output
    some = runner.invoke(main, ["release", "make", "--number", "4", "--out", str(tmp_path / "some"),
                                "--board", "1A2B.2", "--board", "1A2B.1"])
    assert some.exit_code == 0 and "for boards 1A2B.1, 1A2B.2" in some.output, some.output
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
