"""The director's side of an update over the air (issue 43; docs/club-mqtt.md, "Updates over the
air"), without the network: what to publish when. The director offers a signed release to each board
(a retained `offer`, tagged for that board); a board answers with its `update` status, and while it is
`receiving` the director sends its chunks from `have` on, a window of WINDOW ahead of what the board
holds; when nothing has moved for RESEND_AFTER_S seconds it sends from `have` again (a chunk lost, a
link dropped and back). It ends when every board has kept the release, gone back, or refused it.

UpdateServer holds each board's state and answers each status with the chunks to publish; its clock
is given (time.monotonic by default), so a test moves it by hand. update_link.py puts it on the broker."""
from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from typing import Any, Callable, Mapping

from tallynet import topics
from tallynet.update import BACK, KEPT, RECEIVING, REFUSED, STAGED, SWITCHING    # the board's own words

from . import envelope, releases

WINDOW = 8                 # chunks sent ahead of what a board holds
RESEND_AFTER_S = 5.0       # no progress this long: from `have` again
OFFERED = "offered"        # a board's state before it has said anything of this release
FINAL = (KEPT, BACK, REFUSED)
NONE = "-"                 # a status's release or why when there is none

Publish = tuple[str, bytes]     # a topic and its payload

# what a board's `why` means, in the director's words, and what to do (docs/club-mqtt.md's table)
WHY_WORDS = {
    "signature": "the release's signature is not the update key the board holds: make it with the club's key, "
                 "or enrol the board again with this key's public half",
    "no_key": "the board holds no update key: enrol it again (tallyboard wifi enrol) with the key's public half",
    "other_board": "the release is not for this board (release make --board)",
    "older": "the board runs a higher release number: make the release with a higher --number, or --downgrade",
    "root_files": "the board's boot.py, main.py or tallyboot.mpy are not this release's: deploy it once over USB",
    "too_big": "the image is larger than the board's ROMFS partition",
    "no_partition": "the board's MicroPython image has no ROMFS partition, or its partition holds no release to go "
                    "back to: flash tallyboard's image and run tallyboard deploy over USB",
    "format": "the board does not read this release's format: deploy a newer firmware over USB",
    "flash": "the board could not write its flash: look at its health (tallyboard event boards)",
    "reset": "the new release reset before it kept: it went back to the one before",
    "no_link": "the new release did not reach the broker: it went back to the one before",
    "failed": "the new release failed to start: it went back to the one before",
    "damaged": "the new release's files were damaged on flash: it went back to the one before",
    "mid_game": "a game is in play: it switches between games (or offer it with --force)",
    "tampered": "a chunk failed its hash: it waits for that chunk again",
}


@dataclass
class BoardUpdate:
    """One board's side, as the director knows it."""
    board: str
    table: int
    of: int                      # the release's chunks
    state: str = OFFERED
    have: int = 0                # chunks the board holds, in order: the next it wants
    why: str = NONE
    sent_to: int = 0             # chunks before this one have been sent since the last restart
    moved_at: float = 0.0        # when its `have` last moved (or its window was last sent again)

    @property
    def final(self) -> bool:
        return self.state in FINAL

    def words(self) -> str:
        """What became of it, in words (the why's meaning when it says one)."""
        said = WHY_WORDS.get(self.why, self.why) if self.why != NONE else ""
        if self.state == OFFERED:
            return "did not answer the offer: is it on the club's Wi-Fi, linked to this broker, and enrolled?"
        if self.state == RECEIVING:
            return f"had {self.have} of {self.of} chunks" + (f" ({said})" if said else "")
        return said


class UpdateServer:
    """The offers of `release` to `boards` ({identity: table}) of evening `event`, and the chunks each
    board's status asks for. `key_of(board)` is that board's key, for the offer's tag (the director's
    messages are tagged for each board: envelope.seal_director). `force`: boards take it mid-game."""

    def __init__(self, event: str, release: releases.Release, boards: Mapping[str, int],
                 key_of: Callable[[str], bytes], force: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.event = envelope.check_name("event", event)
        self.release = release
        self.count = releases.chunk_count(release)
        self.key_of = key_of
        self.force = force
        self.clock = clock
        self.boards = {envelope.check_name("board", board): BoardUpdate(board, table, self.count)
                       for board, table in boards.items()}
        self.offered = False

    # ------------------------------------------------------------ offers

    def offer_topic(self, board: str) -> str:
        return topics.topic(topics.OFFER, self.event, board)

    def offers(self) -> list[Publish]:
        """Each board's offer (to publish retained, QoS 1): from now on a board's status counts."""
        self.offered = True
        now = self.clock()
        out = []
        for board, state in self.boards.items():
            state.moved_at = now
            body = {"board": board, "manifest": self.release.manifest, "sig": self.release.signature.hex(),
                    "force": self.force}
            out.append((self.offer_topic(board),
                        envelope.seal_director({board: self.key_of(board)}, self.event, 0, topics.OFFER, body)))
        return out

    def withdrawals(self) -> list[Publish]:
        """The empty retained messages that withdraw every offer."""
        return [(self.offer_topic(board), b"") for board in self.boards]

    # ------------------------------------------------------------ statuses and chunks

    def counts(self, body: Mapping[str, Any], retained: bool) -> bool:
        """Whether a status (checked: kinds._update_body) is about this offer: one naming this release;
        or, once offered, a refusal naming none that came now (a board that could not read the offer
        says no release), never one the broker kept from before (`retained`: handed on at subscribing)."""
        if body["release"] == self.release.id:
            # a refusal or a going back the broker kept from before is an earlier run's: this offer, signed
            # anew, may be taken where that one was not; only what the board says now ends it
            return not (retained and body["state"] in (REFUSED, BACK))
        return self.offered and not retained and body["release"] == NONE and body["state"] == REFUSED

    def on_update(self, board: str, body: Mapping[str, Any], retained: bool = False) -> list[Publish]:
        """A board's status: its state taken, and the chunks to publish (QoS 0) for it. While it is
        receiving: a first status or one that did not move sends from `have` (WINDOW of them); one that
        moved sends on from what was sent, up to WINDOW ahead of `have`; `tampered` from `have` again."""
        state = self.boards.get(board)
        if state is None or not self.counts(body, retained):
            return []
        before, had = state.state, state.have
        state.state, state.have, state.why = body["state"], min(body["have"], self.count), body["why"]
        if state.state != RECEIVING:
            return []
        if before == RECEIVING and state.have > had and state.why != "tampered":
            state.moved_at = self.clock()
            return self._window(state, max(state.sent_to, state.have))
        return self._restart(state)

    def tick(self, now: float | None = None) -> list[Publish]:
        """The chunks to send again: from `have`, for each receiving board nothing has moved for
        RESEND_AFTER_S seconds."""
        now = self.clock() if now is None else now
        out: list[Publish] = []
        for state in self.boards.values():
            if state.state == RECEIVING and now - state.moved_at >= RESEND_AFTER_S:
                out += self._restart(state, now)
        return out

    def _restart(self, state: BoardUpdate, now: float | None = None) -> list[Publish]:
        state.moved_at = self.clock() if now is None else now
        state.sent_to = state.have
        return self._window(state, state.have)

    def _window(self, state: BoardUpdate, start: int) -> list[Publish]:
        end = min(state.have + WINDOW, self.count)
        topic = topics.topic(topics.CHUNK, self.event, state.board)
        out = [(topic, releases.chunk_payload(self.release, index)) for index in range(start, end)]
        state.sent_to = max(state.sent_to, end)
        return out

    # ------------------------------------------------------------ how it stands

    def finished(self) -> bool:
        """Every board has kept it, gone back, or refused it."""
        return all(state.final for state in self.boards.values())

    def rows(self) -> list[BoardUpdate]:
        """Each board's state (copies), by table."""
        return [dataclasses.replace(state) for state in sorted(self.boards.values(), key=lambda s: (s.table, s.board))]
