# The games the board knows, by the names RECORDS.md uses.
# Each entry is a rules module with the same interface (see game.py):
#   NAME, MIN_PLAYERS, MAX_PLAYERS, STATE_SIZE, check_options, reset, check,
#   apply, total, hands, ends_hand, complete, winners.
from tallycore import skicket, roquet
from tallycore import (bishops_whist, rummy, parquet, coronado, foozle, jaimy, hoodoo,
                       numero, sachem, quatro, doolittle, despised_nines, ups_and_downs,
                       moosehead)

GAMES = (skicket, roquet, bishops_whist, rummy, parquet, coronado, foozle, jaimy, hoodoo,
         numero, sachem, quatro, doolittle, despised_nines, ups_and_downs, moosehead)


def by_name(name):
    for rules in GAMES:
        if rules.NAME == name:
            return rules
    raise ValueError("game: unknown game %s" % name)


def names():
    return [rules.NAME for rules in GAMES]
