# Progressive Skicket's movement between tables (docs/rules.md SK19, SK20),
# worked by hand. Runs under CPython and the MicroPython unix port.
from tallycore import progressive as P


def test_a_game_is_four_hands_with_more_than_two_tables():
    # SK19: "Where there are more than two tables ... four hands"; else six
    assert [P.game_hands(n) for n in (1, 2, 3, 12)] == [6, 6, 4, 4]


def test_two_tables_swap_the_heads_loser_and_the_foots_winner():
    seating = [[0, 1, 2, 3], [4, 5, 6, 7]]
    game = [300, 250, 180, 200, 150, 400, 220, 100]
    # the first game: continuous = this game
    # head: smallest is player 2 (180, seat 2) -> the foot, into the seat player 5 left (seat 1);
    # foot: largest is player 5 (400, seat 1) -> up to the head, into seat 2
    assert P.moves(seating, game, game) == [(2, 0, 1, 1), (5, 1, 0, 2)]
    assert P.next_seating(seating, game, game) == [[0, 1, 5, 3], [4, 2, 6, 7]]
    assert seating == [[0, 1, 2, 3], [4, 5, 6, 7]]     # the seating given is left as it was


def test_three_tables_and_every_tie_break():
    seating = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
    game = [200, 120, 120, 300, 260, 260, 90, 100, 150, 150, 150, 80]
    continuous = [200, 500, 500, 300, 700, 900, 90, 100, 400, 400, 400, 80]
    # head: 1 and 2 tie on 120 and on 500 continuous: the higher seat (2) loses -> foot
    # table 2: 4 and 5 tie on 260; 5 has more continuous (900 > 700) and wins -> head
    # foot: 8, 9, 10 tie on 150 and on 400: the lower seat (0, player 8) wins -> table 2
    assert P.table_loser(seating[0], game, continuous) == 2
    assert P.table_winner(seating[1], game, continuous) == 1
    assert P.table_winner(seating[2], game, continuous) == 0
    assert P.moves(seating, game, continuous) == [(2, 0, 2, 0), (5, 1, 0, 2), (8, 2, 1, 1)]
    assert P.next_seating(seating, game, continuous) == [[0, 1, 5, 3], [4, 8, 6, 7], [2, 9, 10, 11]]


def test_the_smaller_continuous_score_loses_a_tie_at_the_head():
    game = [100, 100, 200, 300]
    continuous = [300, 250, 500, 600]
    # players 0 and 1 tie on 100; 1 has the smaller continuous score (250 < 300): seat 1 loses
    assert P.table_loser([0, 1, 2, 3], game, continuous) == 1


def test_one_table_moves_nobody():
    assert P.moves([[0, 1, 2, 3]], [1, 2, 3, 4], [1, 2, 3, 4]) == []


def test_the_evening_is_won_by_the_continuous_score():
    # SK20: 80 and 80 rank first together (the lower number listed first), then 50, then 10
    assert P.evening_order([50, 80, 80, 10]) == [1, 2, 0, 3]
