"""A self-test whose host went away (issue 42): the board holds its display and controls for a
self-test only while a host asks; after 5 minutes without a request (300,000 ms by the board's own
clock, given here) the game is drawn and played again, and the board says why."""
from __future__ import annotations

from tallypanel.start import Painter


class Board:
    """The app as the painter sees it: when the last request came, and what it said."""

    def __init__(self, last_request_ms: int) -> None:
        self.last_request_ms = last_request_ms
        self.said: list[str] = []

    def say(self, text: str) -> None:
        self.said.append(text)


class HostsTest:
    from_host = True          # a host's self-test (tallypanel.selftest.Test); the board's own is not


def test_a_self_test_left_for_five_minutes_ends_and_the_game_is_back():
    painter = Painter(view=None)
    board = Board(last_request_ms=1_000)
    painter.use(board, board_input=None)
    held = HostsTest()
    painter.hold(held)
    # 1,000 + 299,999 ms: one millisecond short of 5 minutes since the last request
    assert painter.end_left_test(300_999) is False and painter.test is held and board.said == []
    # 1,000 + 300,000 ms: 5 minutes
    assert painter.end_left_test(301_000) is True
    assert painter.test is None and painter.due
    assert board.said == ["self-test over: no host asked anything for 5 minutes; the game is back"]
    # nothing held: nothing to end, however long the host is quiet
    assert painter.end_left_test(10_000_000) is False and len(board.said) == 1


def test_the_board_s_own_self_test_is_not_ended_by_a_quiet_host():
    painter = Painter(view=None)
    board = Board(last_request_ms=1_000)
    painter.use(board, board_input=None)
    own = HostsTest()
    own.from_host = False     # tallypanel.boardtest.OnBoard: the builder at the board, no host asking
    painter.hold(own)
    assert painter.end_left_test(10_000_000) is False and painter.test is own and board.said == []
