# Parquet: Rummy with the played cards "parked" together in the centre;
# scored exactly as Rummy (GAMES.md "Rummy and the short games": "Rummy (and
# Parquet, same scoring)"; seed 002, "PARQUET"). One implementation: the
# rules are rummy.py's; only the name differs.
try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

from tallycore import rummy

NAME = "parquet"
MIN_PLAYERS = const(2)
MAX_PLAYERS = const(6)
STATE_SIZE = rummy.STATE_SIZE
VIEW = None            # the panel's screens for any short game
TARGET = const(0)
OUT = rummy.OUT
OPT_FACES_TEN = rummy.OPT_FACES_TEN

pack_card = rummy.pack_card
pack_out = rummy.pack_out
hand_size = rummy.hand_size
card_value = rummy.card_value
reset = rummy.reset
check = rummy.check
apply = rummy.apply
against = rummy.against
total = rummy.total
hands = rummy.hands
ends_hand = rummy.ends_hand
complete = rummy.complete
winners = rummy.winners


def check_options(players, options):
    if options >> 4:
        raise ValueError("options: parquet has first_dealer and faces")
    rummy.check_options(players, options)

