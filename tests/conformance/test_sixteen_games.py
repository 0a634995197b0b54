"""A hand of each of the sixteen games, played through the shared port while
`tallyboard watch` runs, by a client that knows the protocol from the docs alone
(tbclient.py: docs/protocol.md for the frames, docs/protocol.json for each
game's packed events). Every `ev=` it is sent, in a reply or an event, is decoded
with the spec's layout of the game in play; the totals are worked out by hand
below from docs/rules.md, clause by clause."""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
import tbclient

pytestmark = [pytest.mark.emulator, pytest.mark.process]

SPEC = tbclient.Spec.load(str(Path(__file__).resolve().parents[2] / "docs" / "protocol.json"))
NOBODY = 4        # Skicket's doubled_by/redoubled_by: "4 nobody" (the spec)
SACHEM_NOBODY = 8  # Sachem's fields: "8 nobody"
CLUBS, SPADES, HEARTS, DIAMONDS = 0, 1, 2, 3


def card(player, rank, suit):
    return ("card", dict(player=player, rank=rank, suit=suit))


def play(player, rank, suit):
    return ("play", dict(player=player, rank=rank, suit=suit))


# (game, players, [(form, fields) ... sent as EV], totals worked out by hand)
HANDS = [
    # BW1: sides A (0 and 2) and B (1 and 3); BW4: a trick over six 1, a bishop 2, the turned bishop 1
    # to the dealer's side (first dealer 0: side A). A: 8 tricks -> 2, 3 bishops -> 6, turned 1 = 9;
    # B: 5 tricks -> 0, 1 bishop -> 2 = 2. Both partners show their side's total.
    ("bishops_whist", 4, [("hand", dict(tricks_a=8, tricks_b=5, bishops_a=3, bishops_b=1, turned=1,
                                        exposed_a=0, exposed_b=0, revokes_a=0, revokes_b=0))],
     [9, 2, 9, 2]),
    # RU2: the player out scores nothing; the others have their unplayed cards against them: "a
    # player left with 10, 3 and 4 has 17"; RU3: a king 13.
    ("rummy", 3, [card(1, 10, CLUBS), card(1, 3, HEARTS), card(1, 4, SPADES), card(2, 13, DIAMONDS),
                  ("out", dict(player=0))],
     [0, 17, 13]),
    # PQ1: Parquet is scored as Rummy: the same 17 against player 0.
    ("parquet", 2, [card(0, 10, CLUBS), card(0, 3, HEARTS), card(0, 4, SPADES), ("out", dict(player=1))],
     [17, 0]),
    # CO1: first dealer 0, so player 1 is the dealer's opponent; CO2: he stood and took all five: 2.
    ("coronado", 2, [("hand", dict(mode=0, tricks=5))], [0, 2]),
    # FO3: "a bid of three against three opponents scores 9"; FO4: bid four, won three: 4 each to the others.
    ("foozle", 4, [("hand", dict(bidder=0, bid=3, tricks=3)), ("hand", dict(bidder=1, bid=4, tricks=3))],
     [9 + 4, 0, 4, 4]),
    # JA2: a player who stops with three tricks claims 3; all five tricks score 7.
    ("jaimy", 3, [("hand", dict(kind=1, player=1)), ("hand", dict(kind=2, player=2))], [0, 3, 7]),
    # HO2, HO3: no points; each hand won counts 1.
    ("hoodoo", 2, [("hand", dict(winner=1))], [0, 1]),
    # NU2: most cards wins the hand; G6: players tied for most each win it.
    ("numero", 3, [("count", dict(player=0, count=20)), ("count", dict(player=1, count=20)),
                   ("count", dict(player=2, count=12)), ("end", {})],
     [1, 1, 0]),
    # SA2: first trump 3 and last trump 3 to who captured them, the nine of trumps 9, Sachem 7.
    ("sachem", 3, [("hand", dict(first_trump=0, last_trump=1, nine=0, sachem=2))], [3 + 9, 3, 7]),
    # QU2, QU3: a player's total is his tricks: 5 and 8 of the thirteen.
    ("quatro", 2, [("count", dict(player=0, count=5)), ("count", dict(player=1, count=8)), ("end", {})],
     [5, 8]),
    # DO2: tricks count against their taker by place: 5, 5, 10, 10, 20, 30 (six cards each, DO1).
    # Player 0 takes the 1st, 3rd and 4th: 5 + 10 + 10 = 25; player 1 the 2nd, 5th, 6th: 5 + 20 + 30 = 55.
    ("doolittle", 2, [("trick", dict(player=p)) for p in (0, 1, 0, 0, 1, 1)] + [("end", {})], [25, 55]),
    # DN2: each nine taken counts 4 against its taker: 2, 1 and 1 nines.
    ("despised_nines", 3, [("hand", dict(nines=[2, 1, 1, 0, 0, 0, 0, 0], players_less_one=2))],
     [8, 4, 4]),
    # UD2, UD3: no points; the hand's winner counts 1.
    ("ups_and_downs", 2, [("hand", dict(winner=0))], [1, 0]),
    # MH: player 0 holds the rules' own hand, 2, 5, 7, 3 and 10 (MH5: "so 6 points"); player 1 holds
    # A, A, 4, 6, 9, whose fifteens are 6 + 9 and A + A + 4 + 9: 2 x 2 = 4. The running count (MH3):
    # 1, 3, 4, 9, 13, 20 (player 0's 7: 2), 26, 29; nobody can play without passing 30: a go (MH4),
    # 1 to player 0, who played the last card; then 9, 19 and the last card's go, 1 to player 0 again.
    # Player 0: 2 + 1 + 1 + 6 = 10; player 1: 4.
    ("moosehead", 2, [play(1, 1, CLUBS), play(0, 2, CLUBS), play(1, 1, SPADES), play(0, 5, CLUBS),
                      play(1, 4, CLUBS), play(0, 7, CLUBS), play(1, 6, CLUBS), play(0, 3, CLUBS),
                      ("go", {}), play(1, 9, CLUBS), play(0, 10, CLUBS), ("go", {}), ("end", {})],
     [10, 4]),
]

# The two games with verbs of their own (the spec's verbs), their ev= decoded all the same.
VERB_HANDS = [
    # SK7 with SK2's schedule: 4H made with 10 tricks, undoubled: A = 60 + 10 x 4 = 100 to the
    # purchaser (player 0) and his partner (player 2, opposite: SK1); each adversary 10 x their
    # 13 - 10 = 3 tricks = 30.
    ("skicket", 4, [("HAND", (0, "4H", "-", "-", 0, 10),
                     ("hand", dict(purchaser=0, level=4, strain=HEARTS, doubled_by=NOBODY,
                                   redoubled_by=NOBODY, lone=0, tricks=10)))],
     [100, 30, 100, 30]),
    # RQ3: "25 points in a hand put the king peg at 25; 35 more in the next, at 60".
    ("roquet", 2, [("PEG", (0, 25), ("peg", dict(player=0, points=25))),
                   ("PEG", (1, 10), ("peg", dict(player=1, points=10))),
                   ("END", (), ("end", {})),
                   ("PEG", (0, 35), ("peg", dict(player=0, points=35))),
                   ("END", (), ("end", {}))],
     [60, 10]),
]

# The hands each list above plays, counted by hand: one hand each, but Foozle's and Jaimy's two hand
# events and Roquet's two ENDs (its pegs close none; nor do Rummy's cards, Doolittle's tricks, the
# counts or Moosehead's plays and go, closed by their OUT or END)
HANDS_PLAYED = {name: 1 for name in [h[0] for h in HANDS] + [h[0] for h in VERB_HANDS]}
HANDS_PLAYED.update(foozle=2, jaimy=2, roquet=2)


def test_the_client_knows_the_protocol_from_the_docs_alone():
    """tbclient imports the standard library and nothing else: not the host, not the firmware."""
    tree = ast.parse(Path(tbclient.__file__).read_text())
    imported = {alias.name.split(".")[0] for node in ast.walk(tree) if isinstance(node, ast.Import)
                for alias in node.names}
    imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                 if isinstance(node, ast.ImportFrom) and node.module and node.level == 0}
    assert imported and imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)


def test_the_spec_has_the_sixteen_games_and_the_hands_cover_them():
    assert len(SPEC.games) == 16
    assert {h[0] for h in HANDS} | {h[0] for h in VERB_HANDS} == set(SPEC.games)


@pytest.fixture(scope="module")
def client(watched_all_along):
    emulator = watched_all_along[0]
    c = tbclient.Client.connect(emulator.port, timeout=3.0)
    c.hello()
    yield c
    c.close()
    assert watched_all_along[1].poll() is None, "watch stopped while the games were played beside it"


def _decoded_events(client, game, since):
    """Every EV event heard since index since, decoded with the game's layout."""
    return [SPEC.decode(game, int(e.fields["ev"])) for e in client.events[since:] if e.kind == "EV"]


def _totals(client):
    return [int(t) for t in client.request("SCORE")["totals"].split(",")]


def _hands_closed(client, game, since):
    """The hands the events heard since index since closed, by the spec's closes_hand alone."""
    return sum(SPEC.closes_hand(game, int(e.fields["ev"])) for e in client.events[since:] if e.kind == "EV")


@pytest.mark.parametrize("game, players, events, totals", HANDS, ids=[h[0] for h in HANDS])
def test_a_hand_of_each_game_by_its_packed_events(client, game, players, events, totals):
    client.request("NEW", game, players)
    since = len(client.events)
    for form, fields in events:
        packed = SPEC.encode(game, form, **fields)
        reply = client.request("EV", packed)
        assert SPEC.decode(game, int(reply["ev"])) == (form, fields)    # the board's event, read back
    client.wait_event(lambda e: e.kind == "EV" and e.fields["n"] == str(len(events)), 10, since)
    heard = _decoded_events(client, game, since)
    assert heard == [(form, fields) for form, fields in events]
    assert _totals(client) == totals
    # the board counts the hands its rules closed; the client, the events whose form the spec says closes one
    assert int(client.request("SCORE")["hands"]) == _hands_closed(client, game, since) == HANDS_PLAYED[game]


@pytest.mark.parametrize("game, players, requests, totals", VERB_HANDS, ids=[h[0] for h in VERB_HANDS])
def test_a_hand_of_the_games_with_verbs_decoded_from_their_ev(client, game, players, requests, totals):
    declared = set(SPEC.games[game]["verbs"])
    client.request("NEW", game, players)
    since = len(client.events)
    for verb, args, expected in requests:
        assert verb in declared
        reply = client.request(verb, *args)
        assert SPEC.decode(game, int(reply["ev"])) == expected
    client.wait_event(lambda e: e.kind == "EV" and e.fields["n"] == str(len(requests)), 10, since)
    assert _decoded_events(client, game, since) == [expected for _, _, expected in requests]
    assert _totals(client) == totals
    assert int(client.request("SCORE")["hands"]) == _hands_closed(client, game, since) == HANDS_PLAYED[game]


CONFIRM = 1 << 15      # NEW's option bit 15 (the spec's option_fields: confirm)


@pytest.mark.parametrize("game, players, events", [
    ("doolittle", 2, [("trick", dict(player=p)) for p in (0, 1, 0, 0, 1, 1)] + [("end", {})]),   # DO1: 6 cards
    ("numero", 2, [("count", dict(player=0, count=30)), ("count", dict(player=1, count=22)), ("end", {})]),
    ("hoodoo", 2, [("hand", dict(winner=1))]),
])
def test_with_confirmation_on_the_event_the_spec_says_closes_a_hand_is_held(client, game, players, events):
    # a client told by the spec alone which event ends a hand knows which change waits for an opponent
    confirm = next(f for f in SPEC.games[game]["option_fields"] if f["name"] == "confirm")
    assert 1 << confirm["shift"] == CONFIRM
    client.request("NEW", game, players, CONFIRM)
    for number, (form, fields) in enumerate(events, 1):
        packed = SPEC.encode(game, form, **fields)
        reply = client.request("EV", packed)
        if SPEC.closes_hand(game, packed):
            assert number == len(events)                      # the last event of each list closes the hand
            assert reply["held"] == f"1,{packed}" and reply["n"] == str(number - 1), reply
        else:
            assert "held" not in reply and reply["n"] == str(number), reply
