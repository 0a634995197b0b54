# Rummy (and Parquet, same scoring), GAMES.md "Rummy and the short games",
# worked by hand. Cards: ace 1, pips at face, J 11, Q 12, K 13 by default.
from tallycore import cards, rummy
from shortgames import allocates_nothing, hand_scores, play, refused, refused_new, totals, winners


def rummy_hand(out, held, module=rummy):
    events = []
    for p in range(len(held)):
        for text in held[p]:
            events.append(module.pack_card(p, cards.parse(text)))
    events.append(module.pack_out(out))
    return events


def test_the_texts_hand_left_with_10_3_and_4_has_17_against():
    # Player 0 goes out; player 1 holds 10, 3, 4: 10 + 3 + 4 = 17 against;
    # player 2 holds a king: 13 against (J 11, Q 12, K 13).
    g = play(rummy, 3, rummy_hand(0, [[], ["10", "3", "4"], ["K"]]))
    assert totals(g) == [0, 17, 13]
    assert hand_scores(g, 0) == [0, 17, 13]


def test_faces_and_aces():
    # J + Q + K = 11 + 12 + 13 = 36; A + A = 2.
    g = play(rummy, 3, rummy_hand(2, [["J", "Q", "K"], ["A", "AS"], []]))
    assert totals(g) == [36, 2, 0]
    # Option: faces count 10: 10 + 10 + 10 = 30.
    g = play(rummy, 3, rummy_hand(2, [["J", "Q", "K"], ["A", "AS"], []]), rummy.OPT_FACES_TEN)
    assert totals(g) == [30, 2, 0]


def test_one_deal_per_player_fewest_points_wins():
    # Three players, three deals: against 0: 0 + 5 + 9 = 14; 1: 17 + 0 + 2 = 19;
    # 2: 13 + 7 + 0 = 20. Player 0 has fewest against and wins.
    events = (rummy_hand(0, [[], ["10", "3", "4"], ["K"]])
              + rummy_hand(1, [["5"], [], ["7"]])
              + rummy_hand(2, [["9"], ["2"], []]))
    g = play(rummy, 3, events)
    assert totals(g) == [14, 19, 20]
    assert g.complete()
    assert winners(g) == [0]
    refused(g, rummy.pack_out(0), "hand")   # every player has dealt


def test_two_players_hold_up_to_eight_cards_three_or_more_six():
    eight = ["A", "2", "3", "4", "5", "6", "7", "8"]
    g = play(rummy, 2, rummy_hand(0, [[], eight]))
    assert totals(g) == [0, 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8]   # 36
    g = play(rummy, 2, [rummy.pack_card(1, cards.parse(t)) for t in eight])
    refused(g, rummy.pack_card(1, cards.parse("9")), "cards")   # a ninth card
    g = play(rummy, 3, [rummy.pack_card(1, cards.parse(t)) for t in eight[:6]])
    refused(g, rummy.pack_card(1, cards.parse("7")), "cards")   # a seventh card


def test_impossible_hands_are_refused():
    # Two players going out: players 0 and 1 both hold nothing.
    g = play(rummy, 3, [rummy.pack_card(2, cards.parse("K"))])
    refused(g, rummy.pack_out(0), "cards")
    # The player out still holds a card.
    g = play(rummy, 2, [rummy.pack_card(0, cards.parse("K")), rummy.pack_card(1, cards.parse("2"))])
    refused(g, rummy.pack_out(0), "out")
    # One pack: a fifth king, the same card twice.
    g = play(rummy, 3, [rummy.pack_card(1, cards.parse(t)) for t in ("K", "KS", "KH", "KD")])
    refused(g, rummy.pack_card(2, cards.parse("K")), "cards")
    g = play(rummy, 3, [rummy.pack_card(1, cards.parse("QH"))])
    refused(g, rummy.pack_card(2, cards.parse("QH")), "cards")
    # A player index out of range, an unknown card.
    refused(g, rummy.pack_card(3, cards.parse("2")), "cards")
    refused(g, 1 | 14 << 3, "cards")   # rank 14
    refused_new(rummy, 1, 0, "players")
    refused_new(rummy, 7, 0, "players")


def test_parquet_scores_as_rummy():
    g = play("parquet", 3, rummy_hand(0, [[], ["10", "3", "4"], ["K"]]))
    assert totals(g) == [0, 17, 13]
    assert g.name() == "parquet"


def test_scoring_allocates_nothing():
    events = rummy_hand(0, [[], ["10", "3", "4"], ["KH"]]) + rummy_hand(1, [["5"], [], ["7"]])
    assert allocates_nothing(rummy, 3, events)
    assert allocates_nothing("parquet", 3, events, rummy.OPT_FACES_TEN)
