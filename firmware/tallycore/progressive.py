# Progressive Skicket across tables: who moves where after a game, and how
# long a game is (docs/rules.md SK19, SK20). Pure: the host's club evening
# (tallyboard event) imports it, as it imports every rule from here.
#
# A seating is a list of tables, head first; a table is a list of four player
# numbers, seat 0 (the score keeper) first. Scores are ints per player number.

from tallycore import const

_SEATS = const(4)


def game_hands(tables):
    """Hands in a game at an evening of this many tables (docs/rules.md SK19):
    four with more than two tables, else six."""
    return 4 if tables > 2 else 6


def table_winner(table, game, continuous):
    """The seat of a table's winner (docs/rules.md SK19): the largest score of
    the game; tied, the larger continuous score (this game included), then
    the lower seat."""
    best = 0
    for seat in range(1, _SEATS):
        if _ranks_above(table[seat], table[best], game, continuous):
            best = seat
    return best


def table_loser(table, game, continuous):
    """The seat of a table's loser (docs/rules.md SK19): the smallest score of
    the game; tied, the smaller continuous score, then the higher seat."""
    worst = _SEATS - 1
    for seat in range(_SEATS - 2, -1, -1):
        if _ranks_above(table[worst], table[seat], game, continuous):
            worst = seat
    return worst


def _ranks_above(player, other, game, continuous):
    # strictly above on the game, then on the continuous score; a full tie is
    # left to the seat order, which the callers' scan direction gives
    if game[player] != game[other]:
        return game[player] > game[other]
    return continuous[player] > continuous[other]


def moves(seating, game, continuous):
    """Who moves after a game (docs/rules.md SK19): a list of (player,
    from_table, to_table, seat), tables counted from 0 at the head. At every
    table but the head its winner goes up one table; the head's loser goes to
    the foot. Each arrives in the seat its table's mover left."""
    count = len(seating)
    if count < 2:
        return []
    leaving = [table_loser(seating[0], game, continuous)]
    for t in range(1, count):
        leaving.append(table_winner(seating[t], game, continuous))
    out = []
    for t in range(count):
        to = t - 1 if t > 0 else count - 1
        out.append((seating[t][leaving[t]], t, to, leaving[to]))
    return out


def next_seating(seating, game, continuous):
    """The seating for the next game: a new list (docs/rules.md SK19)."""
    after = [list(table) for table in seating]
    for player, _from, to, seat in moves(seating, game, continuous):
        after[to][seat] = player
    return after


def evening_order(continuous):
    """Player numbers from the winner of the evening down: the larger
    continuous score first; a tie keeps the lower number first, and ranks
    equal (the caller says so). docs/rules.md SK20"""
    order = list(range(len(continuous)))
    order.sort(key=lambda p: (-continuous[p], p))
    return order
