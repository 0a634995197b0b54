"""A release of the firmware for a club's boards, made by the director (issue 43; docs/club-wifi.md,
"Releases"; docs/club-mqtt.md, "Updates over the air"): the file set this checkout builds
(tooling/fileset.build: the packages compiled to .mpy, the board definitions, the `release` file that
names the set's id, boot.py and main.py last), the ROMFS image of its packages that travels to the boards
(tooling/fileset.romfs_image) in chunks of CHUNK_BYTES, each checked by a hash chain, a small manifest
(format 2) that names the image, its chain, the root files a board must hold already and the SHA-256 of
the whole set's list, and the director's Ed25519 signature over the manifest's SHA-256. Only the club's update key can sign one: its private half is the director's alone (a file of his,
0600: `update_key_path`), and a board holds the public half and checks the signature with the firmware's
own check (tallynet.ed25519) before it takes a byte of the release. No table's key (HMAC, which the
director shares with that table) and no stranger can make a signature that passes.

On disk a release is one file, `<id>.tbrel`: a zip of `manifest.json` (canonical JSON: sorted keys, no
spaces, as tallynet.envelope writes it, so the bytes signed are the bytes a board reads), `manifest.sig`
(64 bytes), `files.json` (canonical JSON: every file with its size and SHA-256, in the set's order; its
SHA-256 is the manifest's `files`) and each file under `files/`. `read` checks all of it: the signature
with the public key, files.json against the manifest, every file against files.json, the root files
against the manifest, and the image rebuilt from the files against the manifest's size, SHA-256 and
chain; a release changed anywhere, by a byte, is refused naming what."""
from __future__ import annotations

import hashlib
import io
import json
import os
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import tallyboot
from tallynet import ed25519, update
from tallyrun import protocol

from ..common.errors import TallyboardError
from ..common.files import write_output
from ..tooling import fileset
from . import kinds

FORMAT = 2
CHUNK_BYTES = 1024        # a chunk a Pico W's heap takes at once beside the game and the link
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
FILES_LIST = "files.json"
FILES = "files/"
KEY_BYTES = 32
ID_BYTES = 12             # a release id (fileset.release_id): the head of every chunk message
MAX_CHUNKS = update.MAX_CHUNKS      # a chunk's index is 2 bytes on the wire: the board's bound
ALL_BOARDS = "*"          # `boards`: every board of the club
# what stays on the board's littlefs, outside the image: the release's own already, or the board refuses it
ROOT_FILES = update.ROOT_FILES      # what a board keeps on littlefs beside the image: the board checks them
MANIFEST_FIELDS = frozenset({"format", "release", "fw", "number", "downgrade", "boards", "trial_s", "image", "root",
                             "files"})
TRIAL_S = tallyboot.TRIAL_S     # the seconds a board gives a new release to link, unless the director says
MAX_TRIAL_S = update.MAX_TRIAL_S    # the board's bound on a release's trial
IMAGE_FIELDS = frozenset({"size", "sha256", "chunk", "chain"})
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")
_RELEASE_ID = re.compile(r"[0-9A-Za-z]{12}\Z")
# a file's place on the board: folders and a name of letters, digits, _ . -, none of them . or ..
_DEST = re.compile(r"(?!.*(?:^|/)\.\.?(?:/|$))[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)*\Z")


class ReleaseError(TallyboardError):
    """A release that cannot be made, read or trusted; the text says which and what to do."""


@dataclass(frozen=True)
class Release:
    manifest: dict[str, Any]
    signature: bytes
    files: dict[str, bytes]        # dest -> the file's bytes, in files.json's order
    listing: list[dict[str, Any]]  # files.json: {dest, size, sha256} of each file, in the set's order
    image: bytes                   # the ROMFS image that travels (image_of(files))
    hashes: tuple[bytes, ...]      # the hash chain H[0..n] (chain_of(image)): H[n] 32 zero bytes

    @property
    def id(self) -> str:
        return str(self.manifest["release"])

    @property
    def number(self) -> int:
        return int(self.manifest["number"])

    @property
    def boards(self) -> list[str]:
        return list(self.manifest["boards"])

    def manifest_bytes(self) -> bytes:
        return canonical(self.manifest)

    def listing_bytes(self) -> bytes:
        return canonical(self.listing)


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


def ed25519_sign(seed: bytes, message: bytes) -> bytes:
    """seed's Ed25519 signature (64 bytes) of message: a release's manifest digest, a director's correction."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    return Ed25519PrivateKey.from_private_bytes(seed).sign(message)


# ---------------------------------------------------------------- the image and its chain

def image_of(files: dict[str, bytes]) -> bytes:
    """The ROMFS image of a file set ({dest: bytes}): its packages and its release file, as
    fileset.romfs_image builds it for a board with a ROMFS partition (the same files, the same bytes)."""
    return fileset.romfs_image([fileset.FirmwareFile(dest, data, Path(dest)) for dest, data in files.items()])


def chain_of(image: bytes, chunk: int = CHUNK_BYTES) -> tuple[bytes, ...]:
    """The hash chain of an image cut into chunks of `chunk` bytes (docs/club-mqtt.md, "The hash chain"):
    H[n] is 32 zero bytes, H[i] = SHA-256(chunk i + H[i+1]); H[0] is the manifest's `chain`. A chunk
    message carries chunk i and H[i+1], so a board checks each against the hash it holds."""
    count = -(-len(image) // chunk)
    hashes = [bytes(32)]
    for index in range(count - 1, -1, -1):
        hashes.append(hashlib.sha256(image[index * chunk:(index + 1) * chunk] + hashes[-1]).digest())
    return tuple(reversed(hashes))


def image_bytes(release: Release) -> bytes:
    """The ROMFS image the release sends."""
    return release.image


def chunk_count(release: Release) -> int:
    """How many chunks the image is cut into (the last one shorter)."""
    return len(release.hashes) - 1


def chunk_payload(release: Release, index: int) -> bytes:
    """Chunk `index`'s message (docs/club-mqtt.md, "Chunk"): the release id (12 ASCII bytes), the index
    (2 bytes, big-endian), H[index+1] (32 bytes), then the chunk's bytes. Not an envelope: the chain is
    its signature."""
    if not 0 <= index < chunk_count(release):
        raise ValueError(f"release {release.id} has chunks 0 to {chunk_count(release) - 1}, not {index}")
    size = int(release.manifest["image"]["chunk"])
    return (release.id.encode("ascii") + index.to_bytes(2, "big") + release.hashes[index + 1]
            + release.image[index * size:(index + 1) * size])


# ---------------------------------------------------------------- making one

def _boards(boards: list[str] | tuple[str, ...] | None) -> list[str]:
    """The manifest's `boards`: ["*"] (every board), or the identities given, each a name."""
    if not boards or list(boards) == [ALL_BOARDS]:
        return [ALL_BOARDS]
    wrong = [board for board in boards if not kinds.is_name(board)]
    if wrong:
        raise ReleaseError(f"--board {wrong[0]!r} is not a board's identity (as `tallyboard event boards` shows "
                           "it, e.g. 1A2B.3): 1 to 64 letters, digits, _ . -")
    return sorted(set(boards))


def make(files: list[fileset.FirmwareFile], number: int, seed: bytes, downgrade: bool = False,
         boards: list[str] | tuple[str, ...] | None = None, trial_s: int = TRIAL_S) -> Release:
    """The release of a file set, numbered (the director's count: a board refuses a number below the one
    it runs unless downgrade), for `boards` (None: every board), kept by a board only once it has linked
    within trial_s seconds, signed with the update key."""
    if not 1 <= number <= 2**30 - 1:
        raise ReleaseError(f"a release's number is 1 to {2**30 - 1}, not {number}")
    if not 1 <= trial_s <= MAX_TRIAL_S:
        raise ReleaseError(f"a release's trial is 1 to {MAX_TRIAL_S} seconds, not {trial_s}")
    release_file = next((f for f in files if f.dest == fileset.RELEASE), None)
    if release_file is None:
        raise ReleaseError("the file set has no release file: build it with tooling/fileset.build")
    release_id = release_file.data.decode().strip()
    if not _RELEASE_ID.match(release_id):
        raise ReleaseError(f"the file set's release id {release_id!r} is not 12 letters or digits "
                           "(fileset.release_id): build it with tooling/fileset.build")
    by_dest = {f.dest: f for f in files}
    missing = [name for name in ROOT_FILES if name not in by_dest]
    if missing:
        raise ReleaseError(f"the file set has no {', '.join(missing)}: a board holds them beside the image, "
                           "so a release names them; build it with tooling/fileset.build")
    listing = [{"dest": f.dest, "size": len(f.data), "sha256": f.sha256} for f in files]
    image = image_of({f.dest: f.data for f in files})
    hashes = chain_of(image)
    if len(hashes) - 1 > MAX_CHUNKS:
        raise ReleaseError(f"the image is {len(image):,} bytes: more than {MAX_CHUNKS} chunks of {CHUNK_BYTES}")
    manifest = {
        "format": FORMAT, "release": release_id, "fw": protocol.FIRMWARE_VERSION, "number": number,
        "downgrade": downgrade, "boards": _boards(boards), "trial_s": trial_s,
        "image": {"size": len(image), "sha256": hashlib.sha256(image).hexdigest(), "chunk": CHUNK_BYTES,
                  "chain": hashes[0].hex()},
        "root": {name: by_dest[name].sha256 for name in ROOT_FILES},
        "files": hashlib.sha256(canonical(listing)).hexdigest(),
    }
    return Release(manifest, ed25519_sign(seed, digest(manifest)), {f.dest: f.data for f in files}, listing, image, hashes)


def write(release: Release, path: Path) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(MANIFEST, release.manifest_bytes())
        archive.writestr(SIGNATURE, release.signature)
        archive.writestr(FILES_LIST, release.listing_bytes())
        for dest, data in release.files.items():
            archive.writestr(FILES + dest, data)
    write_output(path, buffer.getvalue())


# ---------------------------------------------------------------- reading one

def read(path: Path, public: bytes) -> Release:
    """A release file, trusted only once all of it is checked: the manifest's signature by the update
    key whose public half is `public`, its format and shape, files.json against the manifest, every file
    against files.json, the root files against the manifest, and the image rebuilt from the files
    against the manifest's size, SHA-256 and chain. ReleaseError names the first thing that fails."""
    manifest_bytes, signature, listing_bytes, data = _members(path)
    try:
        manifest = json.loads(manifest_bytes)
    except ValueError:
        raise ReleaseError(f"{path}: its manifest is not JSON: the file was damaged or changed") from None
    if not isinstance(manifest, dict) or canonical(manifest) != manifest_bytes:
        raise ReleaseError(f"{path}: its manifest is not the canonical JSON that was signed: changed after signing")
    if not ed25519.verify(public, digest(manifest), signature):
        raise ReleaseError(f"{path}: its signature is not the club's update key's: changed after signing, or "
                           "made with another key; refused")
    _check_manifest(path, manifest)
    if listing_bytes is None:
        raise ReleaseError(f"{path}: no {FILES_LIST} in it: the file was damaged; make it again")
    if hashlib.sha256(listing_bytes).hexdigest() != manifest["files"]:
        raise ReleaseError(f"{path}: its {FILES_LIST} is not the list that was signed (its SHA-256 differs): refused")
    listing = _listing(path, listing_bytes)
    files = _files(path, listing, data)
    for name in ROOT_FILES:
        body = files.get(name)
        if body is None or hashlib.sha256(body).hexdigest() != manifest["root"][name]:
            raise ReleaseError(f"{path}: its {name} is not the one the manifest names: refused")
    if files.get(fileset.RELEASE, b"").decode(errors="replace").strip() != manifest["release"]:
        raise ReleaseError(f"{path}: its release file does not name release {manifest['release']}: refused")
    image = image_of(files)
    hashes = chain_of(image, manifest["image"]["chunk"])
    for name, rebuilt in (("size", len(image)), ("sha256", hashlib.sha256(image).hexdigest()),
                          ("chain", hashes[0].hex())):
        if manifest["image"][name] != rebuilt:
            raise ReleaseError(f"{path}: the image rebuilt from its files is not the one signed (its {name} "
                               "differs): made by another tallyboard's ROMFS writer, or changed; refused")
    return Release(manifest, signature, files, listing, image, hashes)


def _members(path: Path) -> tuple[bytes, bytes, bytes | None, dict[str, bytes]]:
    """The manifest's bytes, the signature, files.json's bytes (None: none) and {dest: bytes} of files/."""
    try:
        with zipfile.ZipFile(path) as archive:
            manifest_bytes = archive.read(MANIFEST)
            signature = archive.read(SIGNATURE)
            listing = archive.read(FILES_LIST) if FILES_LIST in archive.namelist() else None
            names = [n for n in archive.namelist() if n.startswith(FILES)]
            data = {n[len(FILES):]: archive.read(n) for n in names}
    except FileNotFoundError:
        raise ReleaseError(f"{path}: no such release file") from None
    except (OSError, zipfile.BadZipFile, KeyError) as exc:
        raise ReleaseError(f"{path} is not a release file ({exc}): make one with `tallyboard release make`") from None
    return manifest_bytes, signature, listing, data


def _check_manifest(path: Path, manifest: dict[str, Any]) -> None:
    """A signed manifest of this host's format, each field of its shape (a board checks them too)."""
    if manifest.get("format") != FORMAT:
        raise ReleaseError(f"{path}: a release of format {manifest.get('format')!r}, this host reads {FORMAT}: "
                           "make it again with this tallyboard (`tallyboard release make`)")
    wrong = _wrong_field(manifest)
    if wrong:
        raise ReleaseError(f"{path}: its manifest's {wrong} is not a release's (docs/club-mqtt.md, \"Updates over "
                           "the air\"): refused, whoever signed it")


def _is_hex64(value: object) -> bool:
    return isinstance(value, str) and bool(_HEX64.match(value))


def _is_image(image: object) -> bool:
    return (isinstance(image, dict) and set(image) == IMAGE_FIELDS
            and all(type(image[n]) is int and image[n] > 0 for n in ("size", "chunk"))
            and _is_hex64(image["sha256"]) and _is_hex64(image["chain"]))


# each field of a format-2 manifest and its shape (docs/club-mqtt.md, "Updates over the air")
_FIELD_CHECKS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("release", lambda v: isinstance(v, str) and bool(_RELEASE_ID.match(v))),
    ("number", lambda v: type(v) is int and 1 <= v <= 2**30 - 1),
    ("downgrade", lambda v: type(v) is bool),
    ("boards", lambda v: isinstance(v, list) and bool(v) and all(b == ALL_BOARDS or kinds.is_name(b) for b in v)),
    ("trial_s", lambda v: type(v) is int and 1 <= v <= MAX_TRIAL_S),
    ("image", _is_image),
    ("root", lambda v: isinstance(v, dict) and set(v) == set(ROOT_FILES) and all(map(_is_hex64, v.values()))),
    ("files", _is_hex64),
)


def _wrong_field(manifest: dict[str, Any]) -> str | None:
    """The first field of a format-2 manifest that is not of its shape; None if all are."""
    if set(manifest) != MANIFEST_FIELDS:
        return "fields (" + ", ".join(sorted(map(str, manifest))) + ")"
    for name, check in _FIELD_CHECKS:
        if not check(manifest[name]):
            return name
    if manifest["image"]["chunk"] != CHUNK_BYTES:
        return f"image chunk ({manifest['image']['chunk']}; this host sends chunks of {CHUNK_BYTES})"
    return None


def _listing(path: Path, listing_bytes: bytes) -> list[dict[str, Any]]:
    """files.json: a list of {dest, size, sha256}, each dest a place on the board's flash."""
    try:
        listing = json.loads(listing_bytes)
    except ValueError:
        listing = None
    if not isinstance(listing, list) or not all(
            isinstance(e, dict) and set(e) == {"dest", "size", "sha256"} for e in listing):
        raise ReleaseError(f"{path}: its {FILES_LIST} is not a list of files (dest, size, sha256): refused")
    for entry in listing:
        dest = entry["dest"]
        if not isinstance(dest, str) or not _DEST.match(dest) or len(dest) > 128:
            raise ReleaseError(f"{path}: {dest!r} is not a place on the board's flash (a relative path of letters, "
                               "digits, _ . -): refused, whoever signed it")
    return listing


def _files(path: Path, listing: list[dict[str, Any]], data: dict[str, bytes]) -> dict[str, bytes]:
    """Every file of files.json, checked against its size and SHA-256; none more."""
    files: dict[str, bytes] = {}
    for entry in listing:
        dest = entry["dest"]
        body = data.get(dest)
        if body is None:
            raise ReleaseError(f"{path}: {dest} is listed but missing")
        if len(body) != entry["size"] or hashlib.sha256(body).hexdigest() != entry["sha256"]:
            raise ReleaseError(f"{path}: {dest} is not the file that was signed (its SHA-256 differs): refused")
        files[dest] = body
    extra = sorted(set(data) - set(files))
    if extra:
        raise ReleaseError(f"{path}: {', '.join(extra)} not in the signed {FILES_LIST}: refused")
    return files
