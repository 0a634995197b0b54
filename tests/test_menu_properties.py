"""Any sequence of presses and turns on the board: no error escapes the
input handler, the board's game is exactly the events it submitted, and
whatever the hand entry saved was a hand the core accepts."""
from hypothesis import given, settings, strategies as st

from mpfixtures import Hands
from tallypanel import menu

from tallycore import roquet, skicket
from tallycore.game import Game

inputs = st.lists(st.one_of(
    st.tuples(st.sampled_from([menu.SEAT, menu.SEAT_LONG]), st.integers(0, 3)),
    st.tuples(st.just(menu.TURN), st.sampled_from([-1, 1, 2, -3])),
    st.tuples(st.sampled_from([menu.PUSH, menu.HOLD, menu.UNDO]), st.just(0)),
), max_size=120)


@settings(max_examples=150, deadline=None)
@given(rules=st.sampled_from([skicket, roquet]), presses=inputs)
def test_random_input_keeps_the_game_consistent(rules, presses):
    game = Game()
    game.new(rules, rules.MIN_PLAYERS, 0)
    applied = []

    def submit(event):
        game.apply(event)          # refuses (ValueError) without a change
        applied.append(event)

    def undo():
        game.undo()
        applied.pop()

    board = menu.BoardInput(Hands(game, submit, undo))
    for kind, value in presses:
        board.handle(kind, value)
        if board.note is not None:
            assert ":" in board.note   # the core's "field: what to do" message
    replay = Game()
    replay.new(rules, rules.MIN_PLAYERS, 0)
    for event in applied:
        replay.apply(event)
    assert bytes(replay.state) == bytes(game.state)
