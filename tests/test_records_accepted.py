"""Who accepted a hand on the board (docs/records.md, "Who accepted a hand";
rules.md CF2): a record hand's accepted_by is read onto the event that closed
the hand, written back from it, carried into the score sheet's hand of the
same number, and refused with the hand and the field when it is not a player
or stands in a hand in progress."""
import json

import pytest
from click.testing import CliRunner

from tallycore.game import HELD_APPLY
from tallyboard import games
from tallyboard.cli import main
from tallyboard.scorebook import records

P4 = ["Ann", "Bob", "Cy", "Dee"]
# Skicket, hand 1: Ann (purchaser 0) bids 4H and takes 10; her opponents are Bob and Dee (SK5)
ANN_4H = {"purchaser": 0, "bid": "4H", "doubled_by": None, "redoubled_by": None, "lone": False, "tricks": 10}


def doc(game, hands):
    return {"format": "tallyboard/1", "game": game, "players": P4, "hands": hands}


def test_a_hand_accepted_on_the_board_round_trips_through_the_record_and_its_sheet(tmp_path):
    # a misdeal, then hand 1 accepted by Dee (3), then hand 2 entered without confirmation
    hands = [{"misdeal": True}, dict(ANN_4H, accepted_by=3), ANN_4H]
    loaded = records.from_document(doc("skicket", hands))
    game = loaded.game
    assert [game.accepted_by(i) for i in range(game.n)] == [-1, 3, -1]
    assert records.to_document("skicket", P4, {}, game)["hands"] == hands
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc("skicket", hands)))
    result = CliRunner().invoke(main, ["sheet", str(path), "--json"])
    assert result.exit_code == 0, result.output
    sheet = json.loads(result.stdout)
    # the sheet leaves the misdeal out: the record's second entry is its hand 1
    assert [h.get("accepted_by") for h in sheet["hands"]] == [3, None]


def test_a_hand_of_several_events_is_marked_on_the_event_that_closes_it():
    # Numero's hand: a count per player, one event each, then its end (most_count.EVENT_FORMS), which
    # closes it and is the one held for the accept
    loaded = records.from_document(doc("numero", [{"cards": [20, 12, 0, 20], "accepted_by": 2}]))
    game = loaded.game
    assert game.n == 4 + 1
    assert [game.accepted_by(i) for i in range(5)] == [-1, -1, -1, -1, 2]
    assert records.to_document("numero", P4, {}, game)["hands"] == [{"cards": [20, 12, 0, 20], "accepted_by": 2}]


def test_a_hand_accepted_before_a_pending_one_keeps_its_accepted_by_when_the_pending_one_is_left_out():
    loaded = records.from_document(doc("numero", [{"cards": [20, 12, 0, 20], "accepted_by": 2}]))
    game = loaded.game
    # hand 2's counts are in and its end waits for an accept: the record leaves hand 2 out whole (CF1)
    events = records.hand_events(games.profile("numero"), {"cards": [1, 2, 3, 4]}, 4, {})
    for event in events[:-1]:
        game.apply(event)
    game.hold(HELD_APPLY, events[-1])
    assert records.to_document("numero", P4, {}, game)["hands"] == [{"cards": [20, 12, 0, 20], "accepted_by": 2}]


@pytest.mark.parametrize("game, hand, message", [
    ("skicket", dict(ANN_4H, accepted_by=4), "hand 1: accepted_by: must be a player 0 to 3"),
    ("skicket", dict(ANN_4H, accepted_by="Dee"), "hand 1: accepted_by: must be a player 0 to 3"),
    ("skicket", dict(ANN_4H, accepted_by=True), "hand 1: accepted_by: must be a player 0 to 3"),
    ("numero", {"open": True, "cards": [20, None, None, None], "accepted_by": 1},
     "hand 1: accepted_by: a hand in progress was accepted by nobody yet; leave it out"),
])
def test_an_accepted_by_that_is_no_player_or_stands_in_a_hand_in_progress_is_refused(game, hand, message):
    with pytest.raises(records.RecordError) as caught:
        records.from_document(doc(game, [hand]), "game.json")
    assert str(caught.value) == f"game.json: {message}"
