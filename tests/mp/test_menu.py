# The board's own controls: the encoder's Skicket hand entry (confirm, back,
# cancel, refused entries), seat pegging in Roquet, debounced buttons and the
# quadrature decoding of the encoder.
from mpfixtures import Hands
from tallypanel import boarddef, menu, roquetview, skicketview
from tallycore import roquet, skicket
from tallycore.game import Game
from tallypanel.inputs import Button, Encoder, Inputs

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"


class Board:
    """A game and a BoardInput wired to it, as the app wires them."""

    def __init__(self, rules, players):
        self.game = Game()
        self.game.new(rules, players, 0)
        self.sent = []
        self.input = menu.BoardInput(Hands(self.game, self.submit))

    def submit(self, event):
        self.game.apply(event)  # raises ValueError, changing nothing, if refused
        self.sent.append(event)

    def do(self, *steps):
        for step in steps:
            if isinstance(step, tuple):
                self.input.handle(step[0], step[1])
            else:
                self.input.handle(step)


def turn(n):
    return (menu.TURN, n)


def test_entering_a_skicket_hand_with_the_knob():
    b = Board(skicket, 4)
    e = b.input.entry
    b.do(menu.PUSH)
    assert e.active and e.step == skicketview.PURCHASER
    b.do(turn(1), menu.PUSH)                    # purchaser B
    b.do(turn(3), menu.PUSH)                    # level 1 -> 4
    b.do(turn(2), menu.PUSH)                    # strain C -> H
    assert e.step == skicketview.DOUBLED
    b.do(menu.PUSH)                             # doubled by nobody: redouble skipped
    assert e.step == skicketview.LONE
    b.do(menu.PUSH)                             # not lone
    assert e.step == skicketview.TRICKS and e.value() == 10   # 6 + 4 suggested
    b.do(menu.PUSH)
    assert e.step == skicketview.CONFIRM
    b.do(menu.PUSH)
    assert not e.active
    assert b.sent == [skicket.pack_hand(1, 4, skicket.HEARTS, None, None, False, 10)]
    # B bid 4H and took 10 (needs 6 + 4): B and partner D (seat 3) get
    # 60 + 10 * 4 = 100 each; A and C get 10 x (13 - 10) = 30.
    assert [b.game.total(p) for p in range(4)] == [30, 100, 30, 100]


def test_doubled_and_redoubled_hand():
    b = Board(skicket, 4)
    # A bids 2S, doubled by B, redoubled by A, takes 7 (needs 8): set.
    b.do(menu.PUSH, menu.PUSH, turn(1), menu.PUSH, turn(1), menu.PUSH)
    b.do(turn(-2), menu.PUSH)                   # doubled by: NOBODY(4) - 2: D, then B (A's adversaries, SK6)
    assert b.input.entry.step == skicketview.REDOUBLED
    b.do(turn(1), menu.PUSH)                    # NOBODY + 1 wraps to A
    b.do(menu.PUSH, turn(-1), menu.PUSH, menu.PUSH)  # not lone, tricks 8 - 1 = 7
    assert b.sent == [skicket.pack_hand(0, 2, skicket.SPADES, 1, 0, False, 7)]
    # Redoubled and set: the doubler B and his partner D get 4 x 80 = 320; the
    # loser A gets 0, his partner C 10 x 7 = 70.
    assert [b.game.total(p) for p in range(4)] == [0, 320, 70, 320]


def test_hold_goes_back_one_step_and_out_of_the_first():
    b = Board(skicket, 4)
    e = b.input.entry
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH)  # at DOUBLED
    b.do(menu.PUSH)                                   # nobody -> LONE
    b.do(menu.HOLD)
    assert e.step == skicketview.DOUBLED              # back skips the redouble
    b.do(menu.HOLD, menu.HOLD)
    assert e.step == skicketview.LEVEL
    b.do(menu.UNDO)                                   # undo backs out too
    assert e.step == skicketview.PURCHASER
    b.do(menu.HOLD)
    assert not e.active and b.sent == [] and b.game.hands() == 0


def test_cancel_at_confirm_scores_nothing():
    b = Board(skicket, 4)
    b.do(menu.PUSH)
    for _ in range(6):  # purchaser, level, strain, doubled (nobody), lone, tricks
        b.do(menu.PUSH)
    assert b.input.entry.step == skicketview.CONFIRM
    b.do(turn(1), menu.PUSH)                    # SAVE -> CANCEL
    assert not b.input.entry.active and b.sent == [] and b.game.hands() == 0


def test_refused_hand_returns_to_the_field_with_the_cores_message():
    b = Board(skicket, 4)
    e = b.input.entry
    # A bids 1C, doubled by B, redoubled by C (A's partner, seats 0 and 2), alone: a lone
    # hand is redoubled by the purchaser himself (SK13), refused.
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH, turn(1), menu.PUSH)   # doubled by B
    b.do(turn(-1), menu.PUSH)                   # redoubled by: NOBODY - 1 = C (A, C, NOBODY offered)
    b.do(turn(1), menu.PUSH, menu.PUSH, menu.PUSH)  # lone yes, tricks, confirm
    assert e.active and e.step == skicketview.REDOUBLED
    assert e.error.startswith("redoubled_by:"), e.error
    assert b.sent == [] and b.game.hands() == 0
    b.do(turn(-1))                              # C -> A, the purchaser himself
    assert e.error is None
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH)  # lone, tricks, confirm, save
    assert not e.active and len(b.sent) == 1


def _offered(b, detents):
    """The values the knob shows at the entry's step, one detent at a time."""
    shown = []
    for _ in range(detents):
        b.do(turn(1))
        shown.append(b.input.entry.value())
    return shown


def test_doubled_by_offers_only_the_purchasers_adversaries():
    # issue 44, friction 7: only an adversary of the purchaser doubles, only the purchaser or
    # his partner redoubles (docs/rules.md SK6). A=0 B=1 C=2 D=3, NOBODY=4.
    b = Board(skicket, 4)
    e = b.input.entry
    # hand 1 (SK5: partners A-C, B-D), A buys: doubled by B, D or nobody
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH)
    assert e.step == skicketview.DOUBLED and e.value() == skicketview.NOBODY
    assert _offered(b, 4) == [1, 3, 4, 1]
    b.do(turn(-1), turn(-1))                    # back the other way: NOBODY, then D
    assert e.value() == 3
    b.do(menu.PUSH)                             # doubled by D: redoubled by A, C or nobody
    assert e.step == skicketview.REDOUBLED and e.value() == skicketview.NOBODY
    assert _offered(b, 4) == [0, 2, 4, 0]


def test_doubled_by_follows_the_pivot():
    # hands 3-4 (SK5: seats A, C, B, D; partners A-B, C-D): A's adversaries are C and D
    b = Board(skicket, 4)
    for _ in range(2):
        b.submit(skicket.pack_hand(0, 1, skicket.CLUBS, None, None, False, 7))
    e = b.input.entry
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH)   # A buys hand 3
    assert e.step == skicketview.DOUBLED and e.hand == 2
    assert _offered(b, 3) == [2, 3, 4]


def test_a_double_chosen_before_the_purchaser_changed_is_not_kept_from_his_side():
    b = Board(skicket, 4)
    e = b.input.entry
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, menu.PUSH, turn(1))   # A buys, doubled by B
    assert e.value() == 1
    b.do(menu.HOLD, menu.HOLD, menu.HOLD, turn(1))              # back to the purchaser: B
    b.do(menu.PUSH, menu.PUSH, menu.PUSH)                       # B can not double his own bid
    assert e.step == skicketview.DOUBLED and e.value() == skicketview.NOBODY
    assert _offered(b, 2) == [0, 2]                             # A and C, B's adversaries


def test_lone_no_trick_is_refused():
    b = Board(skicket, 4)
    e = b.input.entry
    b.do(menu.PUSH, menu.PUSH, menu.PUSH, turn(-1), menu.PUSH)  # strain C - 1 = NK
    b.do(menu.PUSH, turn(1), menu.PUSH, menu.PUSH, menu.PUSH)   # lone yes
    assert e.step == skicketview.LONE and e.error.startswith("lone:"), e.error
    assert b.sent == []


def test_misdeal_from_the_purchaser_step():
    b = Board(skicket, 4)
    b.do(menu.PUSH, turn(-1), menu.PUSH)        # A - 1 wraps to MISDEAL
    assert b.input.entry.step == skicketview.CONFIRM
    b.do(menu.PUSH)
    assert b.sent == [skicket.MISDEAL] and b.game.hands() == 0


def test_seat_button_opens_the_entry_for_the_player_in_that_seat():
    b = Board(skicket, 4)
    for h in range(2):
        b.game.apply(skicket.pack_hand(0, 1, 0, None, None, False, 7))
    # Hands 3-4 seat A C B D (GAMES.md "Pivoting"): seat 1 holds C.
    b.do((menu.SEAT, 1))
    assert b.input.entry.active and b.input.entry.value() == 2


def test_roquet_seats_peg_and_the_knob_ends_the_hand():
    b = Board(roquet, 2)
    b.do((menu.SEAT, 0), (menu.SEAT_LONG, 1), (menu.SEAT, 0))
    assert b.sent == [roquet.pack_peg(0, 1), roquet.pack_peg(1, 5), roquet.pack_peg(0, 1)]
    b.do(menu.UNDO)
    assert roquet.tally(b.game.state, 0) == 1
    b.do(menu.PUSH)
    assert b.input.entry.step == roquetview.END_HAND
    b.do(menu.PUSH)
    assert b.sent[-1] == roquet.HAND_END and roquet.king_total(b.game.state, 1) == 5
    b.do((menu.SEAT, 2))
    assert b.input.note.startswith("seat:"), b.input.note


def test_refused_input_leaves_a_note_and_changes_nothing():
    b = Board(roquet, 2)
    b.do(menu.UNDO)
    assert b.input.note.startswith("undo:")
    b.game.apply(roquet.pack_peg(0, 99))
    b.game.apply(roquet.pack_peg(0, 1))         # 100: the game is over
    b.do((menu.SEAT, 1))
    assert b.input.note == "game: the game is over"
    assert roquet.tally(b.game.state, 1) == 0


class Pins:
    def __init__(self):
        self.level = [1] * 30   # pulled up: released

    def reader(self, gpio):
        return lambda: self.level[gpio]


def test_button_press_long_press_and_shift():
    got = []
    pins = Pins()
    shift = Button(pins.reader(15), lambda k, v: None, -1)
    button = Button(pins.reader(10), lambda k, v: got.append((k, v)), menu.SEAT, menu.SEAT_LONG, 0, shift)
    pins.level[10] = 0
    button.poll(0)
    button.poll(50)
    assert got == []                            # sent on release
    pins.level[10] = 1
    button.poll(100)
    assert got == [(menu.SEAT, 0)]
    pins.level[10] = 0
    button.poll(200)
    button.poll(200 + Button.long_press_ms)
    assert got[-1] == (menu.SEAT_LONG, 0)
    pins.level[10] = 1
    button.poll(900)
    assert len(got) == 2                        # nothing more on release
    pins.level[15] = 0
    shift.poll(1000)
    pins.level[10] = 0
    button.poll(1000)
    assert got[-1] == (menu.SEAT_LONG, 0) and len(got) == 3


def test_encoder_quadrature_detents_and_bounce():
    got = []
    pins = Pins()
    enc = Encoder(pins.reader(16), pins.reader(17), lambda k, v: got.append(v), 4)

    def step(a, b):
        pins.level[16] = a
        pins.level[17] = b
        enc.poll()
    # Rest at 11. Clockwise: 11 -> 10 -> 00 -> 01 -> 11 is one detent.
    for a, b in ((1, 0), (0, 0), (0, 1), (1, 1)):
        step(a, b)
    assert got == [1]
    for a, b in ((0, 1), (0, 0), (1, 0), (1, 1)):
        step(a, b)
    assert got == [1, -1]
    for a, b in ((1, 0), (1, 1), (1, 0), (1, 1)):  # contact bounce: no detent
        step(a, b)
    assert got == [1, -1]


def test_inputs_from_the_reference_board():
    got = []
    pins = Pins()
    inputs = Inputs(boarddef.find("pico-reference", BOARD_DIR), pins.reader,
                    lambda k, v: got.append((k, v)))
    pins.level[14] = 0                         # undo: sent on press
    inputs.poll(0)
    pins.level[14] = 1
    pins.level[18] = 0                         # encoder push
    inputs.poll(60)
    pins.level[18] = 1
    inputs.poll(120)
    assert got == [(menu.UNDO, 0), (menu.PUSH, 0)]


class BoardWithNewGame(Board):
    """A Board whose knob hold starts the game again, and whose host's
    archive holds the game when `archived` says so (the app's local_new, kept)."""

    def __init__(self, rules, players):
        Board.__init__(self, rules, players)
        self.archived = False
        self.started = 0
        self.input = menu.BoardInput(Hands(self.game, self.submit, new_game=self.new_game,
                                           kept=lambda: self.archived))

    def new_game(self):
        self.started += 1
        self.game.new(self.game.name(), self.game.players, self.game.options)


def test_new_game_on_the_board_asks_once_for_an_empty_or_archived_game():
    b = BoardWithNewGame(roquet, 2)
    q = b.input.question
    b.do(menu.HOLD)                   # nothing scored: the question, then a push starts again
    assert q.active and not q.warning
    b.do(menu.PUSH)
    assert not q.active and b.started == 1
    b.do((menu.SEAT, 0))              # player 0 pegs 1, and the host archives the game
    b.archived = True
    b.do(menu.HOLD, menu.PUSH)
    assert b.started == 2 and b.game.n == 0


def test_new_game_over_an_unarchived_game_warns_and_needs_a_second_push():
    b = BoardWithNewGame(roquet, 2)
    q = b.input.question
    b.do((menu.SEAT, 0))              # player 0 pegs 1: something scored, not archived
    b.do(menu.HOLD, menu.PUSH)
    assert q.active and q.warning and b.started == 0 and b.game.n == 1
    b.do(menu.HOLD)                   # keep it
    assert not q.active and b.game.n == 1
    b.do(menu.HOLD, menu.PUSH, menu.UNDO)   # undo also keeps it, and undoes nothing
    assert not q.active and b.game.n == 1
    b.do(menu.HOLD, menu.PUSH, menu.PUSH)   # warned, then dropped
    assert b.started == 1 and b.game.n == 0


def test_the_warning_is_decided_at_the_push():
    b = BoardWithNewGame(roquet, 2)
    q = b.input.question
    b.do(menu.HOLD)
    b.game.apply(roquet.pack_peg(1, 5))   # the host pegs while the question is open
    b.do(menu.PUSH)
    assert q.warning and b.started == 0
    b.do(menu.PUSH)
    assert b.started == 1


def test_without_new_game_the_hold_does_nothing():
    b = Board(roquet, 2)
    b.do(menu.HOLD, menu.PUSH)        # the push ends the hand's question as before
    assert not b.input.question.active


def test_a_finished_game_unarchived_is_warned_about_too():
    # issue 32: a finished game is never dropped unarchived without the user saying so
    b = BoardWithNewGame("hoodoo", 2)
    q = b.input.question
    b.game.apply(0)                     # docs/rules.md HO3: one deal per player, a hand won counts 1:
    b.game.apply(1)                     # two players, two deals, and the game is over
    assert b.game.complete()
    b.do(menu.HOLD, menu.PUSH)
    assert q.active and q.warning and b.started == 0 and b.game.n == 2
    b.do(menu.HOLD)                     # kept
    b.archived = True                   # once the host holds it (KEPT), one push starts again
    b.do(menu.HOLD, menu.PUSH)
    assert b.started == 1 and b.game.n == 0
