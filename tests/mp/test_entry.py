# The board's own entry of every game without a view of its own
# (tallypanel.entry, walked from the rules module's ENTRY): a hand of each
# entered with the knob and the seat buttons, the totals worked out by hand
# from docs/rules.md; refused values return to their field with the core's
# message; the actions each hand costs (docs/display.md, "Entry cost");
# nothing allocated per press or turn (micropython.heap_lock).
try:
    import framebuf
except ImportError:
    framebuf = None

from mpfixtures import Hands, skip
from tallypanel import entry as walker
from tallypanel import menu
from tallycore.game import Game

PUSH = menu.PUSH
HOLD = menu.HOLD


def turn(n):
    return (menu.TURN, n)


def seat(n):
    return (menu.SEAT, n)


class Board:
    """A game and a BoardInput wired to it, as the app wires them; counts
    the presses (a push, a hold, a seat) and the detents the knob turns."""

    def __init__(self, name, players, options=0):
        self.game = Game()
        self.game.new(name, players, options)
        self.sent = []
        self.presses = 0
        self.detents = 0
        self.record = True
        self.input = menu.BoardInput(Hands(self.game, self.submit))

    def submit(self, event):
        self.game.apply(event)  # raises ValueError, changing nothing, if refused
        if self.record:
            self.sent.append(event)

    def do(self, *inputs):
        for one in inputs:
            if isinstance(one, tuple):
                self.input.handle(one[0], one[1])
                if one[0] == menu.TURN:
                    self.detents += abs(one[1])
                else:
                    self.presses += 1
            else:
                self.input.handle(one)
                self.presses += 1
        return self

    def totals(self):
        return [self.game.total(p) for p in range(self.game.players)]

    def error(self):
        return self.input.entry.error


# --- a hand of each game --------------------------------------------------------
# Each HANDS row: the game, its players, the inputs of one hand, the totals
# after it (worked out in the comment), what it costs: (presses, detents).
# The costs are the table of docs/display.md (tests/test_board_entry.py
# holds the two equal) and tests/test_board_entry.py presses the same hands
# on the emulated board.

HANDS = (
    # Hoodoo (rules.md HO2): the first out wins the hand, 1 to him. Seat 2
    # opens the entry with C chosen; push saves.
    ("hoodoo", 4, (seat(2), PUSH), [0, 0, 1, 0], (2, 0)),
    # Ups and Downs (UD2): the same, B out first.
    ("ups_and_downs", 5, (seat(1), PUSH), [0, 1, 0, 0, 0], (2, 0)),
    # Foozle (FO3): C bids 3, takes 4: made, 3 x (3 - 1) opponents = 6 to C.
    # seat C, bid 1 + 2, tricks 0 + 4, save.
    ("foozle", 3, (seat(2), turn(2), PUSH, turn(4), PUSH, PUSH), [0, 0, 6], (4, 6)),
    # Coronado (CO4): first dealer A; B, the non-dealer, drew and took
    # all five: 2 to B. Mode STAND + 2 = DREW, tricks 0 + 5.
    ("coronado", 2, (PUSH, turn(2), PUSH, turn(5), PUSH, PUSH), [0, 2], (4, 7)),
    # Sachem (SA2): first trump A (3), last trump C (3), nine B (9), sachem
    # A (7): A 3 + 7 = 10, B 9, C 3.
    ("sachem", 3, (seat(0), seat(2), seat(1), seat(0), PUSH), [10, 9, 3], (5, 0)),
    # Jaimy (JA2): B claimed three tricks, 3 to B. Scored NOBODY + 1 =
    # CLAIMED, B by his seat, save.
    ("jaimy", 3, (PUSH, turn(1), PUSH, seat(1), PUSH), [0, 3, 0], (4, 1)),
    # Despised Nines (DN2): nines A 2, B 0, C 1, D 1: 4 each against:
    # 8, 0, 4, 4.
    ("despised_nines", 4, (PUSH, turn(2), PUSH, PUSH, turn(1), PUSH, turn(1), PUSH, PUSH),
     [8, 0, 4, 4], (6, 4)),
    # Doolittle (DO2): takers B B A C C C: B 5 + 5 = 10, A 10, C 10 + 20 + 30
    # = 60. Six seat presses, DONE is C (2) + 1, save.
    ("doolittle", 3, (seat(1), seat(1), seat(0), seat(2), seat(2), seat(2), turn(1), PUSH, PUSH),
     [10, 10, 60], (8, 1)),
    # Numero (NU3): cards held A 20, B 12, C 0, D 20: A and D tie on the
    # most, 1 hand each.
    ("numero", 4, (PUSH, turn(20), PUSH, turn(12), PUSH, PUSH, turn(20), PUSH, PUSH),
     [1, 0, 0, 1], (6, 52)),
    # Quatro (QU3): tricks A 6, B 5, C 2 (13): the totals add the tricks.
    ("quatro", 3, (PUSH, turn(6), PUSH, turn(5), PUSH, turn(2), PUSH, PUSH), [6, 5, 2], (5, 13)),
    # Rummy (RU2): A out; B holds 10, 3, 4: 17 against B. A: DONE (A - 1);
    # B: A + 9 = 10, 10 - 7 = 3, 3 + 1 = 4, 4 - 4 = DONE; out: A; save.
    ("rummy", 2, (PUSH, turn(-1), PUSH, turn(9), PUSH, turn(-7), PUSH, turn(1), PUSH, turn(-4), PUSH,
                  PUSH, PUSH), [0, 17], (8, 22)),
    # Parquet (PQ1, scored as Rummy): B out; A holds K: 13 against A.
    # A: A - 2 = K (DONE is after K); then K + 1 = DONE; B: the K kept,
    # + 1 = DONE; out B by his seat; save.
    ("parquet", 2, (PUSH, turn(-2), PUSH, turn(1), PUSH, turn(1), PUSH, seat(1), PUSH), [13, 0], (6, 4)),
    # Bishops Whist (BW4): first dealer A. A+C take 8 tricks (2 over
    # six), 3 bishops (6), no bishop turned: 8; B+D 5 tricks, 1 bishop: 2.
    # tricks 0 + 8, bishops 0 + 3, turned NO, penalties NO, save.
    ("bishops_whist", 4, (PUSH, turn(8), PUSH, turn(3), PUSH, PUSH, PUSH, PUSH), [8, 2, 8, 2], (6, 11)),
    # Moosehead (MH3-MH5): the plays of the record example: B K (10), A 5
    # (15: A 2), B 4 (19), A A (20: A 2), B 3 (23), A 4 (27), B 2 (29), B A
    # (30: B 2), A 2 (2), A 3 (5), go (A 1); the rest of the five cards: B 5
    # (10) ... see test_moosehead_hand below, which enters a whole hand.
)


def _run(row):
    name, players, inputs, totals, cost = row
    b = Board(name, players)
    b.do(*inputs)
    assert not b.input.entry.active, (name, b.error(), b.input.note)
    assert b.totals() == totals, (name, b.totals())
    assert (b.presses, b.detents) == cost, (name, b.presses, b.detents)
    return b


def test_a_hand_of_each_game_from_the_controls():
    for row in HANDS:
        _run(row)


# A whole Moosehead hand of two (docs/rules.md MH3-MH5): who played (a seat,
# or the next player, suggested, by a push), then the rank from the rank
# chosen last (a turn is a difference of rank: A 2 ... 10 J Q K).
MOOSEHEAD = (
    seat(1), turn(12), PUSH,        # B K (10)
    PUSH, turn(-8), PUSH,           # A 5 (15): A pegs 2
    PUSH, turn(-1), PUSH,           # B 4 (19)
    PUSH, turn(-3), PUSH,           # A A (20): A pegs 2
    PUSH, turn(2), PUSH,            # B 3 (23)
    PUSH, turn(1), PUSH,            # A 4 (27)
    PUSH, turn(-2), PUSH,           # B 2 (29)
    seat(1), turn(-1), PUSH,        # B A (30): B pegs 2, the count starts again
    PUSH, turn(1), PUSH,            # A 2 (2)
    seat(0), turn(1), PUSH,         # A 3 (5)
    turn(1), PUSH,                  # suggested B + 1 = GO: A played last, pegs 1
    turn(2), PUSH,                  # suggested B (after A) + 2 = DONE; save
    PUSH,
)

MOOSEHEAD_COST = (23, 35)


def test_moosehead_hand():
    # The suggestion after A's 3 is B (1); GO is the value after the players
    # (2), DONE after it (3).
    b = Board("moosehead", 2)
    inputs = MOOSEHEAD
    b.do(*inputs)
    assert not b.input.entry.active, (b.error(), b.input.note)
    # Pegging (MH3, MH4): A 2 (15) + 2 (20) + 1 (the go) = 5, B 2 (30).
    # Fifteens (MH5, faces 10): A's 5, A, 4, 2, 3 add up to 15, one
    # combination: 2. B's K, 4, 3, 2, A: K+4+A and K+3+2: 4.
    # A 5 + 2 = 7, B 2 + 4 = 6.
    assert b.totals() == [7, 6], b.totals()
    assert (b.presses, b.detents) == MOOSEHEAD_COST, (b.presses, b.detents)


# --- refused values -------------------------------------------------------------

def test_a_refused_value_returns_to_its_field_with_the_cores_message():
    # Quatro's tricks must add up to 13: 6 + 5 + 1 is refused at the end,
    # and the entry is back at the last count, the message shown.
    b = Board("quatro", 3)
    b.do(PUSH, turn(6), PUSH, turn(5), PUSH, turn(1), PUSH)
    entry = b.input.entry
    assert entry.active and b.error() == "tricks: must add up to 13, not 12", b.error()
    assert walker.walk.step == 0 and walker.walk.player == 2 and walker.walk.value == 1
    assert b.sent == [] and b.game.hands() == 0
    b.do(turn(1), PUSH, PUSH)
    assert b.error() is None and b.totals() == [6, 5, 2]


def test_a_card_past_thirty_is_refused_where_it_was_entered():
    # Moosehead (MH3): 30 is the limit of the count.
    b = Board("moosehead", 2)
    b.do(PUSH, PUSH, turn(12), PUSH)        # open; A plays K (10)
    b.do(PUSH, PUSH)                        # B plays K (20)
    b.do(PUSH, turn(-4), PUSH)              # A plays K - 4 = 9 (29)
    b.do(PUSH, turn(-4), PUSH)              # B plays 9 - 4 = 5: 34
    assert b.error() == "plays: 5 would take the count to 34, past 30", b.error()
    walk = walker.walk
    assert walk.step == 1 and walk.value == 4   # back at the rank, the 5 shown
    b.do(turn(-4), PUSH)                        # an A: 30
    assert b.error() is None and walk.kept == 4


def test_bishops_without_tricks_are_refused():
    # BW: a side that took no tricks has no bishops.
    b = Board("bishops_whist", 4)
    b.do(PUSH, PUSH, turn(2), PUSH, PUSH, PUSH)    # A+C 0 tricks, 2 bishops
    assert b.error() == "bishops: side 0 won no tricks, so no bishops", b.error()
    assert walker.walk.step == 2 and walker.walk.value == 2
    b.do(turn(-2), PUSH, PUSH, PUSH, PUSH)
    # B+D 13 tricks (7 over six) and the four bishops (8): 15
    assert b.totals() == [0, 15, 0, 15]


def test_misdeal_and_penalties_in_bishops_whist():
    b = Board("bishops_whist", 4)
    b.do(PUSH, turn(-1), PUSH, PUSH)               # MISDEAL, save
    assert b.sent == [1 << 27] and b.totals() == [0, 0, 0, 0]
    # first dealer A, a misdeal passed the deal: B deals. A+C 7 tricks (1),
    # 2 bishops (4), a bishop turned (to B+D, the dealer's side: 1), one
    # revoke by A+C (-4): A+C 1 + 4 - 4 = 1; B+D 6 tricks (0), 2 bishops (4)
    # + 1 = 5.
    b.do(PUSH, turn(7), PUSH, turn(2), PUSH, turn(1), PUSH, turn(1), PUSH)
    b.do(PUSH, PUSH, turn(1), PUSH, PUSH, PUSH)
    assert b.totals() == [1, 5, 1, 5], b.totals()


def test_hold_goes_back_and_out():
    b = Board("foozle", 4)
    walk = walker.walk
    b.do(seat(3), turn(4), PUSH)                   # D, bid 5
    assert walk.step == 2
    b.do(HOLD)
    assert walk.step == 1 and walk.value == 4      # the bid shown again: 1 + 4
    b.do(HOLD, HOLD)
    assert not b.input.entry.active and b.sent == []


def test_cancel_scores_nothing():
    b = Board("hoodoo", 3)
    b.do(seat(1), turn(1), PUSH)
    assert not b.input.entry.active and b.sent == [] and b.game.hands() == 0


def test_a_seat_where_no_player_sits_says_so():
    b = Board("jaimy", 3)
    b.do(PUSH, turn(1), PUSH, seat(3))
    assert b.error() == "seat: no player sits there; turn the knob to choose", b.error()
    b.do(seat(0), PUSH)
    assert b.totals() == [3, 0, 0]


def test_the_game_over_is_said_on_a_seat():
    b = Board("hoodoo", 2)
    b.do(seat(0), PUSH, seat(1), PUSH)            # every player has dealt
    assert b.game.complete()
    b.do(seat(0))
    assert b.input.note == "game: the game is over" and b.game.hands() == 2


# --- no allocation ----------------------------------------------------------------

def test_entering_a_hand_allocates_nothing():
    if framebuf is None:
        skip("needs micropython.heap_lock and framebuf: runs in the MicroPython pass "
             "(tests/test_display_micropython.py)")
    import micropython
    screen = Screen()
    for row in HANDS + (("moosehead", 2, MOOSEHEAD, None, 0),):
        name, players, inputs = row[0], row[1], row[2]
        b = Board(name, players)
        b.record = False                    # the list of events sent would grow
        b.do(PUSH, HOLD)                    # the entry's module loaded and its buffers made
        b.do(turn(1), turn(-1))
        handle = b.input.handle
        entry = b.input.entry
        sheet = screen.view
        game = b.game
        sheet.draw_game(game)               # a new game's name is made once
        micropython.heap_lock()
        try:
            for one in inputs:          # no call with *args: its tuple would be made
                if isinstance(one, tuple):
                    handle(one[0], one[1])
                else:
                    handle(one)
                if entry.active:
                    sheet.draw_entry(entry, game)
                else:
                    sheet.draw_game(game)
        finally:
            micropython.heap_unlock()
        assert not b.input.entry.active, (name, b.error())
        assert b.game.hands() == 1, name


# --- the screen -------------------------------------------------------------------

class Screen:
    def __init__(self):
        from tallypanel.sheetview import SheetView
        self.buf = bytearray(1024)
        self.view = SheetView(framebuf.FrameBuffer(self.buf, 128, 64, framebuf.MONO_VLSB))
        self.view.set_names(["Ann", "Bob", "Cy", "Dee"])

    def rows(self):
        return [bytes(line).rstrip() for line in self.view.lines[:8]]


def test_the_entry_screens():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    screen = Screen()
    b = Board("despised_nines", 5)
    b.do(PUSH, turn(2), PUSH)
    screen.view.draw_entry(b.input.entry, b.game)
    rows = screen.rows()
    assert rows[0] == b"HAND 1", rows
    assert rows[1] == b"NINES OF Bob", rows
    assert rows[2] == b"<      0       >", rows
    assert rows[3] == b"", rows              # nothing kept yet: one event, at the end
    b.do(PUSH, turn(1), PUSH, PUSH, turn(1), PUSH)
    screen.view.draw_entry(b.input.entry, b.game)
    rows = screen.rows()
    # Ann 2, Bob 0, Cy 1, Dee 0, P5 1: 4 points against each nine (DN2)
    assert rows[1] == b"SAVE THE HAND?" and rows[2] == b"<   YES        >", rows
    assert rows[3] == b"Ann+8   Bob+0   Cy+4    Dee+0", rows
    assert rows[4] == b"P5+4", rows
    assert rows[7] == b"TURN:CHOOSE PUSH:OK HOLD:BACK", rows
    b = Board("moosehead", 2)
    b.do(PUSH, PUSH, turn(12), PUSH, PUSH, turn(-8), PUSH)     # A K, B 5: 15
    screen.view.draw_entry(b.input.entry, b.game)
    rows = screen.rows()
    assert rows[1] == b"PLAYS" and rows[2] == b"<     Ann      >", rows
    assert rows[3] == b"Ann+0   Bob+2", rows            # B made 15: pegs 2
