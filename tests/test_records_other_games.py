"""`tallyboard sheet` for the fourteen short games (RECORDS.md "The other games"):
every record form, the sample records, export round trips, and every
impossible hand refused with one line naming the hand and the field."""
import json
from importlib import resources

import pytest
from click.testing import CliRunner

from tallyboard.scorebook import records
from tallyboard.cli import main

P2 = ["Ann", "Bob"]
P3 = ["Ann", "Bob", "Cy"]
P4 = ["Ann", "Bob", "Cy", "Dee"]


def record(game, players, hands, options=None):
    doc = {"format": "tallyboard/1", "game": game, "players": players, "hands": hands}
    if options is not None:
        doc["options"] = options
    return doc


def run_sheet(tmp_path, doc, *args):
    path = tmp_path / "game.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return CliRunner().invoke(main, ["sheet", str(path), *args])


def sheet(tmp_path, doc):
    result = run_sheet(tmp_path, doc, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


# ---------------------------------------------------------------- RECORDS.md's own hands

RECORDS_MD_HANDS = [
    # Bishops Whist, dealer player 0 (side 0) turned a bishop:
    # side 0: (7 - 6) + 3 * 2 + 1 = 8; side 1: 0 + 1 * 2 - 1 * 2 (exposed) = 0.
    ("bishops_whist", P4, {"tricks": [7, 6], "bishops": [3, 1], "bishop_turned": True,
                           "exposed": [0, 1], "revokes": [0, 0]}, [8, 0]),
    # Rummy: 10 + 3 + 4 = 17 against player 1, K = 13 against player 2.
    ("rummy", P3, {"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}, [0, 17, 13]),
    ("parquet", P3, {"out": 0, "cards": [[], ["10", "3", "4"], ["K"]]}, [0, 17, 13]),
    # Coronado, dealer player 0: his opponent stood and took 3: 1 point.
    ("coronado", P2, {"mode": "stand", "tricks": 3}, [0, 1]),
    # Foozle: bidder 2 bid 3, took 4: 3 * 3 opponents = 9 (no overtricks).
    ("foozle", P4, {"bidder": 2, "bid": 3, "tricks": 4}, [0, 0, 9, 0]),
    ("jaimy", P3, {"claimed": 1}, [0, 3, 0]),
    ("jaimy", P3, {"all": 1}, [0, 7, 0]),
    ("jaimy", P3, {}, [0, 0, 0]),
    ("hoodoo", P3, {"winner": 1}, [0, 1, 0]),
    ("ups_and_downs", P3, {"winner": 1}, [0, 1, 0]),
    # Numero: 20, 12, 0, 20: players 0 and 3 tie on most cards, a hand won each.
    ("numero", P4, {"cards": [20, 12, 0, 20]}, [1, 0, 0, 1]),
    # Sachem: first trump 3 + Sachem 7 to player 0, last trump 3 to player 2, nine 9 to 1.
    ("sachem", P3, {"first_trump": 0, "last_trump": 2, "nine": 1, "sachem": 0}, [10, 9, 3]),
    ("sachem", P3, {"first_trump": 0, "last_trump": 2, "nine": None, "sachem": None}, [3, 0, 3]),
    # Quatro: 3, 5, 5: the tricks are the scores (docs/rules.md QU3).
    ("quatro", P3, {"tricks": [3, 5, 5]}, [3, 5, 5]),
    # Doolittle: 1: 5 + 5; 0: 10; 2: 10 + 20 + 30 = 60.
    ("doolittle", P3, {"takers": [1, 1, 0, 2, 2, 2]}, [10, 10, 60]),
    # Despised Nines: 4 per nine: 8, 0, 4, 4.
    ("despised_nines", P4, {"nines": [2, 0, 1, 1]}, [8, 0, 4, 4]),
    # Moosehead, the text's example: C makes 15 (2), D 25 (2), A 29 and the go (1).
    # The hand is not over (five cards each), so it is a hand in progress:
    # checked below through the whole sample instead.
]


@pytest.mark.parametrize("game,players,hand,scores", RECORDS_MD_HANDS,
                         ids=[f"{h[0]}-{i}" for i, h in enumerate(RECORDS_MD_HANDS)])
def test_records_md_hands(tmp_path, game, players, hand, scores):
    doc = sheet(tmp_path, record(game, players, [hand]))
    assert doc["game"] == game
    assert doc["hands"][0]["scores"] == scores
    assert doc["totals"] == scores
    assert isinstance(doc["winners"], list)
    assert isinstance(doc["complete"], bool)


# ---------------------------------------------------------------- the samples

SAMPLES = {
    # (totals, winners, complete), worked by hand in the comments.
    # 13/0, 0/13, 7/4, 4/5, misdeal, 2/7: 26 and 29; both over 25: B-D (side 1).
    "bishops_whist": ([26, 29], [1], True),
    # against: 0 + 5 + 9 = 14, 17 + 0 + 2 = 19, 13 + 7 + 0 = 20; fewest wins.
    "rummy": ([14, 19, 20], [0], True),
    # faces ten: K Q 3 = 10 + 10 + 3 = 23; J A = 10 + 1 = 11.
    "parquet": ([11, 23], [0], True),
    # 2 to 1 (stand 5), 2 to 1 (dealer, stand 0), 2 to 1, 1 to 0 (drew 4), 1 to 1: 1/7.
    "coronado": ([1, 7], [1], True),
    # 15 three times to 0 (5 * 3 opponents); 1 fails a 5: 5 to each other: 50 0 5 5.
    "foozle": ([50, 0, 5, 5], [0], True),
    # partners: side 0 7 + 7 + 7 = 21, side 1 3 + 3 = 6.
    "jaimy": ([21, 6, 21, 6], [0, 2], True),
    "hoodoo": ([1, 2, 0], [1], True),
    "ups_and_downs": ([1, 0, 2, 1], [2], True),
    # hands won: {0, 3}, {1}, {0, 1, 2, 3}, {1}: 2, 3, 1, 2.
    "numero": ([2, 3, 1, 2], [1], True),
    # 22 + 22 + 9 = 53 to player 2; 3 + 3 + 7 = 13 to player 0.
    "sachem": ([13, 0, 53], [2], True),
    # tricks: 6 + 7 + 1 = 14, 5 + 0 + 12 = 17, 2 + 6 + 0 = 8; most tricks wins.
    "quatro": ([14, 17, 8], [1], True),
    # 10 + 80 + 0 = 90; 10 + 0 + 75 = 85; 60 + 0 + 5 = 65.
    "doolittle": ([90, 85, 65], [2], True),
    # 4 * (1 + 0 + 2) = 12, 4 * (2 + 1 + 0) = 12, 4 * (0 + 3 + 1) = 16.
    "despised_nines": ([12, 12, 16], [0, 1], True),
    # first_dealer 3, so Ann leads; pegging 1, 5, 7, 3; fifteens 0, 2, 4, 0:
    # 1 + 0, 5 + 2, 7 + 4, 3 + 0 (worked play by play in tests/mp/test_games_moosehead.py).
    "moosehead": ([1, 7, 11, 3], [2], False),
}


def sample_text(game):
    return (resources.files("tallyboard") / "data" / f"sample_{game}.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_sample_records(tmp_path, game):
    totals, winners, complete = SAMPLES[game]
    doc = sheet(tmp_path, sample_text(game))
    assert (doc["totals"], doc["winners"], doc["complete"]) == (totals, winners, complete)
    # A sheet's totals are the sum of its hands' scores.
    assert [sum(h["scores"][i] for h in doc["hands"]) for i in range(len(totals))] == totals
    table = run_sheet(tmp_path, sample_text(game))
    assert table.exit_code == 0, table.stderr
    assert "Total" in table.stdout


@pytest.mark.parametrize("game", sorted(SAMPLES))
def test_export_round_trips(game):
    loaded = records.loads(sample_text(game))
    doc = records.to_document(loaded.name, loaded.players, loaded.options, loaded.game)
    again = records.from_document(json.loads(json.dumps(doc)))
    assert list(again.game.log[:again.game.n]) == list(loaded.game.log[:loaded.game.n])
    original = json.loads(sample_text(game))
    assert len(doc["hands"]) == len(original["hands"])


def test_bishops_whist_sheet_is_per_side(tmp_path):
    doc = sheet(tmp_path, sample_text("bishops_whist"))
    assert doc["sides"] == [[0, 2], [1, 3]]
    assert doc["misdeals"] == 1
    # Dealers: 0, 1, 2, 3, (misdeal by 0), 1.
    assert [h["dealer"] for h in doc["hands"]] == [0, 1, 2, 3, 1]
    assert [h["scores"] for h in doc["hands"]] == [[13, 0], [0, 13], [7, 4], [4, 5], [2, 7]]
    table = run_sheet(tmp_path, sample_text("bishops_whist"))
    assert "Bob+Dee wins with 29" in table.stdout


def test_moosehead_sheet_splits_pegging_and_fifteens(tmp_path):
    doc = sheet(tmp_path, sample_text("moosehead"))
    (hand,) = doc["hands"]
    # first_dealer 3: Dee deals (Ann leads); the next deal passes left, to Ann (0).
    assert hand["dealer"] == 3
    # Pegging: Ann 1 (go); Bob 1 (go) + 2 (20) + 2 (20) = 5; Cy 2 (15) + 2 (30)
    # + 2 (25) + 1 (go) = 7; Dee 2 (25) + 1 (go) = 3. Fifteens, 2 each: Bob
    # 2 + 4 + 9 (one); Cy J + 5 and J + the other 5 (two).
    assert hand["pegging"] == [1, 5, 7, 3]
    assert hand["fifteens"] == [0, 2, 4, 0]
    assert doc["target"] == 50 and doc["next_dealer"] == 0


def test_options_documented_defaults(tmp_path):
    # Rummy faces: J 11 + Q 12 + K 13 = 36 by default, 30 with faces "ten".
    hand = {"out": 1, "cards": [["J", "Q", "K"], []]}
    assert sheet(tmp_path, record("rummy", P2, [hand]))["totals"] == [36, 0]
    assert sheet(tmp_path, record("rummy", P2, [hand], {"faces": "ten"}))["totals"] == [30, 0]
    # Moosehead faces. Player 0 holds 2 A 3 4 5, player 1 K A 3 2 4. Played
    # legally: dealer 0, so player 1 leads; a player who can keep the count
    # at 30 or below must play; a go only when nobody can; a new round starts
    # left of the last player. Fifteens: 0: 1+2+3+4+5 -> 2 points either way.
    # Faces 10 (default), K is 10:
    #   1 K (10), 0 5 (15: 0 pegs 2), 1 4 (19), 0 A (20: 0 pegs 2), 1 3 (23),
    #   0 4 (27), 1 2 (29), 0 cannot (2, 3), 1 A (30: 1 pegs 2); 0 2 (2), 0 3 (5),
    #   no cards left: go, 0 pegs 1. Fifteens: 1: 10+1+4, 10+3+2 -> 4.
    #   Player 0: 2 + 2 + 1 + 2 = 7; player 1: 2 + 4 = 6.
    ten = {"plays": [[1, "K"], [0, "5"], [1, "4"], [0, "A"], [1, "3"], [0, "4"], [1, "2"],
                     [1, "A"], [0, "2"], [0, "3"], "go"]}
    assert sheet(tmp_path, record("moosehead", P2, [ten]))["totals"] == [7, 6]
    # Faces at rank, K is 13:
    #   1 K (13), 0 2 (15: 0 pegs 2), 1 A (16), 0 4 (20: 0 pegs 2), 1 3 (23),
    #   0 A (24), 1 2 (26), 0 3 (29), 1 4 and 0 5 would pass 30: go, 0 pegs 1;
    #   1 4 (4), 0 5 (9), no cards left: go, 0 pegs 1. Fifteens: 1: 13+2 -> 2.
    #   Player 0: 2 + 2 + 1 + 1 + 2 = 8; player 1: 2.
    rank = {"plays": [[1, "K"], [0, "2"], [1, "A"], [0, "4"], [1, "3"], [0, "A"], [1, "2"],
                      [0, "3"], "go", [1, "4"], [0, "5"], "go"]}
    assert sheet(tmp_path, record("moosehead", P2, [rank], {"faces": "rank"}))["totals"] == [8, 2]
    # First dealer: Coronado hand 1 dealt by player 1: player 0 stood with 3: 1 point.
    doc = sheet(tmp_path, record("coronado", P2, [{"mode": "stand", "tricks": 3}], {"first_dealer": 1}))
    assert doc["totals"] == [1, 0] and doc["hands"][0]["dealer"] == 1
    # Quatro: the sample's tricks 6, 5, 2 / 7, 0, 6 / 1, 12, 0. By default the
    # totals are tricks, 6 + 7 + 1 = 14, 5 + 0 + 12 = 17, 2 + 6 + 0 = 8: Bob;
    # with hands_won the hands go to Ann (6), Ann (7), Bob (12): 2, 1, 0: Ann.
    quatro = json.loads(sample_text("quatro"))
    doc = sheet(tmp_path, quatro)
    assert (doc["totals"], doc["winners"], doc["wins"]) == ([14, 17, 8], [1], "most tricks")
    assert [h["scores"] for h in doc["hands"]] == [[6, 5, 2], [7, 0, 6], [1, 12, 0]]
    quatro["options"] = {"hands_won": True}
    doc = sheet(tmp_path, quatro)
    assert (doc["totals"], doc["winners"], doc["wins"]) == ([2, 1, 0], [0], "most hands")
    assert [h["scores"] for h in doc["hands"]] == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    table = run_sheet(tmp_path, quatro)
    assert "most hands won wins" in " ".join(table.stdout.split()) and "Ann wins with 2" in table.stdout
    quatro["options"] = {"hands_won": False}
    table = run_sheet(tmp_path, quatro)
    assert "most tricks wins" in " ".join(table.stdout.split()) and "Bob wins with 17" in table.stdout
    assert sheet(tmp_path, quatro)["totals"] == [14, 17, 8]
    # Numero keeps counting hands won: 20, 12, 0, 20 is a hand each to 0 and 3.
    doc = sheet(tmp_path, record("numero", P4, [{"cards": [20, 12, 0, 20]}]))
    assert (doc["totals"], doc["wins"]) == ([1, 0, 0, 1], "most hands")
    # Doolittle cards 7: the seventh trick counts 10.
    doc = sheet(tmp_path, record("doolittle", P3, [{"takers": [0] * 7}], {"cards": 7}))
    assert doc["totals"] == [5 + 5 + 10 + 10 + 20 + 30 + 10, 0, 0]


# ---------------------------------------------------------------- impossible hands

BAD = [
    # (game, players, hands, options, expected text after "hand N: " / "options: ")
    ("bishops_whist", P4, [{"tricks": [7, 7], "bishops": [2, 2]}], None, "hand 1: tricks: must add up to 13"),
    ("bishops_whist", P4, [{"misdeal": True}, {"tricks": [7, 6], "bishops": [2, 3]}], None,
     "hand 2: bishops: must add up to 4"),
    ("bishops_whist", P4, [{"tricks": [7, 6], "bishops": [2, 2], "revokes": [0, 9]}], None, "hand 1: revokes:"),
    ("bishops_whist", P4, [{"tricks": [7, 6]}], None, "hand 1: bishops:"),
    ("bishops_whist", P3, [], None, "players: bishops_whist takes 4 players"),
    ("rummy", P3, [{"out": 0, "cards": [[], [], ["K"]]}], None, "hand 1: cards: players 0 and 1 both have no cards"),
    ("rummy", P3, [{"out": 0, "cards": [[], ["Z"], ["K"]]}], None, 'hand 1: cards: player 1: unknown card "Z"'),
    ("rummy", P3, [{"out": 0, "cards": [[], ["3"]]}], None, "hand 1: cards: one list of unplayed cards per player"),
    ("rummy", P3, [{"out": 3, "cards": [[], ["3"], ["4"]]}], None, "hand 1: out: player 3 is out of range"),
    ("rummy", P3, [{"out": 0, "cards": [["2"], ["3"], ["4"]]}], None, "hand 1: out: player 0 went out but has cards"),
    ("rummy", ["A"] * 7, [], None, "players: rummy takes 2 to 6 players"),
    ("parquet", P2, [], {"faces": "eleven"}, "options: faces:"),
    ("coronado", P2, [{"mode": "sit", "tricks": 3}], None, "hand 1: mode:"),
    ("coronado", P2, [{"mode": "stand", "tricks": 6}], None, "hand 1: tricks: must be 0 to 5"),
    ("coronado", P3, [], None, "players: coronado takes 2 players"),
    ("foozle", P4, [{"bidder": 2, "bid": 6, "tricks": 5}], None, "hand 1: bid: must be 1 to 5"),
    ("foozle", P4, [{"bidder": 4, "bid": 3, "tricks": 3}], None, "hand 1: bidder: player 4 is out of range"),
    ("jaimy", P3, [{"claimed": 1, "all": 2}], None, "hand 1: all:"),
    ("jaimy", P3, [], {"partners": True}, "options: partners: partnerships need 4 or 6 players"),
    ("hoodoo", ["A"] * 7, [], None, "players: hoodoo takes 2 to 6 players"),
    ("hoodoo", P3, [{"winner": 1}, {"winner": 1}, {"winner": 1}, {"winner": 0}], None,
     "hand 4: hand: every player has dealt"),
    ("ups_and_downs", P3, [{"winner": "Bob"}], None, "hand 1: winner: must be a whole number"),
    ("numero", P4, [{"cards": [20, 12, 0, 21]}], None, "hand 1: cards: 53 cards held, but the pack has 52"),
    ("numero", P4, [{"cards": [20, 12, 0]}], None, "hand 1: cards: 3 counts for 4 players"),
    ("sachem", P3, [{"first_trump": 0, "last_trump": 2, "nine": 5, "sachem": 0}], None,
     "hand 1: nine: player 5 is out of range"),
    ("sachem", P3, [{"first_trump": 0, "last_trump": 2, "nine": 1}], None, "hand 1: sachem: missing"),
    ("sachem", P3, [{"first_trump": None, "last_trump": None, "nine": 1, "sachem": 0}], None,
     "hand 1: nine: the nine of trumps was captured, so a trump was played"),
    ("quatro", P3, [{"tricks": [3, 5, 4]}], None, "hand 1: tricks: must add up to 13, not 12"),
    ("quatro", P3, [], {"hands_won": "yes"}, "options: hands_won: must be true or false"),
    ("numero", P3, [], {"hands_won": True}, "options: hands_won: unknown field"),
    ("doolittle", P3, [{"takers": [1, 1, 0, 2, 2]}], None, "hand 1: takers: 5 tricks, but a hand of 6 cards has 6"),
    ("doolittle", P3, [{"takers": [1, 1, 0, 2, 2, 2, 0]}], None, "hand 1: takers: trick 7:"),
    ("doolittle", P3, [{"takers": [1, 1, 0, 3, 2, 2]}], None, "hand 1: takers: trick 4: 3 is not a player"),
    ("despised_nines", P4, [{"nines": [2, 2, 1, 0]}], None, "hand 1: nines: only four nines in the pack, not 5"),
    ("moosehead", P2, [{"plays": [[0, "10"], [1, "10"], [0, "5"], [1, "6"]]}], None,
     "hand 1: plays: 6 would take the count to 31, past 30"),
    ("moosehead", P2, [{"plays": [[0, "10"], [1, "X"]]}], None, 'hand 1: plays: play 2: unknown card "X"'),
    ("moosehead", P2, [{"plays": ["go"]}], None, "hand 1: plays: go: no card played"),
    ("moosehead", P2, [{"plays": [[0, "10"], [1, "10"]]}], None, "hand 1: plays: player 0 played 1 cards"),
    ("moosehead", ["A"] * 9, [], None, "players: moosehead takes 2 to 8 players"),
    ("moosehead", P2, [], {"first_dealer": 2}, "options: first_dealer: must be a player 0 to 1"),
]


@pytest.mark.parametrize("game,players,hands,options,message", BAD,
                         ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)])
def test_impossible_hands_are_refused_naming_hand_and_field(tmp_path, game, players, hands, options, message):
    for args in (("--json",), ()):
        result = run_sheet(tmp_path, record(game, players, hands, options), *args)
        assert result.exit_code == 1
        assert result.stdout == ""   # nothing half-printed
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("tallyboard: ") and message in lines[0], lines[0]
