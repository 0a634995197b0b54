"""`tallyboard event replay EVENT.json [--json]` (docs/events.md): two
evenings worked out by hand in tests/event_evenings.py, and invalid records
refused whole with the round, the table and the field."""
import json

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

import event_evenings as ev


def replay(tmp_path, doc, *args):
    path = tmp_path / "event.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return CliRunner().invoke(main, ["event", "replay", str(path), *args])


def replayed(tmp_path, doc):
    result = replay(tmp_path, doc, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_two_tables_of_six_hand_games(tmp_path):
    doc = replayed(tmp_path, ev.event_record(ev.TWO_NAMES, ev.TWO_FIRST, [ev.TWO_ROUND1, ev.TWO_ROUND2]))
    first, second = doc["rounds"]
    assert first["seating"] == ev.TWO_FIRST and first["hands"] == 6
    assert first["scores"] == ev.TWO_ROUND1_SCORES
    assert first["tables"][0]["scores"] == ev.G1_TOTALS
    # winner tie at table 2 broken by the lower seat: Eve up, Cy down (SK19)
    assert second["seating"] == ev.TWO_SEATING2
    assert second["scores"] == ev.TWO_ROUND2_SCORES
    # loser tie at the head on equal continuous scores: the higher seat (Eve);
    # winner tie at the foot: the larger continuous score (Hal, seat 3)
    assert doc["next_seating"] == ev.TWO_SEATING3
    assert [(s["rank"], s["player"]) for s in doc["standings"]] == ev.TWO_STANDINGS
    assert [s["total"] for s in doc["standings"]] == [ev.TWO_TOTALS[p] for _, p in ev.TWO_STANDINGS]
    assert {s["player"]: s["games_won"] for s in doc["standings"]} == dict(enumerate(ev.TWO_GAMES_WON))
    assert all(s["games"] == 2 for s in doc["standings"])
    assert doc["winners"] == [0]


def test_three_tables_of_four_hand_games(tmp_path):
    doc = replayed(tmp_path, ev.event_record(ev.THREE_NAMES, ev.THREE_FIRST, [ev.THREE_ROUND1, ev.THREE_ROUND2]))
    first, second = doc["rounds"]
    assert first["hands"] == 4 and second["hands"] == 4
    assert first["scores"] == ev.THREE_ROUND1_SCORES
    assert second["seating"] == ev.THREE_SEATING2
    assert second["scores"] == ev.THREE_ROUND2_SCORES
    assert doc["next_seating"] == ev.THREE_SEATING3
    assert [(s["rank"], s["player"]) for s in doc["standings"]] == ev.THREE_STANDINGS
    assert [s["total"] for s in doc["standings"]] == [ev.THREE_TOTALS[p] for _, p in ev.THREE_STANDINGS]
    assert {s["player"]: s["games_won"] for s in doc["standings"]} == dict(enumerate(ev.THREE_GAMES_WON))
    assert doc["winners"] == [0]


def test_a_tie_for_the_evening_names_every_winner(tmp_path):
    # one round, two tables each playing G1: Ann, Bob, Eve and Fay all 410
    doc = replayed(tmp_path, ev.event_record(ev.TWO_NAMES, ev.TWO_FIRST, [[ev.G1, ev.G1]]))
    assert doc["winners"] == [0, 1, 4, 5]
    assert [s["rank"] for s in doc["standings"]] == [1, 1, 1, 1, 5, 5, 7, 7]   # 410 x4, 370 x2, 310 x2


def test_options_hands_overrides_the_game_length(tmp_path):
    # three tables playing six-hand games: G1 at each; the same totals everywhere
    doc = replayed(tmp_path, ev.event_record(ev.THREE_NAMES, ev.THREE_FIRST, [[ev.G1, ev.G1, ev.G1]],
                                             options={"hands": 6}))
    assert doc["rounds"][0]["hands"] == 6
    assert doc["rounds"][0]["scores"] == ev.G1_TOTALS * 3


def test_no_round_yet_seats_the_first_round_next(tmp_path):
    doc = replayed(tmp_path, ev.event_record(ev.TWO_NAMES, ev.TWO_FIRST, []))
    assert doc["next_seating"] == ev.TWO_FIRST and doc["winners"] == list(range(8))


def test_reseated_round_and_a_game_ended_early(tmp_path):
    # the director swapped Ann and Gus before round 2, and closed table 2's
    # game of round 2 after hand 5 (its sixth hand, sides 03, never played):
    # table 2 [Cy, Fay, Ann, Hal] scores 02 13 23 01 03: seat 0 h1 h4 h5 ->
    # 5 x 60 + 30 = 330; seat 1 h2 h4 -> 320; seat 2 h1 h3 -> 320; seat 3 h2 h3 h5 -> 330
    reseated = [[6, 1, 4, 3], [2, 5, 0, 7]]
    doc = replayed(tmp_path, ev.event_record(ev.TWO_NAMES, ev.TWO_FIRST,
                                             [ev.TWO_ROUND1, [ev.TWO_ROUND2[0], ev.TWO_ROUND2[1][:5]]],
                                             reseated=[None, reseated], ended_early=[[2, 2]]))
    second = doc["rounds"][1]
    assert second["seating"] == reseated
    assert second["tables"][1]["scores"] == [330, 320, 320, 330]
    assert second["tables"][1]["ended_early"] is True and second["tables"][1]["complete"] is False
    assert second["scores"][0] == 320    # Ann at table 2 seat 2
    assert second["scores"][6] == 400    # Gus at table 1 seat 0, who played Ann's hands


def test_the_printed_replay(tmp_path):
    result = replay(tmp_path, ev.event_record(ev.TWO_NAMES, ev.TWO_FIRST, [ev.TWO_ROUND1, ev.TWO_ROUND2]))
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Round 1 (6-hand games)" in out and "Round 2" in out
    assert "Ann 410" in out and "Cy 310" in out   # round 1, table 1
    assert "Next seating: table 1: Ann, Bob, Hal, Dee; table 2: Cy, Fay, Gus, Eve" in out
    assert "Ann wins with 810." in out


def bad(tmp_path, doc):
    result = replay(tmp_path, doc, "--json")
    assert result.exit_code != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize("change, message", [
    # a table with a hand short: 3 of 4 hands
    (lambda d: d["rounds"][1][2].pop(), "round 2: table 3: hands: 3 hands played; a game at 3 tables is 4 hands"),
    # a fifth hand in a four-hand game: the core's own refusal
    (lambda d: d["rounds"][0][1].append(ev.made(0)), "round 1: table 2: hand 5: game: "),
    # a player who is not in the list
    (lambda d: d["seating"][1].__setitem__(1, 12), "seating: table 2: seat 1: unknown player 12; players are 0 to 11"),
    (lambda d: d["seating"][1].__setitem__(1, 0), "seating: table 2: seat 1: player 0 is seated twice"),
    # a seat out of range in a hand
    (lambda d: d["rounds"][1][0][2].__setitem__("purchaser", 4),
     "round 2: table 1: hand 3: purchaser: seat 4 is out of range 0 to 3"),
    (lambda d: d["rounds"][0][2][0].__setitem__("tricks", 14), "round 1: table 3: hand 1: tricks: must be 0 to 13"),
    (lambda d: d["rounds"][1].pop(), "round 2: must be a list of 3 tables' hands, one a table"),
    (lambda d: d.__setitem__("format", "tallyboard-event/9"), "format: unsupported"),
    (lambda d: d.__setitem__("date", 1), "date: unknown field"),
    (lambda d: d.__setitem__("options", {"hands": 5}), "options: hands: must be 4 or 6, not 5"),
])
def test_invalid_event_records(tmp_path, change, message):
    doc = ev.event_record(ev.THREE_NAMES, ev.THREE_FIRST, [ev.THREE_ROUND1, ev.THREE_ROUND2])
    change(doc)
    line = bad(tmp_path, doc)
    assert line.startswith(f"tallyboard: {tmp_path / 'event.json'}: {message}"), line


def test_bad_json_is_one_line(tmp_path):
    line = bad(tmp_path, '{"format": "tallyboard-event/1",\n "players": [}')
    assert line.startswith(f"tallyboard: {tmp_path / 'event.json'}: bad JSON at line 2 column"), line


def test_nothing_is_half_printed_without_json(tmp_path):
    doc = ev.event_record(ev.THREE_NAMES, ev.THREE_FIRST, [ev.THREE_ROUND1, ev.THREE_ROUND2])
    doc["rounds"][1][2] = doc["rounds"][1][2][:3]
    result = replay(tmp_path, doc)
    assert result.exit_code != 0 and result.stdout == ""
