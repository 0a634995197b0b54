"""The protocol client: against a scripted fake link for the host's own duties
(retries with the same bytes, events between replies, gaps, version check),
and against the real firmware in the emulator (scoring worked out by hand,
idempotent retries, noise, a half frame and a dropped port, resync)."""
from __future__ import annotations

import pytest
from emu_fixtures import emulated_board

from tallyrun import protocol
from tallyboard.boardlink import wire
from tallyboard.boardlink import description
from tallyboard.boardlink.client import Board
from tallyboard.common.errors import BoardError, ProtocolError, TransportError
from tallyboard.boardlink.transport import Transport

pytestmark = [pytest.mark.emulator]


def frame(body: str) -> bytes:
    data = body.encode()
    return b"%s*%04X\n" % (data, protocol.crc16(data))


class FakeLink(Transport):
    """Answers each written frame with what `answer(seq, verb)` returns; DESC as a board before
    DESC does (an unknown verb: the host reads it by its own rows), not counted among the frames."""

    def __init__(self, answer):
        super().__init__()
        self.answer = answer
        self.written: list[bytes] = []
        self.incoming = bytearray()

    def _write(self, data: bytes) -> None:
        self.written.append(data)
        seq, verb = data.split(b"*")[0].decode().split(" ")[:2]
        if verb == "DESC":
            self.written.pop()
            self.incoming += frame(f"{seq} ERR VERB unknown verb")
            return
        self.incoming += self.answer(int(seq), verb, len(self.written))

    def _read(self, timeout: float) -> bytes:
        data = bytes(self.incoming)
        self.incoming.clear()
        return data

    def close(self) -> None:
        pass

    def reopen(self) -> None:
        pass


HELLO_OK = "{seq} OK fw=0.1.0 proto=%d board=pico games=2 frame=128 log=150 players=8" % protocol.PROTOCOL_VERSION


def test_a_lost_reply_is_asked_for_again_with_the_same_bytes():
    def answer(seq, verb, count):
        return b"" if count == 1 else frame(HELLO_OK.format(seq=seq))

    link = FakeLink(answer)
    board = Board(link, timeout=0.05, retries=2)
    assert board.hello()["board"] == "pico"
    assert len(link.written) == 2 and link.written[0] == link.written[1]
    assert board.retried == 1


def test_a_hello_that_meets_the_boards_restart_is_sent_again_at_once_under_a_new_seq():
    # the first HELLO reached a board that then restarted (a deploy's reset): only its BOOT comes back.
    # HELLO goes again as soon as the BOOT is heard, never after waiting out the timeout, and under the
    # next seq: a late reply to the first, were it to come, could not be taken for a later request's
    class Restarting(FakeLink):
        def _read(self, timeout):
            data = super()._read(timeout)
            if not data and b"BOOT" in said[-1]:
                raise AssertionError("the host waited on for a reply after the board's BOOT")
            return data

    said: list[bytes] = []

    def answer(seq, verb, count):
        said.append(frame("! 1 BOOT fw=0.1.0 proto=6 game=- n=0 top=0") if count == 1
                    else frame(HELLO_OK.format(seq=seq)))
        return said[-1]

    link = Restarting(answer)
    board = Board(link, timeout=10, retries=0)
    assert board.hello()["board"] == "pico"
    (first_seq, first_verb), (second_seq, second_verb) = [
        written.split(b"*")[0].decode().split(" ")[:2] for written in link.written]
    assert (first_verb, second_verb) == ("HELLO", "HELLO") and int(second_seq) == int(first_seq) + 1
    assert [event.kind for event in board.events] == ["BOOT"]


def test_a_change_that_meets_the_boards_restart_is_sent_again_with_the_same_bytes():
    # a PEG the board may have journaled before it restarted: only the same seq and bytes again (the
    # board answers a journaled change from its journal), after the timeout as any lost reply
    def answer(seq, verb, count):
        if verb == "HELLO":
            return frame(HELLO_OK.format(seq=seq) + " seqs=%d" % (seq + 1))
        return frame("! 1 BOOT fw=0.1.0 proto=6 game=- n=0 top=0") if count == 2 else frame(f"{seq} OK n=1 top=1")

    link = FakeLink(answer)
    board = Board(link, timeout=0.05, retries=1)
    board.hello()
    assert board.request("PEG", 0, 5)["n"] == "1"
    assert len(link.written) == 3 and link.written[1] == link.written[2]


def test_a_garbled_request_is_sent_again():
    def answer(seq, verb, count):
        if count == 1:
            return frame("0 ERR CRC checksum mismatch; resend the frame")
        return frame(HELLO_OK.format(seq=seq))

    link = FakeLink(answer)
    assert Board(link, timeout=0.5).hello()["fw"] == "0.1.0"
    assert link.written[0] == link.written[1]


def test_an_error_for_stale_noise_before_ours_does_not_resend():
    def answer(seq, verb, count):
        return frame("0 ERR FRAME not printable ASCII; resend the frame") + frame(HELLO_OK.format(seq=seq))

    link = FakeLink(answer)
    assert Board(link, timeout=0.5).hello()["proto"] == str(protocol.PROTOCOL_VERSION)
    assert len(link.written) == 1


def test_silence_says_what_to_do():
    link = FakeLink(lambda seq, verb, count: b"")
    link.name = "/dev/ttyACM0"
    with pytest.raises(TransportError) as info:
        Board(link, timeout=0.02, retries=1).request("STATE")
    assert str(info.value) == ("no reply from the board on /dev/ttyACM0 to STATE after 2 tries: check the "
                               "cable, or run tallyboard deploy if the firmware is not installed")


def test_a_board_at_the_repl_is_told_apart():
    link = FakeLink(lambda seq, verb, count: b"MicroPython v1.24.1 on 2024-11-29; Raspberry Pi Pico\r\n>>> ")
    with pytest.raises(TransportError, match="at the MicroPython prompt.*run tallyboard deploy"):
        Board(link, timeout=0.02, retries=0).request("HELLO")


def test_old_firmware_is_told_to_deploy():
    old = description.PRE_DESC_PROTOCOL - 1
    # a board before DESC (it answers it as an unknown verb) is read by this host's rows if it speaks
    # the protocol of the boards before DESC; one older still is told to update
    link = FakeLink(lambda seq, verb, count: frame(f"{seq} OK fw=0.0.9 proto={old} board=pico"))
    with pytest.raises(ProtocolError) as info:
        Board(link).hello()
    assert str(info.value) == (f"the board's firmware 0.0.9 speaks protocol {old}, older than this tallyboard "
                               f"reads without a description (protocol {description.PRE_DESC_PROTOCOL}): "
                               "run tallyboard deploy")


def test_events_before_the_reply_noise_and_stale_replies_are_sorted_out():
    def answer(seq, verb, count):
        return (b"\x00\xffline noise\n"                       # noise: skipped
                + frame(f"{seq - 1} OK n=0 top=0 eseq=4")     # a stale reply to an earlier request
                + frame("! 5 EV n=1 top=1 ev=40 src=board totals=5,0")
                + frame(f"{seq} OK n=1 top=1 eseq=5"))

    board = Board(FakeLink(answer))
    assert board.request("PEG", 0, 5) == {"n": "1", "top": "1", "eseq": "5"}
    (event,) = board.events
    assert (event.eseq, event.kind, event.fields["totals"], event.fields["src"]) == (5, "EV", "5,0", "board")
    assert board.noise_lines == 1
    assert not board.gap


def test_a_missed_event_is_a_gap():
    events = iter(["! 7 EV n=1 top=1 ev=40 src=host totals=5,0", "! 9 EV n=3 top=3 ev=40 src=host totals=15,0"])

    def answer(seq, verb, count):
        return frame(next(events)) + frame(f"{seq} OK n=1 top=1 eseq=7")

    board = Board(FakeLink(answer))
    board.request("PEG", 0, 5)
    assert not board.gap
    board.request("PEG", 0, 5)
    assert board.gap                                  # 8 never came: resync with rebuild()


def test_the_board_error_keeps_its_code_and_words():
    link = FakeLink(lambda seq, verb, count: frame(f"{seq} ERR RULE undo: nothing to undo"))
    with pytest.raises(BoardError) as info:
        Board(link).undo()
    assert info.value.code == "RULE"
    assert str(info.value) == "the board says: undo: nothing to undo (RULE)"


def test_requests_are_checked_before_sending():
    board = Board(FakeLink(lambda *a: b""))
    with pytest.raises(ValueError, match="not a verb"):
        board.request("FORMAT")
    with pytest.raises(ValueError, match="one word"):
        board.request("CFG", "SET", "name", 0, "Ann Lee")


# ---------------------------------------------------------------- the real firmware

@pytest.fixture(scope="module")
def emu(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("client") / "flash") as pair:
        yield pair


def test_hello_names_the_board(emu):
    _, board = emu
    h = board.hello()
    assert h["proto"] == str(protocol.PROTOCOL_VERSION)
    assert h["board"] == "pico-reference"
    assert int(h["frame"]) == protocol.MAX_FRAME


def test_a_skicket_hand_scored_by_hand(emu):
    _, board = emu
    board.new("skicket", 4)
    # Hand 1, seats A B C D: player 0 (seat 0) and player 2 (seat 2) are partners.
    # Player 0 bids 3H (needs 6 + 3 = 9) and takes 9: made, undoubled (rule 1):
    # player 0 and partner 2 get A = 60 + 10*3 = 90; the adversaries 1 and 3
    # get 10 * their tricks = 10 * (13 - 9) = 40 each.
    reply = board.game_verb("HAND", 0, "3H", None, None, 0, 9)
    assert (reply["n"], reply["top"]) == ("1", "1")
    assert board.score()["totals"] == "90,40,90,40"
    current = board.rebuild()
    assert [current.game.total(p) for p in range(4)] == [90, 40, 90, 40]


def test_a_retry_is_answered_again_and_not_applied_twice(emu):
    _, board = emu
    board.new("roquet", 2)
    seq, request = board.encode("PEG", 0, 5)
    first = board.send_frame(seq, request)
    again = board.send_frame(seq, request)           # the same bytes: a retry
    # PEG 0 5: 0 << 2 | 5 << 3 = 40
    assert first == again == {"n": "1", "top": "1", "eseq": first["eseq"], "ev": "40"}
    assert board.score()["totals"] == "5,0"          # 5 once, not 10


def test_noise_and_a_half_frame_change_nothing(emu):
    emulator, board = emu
    board.new("roquet", 2)
    board.game_verb("PEG", 1, 3)
    board.poll_events(0.3)                           # the peg's event follows its reply
    board.events.clear()
    board.link.write(b"\x07\xfe garbage *ZZZZ\n")
    board.link.write(b"x" * 300 + b"\n")            # longer than a frame
    lines = [board.link.read_line(2), board.link.read_line(2)]
    assert all(line is not None and line.startswith(b"0 ERR ") for line in lines), lines
    half = wire.encode_request(60000, "PEG 1 9")[:8]
    board.link.write(half)                           # half a frame, then the port drops
    board.link.close()
    board.link.reopen()
    board.connect()
    # the board resynchronises at the next newline: the half frame plus the next
    # line is one bad line at worst; nothing was applied
    assert board.score()["totals"] == "0,3"
    current = board.rebuild()
    # PEG 1 3 packed (roquet.py): kind 0 | player 1 << 2 | points 3 << 3 = 4 + 24 = 28
    assert current.log == [28] and current.n == 1
    assert emulator.running


def test_undo_redo_and_resync_after_reopening(emu):
    _, board = emu
    board.new("roquet", 2)
    board.game_verb("PEG", 0, 5)
    board.game_verb("PEG", 1, 2)
    board.undo()
    current = board.reconnect()                      # drop the port, reopen, resync
    assert (current.n, current.top) == (1, 2)
    assert [current.game.total(p) for p in range(2)] == [5, 0]
    board.redo()
    assert board.score()["totals"] == "5,2"
    with pytest.raises(BoardError) as info:
        board.redo()
    assert info.value.code == "RULE"


def test_out_of_range_values_are_refused_by_the_board(emu):
    _, board = emu
    board.new("roquet", 2)
    with pytest.raises(BoardError) as info:
        board.request("PEG", 0, 100)                  # a pegging is 1..99
    assert info.value.code == "RANGE"
    with pytest.raises(BoardError) as info:
        board.request("PEG", 2, 1)                    # Roquet has players 0 and 1
    assert info.value.code == "RANGE"
    assert board.score()["totals"] == "0,0"


def test_a_link_lost_after_a_change_went_out_does_not_ask_for_it_again():
    # the device twin found it: the power went as the board journaled a PEG;
    # "run the command again" would have counted the peg twice
    class Dying(FakeLink):
        def _read(self, timeout):
            raise TransportError("lost the board on /dev/x (Input/output error): check the cable, "
                                 "then run the command again")

    with pytest.raises(TransportError) as info:
        Board(Dying(lambda *a: b"")).game_verb("PEG", 0, 5)
    said = str(info.value)
    assert "run the command again" not in said
    assert said == ("lost the board on /dev/x (Input/output error), after PEG was sent: the board may have "
                    "recorded it; check with tallyboard status before entering it again")
    with pytest.raises(TransportError) as info:
        Board(Dying(lambda *a: b"")).state()            # a read: the transport's own advice stands
    assert "run the command again" in str(info.value)
