"""Parquet on the host: its records are Rummy's (games/rummy.py)."""
from __future__ import annotations

from . import rummy, short
from .base import WINS_LOWEST

PROFILE = short.profile("parquet", rummy.record_events, rummy.record_hand, WINS_LOWEST,
                        '{"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}',
                        options=rummy.record_options, more_options=rummy.faces_document,
                        open_hand=rummy.open_hand, open_events=rummy.open_events)
