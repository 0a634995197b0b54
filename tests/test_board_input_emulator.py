"""Input on the board itself, in the emulator (the real firmware): presses
made while no host is connected are scored on the board, shown on its LEDs
and OLED, and reach the host when it connects."""
import pytest
from emu_fixtures import until
from tallycore import roquet
from tallyboard.boardlink.client import Board
from tallyboard.tooling.emulator import Emulator
from tallyboard.boardlink.transport import SerialTransport

pytestmark = [pytest.mark.emulator]

SEAT_A, SEAT_B, KNOB_PUSH = 10, 11, 18   # board/pico-reference.json


def _press(emulator, pin, seconds=0.15):
    emulator.tap(pin, hold=seconds)


def _connect(emulator):
    link = SerialTransport(emulator.port)
    board = Board(link, timeout=3.0)
    board.connect()
    return link, board


def test_presses_without_a_host_reach_it_when_it_connects(tmp_path):
    with Emulator(flash=tmp_path / "flash") as emulator:
        link, board = _connect(emulator)
        board.new("roquet", 2)
        link.close()                                  # the host goes away
        _press(emulator, SEAT_A)                      # A pegs 1
        _press(emulator, SEAT_B, 0.9)                 # long press: B pegs 5
        _press(emulator, SEAT_A)                      # A pegs 1 more
        # On the board meanwhile: A's tally peg at position 2 -> tally hole 1,
        # LED 1 + 1 = 2 on the reference chain, full red (G 8, R 63, B 0); the
        # board draws after it has taken the press, so the frame is waited for.
        until(lambda: emulator.leds()[3 * 2:3 * 3] == bytes((8, 63, 0)), 60, "A's tally peg on LED 2")
        link, board = _connect(emulator)              # the host comes back
        try:
            current = board.rebuild()
            assert current.log == [roquet.pack_peg(0, 1), roquet.pack_peg(1, 5), roquet.pack_peg(0, 1)]
            assert roquet.tally(current.game.state, 0) == 2
            assert roquet.tally(current.game.state, 1) == 5
            # The knob ends the hand from the board; the connected host gets the event.
            _press(emulator, KNOB_PUSH)
            _press(emulator, KNOB_PUSH)
            events = board.poll_events(1.0)
            assert any(e.fields.get("src") == "board" and e.fields.get("ev") == str(roquet.HAND_END)
                       for e in events), events
            assert board.rebuild().game.total(1) == 5
        finally:
            link.close()


def test_picture_of_a_board_is_what_it_shows(tmp_path):
    """render.frame_for_board (used by `tallyboard show` for a board on USB)
    composes, from the game and settings read over the wire, the very bytes
    the emulated board last sent to its LEDs and OLED."""
    from tallyboard.tooling import render

    with Emulator(flash=tmp_path / "flash") as emulator:
        link, board = _connect(emulator)
        try:
            board.new("skicket", 4)
            board.cfg_set("name", "Ann", 0)
            board.cfg_set("brightness", "90")
            board.game_verb("HAND", 0, "4H", None, None, 0, 10)
            # the board replies first and draws after: the last drawing is waited for, then
            # the composed frame must be the very bytes of both displays
            def agree():
                frame = render.frame_for_board(board)
                return frame.leds == emulator.leds() and frame.oled == emulator.oled() and frame
            frame = until(agree, 60, "the board's LEDs and OLED showing the composed frame")
            assert frame.leds == emulator.leds() and len(frame.oled) == 1024
        finally:
            link.close()
