"""docs/events.md is the contract of the snapshot: its example has exactly
the keys a real snapshot has, at the top, in a standing and in a table."""
import json
import re
from pathlib import Path

from tallyboard import evening as tb_event
from tallyboard.evening.store import EveningDatabase

import event_evenings as ev

DOC = Path(__file__).resolve().parent.parent / "docs" / "events.md"


def documented_snapshot():
    text = DOC.read_text(encoding="utf-8").split("## The snapshot", 1)[1]
    return json.loads(re.search(r"```json\n(.*?)```", text, re.S).group(1))


def test_the_documented_snapshot_has_the_keys_of_a_real_one(tmp_path):
    store = EveningDatabase(tmp_path / "a.sqlite3")
    event = store.create("Tuesday club", ev.THREE_NAMES, ev.THREE_FIRST, 3)
    for t, hands in enumerate(ev.THREE_ROUND1, 1):
        store.save_table_game(event, 1, t, ev.table_record(ev.THREE_NAMES, ev.THREE_FIRST[t - 1], hands, True), {})
    real = tb_event.snapshot(store, event)
    doc = documented_snapshot()
    assert list(doc) == list(real)
    assert list(doc["standings"][0]) == list(real["standings"][0])
    assert list(doc["tables"][0]) == list(real["tables"][0])
    assert list(doc["tables"][0]["hands"][0]) == list(real["tables"][0]["hands"][0])
    assert list(doc["moves"][0]) == list(real["moves"][0])
    # the example's numbers are this evening's (tests/event_evenings.py, worked by hand)
    assert doc["tables"][0]["totals"] == real["tables"][0]["totals"]
    assert doc["tables"][0]["hands"][0] == real["tables"][0]["hands"][2]
    assert doc["next_seating"] == real["next_seating"] == ev.THREE_SEATING2
    assert doc["moves"][0] == real["moves"][0]
