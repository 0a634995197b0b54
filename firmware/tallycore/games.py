# The games the board knows, by the names RECORDS.md uses, in wire order
# (the protocol names a game by its index here).
#
# Each game is a rules module tallycore.<name> with the same interface (see
# game.py): NAME, MIN_PLAYERS, MAX_PLAYERS, STATE_SIZE, VIEW, check_options,
# reset, check, apply, total, hands, ends_hand, complete, winners.
#
# The modules load on demand: the board's heap holds Skicket and Roquet (the
# display and the menu use them) and the one short game in play, not all
# sixteen. The player ranges are here so that listing the games loads none.
import sys

GAMES = (
    # name, min players, max players
    ("skicket", 4, 4),
    ("roquet", 2, 2),
    ("bishops_whist", 4, 4),
    ("rummy", 2, 6),
    ("parquet", 2, 6),
    ("coronado", 2, 2),
    ("foozle", 2, 8),
    ("jaimy", 2, 8),
    ("hoodoo", 2, 6),
    ("numero", 2, 8),
    ("sachem", 2, 8),
    ("quatro", 2, 8),
    ("doolittle", 2, 8),
    ("despised_nines", 2, 8),
    ("ups_and_downs", 2, 8),
    ("moosehead", 2, 8),
)
_RESIDENT = 2   # skicket and roquet stay loaded
_loaded = [-1]  # the short game loaded last


def index_of(name):
    for index in range(len(GAMES)):
        if GAMES[index][0] == name:
            return index
    raise ValueError("game: unknown game %s" % name)


def load(index):
    """The rules module of the game at index; on the board, a short game
    loaded before is let go first so only one stays in memory."""
    name = GAMES[index][0]
    last = _loaded[0]
    if sys.implementation.name == "micropython" and last >= _RESIDENT and last != index:
        unload("tallycore." + GAMES[last][0])
    if index >= _RESIDENT:
        _loaded[0] = index
    package = __import__("tallycore." + name)
    return getattr(package, name)


def unload(name):
    """Drop the module of that dotted name from sys.modules and its package,
    so its memory goes once nothing else holds it."""
    if name in sys.modules:
        del sys.modules[name]
    dot = name.rfind(".")
    package = sys.modules.get(name[:dot])
    attr = name[dot + 1:]
    if package is not None and hasattr(package, attr):
        delattr(package, attr)


def by_name(name):
    return load(index_of(name))


def names():
    return [row[0] for row in GAMES]
