# Confirmation by an opponent on the board's own controls, for a hand of several
# events entered from its description (tallypanel.entry): a rejected Rummy hand,
# entered on the knob or sent by the host, goes whole and its entry reopens with
# its values. (A Skicket hand's: tests/mp/test_confirm_panel.py, whose _do this uses.)
from mpfixtures import booted_app, cleanup, folder, send, shut
from tallypanel import confirm, menu
from tallycore import cards, rummy
from tallypanel import entry as walker
from tallycore.game import CONFIRM, HELD_APPLY
from test_confirm_panel import _do, _no_suit

RUMMY_NAMES = ("Ann", "Bob", "Cy")


def _rummy_wired(root):
    app, out = booted_app(root)
    for p in range(3):
        send(app, 1 + p, "CFG SET name %d %s" % (p, RUMMY_NAMES[p]))
    send(app, 4, "NEW rummy 3 %d" % CONFIRM)
    board_input = menu.BoardInput(app)
    return app, out, board_input


def _choose(board_input, index):
    """Turn the knob from the value shown (as the keeper reads it) to index, and push."""
    _do(board_input, (menu.TURN, index - walker.walk.value), menu.PUSH)


DONE = 13        # the cards step's special after its 13 ranks (A = 0 ... K = 12)


def _rummy_hand(board_input, bob_last):
    """Ann went out holding nothing; Bob holds 10, 3 and bob_last; Cy a king."""
    _do(board_input, menu.PUSH)                     # the entry opens at Ann's cards
    _choose(board_input, DONE)                      # Ann: none
    for rank in (10, 3, bob_last):
        _choose(board_input, rank - 1)
    _choose(board_input, DONE)
    _choose(board_input, 12)                        # Cy: K
    _choose(board_input, DONE)
    _choose(board_input, 0)                         # out: Ann
    _do(board_input, menu.PUSH)                     # SAVE THE HAND? YES


def test_a_rejected_rummy_hand_goes_whole_and_its_entry_reopens_with_its_values():
    root = folder("confirmrummy")
    try:
        app, out, board_input = _rummy_wired(root)
        game = app.game
        entry = board_input.entry
        _rummy_hand(board_input, 4)
        # the four cards counted at once (they close no hand), the OUT waits (docs/rules.md CF1)
        assert (game.n, game.held, game.held_event) == (4, HELD_APPLY, rummy.pack_out(0))
        # RU2, RU3: Bob 10 + 3 + 4 = 17 against, Cy K = 13; Ann out scored nothing, the best of the
        # hand (lowest wins), so Bob or Cy accepts (CF2)
        assert list(game.held_scores)[:3] == [0, 17, 13]
        assert game.held_by == 2 | 4
        _do(board_input, (menu.SEAT_LONG, 0))           # rejected on Ann's seat
        assert (game.n, game.held) == (0, 0)            # nothing of it left: not its cards either
        assert _totals3(game) == [0, 0, 0]
        # the entry is open at SAVE THE HAND? with the hand's values: the events it would send again
        assert entry.active and entry.step == walker.CONFIRM
        w = walker.walk
        assert list(w.events[:w.kept]) == [_no_suit(1, 10), _no_suit(1, 3), _no_suit(1, 4), _no_suit(2, 13),
                                          rummy.pack_out(0)]
        # corrected: Bob's last card was a 5. Back five values (out, Cy's DONE and K, Bob's DONE) to it
        _do(board_input, menu.HOLD, menu.HOLD, menu.HOLD, menu.HOLD, menu.HOLD)
        assert w.value == 3                             # Bob's 4, shown
        _choose(board_input, 4)                         # 5
        _choose(board_input, DONE)
        _choose(board_input, 12)
        _choose(board_input, DONE)
        _choose(board_input, 0)
        _do(board_input, menu.PUSH)
        assert (game.n, game.held) == (4, HELD_APPLY)
        _do(board_input, (menu.SEAT, 0))                # Ann did best: she cannot accept it
        assert game.held and board_input.refused == confirm.NOT_AN_OPPONENT
        _do(board_input, (menu.SEAT, 2))                # Cy accepts
        # RU2, RU3: Bob 10 + 3 + 5 = 18, Cy 13, Ann 0
        assert (game.n, game.held, game.hands()) == (5, 0, 1)
        assert _totals3(game) == [0, 18, 13]
        shut(app, out)
        # journaled like any undo: after a power cut the game is the accepted hand alone
        app, out = booted_app(root)
        assert (app.game.n, _totals3(app.game)) == (5, [0, 18, 13])
        assert list(app.game.log[:5]) == [_no_suit(1, 10), _no_suit(1, 3), _no_suit(1, 5), _no_suit(2, 13),
                                          rummy.pack_out(0)]
        shut(app, out)
    finally:
        cleanup(root)


def _totals3(game):
    return [game.total(p) for p in range(3)]


def test_a_rejected_rummy_hand_from_the_host_reopens_the_entry_with_its_values():
    root = folder("confirmrummy")
    try:
        app, out, board_input = _rummy_wired(root)
        game = app.game
        entry = board_input.entry
        # what `tallyboard enter` sends for {"out": 2, "cards": [["7"], ["Q", "2"], []]}: each
        # player's cards in seat order, then who went out
        hand = [_no_suit(0, 7), _no_suit(1, 12), _no_suit(1, 2), rummy.pack_out(2)]
        send(app, 10, *["EV %d" % event for event in hand])
        assert (game.n, game.held) == (3, HELD_APPLY)
        _do(board_input, (menu.SEAT_LONG, 1))
        assert (game.n, game.held, _totals3(game)) == (0, 0, [0, 0, 0])
        assert entry.active and entry.step == walker.CONFIRM and entry.error is None
        w = walker.walk
        assert list(w.events[:w.kept]) == hand
        # the values behind them, as the keeper walks back: out Cy, Cy's DONE, Bob's DONE, 2, Q
        shown = []
        for _ in range(5):
            _do(board_input, menu.HOLD)
            shown.append(w.value)
        assert shown == [2, DONE, DONE, 1, 11]
        # a card with its suit (the king of hearts: suit 2) is more than the entry asks: it reopens empty
        _do(board_input, menu.HOLD, menu.HOLD, menu.HOLD, menu.HOLD)
        assert not entry.active
        send(app, 20, "EV %d" % rummy.pack_card(1, cards.card(cards.KING, 2)), "EV %d" % _no_suit(2, 5),
             "EV %d" % rummy.pack_out(0))
        assert (game.n, game.held) == (2, HELD_APPLY)
        _do(board_input, (menu.SEAT_LONG, 1))
        assert (game.n, game.held) == (0, 0)
        assert entry.active and entry.step == 0 and walker.walk.kept == 0
        assert entry.error == "hand: the board's entry cannot show it; enter it again"
        shut(app, out)
    finally:
        cleanup(root)
