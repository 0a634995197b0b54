# Confirmation by an opponent on the board (docs/rules.md CF,
# docs/display.md "A hand waiting for its confirmation"): while the game in
# play holds a change (tallycore.game: held), the seat buttons answer it and
# the OLED shows its arithmetic and names the buttons that accept it by the
# letters printed beside them (the board definition's buttons.letters); the
# LED field marks it, and lights the LED beside each of those buttons where
# the definition has one (tallypanel.ledfield).
#
#   a seat button (short)   the player in that seat accepts, if the rules let
#                           that player (game.held_by: Skicket, the purchaser's
#                           opponents); the change is made
#   a seat button (long)    rejects: the change is dropped (a hand whole, with
#                           the events of it applied before), and a hand's
#                           entry reopens on the board with its values, to correct
#   anything else           refused: why shows on the OLED for a moment
#                           (screen.NOTE_MS) and goes to the host as a NOTE event
# Which seat a player sits in is the game's own (tallycore.game.seat_of:
# Skicket's seats pivot, docs/rules.md SK5), the one mapping the host's words
# use too. Loaded when a hand first waits (tallypanel.menu, tallypanel.view): a
# board that never confirms never pays its heap. Nothing here allocates but a
# refusal's NOTE.
from tallycore.game import HELD_APPLY, HELD_UNDO, SEAT_LETTERS, player_at
from tallypanel.screen import LIST, blank, put, num, numl

from tallycore import const

WAITS = "hand pending: an opponent's seat button accepts it, a long press rejects"

# Why a press could not answer the held change (BoardInput.refused)
NOT_AN_OPPONENT = const(1)   # the player in that seat may not accept it
NO_PLAYER = const(2)         # nobody plays in that seat in this game
WAITING = const(3)           # another control: the held change is answered first


def answer(board_input, game, seat, long):
    """A seat button pressed while game holds a change: accept, or with long
    reject; a seat that cannot accept is refused (refuse()). ValueError when
    the accept or the reject itself fails (the flash)."""
    if not long:
        player = player_in(game, seat)
        if player >= game.players:
            refuse(board_input, game, NO_PLAYER, seat)
            return
        if not game.held_by >> player & 1:
            refuse(board_input, game, NOT_AN_OPPONENT, seat)
            return
        board_input.app.local_accept(player)
        board_input.entry.close()
    else:
        held = game.held
        event = game.held_event
        taken = board_input.app.local_reject()    # the hand's earlier events, taken back with it
        entry = board_input.entry
        entry.close()
        if held != HELD_APPLY:
            return
        view = board_input.views.of(game)
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
    return player_at(game.rules, game.held_hand() - 1, seat)


def refuse(board_input, game, why, seat=0):
    """A press that cannot answer the held change: why (NOT_AN_OPPONENT,
    NO_PLAYER, WAITING) shows on the OLED for screen.NOTE_MS (BoardInput.refused,
    drawn by draw()) and goes to the host as a NOTE, in words that name the
    buttons by their letters."""
    letters = board_input.letters
    board_input.refuse(why, seat)
    if board_input.app.say is None:
        return
    who = _accepting_letters(game, letters)
    hand = game.held_hand()
    if why == WAITING:
        text = "hand %d is pending: %s accepts it, a long press of a seat button rejects it" % (hand, who)
    else:
        letter = _letter(letters, seat)
        if why == NO_PLAYER:
            text = "button %s: nobody plays in that seat in this game; %s accepts hand %d" % (
                letter, who, hand)
        else:
            text = "button %s may not accept hand %d: its player is not an opponent; %s accepts it" % (
                letter, hand, who)
    board_input.tell(text)


def _letter(letters, seat):
    return chr(letters[seat]) if seat < len(letters) else "%d" % (seat + 1)


def _accepting_letters(game, letters):
    """"button B or D": the buttons whose players may accept the held change."""
    found = []
    for seat in range(game.players if game.players < 4 else 4):
        if seat < len(letters) and game.held_by >> player_in(game, seat) & 1:
            found.append(chr(letters[seat]))
    if not found:
        return "no button on this board"
    if len(found) == 1:
        return "button " + found[0]
    return "button " + ", ".join(found[:-1]) + " or " + found[-1]


def draw(sheet, game, letters=SEAT_LETTERS.encode(), board_input=None):
    """The held change: which hand, what it is (the game's view says, if it
    can), what each player gets by it and the total after, and which buttons
    accept it (letters: beside the seat buttons, seat 0 first), by letter and
    name; a press just refused says why on the last row for a moment
    (board_input.refused). Allocation-free."""
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
    view = sheet.views.of(game)
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
    _accept_rows(lines, names, game, letters)
    put(lines[8], 0, b"REJECT: HOLD A SEAT BUTTON")
    refused = board_input.refused if board_input is not None else 0
    if refused:
        _refusal(lines[9], names, game, letters, refused, board_input.refused_seat)
    elif sheet.note_len:
        lines[9][:] = sheet.note


_INDENT = const(8)   # where the first button's letter stands, after "ACCEPT: "


def _accept_rows(lines, names, game, letters):
    """"ACCEPT: B (CY) OR D (DEE)" on row 7, the buttons in seat order; when
    they do not fit one row, rows 6 and 7: "ACCEPT: A (ANN), B (BOB)," then
    "        C (CY) OR D (DEE)"."""
    seats = game.players if game.players < 4 else 4
    count = 0
    width = _INDENT - 1
    for seat in range(seats):
        if game.held_by >> player_in(game, seat) & 1:
            count += 1
            width += _item_width(names, game, letters, seat)
    # the spaces and words between: " " before the first, ", " before the
    # middle ones, " OR " before the last
    width += 1 if count < 2 else 2 * count + 1
    row = 7 if width <= 32 else 6
    line = lines[row]
    at = put(line, 0, b"ACCEPT:")
    done = 0
    for seat in range(seats):
        if not game.held_by >> player_in(game, seat) & 1:
            continue
        item = _item_width(names, game, letters, seat)
        last = done == count - 1
        if done:
            sep = 4 if last else 2
            if at + sep + item > 32 and row < 7:
                if not last:
                    line[at] = 44        # ','
                row += 1
                line = lines[row]
                at = _INDENT
                if last:
                    at = put(line, at, b"OR ")
            elif last:
                at = put(line, at, b" OR ")
            else:
                at = put(line, at, b", ")
        else:
            at += 1
        at = _item(line, at, names, game, letters, seat)
        done += 1


def _item_width(names, game, letters, seat):
    # "B (CY)": the letter, a space and the name in brackets; the name alone
    # for a seat without a button on this board
    name = len(names[player_in(game, seat)])
    return name + 4 if seat < len(letters) else name


def _item(line, at, names, game, letters, seat):
    name = names[player_in(game, seat)]
    if seat >= len(letters):
        return put(line, at, name)
    line[at] = letters[seat]
    at = put(line, at + 1, b" (")
    at = put(line, at, name)
    return put(line, at, b")")


def _refusal(line, names, game, letters, why, seat):
    """Why the last press was refused, on one row: "BUTTON A: ANN IS NOT AN
    OPPONENT", "BUTTON C: NOBODY PLAYS THERE", "ANSWER THE HAND FIRST"."""
    if why == WAITING:
        put(line, 0, b"FIRST ACCEPT OR REJECT THE HAND")
        return
    at = put(line, 0, b"BUTTON ")
    if seat < len(letters):
        line[at] = letters[seat]
        at += 1
    else:
        at = numl(line, at, seat + 1)
    at = put(line, at, b": ")
    if why == NO_PLAYER:
        put(line, at, b"NOBODY PLAYS THERE")
        return
    at = put(line, at, names[player_in(game, seat)])
    put(line, at, b" IS NOT AN OPPONENT")
