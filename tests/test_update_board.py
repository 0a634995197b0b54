"""A board's side of an update over the air (firmware/tallynet/update.py; docs/club-mqtt.md, "Updates over
the air"), under CPython with the firmware's own modules: a release made here by hand from the docs' rules
(a small ROMFS image, its hash chain, a manifest signed with a test key), offered to an Updater on a flash
folder with a partition stand-in, its chunks fed in, tampered with, cut off and resumed; the checks that
refuse an offer, each; the switch only between games; the trial kept once linked."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

import tallyboot
from tallycore import cards, rummy
from tallycore.game import Game
from tallynet import envelope, update
from tallyrun import protocol

pytestmark = pytest.mark.quick

SEED = bytes(range(32))
PUBLIC = Ed25519PrivateKey.from_private_bytes(SEED).public_key().public_bytes_raw()
IDENT = "1A2B.3"
TABLE_KEY = bytes(range(16))
CHUNK = 1024
# A ROMFS image by hand: the header, its length as a varint (2500 = 19 * 128 + 68: 0x93 0x44), 2500 bytes:
# 3 + 2 + 2500 = 2505 bytes, three chunks of 1024, 1024 and 457
IMAGE = b"\xd2\xcd\x31\x93\x44" + bytes((i * 31) & 0xFF for i in range(2500))
RUNNING = b"\xd2\xcd\x31\x10" + bytes(16)       # the image the board runs: 3 + 1 + 16 = 20 bytes
ROOT_FILES = {"boot.py": b"# boot\n", "main.py": b"# main\n", "tallyboot.mpy": b"M\x06tallyboot"}


def chain(image: bytes) -> list[bytes]:
    """H[i] for i = 0..n, as the docs define it: H[n] = 32 zero bytes, H[i] = SHA-256(chunk i + H[i+1])."""
    chunks = [image[at:at + CHUNK] for at in range(0, len(image), CHUNK)]
    hashes = [bytes(32)]
    for piece in reversed(chunks):
        hashes.insert(0, hashlib.sha256(piece + hashes[0]).digest())
    return hashes


def manifest(number: int = 5, image: bytes = IMAGE, **changes: Any) -> dict[str, Any]:
    m = {"format": 2, "release": "0123456789ab", "fw": "0.1.0", "number": number, "downgrade": False,
         "boards": ["*"], "image": {"size": len(image), "sha256": hashlib.sha256(image).hexdigest(), "chunk": CHUNK,
                                    "chain": chain(image)[0].hex()},
         "root": {name: hashlib.sha256(data).hexdigest() for name, data in ROOT_FILES.items()},
         "files": "00" * 32}
    m.update(changes)
    return m


def offer(m: dict[str, Any], seed: bytes = SEED, force: bool = False) -> dict[str, Any]:
    signed = hashlib.sha256(json.dumps(m, sort_keys=True, separators=(",", ":")).encode()).digest()
    return {"board": IDENT, "manifest": m, "sig": Ed25519PrivateKey.from_private_bytes(seed).sign(signed).hex(),
            "force": force}


def chunk(index: int, image: bytes = IMAGE, release: bytes = b"0123456789ab") -> bytes:
    hashes = chain(image)
    return (release + bytes((index >> 8, index & 0xFF)) + hashes[index + 1]
            + image[index * CHUNK:(index + 1) * CHUNK])


class Partition(bytearray):
    def writeblocks(self, block: int, buf: bytes) -> None:
        self[block * 4096:block * 4096 + len(buf)] = buf

    def ioctl(self, op: int, arg: int) -> int:
        if op == 6:
            self[arg * 4096:arg * 4096 + 4096] = b"\xff" * 4096
        return 0


class Client:
    def __init__(self) -> None:
        self.published: list[tuple[str, dict[str, Any]]] = []
        self.tx: list[bytes] = []

    def publish(self, topic: str, payload: bytes, qos: int = 0, retain: bool = False) -> None:
        message = json.loads(payload)
        assert message["kind"] == "update" and message["board"] == IDENT and qos == 1 and retain
        assert message["sig"] == envelope.signature(TABLE_KEY, {k: v for k, v in message.items() if k != "sig"})
        self.published.append((topic, message["body"]))


class Net:
    def __init__(self, update_key: bytes | None) -> None:
        self.update_key = update_key
        self.notice = None
        self.on_mark = None

    def get(self, key: int) -> bytes | None:
        assert key == protocol.NET_UPDATE_KEY
        return self.update_key

    def key(self) -> bytes:
        return TABLE_KEY


class Outbox:
    seq = 0
    body = None


class App:
    def __init__(self, root: str) -> None:
        self.root = root
        self.game = Game(64)


class Link:
    def __init__(self, root: str, update_key: bytes | None = PUBLIC) -> None:
        self.app = App(root)
        self.net = Net(update_key)
        self.ident = IDENT
        self.event = "club-1a2b"
        self.client = Client()
        self.connected_at: int | None = 0
        self.topic_update = f"tallyboard/club-1a2b/table/{IDENT}/update"
        self.outbox = Outbox()
        self.applied = -1
        self.body = None
        self.dirty = False


@pytest.fixture
def board(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, Partition]:
    for name, data in ROOT_FILES.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "release").write_text("aaaaaaaaaaaa\n")
    part = Partition(b"\xff" * 16384)
    part[0:len(RUNNING)] = RUNNING
    monkeypatch.setattr(tallyboot, "partition", lambda: part)
    return str(tmp_path) + "/", part


def offered(link: Link, m: dict[str, Any] | None = None, chunks: int = 0, force: bool = False) -> update.Updater:
    """An Updater on the link, offered the release (manifest() unless m), its first `chunks` chunks given."""
    updater = update.Updater(link)
    updater.offer(offer(m or manifest(), force=force))
    for index in range(chunks):
        updater.chunk(chunk(index))
    return updater


def kept_number(root: str, number: int) -> None:
    """The board kept release `number` last (what its flash says: update.NUMBER_FILE)."""
    Path(root, "update").mkdir(exist_ok=True)
    Path(root, update.NUMBER_FILE).write_text(str(number))


def statuses(link: Link) -> list[tuple[str, int, int, str]]:
    return [(b["state"], b["have"], b["of"], b["why"]) for _, b in link.client.published]


def test_an_offer_is_taken_its_chunks_checked_and_it_switches_between_games(board):
    root, part = board
    link = Link(root)
    updater = update.Updater(link)
    updater.offer(offer(manifest()))
    updater.step(0)
    assert statuses(link) == [("receiving", 0, 3, "-")]         # 2505 bytes: ceil(2505 / 1024) = 3 chunks
    for index in range(3):
        updater.chunk(chunk(index))
    assert Path(root, tallyboot.NEW).read_bytes() == IMAGE
    # all of it here: no game in play, nothing waiting for the director: the switch at once
    updater.step(1000)
    words = tallyboot.read_state(root)
    assert words == ["install", "0123456789ab", "2505", hashlib.sha256(IMAGE).hexdigest(),
                     "aaaaaaaaaaaa", "20", hashlib.sha256(RUNNING).hexdigest(), "-", "180"]
    assert Path(root, tallyboot.OLD).read_bytes() == RUNNING
    assert statuses(link)[-1] == ("switching", 3, 3, "-")
    assert link.net.notice == "UPDATING: RESTART"


def test_a_game_in_play_or_a_hand_waiting_holds_the_switch_and_the_oled_says_so(board):
    root, _ = board
    link = Link(root)
    game = link.app.game
    game.new(rummy, 4, 0)
    # one hand (docs/rules.md RU): players 1, 2 and 3 are left holding a king, a queen and a jack, player 0
    # goes out: the first of a game of one deal per player (4 hands)
    for event in (rummy.pack_card(1, cards.card(13, 0)), rummy.pack_card(2, cards.card(12, 0)),
                  rummy.pack_card(3, cards.card(11, 0)), rummy.OUT | 0):
        game.apply(event)
    assert game.n > 0 and not game.complete()
    updater = offered(link, chunks=3)
    updater.step(0)
    assert tallyboot.read_state(root) is None
    assert statuses(link)[-1] == ("staged", 3, 3, "mid_game")
    assert link.net.notice == "UPDATE AFTER GAME"
    game.new(rummy, 4, 0)                         # the next game, not yet scored: between games
    link.outbox.seq, link.applied = 4, 3          # but its last hand not yet confirmed by the director
    updater.step(100)
    assert tallyboot.read_state(root) is None
    link.applied = 4                              # confirmed
    updater.step(200)
    assert tallyboot.read_state(root)[0] == "install"


def test_a_forced_offer_switches_mid_game(board):
    root, _ = board
    link = Link(root)
    link.outbox.seq, link.applied = 4, 3
    updater = offered(link, chunks=3, force=True)
    updater.step(0)
    assert tallyboot.read_state(root)[0] == "install"


def test_a_tampered_chunk_is_refused_said_and_taken_again_when_it_comes_whole(board):
    root, _ = board
    link = Link(root)
    updater = offered(link, chunks=1)
    bad = bytearray(chunk(1))
    bad[100] ^= 1                                  # one bit of the chunk's data
    updater.chunk(bytes(bad))
    updater.step(0)
    assert statuses(link)[-1] == ("receiving", 1, 3, "tampered")
    updater.chunk(chunk(2))                        # out of order: left
    updater.chunk(chunk(1))
    updater.chunk(chunk(2))
    assert Path(root, tallyboot.NEW).read_bytes() == IMAGE


def test_a_power_cut_mid_transfer_resumes_at_the_chunk_the_flash_holds(board):
    root, _ = board
    link = Link(root)
    updater = offered(link, chunks=2)
    # the power goes; at the next power-up the link makes a new Updater when the offer comes again
    again = update.Updater(Link(root))
    assert (again.state, again.have, again.of) == ("receiving", 2, 3)
    again.offer(offer(manifest()))                # the retained offer: no second signature check needed
    again.chunk(chunk(2))
    assert again.state == "staged"
    assert Path(root, tallyboot.NEW).read_bytes() == IMAGE


@pytest.mark.parametrize("change, why", [
    ({"seed": bytes(range(1, 33))}, "signature"),                     # another key: a table's, a stranger's
    ({"number": 4, "prior": 5}, "older"),                              # below the release the board runs
    ({"number": 5, "prior": 5}, "older"),                              # the same number is no newer
    ({"boards": ["1A2B.4"]}, "other_board"),
    ({"root": "main.py"}, "root_files"),                               # main.py on the board differs
    ({"image": bytes(20000)}, "too_big"),                              # more than the 16 KB partition
    ({"update_key": None}, "no_key"),
    ({"format": 1}, "format"),
])
def test_an_offer_is_refused_for_each_reason_and_nothing_of_it_is_kept(board, change, why):
    root, part = board
    if "prior" in change:
        kept_number(root, change["prior"])
    if "root" in change:
        Path(root, change["root"]).write_bytes(b"# another main\n")
    link = Link(root, change.get("update_key", PUBLIC))
    image = IMAGE
    if "image" in change:   # 20000 = 156 * 128 + 32: 0x9c 0x20; 3 + 2 + 20000 = 20005 bytes
        image = b"\xd2\xcd\x31\x9c\x20" + change["image"]
    m = manifest(number=change.get("number", 5), image=image, **{k: change[k] for k in ("boards", "format")
                                                                    if k in change})
    updater = update.Updater(link)
    updater.offer(offer(m, seed=change.get("seed", SEED)))
    updater.step(0)
    assert statuses(link) == [("refused", 0, 0, why)]
    assert not Path(root, tallyboot.NEW).exists() and not Path(root, update.MANIFEST_FILE).exists()
    updater.chunk(chunk(0, image))                 # its chunks change nothing
    assert not Path(root, tallyboot.NEW).exists()


def test_a_corrected_offer_of_the_same_files_is_looked_at_again(board):
    # refused for its number; the director makes it again with a higher one: the same files, so the same
    # release id, but signed anew: the board takes it (a refusal is of an offer, by its signature)
    root, _ = board
    kept_number(root, 5)
    link = Link(root)
    updater = offered(link, manifest(number=5))
    updater.step(0)
    assert statuses(link) == [("refused", 0, 0, "older")]
    updater.offer(offer(manifest(number=5)))      # its retained copy again: not looked at again
    assert updater.state == "refused"
    updater.offer(offer(manifest(number=6)))
    assert updater.state == "receiving"


def test_an_offer_during_a_trial_waits_for_it_to_end(board):
    root, _ = board
    updater = offered(Link(root), manifest(number=7), chunks=3)
    updater.step(0)
    assert tallyboot.boot(root) == "trial"
    link = Link(root)
    link.connected_at = None
    trial = update.Updater(link)
    trial.offer(offer(manifest(number=8, release="ba9876543210")))
    assert tallyboot.step(root) == "trial" and trial.state == "trial"    # the trial's state stays
    link.connected_at = 1
    trial.step(2)
    assert tallyboot.step(root) is None and update.running_number(root) == 7


def test_a_downgrade_the_director_signed_is_taken(board):
    root, _ = board
    kept_number(root, 9)
    updater = offered(Link(root), manifest(number=3, downgrade=True))
    assert updater.state == "receiving"


def test_the_trial_is_kept_once_linked_and_its_number_remembered(board):
    root, part = board
    link = Link(root)
    updater = offered(link, manifest(number=7), chunks=3)
    updater.step(0)
    assert tallyboot.boot(root) == "trial"         # the restart: tallyboot installs it
    assert bytes(part[:len(IMAGE)]) == IMAGE
    link = Link(root)
    link.connected_at = None                       # not yet on the broker
    trial = update.Updater(link)
    trial.step(10)
    assert tallyboot.step(root) == "trial" and link.client.published == []
    link.connected_at = 10
    trial.step(20)
    assert tallyboot.step(root) is None
    assert statuses(link) == [("kept", 0, 0, "-")]
    assert update.running_number(root) == 7
