# Hoodoo and Ups and Downs: one rule under two names (their rows in
# tallycore/games.py give each its player range). No points: the first to
# play out all his cards wins the hand. Rules: docs/rules.md HO and UD,
# Hoodoo (seed 002, "HOODOO": "FOR ANY NUMBER FROM TWO TO SIX";
# eight cards each) and Ups and Downs (seed 002, "UPS and DOWNS": any number).
#
# The board keeps a session: totals count hands won, and the session is
# complete when every player has dealt once (docs/records.md:
# totals count hands won; the text plays one hand, so one deal per player
# is the board's reading); most hands won wins, ties reported.
#
# Event encoding (one hand, a small int below 2**3): the winner's index.
#
# State: the shared layout of points.py. Options: bits 0-2 first dealer.
from tallycore import const

from tallycore import points
from tallycore.steps import PLAYER, EMIT, FOLLOWING

MIN_PLAYERS = const(2)
MAX_PLAYERS = const(8)       # Ups and Downs; Hoodoo's row says 6
STATE_SIZE = const(20)
VIEW = None                  # the panel's screens for any short game
TARGET = const(0)            # not a first-to-N game


# The board's own entry (tallypanel.entry, docs/display.md): the winner.
ENTRY = (
    (b"winner", PLAYER, 0, 0, 0, 0, EMIT, FOLLOWING, None, 0, None, None),
)

def check_options(players, options, name):
    points.check_dealer_only(name, players, options)


reset = points.reset_nothing
check = points.check_winner

# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/first_out.py, which holds each one's clause and words.
_R_WON = const(0)


def apply(state, players, event, why=None):
    # docs/rules.md HO2, UD2: the first to play out wins; a won hand counts 1 (G6).
    points.win_hand(state, players, event)
    if why is not None:
        why.add(event, 1, _R_WON)


total = points.player_total
hands = points.hands
ends_hand = points.every_event
complete = points.complete_dealt
winners = points.winners_highest


# The wire of this game (tallycore.game explains the declarations): no verb
# of its own (a host sends EV with the packed event), and its event's layout.
VERBS = ()
OPTION_FIELDS = (points.DEALER_OPTION,)
EVENT_FORMS = (
    (b"hand", 0, 0, ((b"winner", 0, 3, 0, 7, b"player", 0, "the first to play out all his cards"),),
     "one hand", 1),
)
