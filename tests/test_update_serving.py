"""The director's side of an update over the air (issue 43; docs/club-mqtt.md, "Updates over the air"),
without a broker: the bodies of `update` and `offer` and the chunk that is no envelope (kinds.py,
envelope.py); the serving class (club/updates.py) on a clock moved by hand: the offers, the window of 8
from `have`, sliding on as a board moves, from `have` again after 5 s with no progress or a chunk that
failed its hash, a board that refuses, one that goes back, statuses of another release or kept from
before; the director's link keeping each board's latest status; `event update-boards` refusing what it
cannot do in the user's words."""
from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.cli import main
from tallyboard.club import brokers, envelope, kinds, releases, updates
from tallyboard.club.update_link import client_id
from tallyboard.evening import club as club_mod
from tallyboard.evening.tables import event_tag
from tallyboard.tooling import fileset
from tallynet import topics

from club_director_support import Message, unstarted_director

SEED = bytes(range(32))
EVENT = "Club-night-1a2b"
KEYS = {"1A2B.1": b"k" * 16, "1A2B.2": b"j" * 16}


def _release(size: int = 20 * 1024) -> releases.Release:
    """A release whose image is a little over `size` bytes: 21 chunks for the default."""
    here = Path(__file__)
    files = [fileset.FirmwareFile("tallycore/a.mpy", bytes(i % 251 for i in range(size)), here),
             fileset.FirmwareFile("tallyboot.mpy", b"M\x06t", here), fileset.FirmwareFile("boot.py", b"#\n", here),
             fileset.FirmwareFile("main.py", b"import x\n", here)]
    files.insert(2, fileset.FirmwareFile(fileset.RELEASE, (fileset.release_id(files) + "\n").encode(), here))
    return releases.make(files, 5, SEED)


RELEASE = _release()


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def status(state: str, have: int = 0, why: str = "-", release: str | None = None) -> dict:
    return {"release": RELEASE.id if release is None else release, "state": state, "have": have,
            "of": releases.chunk_count(RELEASE), "why": why}


def indexes(sent: list[tuple[str, bytes]], board: str = "1A2B.1") -> list[int]:
    """The chunk indexes of what was sent, each on that board's chunk topic and a chunk of this release."""
    assert all(topic == f"tallyboard/{EVENT}/director/chunk/{board}" for topic, _ in sent)
    assert all(payload[:12] == RELEASE.id.encode() for _, payload in sent)
    return [int.from_bytes(payload[12:14], "big") for _, payload in sent]


@pytest.fixture
def served():
    clock = Clock()
    server = updates.UpdateServer(EVENT, RELEASE, {"1A2B.1": 1, "1A2B.2": 2}, KEYS.__getitem__, clock=clock)
    return server, clock


# ---------------------------------------------------------------- the bodies

def test_an_update_body_of_every_state_is_taken_and_a_wrong_one_refused_naming_its_field():
    check = kinds.KINDS["update"].body
    for state in ("receiving", "staged", "switching", "kept", "back", "refused"):
        check({"release": "5b0383d4fc7c", "state": state, "have": 3, "of": 180, "why": "-"})
    check({"release": "-", "state": "refused", "have": 0, "of": 0, "why": "signature"})
    for changes, field in [({"state": "done"}, "state"), ({"have": 181}, "have 181 is more than its of"),
                           ({"of": 65536}, "of"), ({"have": True}, "have"), ({"why": "<b>"}, "why"),
                           ({"release": ""}, "release"), ({"release": "x" * 17}, "release"),
                           ({"extra": 1}, "the fields release, state, have, of, why")]:
        body = {"release": "5b0383d4fc7c", "state": "receiving", "have": 3, "of": 180, "why": "-", **changes}
        with pytest.raises(kinds.BodyError, match=field):
            check(body)


def test_an_offer_body_is_checked_and_a_chunk_is_never_an_envelope():
    check = kinds.KINDS["offer"].body
    good = {"board": "1A2B.1", "manifest": {"format": 2}, "sig": "ab" * 64, "force": False}
    check(good)
    for changes, field in [({"sig": "ab" * 32}, "sig"), ({"force": 0}, "force"), ({"manifest": []}, "manifest"),
                           ({"board": "a/b"}, "board")]:
        with pytest.raises(kinds.BodyError, match=field):
            check({**good, **changes})
    assert kinds.KINDS["chunk"].raw and kinds.RAW == {"chunk"}
    with pytest.raises(envelope.RefusedMessage, match="a chunk is not an envelope"):
        envelope.seal_director(KEYS, EVENT, 0, topics.CHUNK, {})
    forged = envelope.canonical({"v": 1, "event": EVENT, "board": "director", "seq": 0, "kind": "chunk", "body": {},
                                 "tags": {"1A2B.1": "0" * 64}})
    with pytest.raises(envelope.RefusedMessage, match="not an envelope"):
        envelope.open_message(forged, KEYS["1A2B.1"], {"director": 0}, tag_for="1A2B.1")


# ---------------------------------------------------------------- the serving class

def test_each_board_is_offered_the_release_tagged_for_it_and_the_offers_withdrawn(served):
    server, _ = served
    offers = dict(server.offers())
    assert list(offers) == [f"tallyboard/{EVENT}/director/offer/1A2B.1", f"tallyboard/{EVENT}/director/offer/1A2B.2"]
    topic = f"tallyboard/{EVENT}/director/offer/1A2B.2"
    opened = envelope.open_message(offers[topic], KEYS["1A2B.2"], {"director": 0}, event=EVENT, gaps=True,
                                   topic=topic, tag_for="1A2B.2")
    assert opened["body"] == {"board": "1A2B.2", "manifest": RELEASE.manifest, "sig": RELEASE.signature.hex(),
                              "force": False}
    with pytest.raises(envelope.RefusedMessage, match="no tag"):        # board 1 finds no tag of its own in it
        envelope.open_message(offers[topic], KEYS["1A2B.1"], {"director": 0}, topic=topic, tag_for="1A2B.1")
    assert server.withdrawals() == [(t, b"") for t in offers]


def test_a_receiving_board_gets_a_window_of_8_that_slides_as_it_moves(served):
    server, _ = served
    server.offers()
    assert releases.chunk_count(RELEASE) == 21
    sent = server.on_update("1A2B.1", status("receiving", 0))
    assert indexes(sent) == list(range(8))
    assert [p for _, p in sent] == [releases.chunk_payload(RELEASE, i) for i in range(8)]
    assert indexes(server.on_update("1A2B.1", status("receiving", 3))) == [8, 9, 10]     # 8 ahead of 3
    assert indexes(server.on_update("1A2B.1", status("receiving", 11))) == list(range(11, 19))   # all sent were held
    assert indexes(server.on_update("1A2B.1", status("receiving", 16))) == [19, 20]      # the last is 20
    assert server.on_update("1A2B.1", status("receiving", 19)) == []                     # nothing more to send
    assert server.on_update("1A2B.2", status("receiving", 0, release="0123456789ab")) == []   # another release's


def test_a_board_that_says_the_same_have_again_or_a_chunk_failed_gets_it_from_have(served):
    server, _ = served
    server.offers()
    server.on_update("1A2B.1", status("receiving", 0))
    server.on_update("1A2B.1", status("receiving", 4))
    assert indexes(server.on_update("1A2B.1", status("receiving", 4))) == list(range(4, 12))      # not moved
    assert indexes(server.on_update("1A2B.1", status("receiving", 6, "tampered"))) == list(range(6, 14))
    assert indexes(server.on_update("1A2B.1", status("receiving", 2))) == list(range(2, 10))      # back on its flash


def test_after_5_s_without_progress_the_chunks_go_again_from_have(served):
    server, clock = served
    server.offers()
    server.on_update("1A2B.1", status("receiving", 0))
    clock.now += 3
    server.on_update("1A2B.1", status("receiving", 5))       # progress: the 5 s count from here
    clock.now += 4.9
    assert server.tick() == []
    clock.now += 0.1
    assert indexes(server.tick()) == list(range(5, 13))
    clock.now += 4.9
    assert server.tick() == []                                # and again only 5 s after that
    assert indexes(server.tick(clock.now + 0.1)) == list(range(5, 13))
    server.on_update("1A2B.2", status("staged", 21, "mid_game"))
    clock.now += 60
    assert indexes(server.tick()) == list(range(5, 13))        # a staged board gets nothing


def test_the_update_ends_when_each_board_kept_it_went_back_or_refused_it(served):
    server, _ = served
    server.offers()
    server.on_update("1A2B.1", status("receiving", 0))
    for state in ("staged", "switching"):
        assert server.on_update("1A2B.1", status(state, 21)) == []
    server.on_update("1A2B.2", status("refused", 0, "older"))
    assert not server.finished()
    server.on_update("1A2B.1", status("back", 21, "no_link"))
    assert server.finished()
    rows = server.rows()
    assert [(r.table, r.board, r.state, r.why) for r in rows] == [
        (1, "1A2B.1", "back", "no_link"), (2, "1A2B.2", "refused", "older")]
    assert "higher --number" in rows[1].words() and "did not reach the broker" in rows[0].words()
    rows[0].state = "kept"                                      # rows are copies
    assert server.rows()[0].state == "back"


def test_a_status_kept_from_before_counts_only_when_it_names_this_release(served):
    server, _ = served
    server.on_update("1A2B.1", status("kept", 0, release="0123456789ab"), retained=True)
    server.on_update("1A2B.2", status("refused", 0, "signature", release="-"), retained=True)
    assert [r.state for r in server.rows()] == ["offered", "offered"]
    server.offers()
    server.on_update("1A2B.2", status("refused", 0, "signature", release="-"), retained=True)   # still from before
    assert server.rows()[1].state == "offered"
    server.on_update("1A2B.2", status("refused", 0, "signature", release="-"))   # said now: it read no release
    server.on_update("1A2B.1", status("kept", 21), retained=True)               # this release, kept already
    assert [r.state for r in server.rows()] == ["kept", "refused"] and server.finished()


def test_a_refusal_or_a_going_back_kept_from_an_earlier_run_ends_nothing(served):
    # the director runs the update again after fixing what a board refused: the board's retained status of
    # the earlier run names this release too, but only what the board says of this offer ends it
    server, _ = served
    server.offers()
    server.on_update("1A2B.1", status("refused", 0, "older"), retained=True)
    server.on_update("1A2B.2", status("back", 21, "no_link"), retained=True)
    assert [r.state for r in server.rows()] == ["offered", "offered"] and not server.finished()
    server.on_update("1A2B.1", status("receiving", 0))
    assert server.rows()[0].state == "receiving"


# ---------------------------------------------------------------- at the director's link

def test_the_update_link_logs_in_as_the_updater_which_may_offer_send_chunks_and_read_statuses_only():
    assert client_id(EVENT) == "Club-night-1a2b-updater"
    assert brokers.client_ids(EVENT, "updater") == ("Club-night-1a2b-updater",)
    assert brokers.client_ids(EVENT, "director") == ("Club-night-1a2b-director",)
    assert brokers.client_ids(EVENT, "1A2B.1") == ("Club-night-1a2b-1A2B.1", "Club-night-1a2b-board-1A2B.1")
    # it offers and sends chunks where the director publishes, and reads the boards' statuses
    for topic, write in ((f"tallyboard/{EVENT}/director/offer/1A2B.1", True),
                         (f"tallyboard/{EVENT}/director/chunk/1A2B.1", True),
                         (f"tallyboard/{EVENT}/table/1A2B.1/update", False)):
        assert brokers.may("updater", client_id(EVENT), topic, write, event=EVENT)
    # and nothing else: no round, no applied, no table's hand
    for topic, write in ((f"tallyboard/{EVENT}/director/round", True),
                         (f"tallyboard/{EVENT}/director/applied/1A2B.1", True),
                         (f"tallyboard/{EVENT}/table/1A2B.1/hand", False),
                         (f"tallyboard/{EVENT}/table/1A2B.1/health", False)):
        assert not brokers.may("updater", client_id(EVENT), topic, write, event=EVENT)
    # a board reads its own offer and chunks and writes its own status only
    assert brokers.may("1A2B.1", None, f"tallyboard/{EVENT}/director/chunk/1A2B.1", False, event=EVENT)
    assert not brokers.may("1A2B.1", None, f"tallyboard/{EVENT}/director/chunk/1A2B.2", False, event=EVENT)
    assert not brokers.may("1A2B.1", None, f"tallyboard/{EVENT}/director/offer/1A2B.1", True, event=EVENT)
    assert brokers.may("1A2B.1", None, f"tallyboard/{EVENT}/table/1A2B.1/update", True, event=EVENT)
    assert not brokers.may("1A2B.1", None, f"tallyboard/{EVENT}/table/1A2B.2/update", True, event=EVENT)


def test_the_director_link_keeps_each_boards_latest_update_status(tmp_path, monkeypatch):
    with unstarted_director(tmp_path, monkeypatch, ["Ann", "Bob", "Cy", "Dee"]) as director:
        heard = []
        director.link.on_update = lambda board, body: heard.append((board, body["state"]))
        board = club_mod.board_ident(event_tag(director.event), 1)
        key = envelope.board_key(director.secret, board)
        topic = envelope.table_topic(director.id, board, "update")
        for body in (status("receiving", 3), status("staged", 21)):
            director.link._on_message(Message(topic, envelope.seal(key, director.id, board, 0, "update", body)))
        director.link._on_message(Message(topic, b""))                      # a status cleared: nothing
        forged = envelope.seal(b"x" * 16, director.id, board, 0, "update", status("kept", 21))
        director.link._on_message(Message(topic, forged))
        assert heard == [(board, "receiving"), (board, "staged")]
        assert director.link.updates()[board][0] == status("staged", 21)
        assert [reason for _, reason, _ in director.link.refused_counts()] == ["signature"]


def test_update_boards_says_what_to_do_without_a_broker_or_with_a_table_the_evening_has_not(tmp_path, monkeypatch):
    with unstarted_director(tmp_path, monkeypatch, ["Ann", "Bob", "Cy", "Dee"]):
        monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
        monkeypatch.delenv("TALLYBOARD_BROKER", raising=False)
        path = tmp_path / "r.tbrel"
        releases.write(RELEASE, path)
        public = releases.public_key(SEED).hex()
        runner = CliRunner()
        result = runner.invoke(main, ["event", "update-boards", str(path), "--public", public])
        assert result.exit_code != 0 and "give the evening's broker with --broker" in result.output
        result = runner.invoke(main, ["event", "update-boards", str(path), "--public", public, "--table", "3",
                                      "--broker", "mqtt://127.0.0.1:9"])
        assert result.exit_code != 0 and "has tables 1 to 1, not 3" in result.output, result.output
        other = releases.public_key(bytes(32)).hex()
        result = runner.invoke(main, ["event", "update-boards", str(path), "--public", other])
        assert result.exit_code != 0 and "not the club's update key's" in result.output
