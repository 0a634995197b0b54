# Skicket on the board (docs/rules.md SK): the OLED score sheet, the
# knob's hand entry, the seat buttons that open it, and the dealer on the
# LED field. Loaded only while Skicket is in play (tallypanel.gameview); the
# rules are the game's own module, game.rules (tallycore.skicket).
#
# Hand entry (docs/rules.md SK6, the facts of a hand):
#   purchaser (or MISDEAL) -> bid level -> strain -> doubled by -> redoubled by
#   (only when doubled) -> lone hand -> tricks -> confirm (SAVE / CANCEL).
# Doubled by offers the purchaser's two adversaries and NOBODY, redoubled by
# the purchaser, his partner and NOBODY (SK6: who may double or redouble).
# Turn = change the value, push = next step, hold (long push) = back one
# step; hold on the first step (or CANCEL at confirm) leaves without
# scoring. The hand is packed by skicket.pack_hand and checked by
# Game.check: a refused hand goes back to the step its field names, with the
# core's message shown (tallypanel.menu.HandEntry).
from tallypanel.wiring import STATION, SLOTS_PER_PLAYER
from tallypanel.ledfield import FULL
from tallypanel.screen import SAVE, CANCEL, SHEET, blank, put, num, numl, right

from tallycore import const
from tallycore.game import NOBODY, STRAINS

# Steps of the hand entry.
PURCHASER = const(0)
LEVEL = const(1)
STRAIN = const(2)
DOUBLED = const(3)
REDOUBLED = const(4)
LONE = const(5)
TRICKS = const(6)
CONFIRM = const(7)

STEP_NAMES = (b"PURCHASER", b"BID LEVEL", b"STRAIN", b"DOUBLED BY", b"REDOUBLED BY",
              b"LONE HAND", b"TRICKS WON BY BIDDERS", b"SAVE THE HAND?")
# Lowest and highest value of each step.
LOW = b"\x00\x01\x00\x00\x00\x00\x00\x00"
HIGH = b"\x04\x07\x05\x04\x04\x01\x0d\x01"
# The step a core error message points to, by its field name.
FIELDS = (("purchaser", PURCHASER), ("bid", LEVEL), ("doubled_by", DOUBLED),
          ("redoubled_by", REDOUBLED), ("lone", LONE), ("tricks", TRICKS))

_MISDEAL_CHOICE = const(4)  # the purchaser step's last value

_STRAIN_WORDS = (b"CLUBS", b"SPADES", b"HEARTS", b"DIAMONDS", b"NO TRUMP", b"NO TRICK")
_scores = [0, 0, 0, 0]     # one hand's scores, for the sheet


# --- the LED field ----------------------------------------------------------

def leds(field, game):
    """The progress bars of any game, and the dealer's side station hole in
    the colour of the dealer of the next hand."""
    field.progress(game)
    if not game.complete():
        dealer = game.rules.dealer(game.hands())
        field.light((dealer & 1) * SLOTS_PER_PLAYER + STATION, dealer, FULL)


# --- the OLED sheet ---------------------------------------------------------
# cols: 0 hand, 1 dealer, scores right-aligned at 2-6, 7-11, 12-16,
# 17-21, then the contract: purchaser, bid, X / XX, L, tricks (23-31);
# the totals' row ends with where the game is, or its chain head once over.

def draw_sheet(sheet, game):
    skicket = game.rules
    sheet.use(SHEET)
    state = game.state
    hands = skicket.hands(state)
    _heading(sheet, skicket, state)
    _hand_rows(sheet, skicket, state, hands)
    winners = game.winners()
    _totals(sheet, game, hands, winners)
    line = sheet.lines[8]
    blank(line)
    if game.complete():
        at = put(line, 0, b"GAME OVER. WON BY")
        for p in range(4):
            if winners >> p & 1:
                at = put(line, at + 1, sheet.names[p])
    else:
        _next_deal(sheet.names, skicket, state, hands, line)
    line = sheet.lines[9]
    if sheet.note_len:
        line[:] = sheet.note
    else:
        blank(line)
        if hands == 0:
            put(line, 0, b"PUSH THE KNOB TO ENTER A HAND")
        else:
            _last_hand(skicket, sheet.names, line, skicket.hand_event(state, hands - 1))


def _heading(sheet, skicket, state):
    line = sheet.lines[0]
    blank(line)
    line[0] = 35  # '#'
    line[1] = 68  # 'D'
    for p in range(4):
        right(line, 7 + 5 * p, sheet.names[p])
    if sheet.table_tag:
        put(line, 23, sheet.table_tag)   # a club evening's table and round: T3 R2
    elif skicket.royal(state):
        put(line, 23, b"ROYAL")   # docs/rules.md SK18
    else:
        put(line, 23, b"CONTRACT")


def _hand_rows(sheet, skicket, state, hands):
    """Rows 1 to 6: a hand each, its dealer, scores and contract."""
    length = skicket.length(state)
    # a Duplicate series shows the half in play, its rows numbered by deal
    # (docs/rules.md SK17): hands 7 to 12 once hand 7 is dealt. A game of
    # six hands (SK4) has one half only, however many are in.
    first = skicket.DEALS if skicket.series(state) and hands >= skicket.DEALS else 0
    rows = length - first if length - first < skicket.DEALS else skicket.DEALS
    scores = _scores
    for row in range(skicket.DEALS):
        line = sheet.lines[1 + row]
        blank(line)
        if row >= rows:
            continue
        h = first + row
        line[0] = 49 + row
        line[1] = 65 + skicket.dealer(h)
        if h >= hands:
            continue
        event = skicket.hand_event(state, h)
        skicket.score_hand(event, h, scores)
        for p in range(4):
            num(line, 7 + 5 * p, scores[p])
        line[23] = 65 + skicket.purchaser_of(event)
        _contract(skicket, line, 24, event)
        num(line, 32, skicket.tricks_of(event))


def _totals(sheet, game, hands, winners):
    """Row 7: the totals, the leaders starred, and where the game is (at
    its end the short form of its chain head: row 8 says it is over)."""
    skicket = game.rules
    state = game.state
    line = sheet.lines[7]
    blank(line)
    line[0] = 84  # 'T'
    for p in range(4):
        start = num(line, 7 + 5 * p, skicket.total(state, 4, p))
        if winners >> p & 1:
            line[start - 1] = 42  # '*'
    if game.complete():
        sheet.put_chain(line, game)   # its chain head, short, where FINAL stood (row 8 says it is over)
    elif skicket.series(state):
        # the deal in play and which half: FIRST play or REVersed
        at = put(line, 23, b"D")
        line[at] = 49 + skicket.deal_index(hands)
        put(line, at + 2, b"REV" if skicket.reversed_half(hands) else b"FIRST")
    else:
        at = put(line, 23, b"HAND ")
        line[at] = 49 + hands
        line[at + 1] = 47  # '/'
        line[at + 2] = 48 + skicket.length(state)


def _next_deal(names, skicket, state, hands, line):
    """Row 8 of a game going on: the hand (or deal) next, its dealer and partners."""
    if skicket.series(state):
        at = put(line, 0, b"DEAL ")
        line[at] = 49 + skicket.deal_index(hands)
        if skicket.reversed_half(hands):
            at = put(line, at + 1, b"R")
        else:
            at += 1
    else:
        at = put(line, 0, b"HAND ")
        line[at] = 49 + hands
        at += 1
    at = put(line, at + 1, names[skicket.dealer(hands)])
    at = put(line, at + 1, b"DEALS.")
    mate = skicket.partner(hands, 0)
    at = put(line, at + 2, names[0])
    line[at] = 43  # '+'
    at = put(line, at + 1, names[mate])
    other = 1 if mate != 1 else 2
    at = put(line, at + 1, names[other])
    line[at] = 43
    put(line, at + 1, names[skicket.partner(hands, other)])


def _last_hand(skicket, names, line, event):
    at = put(line, 0, names[skicket.purchaser_of(event)])
    at = put(line, at + 1, b"BID")
    at = _contract(skicket, line, at + 1, event)
    at = numl(line, at + 1, skicket.tricks_of(event))
    at = put(line, at, b" TRICKS ")
    put(line, at, b"MADE" if skicket.made(event) else b"SET")


def _contract(skicket, line, at, event):
    """bid, X (doubled) or XX (redoubled), L (lone). Returns the column after."""
    line[at] = 48 + skicket.level_of(event)
    at = put(line, at + 1, STRAINS[skicket.strain_of(event)])
    if skicket.redoubled_by_of(event) != NOBODY:
        at = put(line, at, b"XX")
    elif skicket.doubled_by_of(event) != NOBODY:
        at = put(line, at, b"X")
    if skicket.lone_of(event):
        at = put(line, at, b"L")
    return at


# --- the board's controls ---------------------------------------------------

def seat(board_input, game, seat, long):
    """A seat button opens the hand entry with the player in that seat as
    purchaser."""
    if game.complete():
        game.rules.refuse_over(game.state)
    # The pressing seat's player (pivoting moves players between seats:
    # docs/rules.md SK5) bought the bid.
    board_input.entry.open(game, game.rules.seat_player(game.hands(), seat & 3))


def open_entry(entry, game, purchaser):
    v = entry.values
    v[PURCHASER] = purchaser
    v[LEVEL] = 1
    v[STRAIN] = game.rules.CLUBS
    v[DOUBLED] = NOBODY
    v[REDOUBLED] = NOBODY
    v[LONE] = 0
    v[TRICKS] = 7  # a bid of 1 needs 6 + 1 tricks
    v[CONFIRM] = SAVE
    entry.step = PURCHASER


def reopen_entry(entry, game, event):
    """The entry of a hand rejected by an opponent (tallypanel.confirm): its
    values kept, for correction, from the first step."""
    skicket = game.rules
    v = entry.values
    v[PURCHASER] = skicket.purchaser_of(event)
    v[LEVEL] = skicket.level_of(event)
    v[STRAIN] = skicket.strain_of(event)
    v[DOUBLED] = skicket.doubled_by_of(event)
    v[REDOUBLED] = skicket.redoubled_by_of(event)
    v[LONE] = 1 if skicket.lone_of(event) else 0
    v[TRICKS] = skicket.tricks_of(event)
    v[CONFIRM] = SAVE
    entry.step = PURCHASER


def describe_hand(sheet, game, event, line):
    """One row saying what a hand held for its confirmation is."""
    _last_hand(game.rules, sheet.names, line, event)


def offers(entry, value):
    """Whether the knob offers value at the entry's step: only an adversary of
    the purchaser doubles, only the purchaser or his partner redoubles
    (docs/rules.md SK6); every other step offers all its values."""
    step = entry.step
    if (step != DOUBLED and step != REDOUBLED) or value == NOBODY:
        return True
    purchaser = entry.values[PURCHASER]
    own_side = value == purchaser or value == entry.rules.partner(entry.hand, purchaser)
    return own_side == (step == REDOUBLED)


def turned(entry):
    if entry.step == LEVEL:
        # Suggest the tricks the bid needs (docs/rules.md SK2: a bid of L needs 6+L).
        entry.values[TRICKS] = 6 + entry.values[LEVEL]


def push(entry, game):
    step = entry.step
    v = entry.values
    if step == PURCHASER and v[PURCHASER] == _MISDEAL_CHOICE:
        entry.step = CONFIRM
    elif step == DOUBLED and v[DOUBLED] == NOBODY:
        v[REDOUBLED] = NOBODY
        entry.step = LONE
    elif step < CONFIRM:
        step += 1
        entry.step = step
        if not offers(entry, v[step]):
            v[step] = NOBODY    # chosen before the purchaser was changed: no longer one who may
    elif v[CONFIRM] == CANCEL:
        entry.close()
    else:
        return entry.save(hand_event(entry, game))
    return False


def back(entry):
    step = entry.step
    if step == PURCHASER:
        entry.close()
    elif step == CONFIRM and entry.values[PURCHASER] == _MISDEAL_CHOICE:
        entry.step = PURCHASER
    elif step == LONE and entry.values[DOUBLED] == NOBODY:
        entry.step = DOUBLED
    else:
        entry.step = step - 1


def hand_event(entry, game):
    """The packed hand; ValueError from the core if a field is out of range."""
    skicket = game.rules
    v = entry.values
    if v[PURCHASER] == _MISDEAL_CHOICE:
        return skicket.MISDEAL
    return skicket.pack_hand(v[PURCHASER], v[LEVEL], v[STRAIN],
                             None if v[DOUBLED] == NOBODY else v[DOUBLED],
                             None if v[REDOUBLED] == NOBODY else v[REDOUBLED],
                             v[LONE] == 1, v[TRICKS])


def draw_entry(sheet, entry, game, at):
    """The entry screen's dealer (row 0 from column at), step (row 1), value
    (row 2, big) and what was entered so far (row 3); sheetview draws the rest."""
    skicket = game.rules
    lines = sheet.lines
    names = sheet.names
    v = entry.values
    step = entry.step
    if entry.hand < skicket.length(game.state):
        at = put(lines[0], at + 2, b"DEALER")
        put(lines[0], at + 1, names[skicket.dealer(entry.hand)])
    put(lines[1], 0, STEP_NAMES[step])
    line = lines[2]  # big
    value = v[step]
    if step == PURCHASER:
        if value == _MISDEAL_CHOICE:
            put(line, 4, b"MISDEAL")
        else:
            put(line, 6, names[value])
    elif step == LEVEL or step == TRICKS:
        num(line, 9, value)
    elif step == STRAIN:
        put(line, 2, _STRAIN_WORDS[value])
    elif step == DOUBLED or step == REDOUBLED:
        if value == NOBODY:
            put(line, 5, b"NOBODY")
        else:
            put(line, 6, names[value])
    elif step == LONE:
        put(line, 6, b"YES" if value else b"NO")
    else:
        put(line, 4, b"CANCEL" if value else b"YES")
    if step == PURCHASER:
        return
    line = lines[3]
    if v[PURCHASER] == _MISDEAL_CHOICE:
        put(line, 0, b"MISDEAL: THE SAME DEALER DEALS AGAIN")
        return
    at = put(line, 0, names[v[PURCHASER]])
    if step > LEVEL:
        line[at + 1] = 48 + v[LEVEL]
        at = at + 2
        if step > STRAIN:
            at = put(line, at, STRAINS[v[STRAIN]])
        if step > DOUBLED and v[DOUBLED] != NOBODY:
            at = put(line, at + 1, b"X:")
            at = put(line, at, names[v[DOUBLED]])
        if step > REDOUBLED and v[REDOUBLED] != NOBODY:
            at = put(line, at + 1, b"XX:")
            at = put(line, at, names[v[REDOUBLED]])
        if step > LONE and v[LONE]:
            at = put(line, at + 1, b"LONE")
        if step > TRICKS:
            at = numl(line, at + 1, v[TRICKS])
            put(line, at, b" TRICKS")
