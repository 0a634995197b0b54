"""Property tests of the fourteen short games (hypothesis): for any game the
core accepts, every total is the sum of that player's hand scores; undo and
redo restore the state byte for byte; every event is a small int below 2**30.
And Moosehead's fifteens against a brute-force count over all 5-card hands."""
import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tallycore import (bishops_whist, cards, coronado, despised_nines, doolittle, foozle, game,
                       jaimy, moosehead, most_count, rummy, sachem)

EXAMPLES = settings(max_examples=40, deadline=None)


# ---------------------------------------------------------------- one hand of each game
# Each strategy draws the events of one hand for a game of `players`; the hand
# may break a rule (the core refuses it and the game rolls the hand back).

def bishops_hand(players, option):
    return st.one_of(
        st.just([bishops_whist.MISDEAL]),
        st.builds(lambda t, b, turned, ex, rv: [bishops_whist.pack_hand((t, 13 - t), (b, 4 - b), turned, ex, rv)],
                  st.integers(0, 13), st.integers(0, 4), st.booleans(),
                  st.tuples(st.integers(0, 7), st.integers(0, 7)),
                  st.tuples(st.integers(0, 7), st.integers(0, 7))))


def rummy_hand(module):
    def strategy(players, option):
        card = st.builds(cards.card, st.integers(1, 13), st.integers(0, 4))
        held = st.lists(st.lists(card, min_size=1, max_size=rummy.hand_size(players)),
                        min_size=players, max_size=players)

        def build(out, held):
            events = [module.pack_card(p, c) for p in range(players) if p != out for c in held[p]]
            return events + [module.pack_out(out)]
        return st.builds(build, st.integers(0, players - 1), held)
    return strategy


def one_event(build):
    def strategy(players, option):
        return build(players).map(lambda event: [event])
    return strategy


coronado_hand = one_event(lambda n: st.builds(coronado.pack_hand, st.integers(0, 2), st.integers(0, 5)))
foozle_hand = one_event(lambda n: st.builds(foozle.pack_hand, st.integers(0, n - 1), st.integers(1, 5),
                                            st.integers(0, 5)))
jaimy_hand = one_event(lambda n: st.one_of(
    st.just(jaimy.pack_hand(jaimy.NOBODY_SCORED)),
    st.builds(jaimy.pack_hand, st.sampled_from([jaimy.CLAIMED, jaimy.ALL]), st.integers(0, n - 1))))
winner_hand = one_event(lambda n: st.integers(0, n - 1))
who = lambda n: st.one_of(st.none(), st.integers(0, n - 1))  # noqa: E731
sachem_hand = one_event(lambda n: st.builds(sachem.pack_hand, who(n), who(n), who(n), who(n)))
nines_hand = one_event(lambda n: st.lists(st.integers(0, 2), min_size=n, max_size=n).map(despised_nines.pack_hand))


def counts_hand(cap, top):
    def strategy(players, option):
        return st.lists(st.integers(0, top), min_size=players, max_size=players).map(
            lambda values: [most_count.pack_count(p, v, cap) for p, v in enumerate(values)]
            + [most_count.END])
    return strategy


def quatro_hand(players, option):
    # thirteen tricks shared out (so the hand is accepted)
    return st.lists(st.integers(0, players - 1), min_size=13, max_size=13).map(
        lambda owners: [most_count.pack_count(p, owners.count(p), most_count.TRICKS) for p in range(players)]
        + [most_count.END])


def doolittle_hand(players, option):
    return st.lists(st.integers(0, players - 1), min_size=6, max_size=6).map(lambda t: t + [doolittle.END])


def legal_plays(hands, option):
    """Play a Moosehead hand legally: in turn, each player lays his first card
    that keeps the count at 30 or below; when all pass in turn, a go; 30 ends
    the round. Returns the events (without END); empties hands."""
    players = len(hands)
    events, count, turn, passes, last = [], 0, 0, 0, 0
    while any(hands):
        playable = [c for c in hands[turn] if count + moosehead.card_value(c, option) <= 30]
        if playable:
            hands[turn].remove(playable[0])
            events.append(moosehead.pack_play(turn, playable[0]))
            count += moosehead.card_value(playable[0], option)
            last, passes = turn, 0
            if count == 30:
                count, turn = 0, (last + 1) % players
                continue
        else:
            passes += 1
            if passes >= players:       # all passed in turn: a go
                events.append(moosehead.GO)
                count, passes, turn = 0, 0, (last + 1) % players
                continue
        turn = (turn + 1) % players
    return events


def moosehead_hand(players, option):
    """A legal hand: five cards each from a shuffled pack."""
    def build(seed):
        pack = [cards.card(rank, suit) for rank in range(1, 14) for suit in range(4)]
        random.Random(seed).shuffle(pack)
        return legal_plays([pack[5 * p:5 * p + 5] for p in range(players)], option) + [moosehead.END]
    return st.integers(0, 2 ** 32).map(build)


GAMES = [
    # (game, player counts, options, hand strategy)
    ("bishops_whist", (4,), (0, 1, 2, 3), bishops_hand),
    ("rummy", (2, 3, 6), (0, rummy.OPT_FACES_TEN), rummy_hand(rummy)),
    ("parquet", (2, 4), (0, rummy.OPT_FACES_TEN), rummy_hand(rummy)),
    ("coronado", (2,), (0, 1), coronado_hand),
    ("foozle", (2, 4, 8), (0,), foozle_hand),
    ("jaimy", (3, 4, 6), (0, jaimy.OPT_PARTNERS), jaimy_hand),
    ("hoodoo", (2, 6), (0,), winner_hand),
    ("numero", (2, 4, 8), (0,), counts_hand(most_count.PACK, 30)),
    ("sachem", (2, 5), (0,), sachem_hand),
    ("quatro", (2, 5), (0, most_count.OPT_HANDS_WON), quatro_hand),
    ("doolittle", (2, 3, 8), (0,), doolittle_hand),
    ("despised_nines", (2, 4, 8), (0,), nines_hand),
    ("ups_and_downs", (2, 8), (0,), winner_hand),
    ("moosehead", (2, 4, 8), (0, moosehead.OPT_FACES_RANK), moosehead_hand),
]


@st.composite
def played_games(draw, rules, counts, options, hand):
    players = draw(st.sampled_from(counts))
    option = draw(st.sampled_from(options))
    g = game.Game()
    try:
        g.new(rules, players, option)
    except ValueError:          # e.g. Jaimy partners with 3 players
        option = 0
        g.new(rules, players, option)
    applied = []
    for _ in range(draw(st.integers(0, 8))):
        if g.complete():
            break
        events = draw(hand(players, option))
        done = 0
        try:
            for event in events:
                assert 0 <= event < 2 ** 30
                g.apply(event)
                done += 1
        except ValueError:
            for _ in range(done):   # roll back the refused hand
                g.undo()
            continue
        applied.extend(events)
    return players, option, applied


@pytest.mark.parametrize("rules,counts,options,hand", GAMES, ids=[g[0] for g in GAMES])
def test_totals_are_the_sum_of_hand_scores(rules, counts, options, hand):
    @EXAMPLES
    @given(played_games(rules, counts, options, hand))
    def check(played):
        players, option, events = played
        g = game.Game()
        g.new(rules, players, option)
        for event in events:
            g.apply(event)
        sums = [0] * players
        out = [0] * players
        for h in range(g.hands()):
            g.hand_scores(h, out)
            for p in range(players):
                sums[p] += out[p]
        assert sums == [g.total(p) for p in range(players)]
        # undo all and redo all: the same state, byte for byte
        final = bytes(g.state)
        for _ in events:
            g.undo()
        assert g.hands() == 0 and all(g.total(p) == 0 for p in range(players))
        for _ in events:
            g.redo()
        assert bytes(g.state) == final
        # winners: a mask of valid players; while the game goes on, the leaders on the totals, and
        # nobody while every total is 0 (docs/rules.md G5; issue 32, item 10: a hand in which nothing
        # was scored leads nobody)
        assert 0 <= g.winners() < 1 << players
        if not g.complete():
            assert (g.winners() == 0) == all(g.total(p) == 0 for p in range(players))
    check()


# ---------------------------------------------------------------- Moosehead fifteens


def brute_force_fifteens(values):
    """Independent count: every combination of 2..5 of the five cards."""
    return sum(1 for size in range(1, 6) for combo in itertools.combinations(values, size)
               if sum(combo) == 15)


@pytest.mark.parametrize("faces_rank", [False, True], ids=["faces-10", "faces-rank"])
def test_fifteens_against_brute_force_over_all_five_card_hands(faces_rank):
    # Every 5-card hand by rank: all multisets of 5 of the 13 ranks with at
    # most 4 of a rank (one pack): C(17, 5) = 6188 less the 13 five-of-a-kinds.
    value = (lambda r: r) if faces_rank else (lambda r: min(r, 10))
    seen = 0
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        if max(ranks.count(r) for r in set(ranks)) > 4:
            continue
        values = [value(r) for r in ranks]
        hand = 0
        for i, v in enumerate(values):
            hand |= v << (4 * i)
        assert moosehead.fifteens(hand) == brute_force_fifteens(values), ranks
        seen += 1
    assert seen == 6188 - 13


@EXAMPLES
@given(st.permutations([cards.card(r, s) for r in range(1, 14) for s in range(4)]))
def test_fifteens_through_the_board_for_dealt_hands(pack):
    # Two players play a legal hand (moosehead_hand's rule) from this deal;
    # the fifteens the board adds at the end equal the brute-force count.
    g = game.Game()
    g.new(moosehead, 2, 0)
    hands = [list(pack[0:5]), list(pack[5:10])]
    for event in legal_plays([list(h) for h in hands], 0):
        g.apply(event)
    before = [g.total(p) for p in range(2)]
    g.apply(moosehead.END)
    for p in range(2):
        values = [min(cards.rank_of(c), 10) for c in hands[p]]
        assert g.total(p) - before[p] == 2 * brute_force_fifteens(values)
