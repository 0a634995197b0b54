"""Numero on the host: a hand is the cards each player holds at its end, at
most the pack (games/most_count.py)."""
from tallycore import most_count as rule

from . import most_count

PROFILE = most_count.profile("numero", "cards", rule.PACK, '{"cards": [20, 12, 0, 20]}')
