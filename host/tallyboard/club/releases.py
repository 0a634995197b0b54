"""A release of the firmware for a club's boards, made by the director (issue 43; docs/club-wifi.md,
"Releases"): the file set this checkout builds (tooling/fileset.build: the packages compiled to .mpy, the
board definitions, the `release` file that names the set's id, boot.py and main.py last), a manifest that
lists every file with its size and SHA-256, and the director's Ed25519 signature over the manifest's
SHA-256. Only the club's update key can sign one: its private half is the director's alone (a file of his,
0600: `update_key_path`), and a board holds the public half and checks the signature with the firmware's
own check (tallynet.ed25519) before it takes a byte of the release. No table's key (HMAC, which the
director shares with that table) and no stranger can make a signature that passes.

On disk a release is one file, `<id>.tbrel`: a zip of `manifest.json` (canonical JSON: sorted keys, no
spaces, as tallynet.envelope writes it, so the bytes signed are the bytes a board reads), `manifest.sig`
(64 bytes) and each file under `files/`. `read` checks all of it: the signature with the public key, and
every file against the manifest; a release changed anywhere, by a byte, is refused naming what."""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tallynet import ed25519
from tallyrun import protocol

from ..common.errors import TallyboardError
from ..common.files import write_output
from ..tooling import fileset

FORMAT = 1
CHUNK_BYTES = 1024        # a chunk a Pico W's heap takes at once beside the game and the link
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
FILES = "files/"
KEY_BYTES = 32
# a file's place on the board: folders and a name of letters, digits, _ . -, none of them . or ..
_DEST = re.compile(r"(?!.*(?:^|/)\.\.?(?:/|$))[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\Z")


class ReleaseError(TallyboardError):
    """A release that cannot be made, read or trusted; the text says which and what to do."""


@dataclass(frozen=True)
class Release:
    manifest: dict[str, Any]
    signature: bytes
    files: dict[str, bytes]        # dest -> the file's bytes, in the manifest's order

    @property
    def id(self) -> str:
        return str(self.manifest["release"])

    @property
    def number(self) -> int:
        return int(self.manifest["number"])

    def manifest_bytes(self) -> bytes:
        return canonical(self.manifest)


def canonical(value: Any) -> bytes:
    """JSON with sorted keys and no spaces: the bytes signed, as the firmware's envelope writes them."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def digest(manifest: dict[str, Any]) -> bytes:
    """What the signature covers: the SHA-256 of the manifest's canonical bytes (the board hashes them
    with its own hashlib, in C, and its Ed25519 check hashes only these 32 bytes)."""
    return hashlib.sha256(canonical(manifest)).digest()


# ---------------------------------------------------------------- the update key

def update_key_path() -> Path:
    """The director's update key: $XDG_CONFIG_HOME/tallyboard/update-key, else ~/.config/tallyboard/update-key."""
    base = os.environ.get("XDG_CONFIG_HOME")
    return (Path(base) if base else Path.home() / ".config") / "tallyboard" / "update-key"


def load_key(path: Path, create: bool = False) -> bytes:
    """The update key's private half (its 32-byte seed, hex in the file). create: made when there is none
    (0600 from its first byte). A key others may read is refused: whoever reads it can make boards run
    their code."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        if not create:
            raise ReleaseError(f"no update key at {path}: make one with `tallyboard release key`") from None
        seed = os.urandom(KEY_BYTES)
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_output(path, seed.hex() + "\n", private=True)
        return seed
    except (OSError, UnicodeDecodeError) as exc:
        raise ReleaseError(f"cannot read the update key {path}: {getattr(exc, 'strerror', None) or exc}") from None
    if path.stat().st_mode & 0o077:
        raise ReleaseError(f"{path} holds the club's update key and other users may read it: chmod 600 {path}, "
                           "and make a new key (and enrol the boards with it) if anyone else may have read it")
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        seed = b""
    if len(seed) != KEY_BYTES:
        raise ReleaseError(f"{path} is not an update key (64 hex digits): restore it from your backup")
    return seed


def public_key(seed: bytes) -> bytes:
    """The public half (32 bytes) that boards hold."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    return Ed25519PrivateKey.from_private_bytes(seed).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def public_from_hex(text: str, option: str) -> bytes:
    """The public half as an option gives it (64 hex digits); ReleaseError naming the option."""
    try:
        public = bytes.fromhex(text)
    except ValueError:
        public = b""
    if len(public) != KEY_BYTES:
        raise ReleaseError(f"{option} {text}: the public half is 64 hex digits (tallyboard release key on the "
                           "director's laptop prints it)")
    return public


def _sign(seed: bytes, message: bytes) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).sign(message)


# ---------------------------------------------------------------- making one

def make(files: list[fileset.FirmwareFile], number: int, seed: bytes, downgrade: bool = False) -> Release:
    """The release of a file set, numbered (the director's count: a board refuses a number below the one
    it runs unless downgrade), signed with the update key."""
    if not 1 <= number <= 2**30 - 1:
        raise ReleaseError(f"a release's number is 1 to {2**30 - 1}, not {number}")
    release_file = next((f for f in files if f.dest == fileset.RELEASE), None)
    if release_file is None:
        raise ReleaseError("the file set has no release file: build it with tooling/fileset.build")
    manifest = {
        "format": FORMAT, "release": release_file.data.decode().strip(), "fw": protocol.FIRMWARE_VERSION,
        "number": number, "downgrade": downgrade, "chunk": CHUNK_BYTES,
        "files": [{"dest": f.dest, "size": len(f.data), "sha256": f.sha256} for f in files],
    }
    return Release(manifest, _sign(seed, digest(manifest)), {f.dest: f.data for f in files})


def write(release: Release, path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, release.manifest_bytes())
        archive.writestr(SIGNATURE, release.signature)
        for dest, data in release.files.items():
            archive.writestr(FILES + dest, data)
    write_output(path, buffer.getvalue())


# ---------------------------------------------------------------- reading one

def read(path: Path, public: bytes) -> Release:
    """A release file, trusted only once all of it is checked: the manifest's signature by the update
    key whose public half is `public`, and every file against the manifest. ReleaseError names the
    first thing that fails."""
    try:
        with zipfile.ZipFile(path) as archive:
            manifest_bytes = archive.read(MANIFEST)
            signature = archive.read(SIGNATURE)
            names = [n for n in archive.namelist() if n.startswith(FILES)]
            data = {n[len(FILES):]: archive.read(n) for n in names}
    except FileNotFoundError:
        raise ReleaseError(f"{path}: no such release file") from None
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise ReleaseError(f"{path} is not a release file ({exc}): make one with `tallyboard release make`") from None
    try:
        manifest = json.loads(manifest_bytes)
    except ValueError:
        raise ReleaseError(f"{path}: its manifest is not JSON: the file was damaged or changed") from None
    if not isinstance(manifest, dict) or canonical(manifest) != manifest_bytes:
        raise ReleaseError(f"{path}: its manifest is not the canonical JSON that was signed: changed after signing")
    if not ed25519.verify(public, digest(manifest), signature):
        raise ReleaseError(f"{path}: its signature is not the club's update key's: changed after signing, or "
                           "made with another key; refused")
    listed = manifest.get("files")
    if manifest.get("format") != FORMAT or not isinstance(listed, list):
        raise ReleaseError(f"{path}: a release of format {manifest.get('format')!r}, this host reads {FORMAT}")
    files: dict[str, bytes] = {}
    for entry in listed:
        dest = entry["dest"]
        if not isinstance(dest, str) or not _DEST.match(dest) or len(dest) > 128:
            raise ReleaseError(f"{path}: {dest!r} is not a place on the board's flash (a relative path of letters, "
                               "digits, _ . -): refused, whoever signed it")
        body = data.get(dest)
        if body is None:
            raise ReleaseError(f"{path}: {dest} is listed but missing")
        if len(body) != entry["size"] or hashlib.sha256(body).hexdigest() != entry["sha256"]:
            raise ReleaseError(f"{path}: {dest} is not the file that was signed (its SHA-256 differs): refused")
        files[dest] = body
    extra = sorted(set(data) - set(files))
    if extra:
        raise ReleaseError(f"{path}: {', '.join(extra)} not in the signed manifest: refused")
    return Release(manifest, signature, files)
