"""`event update-boards`' engine (club/update_link.py) against the embedded broker on loopback, with its
logins and ACL (issue 43; docs/club-mqtt.md, "Updates over the air"): two scripted boards (paho clients
logged in as their tables) take the offer tagged for them; one checks every chunk against the hash it
holds, as a board does, drops one and asks for it again, and keeps the release, whose image it then holds
whole; the other refuses it. The run ends as soon as both are done, says each board's end, and leaves no
offer behind."""
from __future__ import annotations

import hashlib
import threading
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from tallyboard.club import embedded_broker, envelope, releases
from tallyboard.club.update_link import UpdateRun
from tallyboard.tooling import fileset
from tallynet import ed25519

pytestmark = [pytest.mark.broker]

EVENT = "Club-night-1a2b"
SECRET = bytes(range(32))
SEED = bytes(range(1, 33))
KEEPER, REFUSER = "1A2B.1", "1A2B.2"


def key_of(board: str) -> bytes:
    return envelope.board_key(SECRET, board)


def _release() -> releases.Release:
    here = Path(__file__)
    files = [fileset.FirmwareFile("tallycore/a.mpy", bytes(i % 251 for i in range(20 * 1024)), here),
             fileset.FirmwareFile("tallyboot.mpy", b"M\x06t", here), fileset.FirmwareFile("boot.py", b"#\n", here),
             fileset.FirmwareFile("main.py", b"import x\n", here)]
    files.insert(2, fileset.FirmwareFile(fileset.RELEASE, (fileset.release_id(files) + "\n").encode(), here))
    return releases.make(files, 5, SEED)


class ScriptedBoard:
    """A board on the club's Wi-Fi, as far as an update goes: it checks the offer (its tag, the release's
    signature), then each chunk against the hash it holds, and says where it is in its `update` status."""

    def __init__(self, port: int, board: str, refuse: str | None = None) -> None:
        self.board, self.refuse = board, refuse
        self.key = key_of(board)
        self.offers: list[bytes] = []
        self.image = bytearray()
        self.have, self.of = 0, 0
        self.hold = b""
        self.manifest: dict = {}
        self.dropped_once = False
        self.asked_again_at = -1
        self.states: list[str] = []
        self.linked = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"{EVENT}-board-{board}",
                                  protocol=mqtt.MQTTv311)
        self.client.username_pw_set(board, envelope.broker_password(self.key))
        self.client.on_connect = self._connected
        self.client.on_subscribe = lambda *a: self.linked.set()
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()

    def _connected(self, client, userdata, flags, reason, properties) -> None:
        client.subscribe([(f"tallyboard/{EVENT}/director/offer/{self.board}", 1),
                          (f"tallyboard/{EVENT}/director/chunk/{self.board}", 0)])

    def say(self, state: str, why: str = "-") -> None:
        self.states.append(state)
        body = {"release": self.manifest.get("release", "-"), "state": state, "have": self.have, "of": self.of,
                "why": why}
        self.client.publish(f"tallyboard/{EVENT}/table/{self.board}/update",
                            envelope.seal(self.key, EVENT, self.board, 0, "update", body), qos=1, retain=True)

    def _message(self, client, userdata, message) -> None:
        if "/offer/" in message.topic:
            self.offers.append(message.payload)
            if message.payload:
                self._offer(message)
        else:
            self._chunk(message.payload)

    def _offer(self, message) -> None:
        opened = envelope.open_message(message.payload, self.key, {"director": 0}, event=EVENT, gaps=True,
                                       topic=message.topic, tag_for=self.board)
        body = opened["body"]
        self.manifest = body["manifest"]
        assert ed25519.verify(releases.public_key(SEED), releases.digest(self.manifest), bytes.fromhex(body["sig"]))
        if self.refuse:
            self.say("refused", self.refuse)
            return
        image = self.manifest["image"]
        self.of = -(-image["size"] // image["chunk"])
        self.hold = bytes.fromhex(image["chain"])
        self.say("receiving")

    def _chunk(self, payload: bytes) -> None:
        release, index, after, data = payload[:12].decode(), int.from_bytes(payload[12:14], "big"), payload[14:46], \
            payload[46:]
        assert release == self.manifest["release"]
        if index == 9 and not self.dropped_once:      # lost on the way
            self.dropped_once = True
            return
        if index != self.have:
            if index > self.have and self.asked_again_at != self.have:      # a gap: asked for once
                self.asked_again_at = self.have
                self.say("receiving")
            return
        assert hashlib.sha256(data + after).digest() == self.hold, f"chunk {index} failed its hash"
        self.image += data
        self.hold, self.have = after, self.have + 1
        if self.have < self.of:
            self.say("receiving")
            return
        assert self.hold == bytes(32)
        assert hashlib.sha256(self.image).hexdigest() == self.manifest["image"]["sha256"]
        for state in ("staged", "switching", "kept"):
            self.say(state)

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def test_the_engine_serves_a_board_that_keeps_it_and_one_that_refuses_it_then_withdraws_the_offers():
    release = _release()
    users = {"updater": "updater-pw", **{b: envelope.broker_password(key_of(b)) for b in (KEEPER, REFUSER)}}
    broker = embedded_broker.EmbeddedBroker(0, users, event=EVENT)
    broker.start()
    boards: list[ScriptedBoard] = []
    try:
        boards = [ScriptedBoard(broker.port, KEEPER), ScriptedBoard(broker.port, REFUSER, refuse="older")]
        assert all(board.linked.wait(10) for board in boards)
        run = UpdateRun(f"mqtt://updater:updater-pw@127.0.0.1:{broker.port}", event=EVENT, release=release,
                        boards={KEEPER: 1, REFUSER: 2}, key=lambda message: key_of(message["board"]))
        seen: list[list] = []
        rows = run.run(60, seen.append, poll=0.05)     # (a bound against a hang only)
        assert [(r.board, r.state, r.why, r.have) for r in rows] == [(KEEPER, "kept", "-", 21),
                                                                    (REFUSER, "refused", "older", 0)]
        assert any(r.state == "receiving" and 0 < r.have < 21 for rows_then in seen for r in rows_then)
        keeper, refuser = boards
        assert bytes(keeper.image) == releases.image_bytes(release) and keeper.dropped_once
        assert keeper.states[-3:] == ["staged", "switching", "kept"] and refuser.states == ["refused"]
        assert run.withdrawn
        deadline = time.monotonic() + 5
        while not all(board.offers[-1:] == [b""] for board in boards) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [board.offers[-1] for board in boards] == [b"", b""]       # the offers withdrawn
        assert run.link.refused == []
    finally:
        for board in boards:
            board.stop()
        broker.stop()
