"""The current budget is never exceeded: any frame, any settings.

The budget's estimate (DESIGN.md "Power", as WLED's limiter): each channel
value v draws v / 255 * ma_per_channel mA, and every LED idles at
idle_ma_per_led. Checked here with exact fractions, independently of the
firmware's integer arithmetic."""
from fractions import Fraction
from pathlib import Path

from hypothesis import given, settings, strategies as st

from tallypanel import boarddef, ledfield

from tallycore import roquet
from tallycore.game import Game

BOARD_DIR = str(Path(__file__).resolve().parent.parent / "board")
BOARD = boarddef.find("pico-reference", BOARD_DIR)


def current_ma(frame, board):
    return Fraction(sum(frame) * board.ma_per_channel, 255) + board.idle_ma_per_led * board.led_count


budgets = st.integers(min_value=BOARD.led_count + 1, max_value=20000)


@settings(max_examples=200, deadline=None)
@given(frame=st.binary(min_size=396, max_size=396), budget=budgets)
def test_limiter_keeps_any_frame_within_budget(frame, budget):
    field = ledfield.LedField(BOARD)
    field.set_budget(budget)
    field.frame[:] = frame
    field._limit()
    assert current_ma(field.frame, BOARD) <= budget
    if current_ma(frame, BOARD) <= budget:
        assert bytes(field.frame) == frame  # a frame within budget is untouched
    else:
        assert field.scaled
        assert all(new <= old for new, old in zip(field.frame, frame))


rgb = st.tuples(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
pegs = st.lists(st.one_of(st.tuples(st.integers(0, 1), st.integers(1, 30)), st.just(None)), max_size=30)


@settings(max_examples=100, deadline=None)
@given(brightness=st.integers(0, 255), colours=st.lists(rgb, min_size=2, max_size=2),
       budget=budgets, moves=pegs)
def test_composed_roquet_frames_stay_within_budget(brightness, colours, budget, moves):
    field = ledfield.LedField(BOARD)
    field.set_brightness(brightness)
    for p, (r, g, b) in enumerate(colours):
        field.set_colour(p, r, g, b)
    field.set_budget(budget)
    game = Game()
    game.new(roquet, 2, 0)
    for move in moves:
        event = roquet.HAND_END if move is None else roquet.pack_peg(*move)
        try:
            game.apply(event)
        except ValueError:
            break  # the game is over
        frame = field.compose(game)
        assert current_ma(frame, BOARD) <= budget
        assert field.estimate_ma() <= budget
