"""Every score explained by its rule (issue 34, tallycore.why): Skicket's reasons worked out by hand
from its clauses of docs/rules.md (SK): made and failed, doubled and redoubled, a lone hand, every
trick paying 130, a misdeal, the last hand and a tie; a held hand and an event long after a
checkpoint explained from their own state. (tests/test_why.py checks every recorded and simulated
event adds up, and the other games by hand.)"""
from __future__ import annotations

from tallycore import game as core_game
from tallycore import skicket, why

# Ann 0, Bob 1, Cy 2, Hal 3. Hands 1-2 (SK5): Ann and Cy partners, Bob and Hal.
ANN, BOB, CY, HAL = range(4)
NAMES = ["Ann", "Bob", "Cy", "Hal"]
NT, NK = skicket.NO_TRUMP, skicket.NO_TRICK


def skicket_lines(*events, options=0):
    """The reason of the last of events, as words."""
    g = core_game.Game()
    g.new("skicket", 4, options)
    for event in events:
        g.apply(event)
    return why.lines(g, why.explain(g, g.n - 1, why.Parts()), NAMES)


def hand(purchaser, level, strain, tricks, doubled_by=None, redoubled_by=None, lone=False):
    return skicket.pack_hand(purchaser, level, strain, doubled_by, redoubled_by, lone, tricks)


def test_skicket_doubled_and_failed_the_issues_example():
    # Cy 2NT doubled by Bob, 7 tricks: 2NT needs 6 + 2 = 8 (SK2), so it failed.
    # A = 60 + 10 * 2 = 80; the winner is the doubler: Bob and his partner Hal
    # 2A = 160 each; Cy nothing; Ann, the loser's partner, 10 * 7 = 70 (SK9).
    assert skicket_lines(hand(CY, 2, NT, 7, doubled_by=BOB)) == [
        "Bob and Hal +160: doubled, the purchaser failed: the doubler's side gets twice the bid (SK9)",
        "Cy 0: doubled, the purchaser failed: he scores nothing (SK9)",
        "Ann +70: partner of the loser: 10 for each trick the loser's side took (SK9)",
    ]


def test_skicket_made_undoubled():
    # Ann 4H, 10 tricks: needs 10, made. A = 60 + 40 = 100 to Ann and Cy;
    # Bob and Hal took 13 - 10 = 3: 30 each (SK7).
    assert skicket_lines(hand(ANN, 4, skicket.HEARTS, 10)) == [
        "Ann and Cy +100: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)",
        "Bob and Hal +30: an adversary of a bid made: 10 for each trick the adversaries took (SK7)",
    ]


def test_skicket_failed_undoubled():
    # Bob 3S, 8 tricks: needs 9. Bob forfeits; Hal 10 * 8 = 80; Ann and Cy took 5: 50 each (SK8).
    assert skicket_lines(hand(BOB, 3, skicket.SPADES, 8)) == [
        "Bob 0: the purchaser failed: he forfeits the count (SK8)",
        "Hal +80: partner of the purchaser who failed: 10 for each trick their side took (SK8)",
        "Cy and Ann +50: an adversary of a bid failed: 10 for each trick the adversaries took (SK8)",
    ]


def test_skicket_every_trick_pays_130_whatever_the_bid():
    # Ann 1C, 13 tricks: 130 in place of A = 70 (SK14); Bob and Hal took 0: 0 each.
    assert skicket_lines(hand(ANN, 1, skicket.CLUBS, 13)) == [
        "Ann and Cy +130: every trick taken: the purchaser and his partner score 130, whatever the bid (SK14)",
        "Bob and Hal 0: an adversary of a bid made: 10 for each trick the adversaries took (SK7)",
    ]


def test_skicket_no_trick_made_mirrors_the_count():
    # Cy 2NK: the adversaries must take 8. Cy's side took 4, so they took 9: made.
    # Cy and Ann A = 80; Bob and Hal 10 for each trick they did not take: 10 * 4 = 40 (SK11).
    assert skicket_lines(hand(CY, 2, NK, 4)) == [
        "Cy and Ann +80: made: the purchaser and his partner score the bid's value, 60 + 10 a level (SK7)",
        "Hal and Bob +40: an adversary of No Trick made: 10 for each trick the adversaries did not take (SK11)",
    ]


def test_skicket_lone_hand_made():
    # Ann 3H alone, 9 tricks: needs 9. Ann alone A = 90; Cy (silent), Bob and
    # Hal 10 * (13 - 9) = 40 each (SK12).
    assert skicket_lines(hand(ANN, 3, skicket.HEARTS, 9, lone=True)) == [
        "Ann +90: a lone hand made: the purchaser alone scores the bid's value (SK12)",
        "Cy, Bob and Hal +40: against a lone hand (the silent partner too): 10 for each trick the adversaries "
        "took (SK12)",
    ]


def test_skicket_partner_redoubles_and_is_scored_as_the_purchaser():
    # Ann 1S doubled by Bob, redoubled by Cy: Cy is the purchaser (SK6). 7 tricks
    # make 1S; 4A = 4 * 70 = 280 to Cy and Ann; Bob, the doubler, nothing;
    # Hal, the loser's partner, 10 * (13 - 7) = 60 (SK10). Made, SK6 changes no
    # score: no line gives Cy 0 before the line that gives him 280 (issue 44, friction 6).
    assert skicket_lines(hand(ANN, 1, skicket.SPADES, 7, doubled_by=BOB, redoubled_by=CY)) == [
        "Cy and Ann +280: redoubled and made: the purchaser's side gets four times the bid (SK10)",
        "Bob 0: redoubled and made: the doubler loses and scores nothing (SK10)",
        "Hal +60: partner of the loser: 10 for each trick the loser's side took (SK10)",
    ]


def test_skicket_partner_redoubles_and_fails_he_bears_the_purchasers_loss():
    # Ann 1S doubled by Bob, redoubled by Cy, 5 tricks: 1S needs 6 + 1 = 7 (SK2), failed.
    # Cy assumes the purchaser's liabilities (SK6): he is the loser and scores nothing;
    # Bob and Hal 4A = 4 * 70 = 280 each; Ann, now the loser's partner, 10 * 5 = 50 (SK10).
    assert skicket_lines(hand(ANN, 1, skicket.SPADES, 5, doubled_by=BOB, redoubled_by=CY)) == [
        "Bob and Hal +280: redoubled, the purchaser failed: the doubler's side gets four times the bid (SK10)",
        "Cy 0: the partner who redoubled assumes the purchaser's liabilities: failed, he scores nothing (SK6)",
        "Ann +50: partner of the loser: 10 for each trick the loser's side took (SK10)",
    ]


def test_skicket_lone_hand_doubled_and_failed():
    # Bob 2C alone, doubled by Cy, 5 tricks: needs 8. Bob nothing; his partner
    # Hal and both adversaries 2A = 2 * 80 = 160 each (SK13).
    assert skicket_lines(hand(BOB, 2, skicket.CLUBS, 5, doubled_by=CY, lone=True)) == [
        "Bob 0: a lone hand doubled failed: the purchaser scores nothing (SK13)",
        "Hal, Cy and Ann +160: a lone hand doubled failed: his partner and both adversaries score twice the bid "
        "(SK13)",
    ]


def test_skicket_misdeal_scores_nothing():
    assert skicket_lines(skicket.MISDEAL) == [
        "everyone 0: a misdeal: dealt again by the same dealer, it scores nothing (SK3)"]


def test_skicket_the_last_hand_ends_the_game_and_names_its_winner():
    # A four-hand game (SK16), Ann buys 1C and takes 7 every hand: A = 70 to Ann
    # and her partner, 10 * 6 = 60 to each adversary. Partners: Cy in hands 1-2,
    # Bob in 3-4 (SK5). Ann 4 * 70 = 280; Cy 70 + 70 + 60 + 60 = 260; Bob 260;
    # Hal 4 * 60 = 240: Ann wins (G5).
    four = [hand(ANN, 1, skicket.CLUBS, 7)] * 4
    assert skicket_lines(*four, options=skicket.OPT_FOUR_HANDS)[-1] == "the game is over (G4): Ann wins (G5)"
    assert not any("game is over" in line for line in skicket_lines(*four[:3], options=skicket.OPT_FOUR_HANDS))


def test_skicket_a_tie_at_the_end_is_said_as_one():
    # Hands 1-2 Ann 1C, 7 tricks: Ann and Cy 70, Bob and Hal 60, twice.
    # Hand 3 (A-B, C-D) Ann 1C, 7: Ann and Bob 70, Cy and Hal 60.
    # Hand 4 Cy 1C, 7: Cy and Hal 70, Ann and Bob 60.
    # Ann 70 + 70 + 70 + 60 = 270; Cy 70 + 70 + 60 + 70 = 270; Bob 60 + 60 + 70 + 60 = 250;
    # Hal 60 + 60 + 60 + 70 = 250: Ann and Cy tie (G5).
    events = [hand(ANN, 1, skicket.CLUBS, 7)] * 3 + [hand(CY, 1, skicket.CLUBS, 7)]
    assert skicket_lines(*events, options=skicket.OPT_FOUR_HANDS)[-1] == \
        "the game is over (G4): Ann and Cy tie and win (G5)"


def test_a_held_hand_is_explained_like_any_event():
    g = core_game.Game()
    g.new("skicket", 4, core_game.CONFIRM)
    event = hand(CY, 2, NT, 7, doubled_by=BOB)
    g.hold(core_game.HELD_APPLY, event)
    held = why.lines(g, why.explain(g, g.n, why.Parts()), NAMES)
    assert held[0] == "Bob and Hal +160: doubled, the purchaser failed: the doubler's side gets twice the bid (SK9)"
    g.accept()
    assert why.lines(g, why.explain(g, 0, why.Parts()), NAMES) == held


def test_an_event_long_after_a_checkpoint_is_explained_from_its_own_state():
    # 40 misdeals (a checkpoint after 32) then a hand: hand 1 still, Ann and Cy partners.
    g = core_game.Game()
    g.new("skicket", 4)
    for _ in range(40):
        g.apply(skicket.MISDEAL)
    g.apply(hand(ANN, 4, skicket.HEARTS, 10))
    assert why.lines(g, why.explain(g, 40, why.Parts()), NAMES)[0].startswith("Ann and Cy +100:")
    assert why.lines(g, why.explain(g, 33, why.Parts()), NAMES)[0].startswith("everyone 0: a misdeal")
