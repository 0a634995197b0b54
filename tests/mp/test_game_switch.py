# A game switch on the board lets the previous game's code go: a short game
# in play leaves neither Skicket nor Roquet (their rules nor their panel
# views) in sys.modules, and each switch unloads the game played before
# (tallycore.games.load, tallypanel.gameview). On the MicroPython unix port
# only: CPython keeps every module (the host wants them all).
from mpfixtures import Hands, skip
import sys

from tallycore.game import Game
from tallypanel import boarddef, menu
from tallypanel.view import View

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"
MICRO = sys.implementation.name == "micropython"
SKICKET = ("tallycore.skicket", "tallypanel.skicketview")
ROQUET = ("tallycore.roquet", "tallypanel.roquetview")


class Pixels:
    def __init__(self, count):
        self.buf = bytearray(3 * count)

    def write(self):
        pass


def _board():
    """The firmware's display and controls on a game, as main.py wires them."""
    import framebuf

    class Oled(framebuf.FrameBuffer):
        def __init__(self):
            self.buffer = bytearray(1024)
            super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)

        def show(self, pages=0xFF, lo=None, hi=None):
            pass

    board = boarddef.find("pico-reference", BOARD_DIR)
    game = Game()
    view = View(board, Pixels(board.led_count), Oled())
    board_input = menu.BoardInput(Hands(game), views=view.views)

    def play(name, players):
        game.new(name, players, 0)   # as NEW does, by the registry
        view.refresh(game, board_input)
        board_input.handle(menu.SEAT, 0)     # Skicket's entry, a Roquet peg, or a note
        board_input.handle(menu.HOLD)
        view.refresh(game, board_input)
    return play


def _in(names):
    return [name for name in names if name in sys.modules]


def test_a_short_game_in_play_leaves_no_skicket_or_roquet():
    if not MICRO:
        skip("CPython keeps every module loaded (the host wants them all): runs in the MicroPython pass")
    play = _board()
    play("roquet", 2)
    assert _in(ROQUET) == list(ROQUET)
    play("skicket", 4)
    assert _in(SKICKET) == list(SKICKET) and _in(ROQUET) == []
    play("rummy", 3)
    assert "tallycore.rummy" in sys.modules
    assert _in(SKICKET) == [] and _in(ROQUET) == []
    play("roquet", 2)
    play("moosehead", 4)
    assert _in(SKICKET) == [] and _in(ROQUET) == []


def test_each_switch_unloads_the_game_played_before():
    if not MICRO:
        skip("CPython keeps every module loaded (the host wants them all): runs in the MicroPython pass")
    play = _board()
    play("foozle", 3)
    play("skicket", 4)          # a short game to Skicket
    assert "tallycore.foozle" not in sys.modules
    play("hoodoo", 3)
    assert _in(SKICKET) == [] and "tallycore.first_out" in sys.modules
    play("ups_and_downs", 8)    # the same rule under another name: it stays
    assert "tallycore.first_out" in sys.modules
    play("quatro", 3)
    assert "tallycore.first_out" not in sys.modules and "tallycore.most_count" in sys.modules
    play("roquet", 2)
    assert "tallycore.most_count" not in sys.modules and _in(ROQUET) == list(ROQUET)
    play("bishops_whist", 4)
    assert _in(ROQUET) == [] and "tallycore.roquet" not in sys.modules
