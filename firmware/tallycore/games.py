# The games the board knows, by the names game records use, in wire order
# (the protocol names a game by its index here).
#
# Each row names a rules module tallycore.<module> with the interface of
# game.py: MIN_PLAYERS, MAX_PLAYERS, STATE_SIZE, VIEW, check_options, reset,
# check, apply, total, hands, ends_hand, complete, winners; a game without a
# view of its own also has ENTRY (tallycore.steps: how a hand is entered on
# the board), or entry(variant) where its names differ. Games that are
# one rule under other names share a module and differ by their row: the
# player range, and a small per-variant value the module reads at reset()
# (0 when a module scores one game). A module's MIN_PLAYERS..MAX_PLAYERS is
# the most its rule takes; the row's range is the game's own. The last field
# names the game's options as records write them, so that a host learns
# from the board which options it takes (GAME) without a module loaded.
#
# The modules load on demand and, on the board, only the one in play stays
# in memory. The names and player ranges are here so that listing the
# games loads none.
import gc
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GAMES = (
    # name, min players, max players, rules module, variant, the keys of its
    # options (docs/records.md "Options"), which GAME lists
    ("skicket", 4, 4, "skicket", 0, "hands,series,royal"),
    ("roquet", 2, 2, "roquet", 0, "end,landmark_bonus"),
    ("bishops_whist", 4, 4, "bishops_whist", 0, "first_dealer"),
    ("rummy", 2, 6, "rummy", 0, "first_dealer,faces"),
    ("parquet", 2, 6, "rummy", 0, "first_dealer,faces"),         # Rummy with the cards parked
    ("coronado", 2, 2, "coronado", 0, "first_dealer"),
    ("foozle", 2, 8, "foozle", 0, "first_dealer"),
    ("jaimy", 2, 8, "jaimy", 0, "first_dealer,partners"),
    # eight cards each: 6 * 8 = 48 of 52 (the text: two to six)
    ("hoodoo", 2, 6, "first_out", 0, "first_dealer"),
    ("numero", 2, 8, "most_count", 52, "first_dealer"),   # counts cards: at most the pack
    ("sachem", 2, 8, "sachem", 0, "first_dealer"),
    ("quatro", 2, 8, "most_count", 13, "first_dealer,hands_won"),   # counts tricks of four: all thirteen
    ("doolittle", 2, 8, "doolittle", 0, "first_dealer,cards"),
    ("despised_nines", 2, 8, "despised_nines", 0, "first_dealer"),
    # the pack dealt out; the board's eight seats
    ("ups_and_downs", 2, 8, "first_out", 0, "first_dealer"),
    ("moosehead", 2, 8, "moosehead", 0, "first_dealer,faces"),
)
_MICRO = sys.implementation.name == "micropython"
_loaded = [None, None]  # type: list[Any]  # the rules module loaded last: its name, the module


def index_of(name):
    for index in range(len(GAMES)):
        if GAMES[index][0] == name:
            return index
    raise ValueError("game: unknown game %s" % name)


def find(game):
    """The index of a game given by its index, its name, or its rules module
    (the game the module is named after, else the one game it scores)."""
    if isinstance(game, int):
        if game < 0 or game >= len(GAMES):
            raise ValueError("game: no game at index %d" % game)
        return game
    if isinstance(game, str):
        return index_of(game)
    module = game.__name__
    short = module[module.rfind(".") + 1:]
    found = -1
    for index in range(len(GAMES)):
        if GAMES[index][0] == short and GAMES[index][3] == short:
            return index
    for index in range(len(GAMES)):
        if GAMES[index][3] == short:
            if found >= 0:
                raise ValueError("game: %s scores %s and %s; name the game" % (
                    module, GAMES[found][0], GAMES[index][0]))
            found = index
    if found < 0:
        raise ValueError("game: %s is not a game's rules" % module)
    return found


def load(index):
    """The rules module of the game at index. On the board every other
    game's rules are let go first, so only the game in play stays in memory
    (a module still referenced elsewhere keeps working). What several rules
    import (tallycore.points, tallycore.steps) stays loaded: loaded again on
    every switch it would be one more thing to place in the heap each time.
    A game switch never fails for memory while the heap holds the module:
    the load collects first, and a load into a heap too fragmented for it
    collects and tries again."""
    name = GAMES[index][3]
    if name == _loaded[0]:
        return _loaded[1]   # the same rules again (a new game, or its other name)
    if _MICRO:
        _loaded[0] = None   # nothing here holds the last game's code while the next one loads
        _loaded[1] = None
        for release in _releases:   # the panel lets the last game's view and entry go too
            release()
        for row in GAMES:
            if row[3] != name:
                unload("tallycore." + row[3])
    module = load_module("tallycore", name)
    _loaded[0] = name
    _loaded[1] = module
    return module


def load_module(package, name):
    """Import package.name; on MemoryError collect the garbage and try again
    (a module's bytecode needs blocks in one piece: after a collection the
    last game's code is gone and the free blocks have merged)."""
    dotted = package + "." + name
    tries = _LOAD_TRIES
    if _MICRO and _dropped[0]:
        # what the game played last let go is freed and merged first, and the
        # allocator starts again from the heap's lowest free block: the code
        # goes where the last game's was, not between the objects made since.
        # Only after a module was let go: the boot's first loads collect nothing.
        _dropped[0] = False
        gc.collect()
    while True:
        try:
            return getattr(__import__(dotted), name)
        except MemoryError:
            unload(dotted)          # half-loaded: import it whole next time
            tries -= 1
            if tries == 0:
                raise
            gc.collect()


_LOAD_TRIES = 3   # a collection merges what the last game left; a third try after a second one
_releases = []    # callables that let go of what belongs to the game played last (tallypanel.gameview)
_dropped = [False]  # a module was let go since the last load: the next load collects first


def on_switch(release):
    """release() is called when another game's rules are about to load."""
    _releases.append(release)


def unload(name):
    """Drop the module of that dotted name from sys.modules and its package,
    so its memory goes once nothing else holds it."""
    if name in sys.modules:
        del sys.modules[name]
        _dropped[0] = True
    dot = name.rfind(".")
    package = sys.modules.get(name[:dot])
    attr = name[dot + 1:]
    if package is not None and hasattr(package, attr):
        delattr(package, attr)


def by_name(name):
    return load(index_of(name))


def names():
    return [row[0] for row in GAMES]
