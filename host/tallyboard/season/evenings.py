"""The club evening's code as the season uses it: every import of the
evening package (tallyboard.evening) is here, so the season, the register and
the results read an evening through these names only."""
from __future__ import annotations

from ..evening import director, play, record, standings
from ..evening.store import FINISHED, Evening, EveningError, EveningDatabase

__all__ = ["director", "play", "record", "standings", "FINISHED", "Evening", "EveningError", "EveningDatabase"]
