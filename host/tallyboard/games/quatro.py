"""Quatro on the host: a hand is the tricks of four each player took, thirteen
in all; the totals are tricks unless the option hands_won (games/most_count.py,
docs/rules.md QU3)."""
from tallycore import most_count as rule

from . import most_count
from .base import WINS_MOST_TRICKS

PROFILE = most_count.profile("quatro", "tricks", rule.TRICKS, '{"tricks": [3, 5, 5]}', WINS_MOST_TRICKS,
                             options=most_count.hands_won_options,
                             more_options=most_count.hands_won_document)
