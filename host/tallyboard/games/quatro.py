"""Quatro on the host: a hand is the tricks of four each player took, thirteen
in all (games/most_count.py)."""
from tallycore import most_count as rule

from . import most_count

PROFILE = most_count.profile("quatro", "tricks", rule.TRICKS)
