# Confirmation by an opponent on the board (docs/rules.md CF,
# docs/display.md "A hand waiting for its confirmation"): while the game in
# play holds a change (tallycore.game: held), the seat buttons answer it and
# the OLED shows its arithmetic (the LED field marks it: tallypanel.ledfield).
#
#   a seat button (short)   the player in that seat accepts, if the rules let
#                           that player (game.held_by: Skicket, the purchaser's
#                           opponents); the change is made
#   a seat button (long)    rejects: the change is dropped (a hand whole, with
#                           the events of it applied before), and a hand's
#                           entry reopens on the board with its values, to correct
#   anything else           refused, with what to do
# Loaded with the panel; nothing here allocates but a refusal.
from tallycore.game import HELD_APPLY, HELD_UNDO
from tallypanel import gameview
from tallypanel.screen import LIST, blank, put, num, numl

WAITS = "hand pending: an opponent's seat button accepts it, a long press rejects"


def answer(board_input, game, seat, long):
    """A seat button pressed while game holds a change: accept, or with long
    reject; ValueError says why not."""
    if not long:
        board_input.accept(player_in(game, seat))
        board_input.entry.close()
    else:
        held = game.held
        event = game.held_event
        taken = board_input.reject()    # the hand's earlier events, taken back with it
        entry = board_input.entry
        entry.close()
        if held != HELD_APPLY:
            return
        view = gameview.of(game)
        if view is None:
            # a game entered from its description: its hand's values, from the
            # events taken back and the one rejected (tallypanel.entry)
            entry.open(game)
            entry.view.reopen_entry(entry, game, event, taken or 0)
        elif hasattr(view, "reopen_entry"):
            # the hand's values kept, for correction
            entry.open(game)
            view.reopen_entry(entry, game, event)


def player_in(game, seat):
    """The player in a seat for the held hand (Skicket's players pivot
    between seats: docs/rules.md SK5)."""
    seat_player = getattr(game.rules, "seat_player", None)
    if seat_player is None:
        return seat
    return seat_player(game.held_hand() - 1, seat & 3)


def draw(sheet, game):
    """The held change: which hand, what it is (the game's view says, if it
    can), what each player gets by it and the total after, and who accepts."""
    sheet.use(LIST)
    lines = sheet.lines
    names = sheet.names
    players = game.players
    scores = game.held_scores
    for r in range(10):
        blank(lines[r])
    line = lines[0]
    at = 0
    if game.held == HELD_UNDO:
        at = put(line, 0, b"UNDO OF ")
    at = put(line, at, b"HAND ")
    at = numl(line, at, game.held_hand())
    put(line, at, b": CONFIRM?")
    view = gameview.of(game)
    if view is not None and hasattr(view, "describe_hand"):
        view.describe_hand(sheet, game, game.held_event, lines[1])
    wide = players > 4
    for p in range(players):
        line = lines[2 + (p >> 1 if wide else p)]
        at = 16 * (p & 1) if wide else 0
        if p < 4:
            put(line, at, names[p])
        else:
            line[at] = 80           # 'P'
            numl(line, at + 1, p + 1)
        gets = scores[p]
        start = num(line, at + (11 if wide else 12), gets)
        if gets >= 0:
            line[start - 1] = 43    # '+'
        if not wide:
            # the total it makes
            put(line, 14, b"TOTAL")
            num(line, 26, game.total(p) + gets)
    line = lines[7]
    at = put(line, 0, b"ACCEPT:")
    first = True
    for p in range(players if players < 4 else 4):
        if game.held_by >> p & 1:
            if not first:
                at = put(line, at + 1, b"OR")
            at = put(line, at + 1, names[p])
            first = False
    put(line, at + 1, b"(SEAT)")
    put(lines[8], 0, b"REJECT: HOLD A SEAT BUTTON")
    if sheet.note_len:
        lines[9][:] = sheet.note
