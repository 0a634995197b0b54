"""Protocol answers that match their docs (issue 32, items 10 and 11): the app
answers each request as docs/protocol.md says, the leaders while a game goes
on are one rule (docs/rules.md G5), and each game says what SCORE makes of a
hand in progress. Every expected reply is written out by hand."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tallyboard.boardlink import wire
from tallyboard.boardlink.wirefields import IN_PROGRESS
from tallycore import games
from tallycore.game import Game
from tallyrun import protocol
from tallyrun.app import App
from tallyrun.outgoing import Writer

DOCS = Path(__file__).resolve().parent.parent / "docs"
PROTOCOL_MD = (DOCS / "protocol.md").read_text()


class Board:
    """An App on a flash folder of its own; ask() sends one request and gives its reply's body."""

    def __init__(self, folder: Path):
        self.out = io.BytesIO()
        self.app = App(self.out, str(folder) + "/", "test")
        self.app.boot()
        self.seq = 0

    def raw(self, data: bytes) -> list[bytes]:
        start = len(self.out.getvalue())
        self.app.feed_bytes(data)
        return self.out.getvalue()[start:].split(b"\n")[:-1]

    def ask(self, text: str) -> bytes:
        self.seq += 1
        replies = [line for line in self.raw(wire.encode_request(self.seq, text)) if not line.startswith(b"!")]
        assert len(replies) == 1, replies
        return wire.check_frame(replies[0])


@pytest.fixture
def board(tmp_path):
    return Board(tmp_path)


# --- item 11: error replies ------------------------------------------------------------------

def test_a_message_too_long_for_the_frame_ends_at_a_whole_word_and_says_it_was_cut():
    # 1 ERR RULE  is 11 bytes; the frame keeps 122 for the body (128 less *XXXX and the newline):
    # 111 for the words, 107 of them before " ..." (issue 41). 21 "word"s with a space between are
    # 21 * 5 - 1 = 104 bytes; a 22nd does not fit
    w = Writer()
    w.error(1, protocol.E_RULE, " ".join(["word"] * 30))
    w.finish()
    assert bytes(w.buf[:w.length - 6]) == b"1 ERR RULE " + b" ".join([b"word"] * 21) + b" ..."


def test_the_unknown_verb_message_fits_whole(board):
    assert board.ask("FOO") == (b"1 ERR VERB unknown verb, or not the game in play's; docs/protocol.md lists "
                                b"each game's verbs; EV enters any event")
    board.seq = 65534
    reply = board.ask("FOO")     # the longest seq: 122 bytes at most
    assert reply.endswith(b"EV enters any event") and len(reply) <= 122


def test_args_names_the_argument_missing(board):
    board.ask("NEW roquet 2")
    assert board.ask("PEG 0") == b"2 ERR ARGS points: missing; docs/protocol.md lists each verb's arguments"
    assert board.ask("PEG 0 1 2") == b"3 ERR ARGS too many arguments; docs/protocol.md lists each verb's arguments"


def test_a_number_past_the_range_is_range_however_large(board):
    # EV takes 0 to 2**30 - 1 = 1073741823; one more is a number out of range, not a malformed one
    assert board.ask("EV 1073741824") == b"1 ERR RANGE event: must be 0 to 1073741823"
    assert board.ask("EV 99999999999") == b"2 ERR RANGE event: must be 0 to 1073741823"
    assert board.ask("EV 12x") == b"3 ERR ARGS event: must be a decimal number"


def test_a_field_of_an_ev_event_out_of_its_range_is_range_as_the_game_verb_says_it(board):
    board.ask("NEW roquet 2")
    # Roquet's event 0: a peg (kind 0) of player 0 for 0 points; points are 1 to 99 (RQ, PEG's range)
    assert board.ask("PEG 0 0") == b"2 ERR RANGE points: must be 1 to 99"
    assert board.ask("EV 0") == b"3 ERR RANGE points: must be 1 to 99"


def test_a_checksum_of_other_than_4_digits_is_called_that():
    board = Board.__new__(Board)
    board.__init__(Path("/nonexistent-flash-folder"))
    for line in (b"1 HELLO*ABC\n", b"1 HELLO*ABCDE\n"):
        assert [wire.check_frame(r) for r in board.raw(line)] == [b"0 ERR CRC the checksum must be 4 uppercase hex digits"]
    assert [wire.check_frame(r) for r in board.raw(b"1 HELLO\n")] == [
        b"0 ERR CRC no checksum; end the frame with *XXXX (4 hex digits of CRC-16/CCITT-FALSE)"]


def test_an_empty_line_gets_no_reply_and_the_docs_say_so(board):
    assert board.raw(b"\n") == [] and board.raw(b"\r\n") == []
    assert "An empty line (a `\\n` alone, or `\\r\\n`) gets no reply" in PROTOCOL_MD


def test_log_past_the_end_says_its_range_in_the_name_must_be_form(board):
    board.ask("NEW roquet 2")
    board.ask("PEG 0 5")
    board.ask("PEG 1 7")
    # two events in the log: top is 2; LOG 500 is within LOG's 0 to 600 but past the log's end
    assert board.ask("LOG 500") == b"4 ERR RANGE at: must be 0 to 2 (the log's top, as STATE says)"


def test_despised_nines_names_players_less_one_when_that_field_is_wrong(board):
    board.ask("NEW despised_nines 4")
    # one nine each for three players: bits 0, 3, 6; players_less_one (bits 24-26) says 2, not 4 - 1 = 3
    event = 1 | 1 << 3 | 1 << 6 | 2 << 24
    assert board.ask("EV %d" % event) == b"2 ERR RULE players_less_one: must be 3, the number of players less one"


def test_the_docs_say_what_net_changes_what_net_set_answers_and_what_a_retry_from_the_journal_carries():
    assert "`net` changes the club link's settings (`NET SET`, `NET LEAVE`" in PROTOCOL_MD
    assert "`NET SET` with\nthe setting as `NET GET` does" in PROTOCOL_MD
    assert "after other requests in between: a\n`STATE`, a `HELLO`) carries `n top eseq` as they stand then and no `ev`" \
        in PROTOCOL_MD


def test_a_retry_of_the_last_change_after_a_state_is_answered_without_ev(board):
    board.ask("NEW roquet 2")
    change = wire.encode_request(2, "PEG 0 5")
    assert wire.check_frame(board.raw(change)[0]) == b"2 OK n=1 top=1 eseq=3 ev=40"   # 0 | 5 << 3 = 40
    board.seq = 2
    board.ask("STATE")
    # the same bytes again, after a STATE: from the journal, the state as it stands, no ev
    assert [wire.check_frame(r) for r in board.raw(change)] == [b"2 OK n=1 top=1 eseq=3"]


# --- item 10: the leaders and a hand in progress ------------------------------------------------

def _game(name: str, players: int, events: list[int]) -> Game:
    game = Game()
    game.new(games.index_of(name), players, 0)
    for event in events:
        game.apply(event)
    return game


def test_a_moosehead_first_hand_s_pegs_lead_before_it_closes():
    # player 0 plays a 5, player 1 a 10 (player | rank << 3 | suit 4, not given, << 7): fifteen, 2 to
    # player 1 (MH). The hand is open (no END); its pegs count, so player 1 leads (G5)
    game = _game("moosehead", 2, [0 | 5 << 3 | 4 << 7, 1 | 10 << 3 | 4 << 7])
    assert [game.total(0), game.total(1)] == [0, 2] and game.hands() == 0
    assert game.winners() == 0b10


def test_a_numero_hand_in_which_nobody_had_a_card_leads_nobody():
    # both counts 0 (player | count << 3), then END (bit 9): every total 0, nothing scored (G5, G6)
    game = _game("numero", 2, [0, 1, 1 << 9])
    assert game.hands() == 1 and [game.total(0), game.total(1)] == [0, 0]
    assert game.winners() == 0
    game = _game("numero", 2, [0 | 3 << 3, 1, 1 << 9])    # player 0 took 3 cards: he won the hand
    assert game.winners() == 0b01


def test_nobody_leads_before_anything_is_scored():
    for index, row in enumerate(games.GAMES):
        game = Game()
        game.new(index, row[1], 0)
        assert game.winners() == 0, row[0]


# events of each form that does not close its hand (EVENT_FORMS), in a hand not yet closed
OPEN_HANDS = [
    ("peg", "roquet", [0 | 5 << 3]),                                    # player 0 pegs 5
    ("play", "moosehead", [0 | 5 << 3 | 4 << 7, 1 | 10 << 3 | 4 << 7]),  # a 5 and a 10: fifteen for 2
    ("trick", "doolittle", [0]),                                        # player 0 takes a trick
    ("card", "rummy", [1 | 13 << 3]),                                   # player 1 holds a king of clubs
    ("card", "parquet", [1 | 13 << 3]),
    ("count", "numero", [0 | 3 << 3]),                                  # player 0's count: 3
    ("count", "quatro", [0 | 3 << 3]),
]


@pytest.mark.parametrize("form,name,events", OPEN_HANDS, ids=[f"{c[1]}-{c[0]}" for c in OPEN_HANDS])
def test_what_score_makes_of_a_hand_in_progress_is_what_the_docs_say(form, name, events):
    game = _game(name, 2, events)
    assert game.hands() == 0
    moved = [game.total(0), game.total(1)] != [0, 0]
    assert moved == (IN_PROGRESS[form][0] == "counted"), (name, form)


def test_every_form_that_does_not_close_a_hand_is_said():
    for index in range(len(games.GAMES)):
        for form in games.load(index).EVENT_FORMS:
            if not form[5]:
                assert form[0].decode() in IN_PROGRESS, (games.GAMES[index][0], form[0])


def test_each_game_s_section_says_what_score_makes_of_a_hand_in_progress():
    spec = json.loads((DOCS / "protocol.json").read_text())
    said = {game["name"]: game["score_in_progress"] for game in spec["games"]}
    assert said["roquet"] == said["moosehead"] == said["doolittle"] == "counted"
    assert said["rummy"] == said["parquet"] == said["numero"] == said["quatro"] == "at_close"
    assert said["skicket"] == said["hoodoo"] == "none"
    rummy = PROTOCOL_MD.split("#### `rummy`", 1)[1].split("####", 1)[0]
    assert "SCORE while a hand is in progress: the cards entered count once the hand closes" in rummy
