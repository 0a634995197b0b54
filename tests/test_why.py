"""Every score explained by its rule (issue 34, tallycore.why): for every
event of the repository's game records and of the simulation's random games,
the parts of each player add up to that player's change of total, and every
clause a reason cites is an anchor of docs/rules.md; then each game's
branches worked out by hand from its clauses."""
from __future__ import annotations

import ast
import functools
import re
import sys
from pathlib import Path

import pytest

from tallycore import game as core_game
from tallycore import games as core_games
from tallycore import bishops_whist, cards, moosehead, roquet, skicket, why
from tallyboard import games as profiles
from tallyboard.scorebook import records
from tallyboard.tooling import simulate
from short_hands import GAMES as SHORT_GAMES, random_games

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
ANCHORS = set(re.findall(r'<a id="([a-z0-9]+)"></a>', RULES))
RECORDS = sorted((ROOT / "host" / "tallyboard" / "data").glob("*.json"))

# The games whose rules give no reasons yet (issue 34): each leaves this table
# when its rules module takes `why` and tallycore/reasons/<module>.py is in.
NO_REASONS_YET: set[str] = set()
EXPLAINED = [row[0] for row in core_games.GAMES if row[0] not in NO_REASONS_YET]
FUZZ_GAMES = 150   # random games of each simulated game (the simulation's own generator)


def explains(name: str) -> bool:
    try:
        why.reasons(name)
    except ValueError:
        return False
    return True


def test_the_table_of_games_without_reasons_is_the_truth():
    assert NO_REASONS_YET <= set(core_games.names())
    for name in core_games.names():
        assert explains(name) == (name not in NO_REASONS_YET), name


def test_a_reason_table_is_words_only_and_named_after_a_rules_module():
    # its words load only when a reason is composed: a table imports nothing, so nothing more loads with it
    modules = {row[3] for row in core_games.GAMES}
    for path in sorted((ROOT / "firmware" / "tallycore" / "reasons").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))], path.name
        assert path.stem == "__init__" or path.stem in modules, path.name


@pytest.mark.parametrize("name", EXPLAINED)
def test_a_rules_modules_own_everyone_is_whys(name):
    # a rules module keeps EVERYONE as a const of its own (folded on the board, no import of why)
    assert getattr(core_games.by_name(name), "_EVERYONE", why.EVERYONE) == why.EVERYONE


@pytest.mark.parametrize("name", EXPLAINED)
def test_every_clause_a_reason_cites_is_an_anchor_of_the_rules(name):
    for _, clause, words in why.reasons(name):
        assert clause.decode().lower() in ANCHORS, f"{name}: {clause.decode()} is no clause of docs/rules.md"
        assert words and words.decode() == words.decode().strip()


def moosehead_candidate(rng, g):
    """A Moosehead event, legal or not (the core sorts them): mostly a card."""
    roll = rng.random()
    if roll < 0.1:
        return moosehead.GO
    if roll < 0.15:
        return moosehead.END
    return moosehead.pack_play(rng.randrange(g.players), cards.card(rng.randint(1, 13), rng.randint(0, 4)))


def bishops_candidate(rng, g):
    """A Bishops Whist hand, legal or not: penalties now and then, a misdeal now and then."""
    if rng.random() < 0.05:
        return bishops_whist.MISDEAL
    tricks = rng.randint(0, 13)
    bishops = rng.randint(0, 4)
    penalties = lambda: rng.choice((0, 0, 0, 0, 0, 1, 1, 2))  # noqa: E731
    return bishops_whist.pack_hand((tricks, 13 - tricks), (bishops, 4 - bishops), rng.random() < 0.3,
                                   (penalties(), penalties()), (penalties(), penalties()))


# The random games of a game the simulation does not play (its profile has no
# candidate): (rng, game) -> an event, legal or not; players drawn from the game's range.
FUZZ = {"moosehead": moosehead_candidate, "bishops_whist": bishops_candidate}


def recorded_games(name: str) -> list[core_game.Game]:
    out = [records.load(path).game for path in RECORDS if records.load(path).name == name]
    profile = profiles.profile(name)
    row = core_games.GAMES[profile.index]
    for number in range(FUZZ_GAMES):
        rng = simulate.game_rng(34, name, number)
        g = core_game.Game()
        if profile.candidate is not None:
            g.new(name, row[1], profile.simulation_options(rng))
            candidate = lambda rng, g: profile.candidate(rng)  # noqa: E731
        elif name in FUZZ:
            g.new(name, rng.randint(row[1], row[2]))
            candidate = FUZZ[name]
        else:
            break
        for _ in range(4 * simulate.MAX_STEPS):
            if g.complete():
                break
            event = candidate(rng, g)
            if simulate.legal(g, event):
                g.apply(event)
        out.append(g)
    if name in SHORT_GAMES:   # the short games drawn a hand at a time (tests/short_hands.py)
        out.extend(random_games(name, FUZZ_GAMES))
    return out


@functools.lru_cache(maxsize=None)
def codes_given(name: str) -> frozenset[int]:
    """Check that the parts add up over every recorded and random game of a
    game; returns the codes its events gave."""
    games = recorded_games(name)
    assert games, f"no record or simulated game of {name}"
    parts = why.Parts()
    before = bytearray(core_game.STATE_CAPACITY)
    after = bytearray(core_game.STATE_CAPACITY)
    codes = set()
    events = 0
    for g in games:
        rules = g.rules
        for index in range(g.n):
            why.explain(g, index, parts)
            g.state_before(index, before)
            g.state_before(index + 1, after)
            assert parts.count > 0, f"{name} event {index + 1}: no reason"
            for p in range(g.players):
                change = rules.total(after, g.players, p) - rules.total(before, g.players, p)
                assert parts.of(p) == change, f"{name} event {index + 1} ({g.log[index]}), player {p}"
            for i in range(parts.count):
                assert parts.player[i] < g.players or (parts.player[i] == why.EVERYONE and parts.points[i] == 0)
                codes.add(parts.code[i])
            assert parts.ended == (rules.complete(after, g.players) and not rules.complete(before, g.players))
            assert why.lines(g, parts)
            events += 1
    assert events > 0
    return frozenset(codes)


@pytest.mark.parametrize("name", EXPLAINED)
def test_the_parts_add_up_to_every_change_of_every_recorded_and_simulated_game(name):
    codes = set(codes_given(name))
    # no reason in the table that no event gives: each is a branch the games reach, those of
    # every game its rules module scores (one table: Numero's and Quatro's halves of most_count's)
    module = core_games.GAMES[core_games.index_of(name)][3]
    for row in core_games.GAMES:
        if row[3] == module and row[0] != name:
            codes |= codes_given(row[0])
    table = {row[0] for row in why.reasons(name)}
    assert codes == table, sorted(table - codes)


def test_a_game_without_reasons_is_refused_by_name(monkeypatch):
    # Skicket's table taken away (None in sys.modules: its import fails), as a game without one
    monkeypatch.setitem(sys.modules, "tallycore.reasons.skicket", None)
    g = core_game.Game()
    g.new("skicket", 4)
    g.apply(skicket.MISDEAL)
    with pytest.raises(ValueError, match="why: skicket does not explain its scores yet; the rule book says how"):
        why.explain(g, 0, why.Parts())


def test_an_index_without_an_event_is_refused():
    g = core_game.Game()
    g.new("skicket", 4)
    with pytest.raises(ValueError, match="why: nothing is scored yet; enter a hand first"):
        why.explain(g, 0, why.Parts())
    g.apply(skicket.MISDEAL)
    g.apply(skicket.MISDEAL)
    with pytest.raises(ValueError, match="why: no change 3; ask for one of 1 to 2"):
        why.explain(g, 2, why.Parts())
    with pytest.raises(ValueError, match="why: no change 0; ask for one of 1 to 2"):
        why.explain(g, -1, why.Parts())


# ---------------------------------------------------------------- Roquet, by hand (docs/rules.md RQ)
ROQUET_NAMES = ["Ann", "Bob"]


def roquet_lines(*events, options=0):
    g = core_game.Game()
    g.new("roquet", 2, options)
    for event in events:
        g.apply(event)
    return why.lines(g, why.explain(g, g.n - 1, why.Parts()), ROQUET_NAMES)


def test_roquet_a_count_is_what_is_pegged():
    assert roquet_lines(roquet.pack_peg(1, 5)) == ["Bob +5: a count pegged (RQ6)"]


def test_roquet_the_first_to_the_15th_hole_is_named():
    # Bob 10, then Ann 15: Ann is the first at the 15th hole (RQ7); Bob, at 20 after, is not.
    assert roquet_lines(roquet.pack_peg(1, 10), roquet.pack_peg(0, 15)) == [
        "Ann +15: a count pegged (RQ6)",
        "Ann 0: first to the 15th hole this hand: may take the trump card (RQ7)",
    ]
    assert roquet_lines(roquet.pack_peg(1, 10), roquet.pack_peg(0, 15), roquet.pack_peg(1, 10)) == [
        "Bob +10: a count pegged (RQ6)"]


def test_roquet_landmark_bonuses_the_rules_own_example():
    # RQ8: Ann at 30, Bob 0 (below 15); a peg of 7 ends at 37: the 31st hole
    # passed, 9 more, 46; the 46th reached, 10 more: 56 (30 + 7 + 9 + 10).
    assert roquet_lines(roquet.pack_peg(0, 30), roquet.pack_peg(0, 7), options=roquet.OPT_LANDMARK_BONUS) == [
        "Ann +7: a count pegged (RQ6)",
        "Ann +9: the 31st hole reached before the opponent reached the 15th: 9 more (RQ8)",
        "Ann +10: the 46th hole reached: 10 more (RQ8)",
    ]
    # Bob at 15 already: no 9 for the 31st; 30 + 7 = 37 is short of 46: the count alone
    assert roquet_lines(roquet.pack_peg(1, 15), roquet.pack_peg(0, 30), roquet.pack_peg(0, 7),
                        options=roquet.OPT_LANDMARK_BONUS) == ["Ann +7: a count pegged (RQ6)"]


def test_roquet_the_end_of_a_hand_moves_the_counts_and_changes_no_total():
    assert roquet_lines(roquet.pack_peg(0, 12), roquet.HAND_END) == [
        "Ann and Bob 0: the end of the hand: the count moves up the king row, the tally peg goes back (RQ3)"]


def test_roquet_reaching_100_ends_the_game_at_once():
    # RQ9 reach: Ann 60, the hand ends (king 60), then 39 and 1: 60 + 40 = 100.
    events = [roquet.pack_peg(0, 60), roquet.HAND_END, roquet.pack_peg(0, 39), roquet.pack_peg(0, 1)]
    assert roquet_lines(*events) == [
        "Ann +1: a count pegged (RQ6)",
        "Ann 0: 100 reached, king total and the hand's count: the game is over (RQ9)",
        "the game is over (G4): Ann wins (G5)",
    ]


def test_roquet_with_end_at_the_hand_end_the_game_ends_with_the_hand():
    # Ann 60, END (king 60); Ann 45 (105 counted, the game goes on), Bob 20; END:
    # Ann's king total 60 + 45 = 105 >= 100, Bob's 20: Ann wins (RQ9).
    events = [roquet.pack_peg(0, 60), roquet.HAND_END, roquet.pack_peg(0, 45), roquet.pack_peg(1, 20),
              roquet.HAND_END]
    assert roquet_lines(*events[:3], options=roquet.OPT_END_AT_HAND_END) == [
        "Ann +45: a count pegged (RQ6)",
        "Ann 0: first to the 15th hole this hand: may take the trump card (RQ7)",
    ]
    assert roquet_lines(*events, options=roquet.OPT_END_AT_HAND_END) == [
        "Ann and Bob 0: the end of the hand: the count moves up the king row, the tally peg goes back (RQ3)",
        "Ann 0: a king total of 100 or more at the end of a hand: the game is over (RQ9)",
        "the game is over (G4): Ann wins (G5)",
    ]


# ---------------------------------------------------------------- Moosehead, by hand (docs/rules.md MH)
def play(player, rank):
    return moosehead.pack_play(player, cards.card(rank))


J, Q, K = 11, 12, 13
# Ann (0) plays 5, 5, 5, 5, J; Bob (1) 10, J, Q, K, 10, turn about (faces count 10, MH2):
# 5 | 15 Bob 2 | 20 Ann 2 | 30 Bob 2, a new round | 5 | 15 Bob 2 | 20 Ann 2 | 30 Bob 2 | 10 | 20 Bob 2;
# then the go after the last card: Bob 1 (MH4). Fifteens (MH5): Ann's 5 + J four ways and 5 + 5 + 5
# four ways, 8 * 2 = 16; Bob's five tens none. The hand: Ann 2 + 2 + 16 = 20, Bob 5 * 2 + 1 = 11.
BIG_HAND = [play(0, 5), play(1, 10), play(0, 5), play(1, J), play(0, 5), play(1, Q), play(0, 5), play(1, K),
            play(0, J), play(1, 10), moosehead.GO, moosehead.END]


def moosehead_lines(*events, players=2):
    g = core_game.Game()
    g.new("moosehead", players)
    for event in events:
        g.apply(event)
    return why.lines(g, why.explain(g, g.n - 1, why.Parts()), ROQUET_NAMES)


def test_moosehead_a_card_that_calls_nothing_scores_nothing():
    assert moosehead_lines(play(0, 5)) == [
        "Ann 0: a card played to the running count: no 15, 20, 25 or 30, nothing scored (MH3)"]


def test_moosehead_calls_15_20_and_30():
    assert moosehead_lines(*BIG_HAND[:2]) == ["Bob +2: brought the running count to 15: 2 (MH3)"]
    assert moosehead_lines(*BIG_HAND[:3]) == ["Ann +2: brought the running count to 20: 2 (MH3)"]
    assert moosehead_lines(*BIG_HAND[:4]) == ["Bob +2: brought the running count to 30: 2, and the round ends (MH3)"]
    # 25: Ann 10, Bob 10, Ann 5 (10 + 10 + 5)
    assert moosehead_lines(play(0, 10), play(1, 10), play(0, 5))[-1] == \
        "Ann +2: brought the running count to 25: 2 (MH3)"


def test_moosehead_the_go_scores_the_last_card():
    assert moosehead_lines(*BIG_HAND[:11]) == ["Bob +1: a go: the player of the last card scores 1 (MH4)"]


def test_moosehead_the_rules_own_fifteens_example():
    # MH5: 2, 5, 7, 3 and 10 make 5 + 10, 3 + 7 + 5 and 10 + 3 + 2: 6 points. Bob's
    # A, A, A, A, 4 add up to 8: none. The plays: 2 | 3 | 8 | 9 | 16 | 17 | 20 Ann 2 |
    # 21 | 25 Bob 2 | go Bob 1 | 10 | go Ann 1.
    events = [play(0, 2), play(1, 1), play(0, 5), play(1, 1), play(0, 7), play(1, 1), play(0, 3), play(1, 1),
              play(1, 4), moosehead.GO, play(0, 10), moosehead.GO, moosehead.END]
    assert moosehead_lines(*events) == [
        "Ann +6: 2 for each combination of his five cards that adds up to 15 (MH5)",
        "Bob 0: 2 for each combination of his five cards that adds up to 15 (MH5)",
    ]


def test_moosehead_fifty_at_the_end_of_a_hand_ends_the_game():
    # BIG_HAND three times: Ann 3 * 20 = 60, Bob 3 * 11 = 33; after two Ann has 40 (MH6).
    assert not any("over" in line for line in moosehead_lines(*BIG_HAND * 2))
    assert moosehead_lines(*BIG_HAND * 3) == [
        "Ann +16: 2 for each combination of his five cards that adds up to 15 (MH5)",
        "Bob 0: 2 for each combination of his five cards that adds up to 15 (MH5)",
        "Ann 0: 50 reached at the end of a hand: the game is over, the highest total wins (MH6)",
        "the game is over (G4): Ann wins (G5)",
    ]


# ---------------------------------------------------------------- Bishops Whist, by hand (docs/rules.md BW)
# Ann 0 and Cy 2 against Bob 1 and Dee 3 (BW1); Ann deals first, then Bob, Cy, Dee (BW3).
BW_NAMES = ["Ann", "Bob", "Cy", "Dee"]
A_TRICKS = "Ann and Cy +%d: the side scores 1 for each trick over six (BW4)"
B_TRICKS = "Bob and Dee %s: the side scores 1 for each trick over six (BW4)"
A_BISHOPS = "Ann and Cy +%d: 2 for each bishop among the side's tricks (BW4)"
B_BISHOPS = "Bob and Dee +%d: 2 for each bishop among the side's tricks (BW4)"
# the same points under the same clause are one line, both sides' players joined
ALL_BISHOPS = "Ann, Cy, Bob and Dee +%d: 2 for each bishop among the side's tricks (BW4)"


def bw(tricks_a, bishops_a, turned=False, exposed=(0, 0), revokes=(0, 0)):
    return bishops_whist.pack_hand((tricks_a, 13 - tricks_a), (bishops_a, 4 - bishops_a), turned, exposed, revokes)


def bw_lines(*events):
    g = core_game.Game()
    g.new("bishops_whist", 4)
    for event in events:
        g.apply(event)
    return why.lines(g, why.explain(g, g.n - 1, why.Parts()), BW_NAMES)


# Ann deals: A 12 tricks, 4 bishops, a bishop turned: 6 + 8 + 1 = 15; B 1 trick: 0.
# Bob deals: B 13, 4 bishops, turned: 7 + 8 + 1 = 16. Cy deals: A 7, 2 bishops, turned:
# 1 + 4 + 1 = 6 (21); B 6, 2: 4 (20). Dee deals next: A 21, B 20.
THREE_HANDS = [bw(12, 4, turned=True), bw(0, 0, turned=True), bw(7, 2, turned=True)]


def test_bishops_whist_tricks_bishops_and_the_turned_bishop():
    # Ann deals: A 8 tricks, 3 bishops and the bishop turned: 2 + 6 + 1 = 9; B 5 tricks, 1 bishop: 0 + 2.
    assert bw_lines(bw(8, 3, turned=True)) == [
        A_TRICKS % 2, A_BISHOPS % 6,
        "Ann and Cy +1: a bishop turned as the trump card: 1 to the dealer's side (BW4)",
        B_TRICKS % "0", B_BISHOPS % 2,
    ]


def test_bishops_whist_penalties():
    # A 7 tricks, 2 bishops, one exposed card: 1 + 4 - 2 = 3; B 6 tricks, 2 bishops, one revoke: 0 + 4 - 4 = 0.
    assert bw_lines(bw(7, 2, exposed=(1, 0), revokes=(0, 1))) == [
        A_TRICKS % 1, ALL_BISHOPS % 4, "Ann and Cy -2: an exposed card costs the side 2, each time (BW5)",
        B_TRICKS % "0", "Bob and Dee -4: a revoke costs the side 4, each time (BW5)",
    ]


def test_bishops_whist_misdeal_scores_nothing():
    assert bw_lines(bishops_whist.MISDEAL) == [
        "everyone 0: a misdeal: it scores nothing, and the deal passes to the left (BW3)"]


def test_bishops_whist_both_past_25_the_higher_side_wins():
    # Dee deals: A 7 tricks, 2 bishops: 1 + 4 = 5, 26; B 6, 2 bishops, turned: 0 + 4 + 1 = 5, 25.
    # Both at 25 or more: the higher, Ann and Cy, win (BW6).
    assert bw_lines(*THREE_HANDS, bw(7, 2, turned=True)) == [
        A_TRICKS % 1, ALL_BISHOPS % 4, B_TRICKS % "0",
        "Bob and Dee +1: a bishop turned as the trump card: 1 to the dealer's side (BW4)",
        "Ann and Cy 0: 25 or more at the end of the hand, the higher total: the side wins (BW6)",
        "the game is over (G4): Ann and Cy win (G5)",
    ]


def test_bishops_whist_a_side_that_revoked_cannot_win_on_that_hand():
    # Dee deals: A 9 tricks, 3 bishops, a revoke: 3 + 6 - 4 = 5, 26; B 4 tricks, 1 bishop,
    # turned: 0 + 2 + 1 = 3, 23. A is past 25 but revoked: the game goes on (BW5, BW6).
    assert bw_lines(*THREE_HANDS, bw(9, 3, turned=True, revokes=(1, 0))) == [
        A_TRICKS % 3, A_BISHOPS % 6, "Ann and Cy -4: a revoke costs the side 4, each time (BW5)",
        B_TRICKS % "0", B_BISHOPS % 2,
        "Bob and Dee +1: a bishop turned as the trump card: 1 to the dealer's side (BW4)",
        "Ann and Cy 0: 25 or more, but the side revoked in this hand: it cannot win on it (BW5)",
    ]


def test_bishops_whist_equal_totals_past_25_play_another_hand():
    # Dee deals: A 6 tricks, 2 bishops: 0 + 4, 25; B 7 tricks, 2 bishops: 1 + 4, 25: equal (BW6).
    assert bw_lines(*THREE_HANDS, bw(6, 2)) == [
        "Ann and Cy 0: the side scores 1 for each trick over six (BW4)", ALL_BISHOPS % 4,
        B_TRICKS % "+1",
        "Ann, Cy, Bob and Dee 0: both sides can win on equal totals: another hand is played (BW6)",
    ]


def test_parts_past_their_room_are_refused_not_dropped():
    parts = why.Parts()
    for _ in range(why.MAX_PARTS):
        parts.add(0, 1, 0)
    with pytest.raises(ValueError, match="why: more than 32 parts in one event"):
        parts.add(0, 1, 0)
    assert parts.count == 32 and parts.of(0) == 32
    parts.clear()
    assert parts.count == 0 and parts.of(0) == 0
