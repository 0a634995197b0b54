# Run by the MicroPython unix port (never imported by the host): composes the
# exact LED frame and OLED buffer the firmware shows for a game, with the
# firmware's own tallypanel.view, and prints them as two hex lines
# ("leds <hex>", "oled <hex>"; "oled -" for a board without a display).
#   micropython frame_dump.py SPEC.json      (tallycore on MICROPYPATH)
# SPEC: {"board_file": path, "game": name or null, "players": n, "options": n,
#        "events": [...], "undone": n, "names": [...], "colours": [0xRRGGBB...],
#        "brightness": n, "budget_ma": n, "held": [kind, event] or null,
#        "entry": [head, step, value, entered] or null (a hand entry on its screen),
#        "accepted": [...] (who accepted each event, -1: nobody; its chain's head needs them)}
import sys
import json
import binascii

import framebuf
from tallypanel import boarddef
from tallycore import games
from tallycore.game import Game
from tallypanel.view import View
from tallyrun.chain import Held


class Pixels:
    def __init__(self, count):
        self.buf = bytearray(3 * count)

    def write(self):
        pass


class Oled(framebuf.FrameBuffer):
    def __init__(self):
        self.buffer = bytearray(1024)
        super().__init__(self.buffer, 128, 64, framebuf.MONO_VLSB)

    def show(self, pages=0xFF, lo=None, hi=None):
        pass


class Config:
    def __init__(self, spec):
        self.brightness = spec["brightness"]
        self.budget_ma = spec["budget_ma"]
        self.colours = spec["colours"]
        self.names = spec["names"]
        self.table = spec.get("table", 0)   # a club evening's table and round (config table, round)
        self.round = spec.get("round", 0)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    board = boarddef.load(spec["board_file"])
    pixels = Pixels(board.led_count)
    oled = Oled() if board.has_oled else None
    view = View(board, pixels, oled, Config(spec), Held())   # a game made afresh: a chain of its own
    game = Game()
    if spec["game"]:
        game.new(games.index_of(spec["game"]), spec["players"], spec["options"])
        for event in spec["events"]:
            game.apply(event)
        for _ in range(spec["undone"]):
            game.undo()
        accepted = spec.get("accepted") or ()
        for i in range(len(accepted)):
            game.mark_accepted(i, accepted[i] + 1)
        held = spec.get("held")
        if held:
            game.hold(held[0], held[1])     # a hand waiting for its confirmation
    view.refresh(game)
    entry = spec.get("entry")
    if entry and view.sheet is not None:   # the hand entry on the board's screen (its ENTRY rows)
        view.sheet.draw_entry_rows(*[row.encode() for row in entry])
    print("leds", binascii.hexlify(pixels.buf).decode())
    print("oled", binascii.hexlify(oled.buffer).decode() if oled is not None else "-")


try:
    main()
except (ValueError, OSError, KeyError) as exc:
    print("error", exc)
    sys.exit(1)
