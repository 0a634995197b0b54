# The registry of games: names in wire order, player ranges that agree with
# each rules module, games that are one rule under two names sharing a
# module, and modules loaded on demand.
from mpfixtures import skip
import sys

from tallycore import games


def test_every_game_loads_and_its_player_range_is_the_modules_own():
    for index in range(len(games.GAMES)):
        name, least, most, module, variant = games.GAMES[index][:5]
        rules = games.load(index)
        assert rules.__name__ == "tallycore." + module
        shared = [row[0] for row in games.GAMES if row[3] == module]
        if shared == [name]:
            assert (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == (least, most), name
            assert variant == 0, name
        else:   # the row's range is within what the shared rule takes
            assert rules.MIN_PLAYERS <= least <= most <= rules.MAX_PLAYERS, name
        assert games.by_name(name).__name__ == "tallycore." + module
        assert games.find(name) == index and games.find(index) == index


def test_one_rule_under_two_names_is_one_module():
    rows = {row[0]: row for row in games.GAMES}
    assert rows["rummy"][3] == rows["parquet"][3] == "rummy"
    assert rows["hoodoo"][3] == rows["ups_and_downs"][3] == "first_out"
    assert (rows["hoodoo"][1:3], rows["ups_and_downs"][1:3]) == ((2, 6), (2, 8))
    assert rows["numero"][3] == rows["quatro"][3] == "most_count"
    assert (rows["numero"][4], rows["quatro"][4]) == (52, 13)   # the cap on a count
    try:
        games.find(games.by_name("hoodoo"))
    except ValueError as exc:
        assert str(exc) == "game: tallycore.first_out scores hoodoo and ups_and_downs; name the game"
    else:
        raise AssertionError("a shared module named one game")
    assert games.find(games.by_name("parquet")) == games.index_of("rummy")   # the module's namesake


def test_the_names_are_those_of_records_md():
    assert games.names() == ["skicket", "roquet", "bishops_whist", "rummy", "parquet", "coronado",
                             "foozle", "jaimy", "hoodoo", "numero", "sachem", "quatro", "doolittle",
                             "despised_nines", "ups_and_downs", "moosehead"]


def test_unknown_game():
    try:
        games.by_name("whist")
    except ValueError as exc:
        assert str(exc) == "game: unknown game whist"
    else:
        raise AssertionError("loaded an unknown game")


def test_on_the_board_only_the_game_in_play_stays_loaded():
    if sys.implementation.name != "micropython":
        skip("CPython keeps every module loaded (the host wants them all): runs in the MicroPython pass")
    games.by_name("rummy")
    games.by_name("moosehead")
    assert "tallycore.moosehead" in sys.modules
    assert "tallycore.rummy" not in sys.modules
    assert "tallycore.skicket" not in sys.modules and "tallycore.roquet" not in sys.modules
    games.by_name("skicket")    # a short game to Skicket: the short game goes
    assert "tallycore.skicket" in sys.modules and "tallycore.moosehead" not in sys.modules
    games.by_name("hoodoo")
    shared = games.by_name("ups_and_downs")     # the same rule: nothing to let go
    assert "tallycore.first_out" in sys.modules and "tallycore.skicket" not in sys.modules
    # a game still referenced keeps working after it was let go
    rummy = games.by_name("rummy")
    games.by_name("coronado")
    assert rummy.MIN_PLAYERS == 2 and rummy.MAX_PLAYERS == 6
    assert shared.MAX_PLAYERS == 8
