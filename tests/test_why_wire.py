"""WHY, the protocol's verb that says why an event scored what it did (issue 34,
item 3): its reply from the rules that scored (tallycore.why), within one frame,
its refusals, and the words a host composes from it equal to the ones composed
from the game itself. Every expected value is worked out by hand."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tallyboard.boardlink import wire
from tallyboard.scorebook import why as reasons
from tallycore import why as core_why
from tallycore.game import Game
from tallyrun import protocol
from tallyrun.app import App

DOCS = Path(__file__).resolve().parent.parent / "docs"


class Board:
    """An App on a flash folder of its own; ask() sends one request and gives its reply's body."""

    def __init__(self, folder: Path):
        self.out = io.BytesIO()
        self.app = App(self.out, str(folder) + "/", "test")
        self.app.boot()
        self.seq = 0

    def ask(self, text: str) -> bytes:
        self.seq += 1
        start = len(self.out.getvalue())
        self.app.feed_bytes(wire.encode_request(self.seq, text))
        lines = self.out.getvalue()[start:].split(b"\n")[:-1]
        replies = [line for line in lines if not line.startswith(b"!")]
        assert len(replies) == 1, replies
        return wire.check_frame(replies[0])


@pytest.fixture
def board(tmp_path):
    return Board(tmp_path)


def fields(reply: bytes) -> dict[str, str]:
    return dict(token.split("=", 1) for token in reply.decode().split()[2:])


def by_player(reply: dict[str, str]) -> dict[int, int]:
    """Each player's points over the reply's parts (a player may have several)."""
    out: dict[int, int] = {}
    for who, pts in zip(reply["who"].split(","), reply["pts"].split(",")):
        out[int(who)] = out.get(int(who), 0) + int(pts)
    return out


def test_why_refuses_without_a_game_and_before_anything_is_scored(board):
    assert board.ask("WHY") == b"1 ERR RULE no game in progress; start one with NEW"
    board.ask("NEW skicket 4")
    assert board.ask("WHY") == b"3 ERR RULE nothing scored yet: WHY explains an event once one is applied"


def test_why_of_a_skicket_hand_gives_each_player_his_part(board):
    # Ann 0, Bob 1, Cy 2, Hal 3; hand 1 at the first seats: Ann and Cy partners, Bob and Hal (SK5).
    # Cy bids 2NT, Bob doubles, Cy's side takes 7 tricks of the 8 it needs (6 + 2): it fails.
    # A = 60 + 10 * 2 = 80; doubled, the doubler's side gets 2A = 160 each (SK9);
    # the purchaser 0, his partner Ann 10 per trick his side took: 10 * 7 = 70
    board.ask("NEW skicket 4")
    board.ask("HAND 2 2NT 1 - 0 7")
    # the parts in the order the rules score them (the doubler's side, the purchaser, his partner), the
    # codes their rows of tallycore/reasons/skicket.py: 17 doubled and failed (the doubler's side),
    # 19 the purchaser who lost, 20 the loser's partner; the example docs/protocol.md gives
    assert board.ask("WHY") == b"3 OK n=1 won=- parts=4 at=0 count=4 who=1,3,2,0 pts=160,160,0,70 why=17,17,19,20"
    reply = fields(board.ask("WHY"))
    assert (reply["n"], reply["won"]) == ("1", "-")
    assert by_player(reply) == {0: 70, 1: 160, 2: 0, 3: 160}
    assert reasons.wire_lines(board.app.game, reply, ["Ann", "Bob", "Cy", "Hal"]) == [
        "Bob and Hal +160: doubled, the purchaser failed: the doubler's side gets twice the bid (SK9)",
        "Cy 0: doubled, the purchaser failed: he scores nothing (SK9)",
        "Ann +70: partner of the loser: 10 for each trick the loser's side took (SK9)"]
    assert fields(board.ask("WHY 1")) == reply
    # a misdeal (SK3) scores nothing, and the hand before keeps its reason at its place in the log
    board.ask("MISDEAL")
    misdeal = fields(board.ask("WHY"))
    assert misdeal["n"] == "2" and set(by_player(misdeal).values()) == {0}
    assert fields(board.ask("WHY 1")) == reply


def test_why_past_the_events_applied_says_the_range(board):
    board.ask("NEW skicket 4")
    board.ask("HAND 0 4H - - 0 10")
    assert board.ask("WHY 2") == b"3 ERR RANGE n: must be 1 to 1 (the events applied, as STATE's n says)"
    assert board.ask("WHY 0").startswith(b"4 ERR RANGE n: must be 1 to ")


def _write(board, parts, at):
    from tallyrun import whyreply

    w = board.app.writer
    w.reply(65535)                # the longest seq
    whyreply.write(w, parts, at)
    w.finish()
    line = bytes(w.buf[:w.length])
    assert len(line) <= protocol.MAX_FRAME
    return fields(wire.check_frame(line.rstrip(b"\n")))


def test_the_most_parts_of_the_longest_numbers_are_listed_page_by_page_each_within_one_frame(board):
    # MAX_PARTS parts of player 7, -9999 points and code 99: 1 + 5 + 2 = 8 digits and 3 commas a part.
    # "65535 OK n=999 won=- parts=24 at=0 count=" is 41 bytes; the frame keeps 122 for the body:
    # 81 left, less 15 for the three keys " who= pts= why=", 2 for count's digits and 1 spare: 63;
    # the first part 8, each further one 11: 8 + 5 * 11 = 63, six parts; a seventh would make 74
    parts = core_why.Parts()
    for p in range(core_why.MAX_PARTS):
        parts.add(7, -9999, 99)
    parts.index = 998
    first = _write(board, parts, 0)
    assert (first["n"], first["won"], first["parts"], first["at"], first["count"]) == (
        "999", "-", str(core_why.MAX_PARTS), "0", "6")
    assert first["pts"] == ",".join(["-9999"] * 6) and first["why"] == ",".join(["99"] * 6)
    # the last page: the four left
    last = _write(board, parts, core_why.MAX_PARTS - 4)
    assert (last["at"], last["count"], last["who"]) == (str(core_why.MAX_PARTS - 4), "4", "7,7,7,7")


def test_why_pages_through_the_parts_from_at(board):
    board.ask("NEW skicket 4")
    board.ask("HAND 2 2NT 1 - 0 7")
    whole = fields(board.ask("WHY"))
    count = int(whole["parts"])
    assert whole["count"] == str(count)     # four parts fit in one frame
    second = fields(board.ask("WHY 1 1"))
    assert (second["at"], second["count"]) == ("1", str(count - 1))
    assert second["who"] == whole["who"].split(",", 1)[1]
    assert board.ask(f"WHY 1 {count}") == (b"5 ERR RANGE at: must be 0 to %d (the event's parts less one)"
                                           % (count - 1))


def test_the_host_composes_the_board_s_parts_in_the_same_words_as_the_game_s_own(board):
    board.ask("NEW skicket 4")
    board.ask("HAND 2 2NT 1 - 0 7")
    game = Game()
    game.new("skicket", 4)
    game.apply(board.app.game.log[0])
    names = ["Ann", "Bob", "Cy", "Hal"]
    assert reasons.wire_lines(game, fields(board.ask("WHY 1")), names) == reasons.event_lines(game, 0, names)


def test_a_hand_held_for_its_confirmation_is_explained_before_it_counts(board):
    board.ask("NEW skicket 4 32768")        # confirmation forced on
    board.ask("HAND 2 2NT 1 - 0 7")         # held: n stays 0
    reply = fields(board.ask("WHY"))
    assert reply["n"] == "1" and by_player(reply) == {0: 70, 1: 160, 2: 0, 3: 160}
    assert board.ask("WHY 2") == (b"4 ERR RANGE n: must be 1 to 1 (the events applied and the change held, "
                                  b"as STATE says)")


def test_protocol_json_carries_every_game_s_reason_table_from_the_firmware():
    spec = json.loads((DOCS / "protocol.json").read_text())
    skicket = next(g for g in spec["games"] if g["name"] == "skicket")
    from tallycore.reasons import skicket as table

    assert [(r["clause"], r["words"]) for r in skicket["reasons"]] == [
        (c.decode(), w.decode()) for _, c, w in table.REASONS]
    assert [r["code"] for r in skicket["reasons"]] == [code for code, _, _ in table.REASONS]
    why = next(v for v in spec["verbs"] if v["name"] == "WHY")
    assert [f["name"] for f in why["reply"]] == ["n", "won", "parts", "at", "count", "who", "pts", "why"]
