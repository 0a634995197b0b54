# Roquet on the board (docs/rules.md RQ): the pegs on the LED
# field, the OLED summary, pegging with the seat buttons and ending a hand
# with the knob. Loaded only while Roquet is in play (tallypanel.gameview);
# the rules are the game's own module, game.rules (tallycore.roquet).
#
# The LED field, for each player:
#   - the tally peg at its hole of the 60-point track (roquet.tally_hole);
#     before play and after every hand it stands in the station hole;
#   - the back peg: the hole the tally peg left at its last move stays lit
#     faintly (the station hole after the first peg of a hand);
#   - a count over 60 (another lap of the track) lights the station hole
#     at half strength while the peg is out on the track;
#   - the king peg at its king hole (5, 10 ... 100);
#   - the king remainder (docs/rules.md RQ5: the exact total
#     is kept): the king hole after the peg glows at remainder/5 strength
#     (1..4 points: 20%..80%);
#   - the embossed 15th, 30th and 31st holes glow dim white;
#   - game end: the winner's whole king row is lit (both rows on a tie).
from tallypanel.wiring import STATION, TALLY, KING, SLOTS_PER_PLAYER
from tallypanel.ledfield import FULL, TRAIL, LAP, LANDMARK, REMAINDER_STEP, WHITE
from tallypanel.screen import SAVE, CANCEL, TOTALS, blank, put, num, numl

from tallycore import const

_SEAT_POINTS = const(1)      # docs/display.md: a seat press pegs +1
_LONG_POINTS = const(5)      # a long press, or shift + press, +5

# The knob's entry: one step, the end of the hand.
END_HAND = const(0)
STEP_NAMES = (b"END THE HAND?",)
LOW = b"\x00"
HIGH = b"\x01"
FIELDS = ()                 # a refused end stays on its one step


# --- the LED field ----------------------------------------------------------

def leds(field, game):
    roquet = game.rules
    state = game.state
    over = game.complete()
    winners = game.winners() if over else 0
    landmarks = roquet.LANDMARK_HOLES
    for p in range(2):
        base = p * SLOTS_PER_PLAYER
        for i in range(3):
            field.light(base + TALLY + landmarks[i], WHITE, LANDMARK)
        if winners >> p & 1:
            for h in range(20):
                field.light(base + KING + h, p, FULL)
        position = roquet.tally(state, p)
        if position == 0:
            field.light(base + STATION, p, FULL)
        else:
            back = roquet.back_peg(state, p)
            hole = roquet.tally_hole(position)
            if back == 0:
                field.light(base + STATION, p, TRAIL)
            else:
                back_hole = roquet.tally_hole(back)
                if back_hole != hole:
                    field.light(base + TALLY + back_hole, p, TRAIL)
            if roquet.tally_laps(position):
                field.light(base + STATION, p, LAP)
            field.light(base + TALLY + hole, p, FULL)
        king = roquet.king_total(state, p)
        hole = roquet.king_hole(king)
        rest = roquet.king_remainder(king)
        if rest and hole < 19:
            field.light(base + KING + hole + 1, p, rest * REMAINDER_STEP)
        if hole >= 0:
            field.light(base + KING + hole, p, FULL)


# --- the OLED summary -------------------------------------------------------
# cols: labels 0-11, player A right-aligned at 12-19, B at 24-31; the
# chain's head (sheet.put_chain) at 23-31 of the 15th hole's row.

def draw_sheet(sheet, game):
    roquet = game.rules
    sheet.use(TOTALS)
    state = game.state
    lines = sheet.lines
    names = sheet.names
    over = game.complete()
    winners = game.winners()
    line = lines[0]
    blank(line)
    at = put(line, 0, b"ROQUET  HAND ")
    # the hand in play, or the one the game ended in: at 100 mid-hand (RQ9) its
    # pegs are still out on the tally rows, and the sheet numbers it
    open_hand = not over or roquet.tally(state, 0) or roquet.tally(state, 1)
    numl(line, at, roquet.hands(state) + (1 if open_hand else 0))
    put(line, 22, b"GAME 100")
    line = lines[1]  # big: the two totals
    blank(line)
    put(line, 0, names[0])
    put(line, 9, names[1])
    for p in range(2):
        start = num(line, 8 + 8 * p, roquet.total(state, 2, p))
        if over and winners >> p & 1:
            line[start - 1] = 42  # '*', between the name and the total
    _pair(lines[2], b"KING PEG", roquet.king_total(state, 0), roquet.king_total(state, 1))
    _pair(lines[3], b"TALLY", roquet.tally(state, 0), roquet.tally(state, 1))
    line = lines[4]
    blank(line)
    put(line, 0, b"LAST PEG")
    for p in range(2):
        t = roquet.tally(state, p)
        if t:
            end = 20 + 12 * p
            start = num(line, end, t - roquet.back_peg(state, p))
            line[start - 1] = 43  # '+'
    _fifteenth_and_chain(sheet, game)
    line = lines[6]
    blank(line)
    options = state[1]
    at = put(line, 0, b"ENDS AT HAND END" if options & roquet.OPT_END_AT_HAND_END else b"ENDS AT 100")
    if options & roquet.OPT_LANDMARK_BONUS:
        put(line, at + 2, b"BONUSES ON")
    line = lines[7]
    if sheet.note_len:
        line[:] = sheet.note
    else:
        blank(line)
        if over:
            at = 0
            for p in range(2):
                if winners >> p & 1:
                    at = put(line, at, names[p]) + 1
            put(line, at, b"WINS" if winners != 3 else b"TIE")
        else:
            put(line, 0, b"PUSH THE KNOB TO END THE HAND")


def _fifteenth_and_chain(sheet, game):
    """Row 5: who reached the 15th hole first (the trump card), then the game's chain head, short, at 23-31."""
    line = sheet.lines[5]
    blank(line)
    first = game.rules.first_to_15(game.state)
    if first >= 0:
        at = put(line, 0, b"15TH HOLE FIRST:")
        put(line, at + 1, sheet.names[first])
    sheet.put_chain(line, game)


def _pair(line, label, a, b):
    blank(line)
    put(line, 0, label)
    num(line, 20, a)
    num(line, 32, b)


# --- the board's controls ---------------------------------------------------

def seat(board_input, game, seat, long):
    """A seat button pegs for the player in it: +1, or +5 on a long press."""
    if seat > 1:
        raise ValueError("seat: Roquet is a game for two; use seats 1 and 2")
    board_input.app.local_event(game.rules.pack_peg(seat, _LONG_POINTS if long else _SEAT_POINTS))


def open_entry(entry, game, purchaser):
    entry.step = END_HAND
    entry.values[END_HAND] = SAVE


def offers(entry, value):
    return True     # SAVE and CANCEL


def turned(entry):
    pass


def push(entry, game):
    if entry.values[END_HAND] == CANCEL:
        entry.close()
        return False
    return entry.save(game.rules.HAND_END)


def back(entry):
    entry.close()


def draw_entry(sheet, entry, game, at):
    """The entry screen's step (row 1) and value (row 2, big); sheetview
    draws the rest."""
    put(sheet.lines[1], 0, STEP_NAMES[entry.step])
    put(sheet.lines[2], 4, b"CANCEL" if entry.values[entry.step] else b"YES")
