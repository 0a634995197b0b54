"""The wire protocol's game verbs (HAND, MISDEAL, PEG, END) are declared by the
rules module of the one game that takes them (VERBS, verb_event): the
runtime's table has none of them, and the board takes them only while that
game is in play."""
from tallycore import games
from tallyrun import protocol as P

# the verbs every game takes (the runtime's own)
RUNTIME_VERBS = {b"HELLO", b"GAME", b"NEW", b"EV", b"UNDO", b"REDO", b"STATE", b"SCORE", b"LOG", b"STATS", b"NOTE", b"OPEN",
                 b"CFG", b"KEPT", b"NET", b"ENTRY", b"WHY", b"DESC",
                 b"SIGN", b"LAMP", b"PINS", b"SCAN", b"POWER", b"PIXELS"}


def declared():
    owners = {}
    for name, *_ in games.GAMES:
        rules = games.load(games.index_of(name))
        for row in rules.VERBS:
            owners.setdefault(row[0], set()).add(rules.__name__)
    return owners


def test_every_game_verb_has_one_owner_and_the_runtime_names_none():
    owners = declared()
    assert set(owners) == {b"HAND", b"MISDEAL", b"PEG", b"END"}
    assert {spec[0] for spec in P.VERBS} == RUNTIME_VERBS
    for verb, modules in owners.items():
        assert len(modules) == 1, (verb, modules)
    assert P.V_GAME_VERB == len(P.VERBS)


def test_verb_events_are_the_games_own_packing():
    skicket = games.by_name("skicket")
    roquet = games.by_name("roquet")
    # HAND 2 4H - - 0 10: purchaser 2, level 4, strain hearts (2), "-" read as nobody (4), tricks 10
    values = [2, 4 | 2 << 3, 4, 4, 0, 10]
    assert skicket.verb_event(0, values) == 2 | 4 << 2 | 2 << 5 | 4 << 8 | 4 << 11 | 10 << 15
    assert skicket.verb_event(1, []) == skicket.MISDEAL
    # PEG 1 5: player 1 at bit 2, points 5 from bit 3
    assert roquet.verb_event(0, [1, 5]) == 1 << 2 | 5 << 3
    assert roquet.verb_event(1, []) == roquet.HAND_END
