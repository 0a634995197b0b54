# The registry of games: names in wire order, player ranges that agree with
# each rules module, and modules loaded on demand.
import sys

from tallycore import games


def test_every_game_loads_and_its_player_range_is_the_modules_own():
    for index in range(len(games.GAMES)):
        name, least, most = games.GAMES[index]
        rules = games.load(index)
        assert rules.NAME == name
        assert (rules.MIN_PLAYERS, rules.MAX_PLAYERS) == (least, most), name
        assert games.by_name(name).NAME == name


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


def test_on_the_board_one_short_game_stays_loaded():
    if sys.implementation.name != "micropython":
        return  # CPython keeps every module (the host wants them all)
    games.by_name("rummy")
    games.by_name("moosehead")
    assert "tallycore.moosehead" in sys.modules
    assert "tallycore.rummy" not in sys.modules
    assert "tallycore.skicket" in sys.modules and "tallycore.roquet" in sys.modules
    # a game still referenced keeps working after it was let go
    rummy = games.by_name("rummy")
    games.by_name("coronado")
    assert rummy.NAME == "rummy" and rummy.MIN_PLAYERS == 2
