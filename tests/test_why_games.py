"""Every score explained by its rule (issue 34, tallycore.why): the reasons of
Rummy and Parquet, Coronado, Foozle, Jaimy, Hoodoo and Ups and Downs, Numero
and Quatro, Sachem, Doolittle and the Despised Nines, worked out by hand from
their clauses of docs/rules.md: every scoring branch, a hand nobody wins and
the events that score nothing. (tests/test_why.py checks every recorded and
simulated event of these games adds up.)"""
from __future__ import annotations

from tallycore import cards, coronado, despised_nines, doolittle, foozle, game, jaimy, most_count, points, rummy, sachem, \
    why

ANN, BOB, CY, DI, ED, FAY = range(6)
NAMES = ["Ann", "Bob", "Cy", "Di", "Ed", "Fay"]


def played(name, players, events, options=0):
    g = game.Game()
    g.new(name, players, options)
    for event in events:
        g.apply(event)
    return g


def reason(name, players, events, options=0, index=-1):
    """The reason of one event (the last by default) of a game, as words."""
    g = played(name, players, events, options)
    return why.lines(g, why.explain(g, index % g.n, why.Parts()), NAMES[:players])


# ---------------------------------------------------------------- Rummy and Parquet (RU, PQ)

def rummy_hand(out, held):
    events = [rummy.pack_card(p, cards.parse(text)) for p in range(len(held)) for text in held[p]]
    return events + [rummy.pack_out(out)]


AGAINST = "his unplayed cards' total set down against him: ace 1, the pips their number, J 11, Q 12, K 13 (RU2)"


def test_rummy_the_player_out_scores_nothing_the_others_their_cards_against():
    # The text's example: Bob left with 10, 3 and 4 has 10 + 3 + 4 = 17 against
    # him; Cy with a king 13 (RU3); Ann went out: nothing (RU2).
    assert reason("rummy", 3, rummy_hand(ANN, [[], ["10", "3", "4"], ["K"]])) == [
        "Ann 0: went out, the first to play out all his cards: he wins the hand and scores nothing (RU2)",
        "Bob +17: " + AGAINST,
        "Cy +13: " + AGAINST,
    ]


def test_rummy_equal_totals_against_are_one_line():
    # Bob J + 2 = 11 + 2 = 13, Cy K = 13: the same points under the same rule.
    assert reason("rummy", 3, rummy_hand(ANN, [[], ["J", "2"], ["K"]]))[1:] == ["Bob and Cy +13: " + AGAINST]


def test_rummy_faces_ten_says_so():
    # Option faces "ten": Bob's J + Q = 10 + 10 = 20 (RU3).
    assert reason("rummy", 2, rummy_hand(ANN, [[], ["J", "Q"]]), rummy.OPT_FACES_TEN)[1] == \
        "Bob +20: his unplayed cards' total set down against him: ace 1, the pips their number, J, Q and K 10 each (RU2)"


def test_rummy_a_card_entered_scores_nothing_until_a_player_goes_out():
    events = rummy_hand(ANN, [[], ["10", "3", "4"], ["K"]])
    assert reason("rummy", 3, events, index=0) == [
        "Bob 0: a card he holds unplayed: it is set down against him when a player goes out (RU2)"]


def test_parquet_is_explained_as_rummy():
    # PQ1: Parquet is scored as Rummy, so the reason is Rummy's clause.
    assert reason("parquet", 2, rummy_hand(BOB, [["5", "A"], []])) == [
        "Ann +6: " + AGAINST,   # 5 + 1
        "Bob 0: went out, the first to play out all his cards: he wins the hand and scores nothing (RU2)",
    ]


def test_rummy_the_last_deal_ends_the_game_with_the_fewest_against():
    # Two players, two deals (RU4): Ann 0 + 6 = 6, Bob 17 + 0 = 17: Ann wins.
    events = rummy_hand(ANN, [[], ["10", "3", "4"]]) + rummy_hand(BOB, [["5", "A"], []])
    assert reason("rummy", 2, events)[-1] == "the game is over (G4): Ann wins (G5)"


# ---------------------------------------------------------------- Coronado (CO)
# The first dealer is Ann (player 0): the deal alternates, Ann deals hands 1, 3, ...

def coronado_reason(mode, tricks, hand=1):
    """The reason of a hand of Coronado: hand 1 dealt by Ann, hand 2 by Bob.
    A first hand nobody can finish the game with comes before a second."""
    before = [coronado.pack_hand(coronado.DREW, 3)] if hand == 2 else []
    return reason("coronado", 2, before + [coronado.pack_hand(mode, tricks)])


def test_coronado_standing():
    # CO2: Bob (Ann's opponent) stands: 3 or 4 tricks 1, all five 2; fewer than three: Ann 2.
    assert coronado_reason(coronado.STAND, 4) == [
        "Bob +1: stood (asked for no cards) and took three or four tricks: 1 (CO2)"]
    assert coronado_reason(coronado.STAND, 5) == [
        "Bob +2: stood (asked for no cards) and took all five tricks: 2 (CO2)"]
    assert coronado_reason(coronado.STAND, 2) == [
        "Ann +2: the dealer, whose opponent stood and took fewer than three tricks: 2 (CO2)",
        "Bob 0: stood and took fewer than three tricks: he scores nothing (CO2)",
    ]


def test_coronado_refused_the_dealer_must_take_three():
    # CO3: Bob asked, Ann refused. Bob took 3, so Ann took 2 of 5: Bob 2.
    assert coronado_reason(coronado.REFUSED, 3) == [
        "Bob +2: the dealer refused him cards and did not take three tricks: 2 (CO3)",
        "Ann 0: the dealer refused cards and did not take three tricks: he scores nothing (CO3)",
    ]
    # Bob took 1: Ann 5 - 1 = 4, three or four: 1 (CO3's Reading, as CO4); Bob took none: Ann all five, 2.
    assert coronado_reason(coronado.REFUSED, 1) == ["Ann +1: the dealer refused cards and took three or four tricks: 1 (CO3)"]
    assert coronado_reason(coronado.REFUSED, 0) == ["Ann +2: the dealer refused cards and took all five tricks: 2 (CO3)"]


def test_coronado_drew_three_tricks_score_whoever_takes_them():
    # CO4, hand 2, Bob deals and Ann is his opponent: Ann took 3: 1; Ann took 0: Bob all five, 2.
    assert coronado_reason(coronado.DREW, 3, hand=2) == [
        "Ann +1: cards drawn: three or four of the five tricks count 1 to whoever takes them (CO4)"]
    assert coronado_reason(coronado.DREW, 2, hand=2) == [
        "Bob +1: cards drawn: three or four of the five tricks count 1 to whoever takes them (CO4)"]   # 5 - 2 = 3
    assert coronado_reason(coronado.DREW, 0, hand=2) == [
        "Bob +2: cards drawn: all five tricks count 2 to whoever takes them (CO4)"]


def test_coronado_first_to_seven():
    # Hands 1 and 3, Ann deals: Bob stands and takes all five, 2 (CO2). Hands 2
    # and 4, Bob deals: Ann stands and takes none, Bob 2 (CO2). After hand 4
    # Bob has 2 * 4 = 8, at least 7 (CO5): Bob wins.
    events = [coronado.pack_hand(coronado.STAND, 5), coronado.pack_hand(coronado.STAND, 0)] * 2
    assert reason("coronado", 2, events) == [
        "Bob +2: the dealer, whose opponent stood and took fewer than three tricks: 2 (CO2)",
        "Ann 0: stood and took fewer than three tricks: he scores nothing (CO2)",
        "the game is over (G4): Bob wins (G5)",
    ]


# ---------------------------------------------------------------- Foozle (FO)

def test_foozle_made_the_bid_once_for_each_opponent():
    # FO3: Cy bids three against three opponents and takes 4: 3 * 3 = 9, nothing for the overtrick.
    assert reason("foozle", 4, [foozle.pack_hand(CY, 3, 4)]) == [
        "Cy +9: made his bid: the bid once for each opponent, nothing for tricks over it (FO3)"]


def test_foozle_failed_each_other_scores_the_bid():
    # FO4: Ann bids four and takes three: Bob, Cy and Di 4 each, Ann nothing.
    assert reason("foozle", 4, [foozle.pack_hand(ANN, 4, 3)]) == [
        "Ann 0: the highest bidder won fewer tricks than he bid: he scores nothing (FO4)",
        "Bob, Cy and Di +4: the highest bidder failed: each of the others scores the bid (FO4)",
    ]


# ---------------------------------------------------------------- Jaimy (JA)

def test_jaimy_claimed_all_five_and_nobody():
    assert reason("jaimy", 3, [jaimy.pack_hand(jaimy.CLAIMED, BOB)]) == [
        "Bob +3: won three tricks and stopped the play to claim them: 3 (JA2)"]
    assert reason("jaimy", 3, [jaimy.pack_hand(jaimy.ALL, CY)]) == ["Cy +7: took all five tricks: 7 (JA2)"]
    assert reason("jaimy", 3, [jaimy.pack_hand(jaimy.NOBODY_SCORED)]) == [
        "everyone 0: nobody claimed three tricks or took all five: nobody scores (JA2)"]


def test_jaimy_partners_share_the_sides_points():
    # JA3, six players: Bob's side is 1, 3, 5 (Bob, Di, Fay): each gets Bob's 7.
    assert reason("jaimy", 6, [jaimy.pack_hand(jaimy.ALL, BOB)], jaimy.OPT_PARTNERS) == [
        "Bob +7: took all five tricks: 7 (JA2)",
        "Di and Fay +7: partner of the player who took all five tricks: a side's points go to each of its "
        "players (JA3)",
    ]
    # four players: Cy claims 3 for his side 0, 2 (Ann and Cy); the player who scored is said first.
    assert reason("jaimy", 4, [jaimy.pack_hand(jaimy.CLAIMED, CY)], jaimy.OPT_PARTNERS) == [
        "Cy +3: won three tricks and stopped the play to claim them: 3 (JA2)",
        "Ann +3: partner of the player who claimed three tricks: a side's points go to each of its players (JA3)",
    ]


def test_jaimy_first_to_twenty_one():
    # Ann takes all five three times: 7 * 3 = 21 (JA4): she wins.
    assert reason("jaimy", 2, [jaimy.pack_hand(jaimy.ALL, ANN)] * 3)[-1] == "the game is over (G4): Ann wins (G5)"
    # With partners her side, Ann and Cy, has 21 and wins together (JA3), not a tie.
    assert reason("jaimy", 4, [jaimy.pack_hand(jaimy.ALL, ANN)] * 3, jaimy.OPT_PARTNERS)[-1] == \
        "the game is over (G4): Ann and Cy win (G5)"


# ---------------------------------------------------------------- Hoodoo and Ups and Downs (HO, UD, G6)

WON = "the first to play out all his cards wins the hand: a hand won counts 1 (G6)"


def test_hoodoo_and_ups_and_downs_a_hand_won_counts_one():
    assert reason("hoodoo", 3, [CY]) == ["Cy +1: " + WON]
    assert reason("ups_and_downs", 4, [DI]) == ["Di +1: " + WON]


def test_ups_and_downs_a_tied_session():
    # One deal per player: Ann, Bob, Ann, Bob won: 2 each, a tie (G5).
    assert reason("ups_and_downs", 4, [ANN, BOB, ANN, BOB]) == [
        "Bob +1: " + WON, "the game is over (G4): Ann and Bob tie and win (G5)"]


# ---------------------------------------------------------------- Numero and Quatro (NU, QU, G6)

def counted(counts, cap):
    return [most_count.pack_count(p, counts[p], cap) for p in range(len(counts))] + [most_count.END]


def test_numero_most_cards_wins_the_hand():
    # NU2: Ann 20, Bob 12, Cy 20 cards: Ann and Cy on the most, 1 each; Bob nothing.
    assert reason("numero", 3, counted([20, 12, 20], most_count.PACK)) == [
        "Ann and Cy +1: most cards at the end, alone or tied: he wins the hand, and a hand won counts 1 (NU2)",
        "Bob 0: fewer cards than the most at the end: he does not win the hand (NU2)",
    ]


def test_the_counted_hands_everyone_is_whys():
    # points.py gives a Numero hand nobody wins to everyone: its own const, folded on the board
    assert points._EVERYONE == why.EVERYONE


def test_numero_a_hand_nobody_wins():
    # G6: nobody had a card (the last piles uncaptured): no winner, nobody scores.
    assert reason("numero", 3, counted([0, 0, 0], most_count.PACK)) == [
        "everyone 0: nobody had a card at the end: the hand has no winner (G6)"]


def test_numero_a_count_scores_nothing_until_the_hand_closes():
    assert reason("numero", 2, counted([30, 22], most_count.PACK), index=1) == [
        "Bob 0: his cards at the end: counted when every player's count is in (NU2)"]


def test_quatro_adds_up_the_tricks():
    # QU3: 13 tricks: Ann 6, Bob 7, Cy 0: each adds his own.
    assert reason("quatro", 3, counted([6, 7, 0], most_count.TRICKS)) == [
        "Ann +6: his tricks of the hand, added to his total (QU3)",
        "Bob +7: his tricks of the hand, added to his total (QU3)",
        "Cy 0: his tricks of the hand, added to his total (QU3)",
    ]
    assert reason("quatro", 3, counted([6, 7, 0], most_count.TRICKS), index=0) == [
        "Ann 0: his tricks: counted when every player's count is in (QU2)"]


def test_quatro_hands_won():
    # QU3, option hands_won: Bob's 7 of 13 is the most: 1; Ann and Cy nothing.
    assert reason("quatro", 3, counted([6, 7, 0], most_count.TRICKS), most_count.OPT_HANDS_WON) == [
        "Ann and Cy 0: fewer tricks than the most: with hands_won, he does not win the hand (QU3)",
        "Bob +1: most tricks, alone or tied: he wins the hand, and with hands_won a hand won counts 1 (QU3)",
    ]


# ---------------------------------------------------------------- Sachem (SA)

def test_sachem_each_card_to_its_captor():
    # SA2: Ann first trump 3, Bob last trump 3, Ann the nine 9, Cy Sachem 7: Ann 3 + 9 = 12 in two parts.
    assert reason("sachem", 3, [sachem.pack_hand(ANN, BOB, ANN, CY)]) == [
        "Ann +3: captured the first trump played: 3 (SA2)",
        "Bob +3: captured the last trump played: 3 (SA2)",
        "Ann +9: captured the nine of trumps: 9 (SA2)",
        "Cy +7: captured most sevens and eights, Sachem: 7 (SA2)",
    ]


def test_sachem_points_nobody_earns_go_to_nobody():
    # SA2's Reading: no trump played, and a tie for most sevens and eights: the hand scores nothing.
    assert reason("sachem", 2, [sachem.pack_hand(None, None, None, None)]) == [
        "everyone 0: no trump was played: the first trump's 3 go to nobody (SA2)",
        "everyone 0: no trump was played: the last trump's 3 go to nobody (SA2)",
        "everyone 0: nobody captured the nine of trumps (not in play): its 9 go to nobody (SA2)",
        "everyone 0: nobody captured most sevens and eights (none, or a tie): Sachem's 7 go to nobody (SA2)",
    ]
    # one trump played, first and last: Bob 3 + 3 (SA2), the same rule and points twice in one line each.
    assert reason("sachem", 2, [sachem.pack_hand(BOB, BOB, None, ANN)])[:2] == [
        "Bob +3: captured the first trump played: 3 (SA2)", "Bob +3: captured the last trump played: 3 (SA2)"]


# ---------------------------------------------------------------- Doolittle (DO)

def test_doolittle_each_trick_against_its_taker_by_its_place():
    # DO2: tricks 1 to 6 count 5, 5, 10, 10, 20, 30 against their takers.
    takers = [ANN, BOB, ANN, CY, BOB, ANN]
    expected = [
        "Ann +5: took the first trick: 5 against him (DO2)",
        "Bob +5: took the second trick: 5 against him (DO2)",
        "Ann +10: took the third trick: 10 against him (DO2)",
        "Cy +10: took the fourth trick: 10 against him (DO2)",
        "Bob +20: took the fifth trick: 20 against him (DO2)",
        "Ann +30: took the sixth trick: 30 against him (DO2)",
    ]
    for index in range(6):
        assert reason("doolittle", 3, takers, index=index) == [expected[index]]
    # the hand's close scores nothing: the tricks counted as they were taken
    assert reason("doolittle", 3, takers + [doolittle.END]) == [
        "everyone 0: the hand is over: each trick was counted against its taker as it was taken (DO2)"]


def test_doolittle_a_further_trick_of_a_larger_deal():
    # Option cards 7: the seventh trick, "any further trick", 10 against (DO2).
    assert reason("doolittle", 2, [ANN] * 6 + [BOB], 7 << doolittle.OPT_CARDS_SHIFT) == [
        "Bob +10: took a trick after the sixth (a deal of more than six cards): 10 against him (DO2)"]


def test_doolittle_the_smallest_total_wins():
    # Two players, two deals: Ann takes every trick of the first (5+5+10+10+20+30 = 80),
    # Bob every trick of the second (80): a tie at 80 (DO3, G5).
    events = [ANN] * 6 + [doolittle.END] + [BOB] * 6 + [doolittle.END]
    assert reason("doolittle", 2, events)[-1] == "the game is over (G4): Ann and Bob tie and win (G5)"


# ---------------------------------------------------------------- Despised Nines (DN)

def test_despised_nines_four_against_for_each_nine():
    # DN2: Ann 2 nines 2 * 4 = 8, Bob none, Cy 1 nine 4, Di 1 nine 4.
    assert reason("despised_nines", 4, [despised_nines.pack_hand([2, 0, 1, 1])]) == [
        "Ann +8: each nine he took counts 4 points against him (DN2)",
        "Bob 0: took no nine: nothing against him (DN2)",
        "Cy and Di +4: each nine he took counts 4 points against him (DN2)",
    ]


def test_despised_nines_the_lowest_total_wins():
    # Two deals (DN3): Ann 4 + 0 = 4, Bob 0 + 12 = 12: Ann wins.
    events = [despised_nines.pack_hand([1, 0]), despised_nines.pack_hand([0, 3])]
    assert reason("despised_nines", 2, events)[-1] == "the game is over (G4): Ann wins (G5)"
