# The panel code of the game in play. A rules module names its view,
# rules.VIEW: a module of tallypanel (skicketview, roquetview), or None for
# the screens every short game shares. The view loads when its game is in
# play and, on the board, the view of the game played before is let go, as
# tallycore.games lets the rules go: a short game in play leaves no Skicket
# or Roquet code in memory.
#
# A view module has:
#   leds(field, game)                  the LED frame (ledfield.LedField)
#   draw_sheet(sheet, game)            the OLED screen (sheetview.SheetView)
#   seat(board_input, game, seat, long)  a seat button (menu.BoardInput)
#   the knob's hand entry (menu.HandEntry): STEP_NAMES, LOW, HIGH and
#   FIELDS by step, open_entry(entry, game, purchaser), turned(entry),
#   push(entry, game), back(entry), draw_entry(sheet, entry, game, at)
# Each draws with the rules of the game in play (game.rules), so a view
# imports no rules module.
import sys

from tallycore.games import load_module, on_switch, unload

_MICRO = sys.implementation.name == "micropython"
_shown = [None, None]  # the rules module asked for last, and its view module


def of(game):
    """The view module of the game in play, or None (no game, or a game
    without a view of its own). Allocation-free while the game stays."""
    rules = game.rules
    if rules is _shown[0]:
        return _shown[1]
    name = None if rules is None else rules.VIEW
    view = None
    if name is not None:
        view = load_module("tallypanel", name)
    old = _shown[1]
    if _MICRO and old is not None and old is not view:
        unload(old.__name__)
    _shown[0] = rules
    _shown[1] = view
    return view


def _let_go():
    # another game's rules are about to load: its view goes first, so that the
    # two games' panel code are never in memory together
    old = _shown[1]
    if old is not None:
        unload(old.__name__)
    _shown[0] = None
    _shown[1] = None


if _MICRO:
    on_switch(_let_go)
