"""Snapshot documents of a club evening (docs/host.md, "The club evening's live views"), made
by hand for the live views' tests: the views only show what a snapshot
says, so these stand in for the store's snapshot().

Two tables, eight players (Ann 0, Bob 1, Cy 2, Dee 3, Eve 4, Fay 5, Gus 6,
Hal 7), round 2 of 3, six-hand games (docs/rules.md SK19: two tables).
Round 1 seated [0, 1, 2, 3] and [4, 5, 6, 7] and scored Ann 300, Bob 250,
Cy 180, Dee 220 at table 1 and Eve 330, Fay 410, Gus 150, Hal 190 at table
2: Cy lost the head table and took Fay's seat 1 at the foot; Fay won the
foot and took Cy's seat 2 at the head (SK19). So round 2 seats [0, 1, 5, 3]
and [4, 2, 6, 7]."""
from __future__ import annotations

import copy

PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]


def two_tables() -> dict:
    """Round 2 so far. Table 1 (Ann Bob Fay Dee): 90 40 90 40, 0 70 0 70,
    then hand 3 pivoted (Fay and Bob changed seats, SK5) 50 50 70 70:
    totals Ann 90+0+50 = 140, Bob 40+70+50 = 160, Fay 90+0+70 = 160,
    Dee 40+70+70 = 180; hand 4 held (Ann's side bid) for Bob or Dee.
    Table 2 (Eve Cy Gus Hal): 130 0 130 0, 0 60 0 60: Eve 130, Cy 60,
    Gus 130, Hal 60.
    Continuous (round 1 + round 2 so far): Fay 410+160 = 570,
    Eve 330+130 = 460, Ann 300+140 = 440, Bob 250+160 = 410,
    Dee 220+180 = 400, Gus 150+130 = 280, Hal 190+60 = 250, Cy 180+60 = 240.
    Moves so far (SK19): the head's loser is Ann (140); the foot's winner is
    Eve or Gus (130 each), Eve by continuous 460 > 280, from seat 0; so Ann
    goes to table 2 seat 0 and Eve to table 1 seat 0 (the seat Ann left)."""
    return {
        "format": "tallyboard-event-view/1",
        "event": "Tuesday club", "state": "running", "round": 2, "rounds": 3, "hands": 6,
        "updated": "2026-11-24T20:41:07+00:00",
        "players": list(PLAYERS),
        "standings": [
            {"rank": 1, "player": 5, "name": "Fay", "continuous": 570, "games": 1, "games_won": 1, "table": 1},
            {"rank": 2, "player": 4, "name": "Eve", "continuous": 460, "games": 1, "games_won": 0, "table": 2},
            {"rank": 3, "player": 0, "name": "Ann", "continuous": 440, "games": 1, "games_won": 1, "table": 1},
            {"rank": 4, "player": 1, "name": "Bob", "continuous": 410, "games": 1, "games_won": 0, "table": 1},
            {"rank": 5, "player": 3, "name": "Dee", "continuous": 400, "games": 1, "games_won": 0, "table": 1},
            {"rank": 6, "player": 6, "name": "Gus", "continuous": 280, "games": 1, "games_won": 0, "table": 2},
            {"rank": 7, "player": 7, "name": "Hal", "continuous": 250, "games": 1, "games_won": 0, "table": 2},
            {"rank": 8, "player": 2, "name": "Cy", "continuous": 240, "games": 1, "games_won": 0, "table": 2},
        ],
        "tables": [
            {"table": 1, "round": 2, "board": "/dev/ttyACM0", "status": "ok",
             "seats": [0, 1, 5, 3], "names": ["Ann", "Bob", "Fay", "Dee"],
             "hands": [{"hand": 1, "dealer": 5, "seats": [0, 1, 5, 3], "scores": [90, 40, 90, 40]},
                       {"hand": 2, "dealer": 3, "seats": [0, 1, 5, 3], "scores": [0, 70, 0, 70]},
                       {"hand": 3, "dealer": 0, "seats": [0, 5, 1, 3], "scores": [50, 50, 70, 70]}],
             "totals": [140, 160, 160, 180], "complete": False,
             # hand 4: Bob sits at seat 2 after the pivot (SK5; Fay's column is dealt from, seat 1), Dee at 3
             "pending": {"hand": 4, "waiting_for": ["Bob", "Dee"], "scores": [20, 20, 20, 100],
                         "buttons": ["C", "D"]}},
            {"table": 2, "round": 2, "board": "/dev/ttyACM1", "status": "ok",
             "seats": [4, 2, 6, 7], "names": ["Eve", "Cy", "Gus", "Hal"],
             "hands": [{"hand": 1, "dealer": 6, "seats": [4, 2, 6, 7], "scores": [130, 0, 130, 0]},
                       {"hand": 2, "dealer": 7, "seats": [4, 2, 6, 7], "scores": [0, 60, 0, 60]}],
             "totals": [130, 60, 130, 60], "complete": False, "pending": None},
        ],
        "moves": [{"player": 0, "name": "Ann", "from": 1, "to": 2, "seat": 0},
                  {"player": 4, "name": "Eve", "from": 2, "to": 1, "seat": 0}],
        "moves_final": False,
        "next_seating": [[4, 1, 5, 3], [0, 2, 6, 7]],
        "log": [],
    }


def held_hand_confirmed() -> dict:
    """two_tables() after Bob accepts hand 4 at table 1 (20 20 20 100):
    totals Ann 140+20 = 160, Bob 160+20 = 180, Fay 160+20 = 180,
    Dee 180+100 = 280. Continuous: Fay 570+20 = 590, Dee 400+100 = 500,
    Eve 460, Ann 440+20 = 460, Bob 410+20 = 430, Gus 280, Hal 250, Cy 240;
    Eve and Ann tie on 460 and share rank 3. The head's loser is still
    Ann (160 against 180, 180, 280)."""
    doc = two_tables()
    doc["updated"] = "2026-11-24T20:42:30+00:00"
    head = doc["tables"][0]
    head["hands"].append({"hand": 4, "dealer": 5, "seats": [0, 5, 1, 3], "scores": [20, 20, 20, 100]})
    head["totals"] = [160, 180, 180, 280]
    head["pending"] = None
    doc["standings"] = [
        {"rank": 1, "player": 5, "name": "Fay", "continuous": 590, "games": 1, "games_won": 1, "table": 1},
        {"rank": 2, "player": 3, "name": "Dee", "continuous": 500, "games": 1, "games_won": 0, "table": 1},
        {"rank": 3, "player": 4, "name": "Eve", "continuous": 460, "games": 1, "games_won": 0, "table": 2},
        {"rank": 3, "player": 0, "name": "Ann", "continuous": 460, "games": 1, "games_won": 1, "table": 1},
        {"rank": 5, "player": 1, "name": "Bob", "continuous": 430, "games": 1, "games_won": 0, "table": 1},
        {"rank": 6, "player": 6, "name": "Gus", "continuous": 280, "games": 1, "games_won": 0, "table": 2},
        {"rank": 7, "player": 7, "name": "Hal", "continuous": 250, "games": 1, "games_won": 0, "table": 2},
        {"rank": 8, "player": 2, "name": "Cy", "continuous": 240, "games": 1, "games_won": 0, "table": 2},
    ]
    return doc


def many_tables(count: int) -> dict:
    """`count` tables of four-hand games (SK19: more than two tables), each
    with its four hands played: the same 90 40 90 40 a hand, so every total
    is 4 x 90 = 360 or 4 x 40 = 160. Only the layout is under test."""
    doc = two_tables()
    doc["hands"] = 4
    doc["players"] = [f"P{n}" for n in range(4 * count)]
    doc["tables"], doc["standings"] = [], []
    for t in range(count):
        seats = [4 * t + s for s in range(4)]
        doc["tables"].append({
            "table": t + 1, "round": 2, "board": f"/dev/ttyACM{t}", "status": "ok", "seats": seats,
            "names": [f"P{p}" for p in seats],
            "hands": [{"hand": h + 1, "dealer": seats[h], "seats": seats, "scores": [90, 40, 90, 40]} for h in range(4)],
            "totals": [360, 160, 360, 160], "complete": True, "pending": None})
    doc["moves"], doc["next_seating"], doc["moves_final"] = [], [], True
    return copy.deepcopy(doc)
