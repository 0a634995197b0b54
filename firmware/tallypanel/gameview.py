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
#   FIELDS by step, offers(entry, value) (whether the knob stops at value
#   at the entry's step: the others are passed over), open_entry(entry, game,
#   purchaser), turned(entry),
#   push(entry, game), back(entry), draw_entry(sheet, entry, game, at)
# Each draws with the rules of the game in play (game.rules), so a view
# imports no rules module.
#
# Which view is in play is a Views' own: the board has one, made by its
# View (tallypanel.view) and shared by the display (ledfield, sheetview,
# confirm's screen) and the controls (menu, confirm), which
# tallypanel.powerup hands it.
import sys

from tallycore.games import load_module, on_switch, unload

_MICRO = sys.implementation.name == "micropython"


def of(game):
    """The view module of game's rules, loaded now, or None (no game, or a game
    without a view of its own). It allocates and keeps nothing: the display and
    the controls ask their Views, which keeps the view and lets it go."""
    rules = game.rules
    name = None if rules is None else rules.VIEW
    return None if name is None else load_module("tallypanel", name)


class Views:
    """The view module of the game in play, kept while that game stays in
    play (of() is allocation-free then) and let go when another game's rules
    are about to load (tallycore.games.on_switch), so that two games' panel
    code are never in memory together."""

    def __init__(self):
        self.rules = None   # the rules module asked for last
        self.view = None    # and its view module
        if _MICRO:
            on_switch(self.let_go)

    def of(self, game):
        """The view module of the game in play, or None (no game, or a game
        without a view of its own). Allocation-free while the game stays."""
        rules = game.rules
        if rules is self.rules:
            return self.view
        view = of(game)
        old = self.view
        if _MICRO and old is not None and old is not view:
            unload(old.__name__)
        self.rules = rules
        self.view = view
        return view

    def let_go(self):
        """Another game's rules are about to load: its view goes first."""
        old = self.view
        if old is not None:
            unload(old.__name__)
        self.rules = None
        self.view = None
