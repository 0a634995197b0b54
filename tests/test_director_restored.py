"""The director's numbering survives a restore (issue 40): a director whose file is restored from an
older copy numbers its rounds from the round it last published, read back from the broker's retained
copy (its own signature, checked), so the tables take its next round; on both brokers."""
from __future__ import annotations

import logging
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from test_club_forged_round import ROUND, TableHost, board
from test_club_guard import url
from test_club_mqtt import EVENT, broker, wait_for  # noqa: F401  (broker: the fixture, on both brokers)
from tallyboard.club import director_link, envelope

pytestmark = [pytest.mark.broker, pytest.mark.process]

SECRET = bytes(range(32))      # test_club_forged_round's evening secret: its table host checks these tags


def rounds(n: int) -> dict[str, Any]:
    return {"round": n, "players": ["Ann", "Bob"], "seatings": [[[0, 1]]] * n}


def start_director(broker: Any, store: Path) -> director_link.DirectorLink:
    link = director_link.DirectorLink(
        url(broker, "director"), f"{EVENT}-director", event=EVENT, store_path=store,
        key=lambda message: envelope.board_key(SECRET, message["board"]), boards=[board(1), board(2)],
        on_table_message=lambda connection, message: None, max_backoff=1.0)
    link.start()
    link.wait_connected(30)
    return link


def sent_seq(store: Path) -> int:
    with sqlite3.connect(store) as db:
        return db.execute("SELECT seq FROM sent WHERE topic = ?", (ROUND,)).fetchone()[0]


def test_a_director_restored_from_an_older_file_numbers_on_from_the_brokers_round(broker, tmp_path, caplog):
    caplog.set_level(logging.WARNING, logger="tallyboard.club.director_link")
    store = tmp_path / "director.sqlite3"
    with TableHost(broker, tmp_path) as host:
        director = start_director(broker, store)
        try:
            assert director.publish_round(rounds(1)) == 1
            wait_for("round 1 at the table", lambda: len(host.rounds) == 1)
        finally:
            director.stop()
        shutil.copyfile(store, tmp_path / "older.sqlite3")        # the copy the director is restored from
        director = start_director(broker, store)
        try:
            assert [director.publish_round(rounds(n)) for n in (2, 3)] == [2, 3]
            wait_for("rounds 2 and 3 at the table", lambda: len(host.rounds) == 3)
        finally:
            director.stop()
        # restored: the file says round message 1; the broker holds 3, signed by this director
        shutil.copyfile(tmp_path / "older.sqlite3", store)
        director = start_director(broker, store)
        try:
            wait_for("the director to take the broker's round 3 as its last", lambda: sent_seq(store) == 3)
            # once, or twice when the broker also had round 2 queued for the director's session (it may
            # deliver that before the retained round 3): each ahead of the file, each taken in turn
            assert director.rounds_taken_from_the_broker in (1, 2)
            assert director.publish_round(rounds(4)) == 4
            wait_for("round 4 at the table", lambda: len(host.rounds) == 4)
        finally:
            director.stop()
        assert host.rounds == [(n, rounds(n)) for n in (1, 2, 3, 4)]
    # said once it took the broker's first round ahead of the file: 3, or 2 when that came first (above)
    assert any(f"the broker holds round message {n}, signed by this director, and this director's file only 1"
               in record.getMessage() for record in caplog.records for n in (2, 3)), [r.getMessage() for r in caplog.records]


def test_a_round_on_the_broker_not_signed_by_the_director_is_replaced_not_taken(broker, tmp_path):
    store = tmp_path / "director.sqlite3"
    director = start_director(broker, store)
    try:
        assert director.publish_round(rounds(1)) == 1
        # another key's round numbered 50 on the round topic (the director's own login here, as a broker
        # that let it through would): not the director's, so not taken, and the director's own put back
        forged = envelope.seal_director({board(1): bytes(16), board(2): bytes(16)}, EVENT, 50, "round", rounds(9))
        director.client.publish(ROUND, forged, qos=1, retain=True)
        wait_for("the director to put its own round back", lambda: director.round_published_again >= 1)
        assert sent_seq(store) == 1 and director.rounds_taken_from_the_broker == 0
        assert director.publish_round(rounds(2)) == 2
    finally:
        director.stop()
