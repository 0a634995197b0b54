"""Two club evenings worked out by hand (docs/rules.md SK5, SK7, SK8, SK16,
SK19, SK20), shared by the event tests.

The hands are written with the players by seat at the round's start (0 to
3), as an event record has them. Most hands are "1C made with 7 tricks":
the purchaser's side scores A = 60 + 10 x 1 = 70 each, the adversaries
10 x (13 - 7) = 60 each (SK7). Partners: hands 1-2 seats 0+2 and 1+3; hands
3-4 seats 0+1 and 2+3; hands 5-6 seats 0+3 and 1+2 (SK5, SK16). So in a
game of such hands a player scores 60 x hands + 10 x (hands his side
bought): in a six-hand game 360 + 10w, in a four-hand game 240 + 10w."""
import json


def made(seat):
    """1C made with 7 tricks: seat's side 70 each, the other side 60 each."""
    return {"purchaser": seat, "bid": "1C", "tricks": 7}


# h1-2 sides (0,2)/(1,3); h3-4 (0,1)/(2,3); h5-6 (0,3)/(1,2): the purchaser
# named is one of the side that makes it.
SIDE = {(1, "02"): 0, (1, "13"): 1, (2, "02"): 0, (2, "13"): 1,
        (3, "01"): 0, (3, "23"): 2, (4, "01"): 0, (4, "23"): 2,
        (5, "03"): 0, (5, "12"): 1, (6, "03"): 0, (6, "12"): 1}


def game(*sides):
    """A game whose hand h is made by the side sides[h-1] (e.g. "02")."""
    return [made(SIDE[(h, side)]) for h, side in enumerate(sides, 1)]


# ---------------------------------------------------------------- two tables, six-hand games
# Players Ann 0, Bob 1, Cy 2, Dee 3, Eve 4, Fay 5, Gus 6, Hal 7; round 1
# seats table 1 = [0, 1, 2, 3], table 2 = [4, 5, 6, 7].
TWO_NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
TWO_FIRST = [[0, 1, 2, 3], [4, 5, 6, 7]]

# G1, a game with a 2C and a failed hand:
# h1 seat 0 1C 7 made: 0, 2 +70; 1, 3 +60          -> [70, 60, 70, 60]
# h2 seat 1 1C 7 made: 1, 3 +70; 0, 2 +60          -> [60, 70, 60, 70]
# h3 seat 0 2C 8 made (A 80; partners 0+1): 0, 1 +80; 2, 3 10 x 5 = 50 -> [80, 80, 50, 50]
# h4 seat 2 1C 6 failed (partners 2+3): 2 nothing; 3 10 x 6 = 60; 0, 1 10 x 7 = 70 (SK8)
#                                                  -> [70, 70, 0, 60]
# h5 seat 3 1C 7 made (partners 0+3): 0, 3 +70; 1, 2 +60 -> [70, 60, 60, 70]
# h6 seat 1 1C 7 made (partners 1+2): 1, 2 +70; 0, 3 +60 -> [60, 70, 70, 60]
# totals: seat 0 70+60+80+70+70+60 = 410; seat 1 60+70+80+70+60+70 = 410;
#         seat 2 70+60+50+0+60+70 = 310;  seat 3 60+70+50+60+70+60 = 370
G1 = [made(0), made(1), {"purchaser": 0, "bid": "2C", "tricks": 8},
      {"purchaser": 2, "bid": "1C", "tricks": 6}, made(3), made(1)]
G1_TOTALS = [410, 410, 310, 370]

# Round 1. Table 1 (head) plays G1: its loser is Cy (seat 2, 310, alone).
# Table 2 plays a misdeal then G1: Eve (seat 0) and Fay (seat 1) tie for the
# winner on 410, with equal continuous scores (410, the first game): the
# lower seat wins, Eve goes up to table 1, into Cy's seat 2; Cy goes to the
# foot, table 2, into Eve's seat 0.
TWO_ROUND1 = [G1, [{"misdeal": True}] + G1]
TWO_ROUND1_SCORES = [410, 410, 310, 370, 410, 410, 310, 370]
TWO_SEATING2 = [[0, 1, 4, 3], [2, 5, 6, 7]]
# continuous after round 1 = the round's scores.

# Round 2, table 1 [Ann, Bob, Eve, Dee]: sides 13, 02, 01, 23, 03, 03
#   seat 0 wins h2 h3 h5 h6: 360 + 40 = 400; seat 1 h1 h3: 380;
#   seat 2 h2 h4: 380; seat 3 h1 h4 h5 h6: 400.
#   Loser tie: Bob (seat 1) and Eve (seat 2) on 380, continuous 410 + 380 =
#   790 each: the higher seat loses: Eve goes to the foot.
# Round 2, table 2 [Cy, Fay, Gus, Hal]: sides 02, 13, 23, 01, 03, 03
#   seat 0 h1 h4 h5 h6: 400; seat 1 h2 h4: 380; seat 2 h1 h3: 380;
#   seat 3 h2 h3 h5 h6: 400.
#   Winner tie: Cy (seat 0, 310 + 400 = 710) and Hal (seat 3, 370 + 400 =
#   770): the larger continuous score wins though his seat is higher: Hal
#   goes up into Eve's seat 2 at table 1; Eve takes Hal's seat 3 at table 2.
TWO_ROUND2 = [game("13", "02", "01", "23", "03", "03"), game("02", "13", "23", "01", "03", "03")]
TWO_ROUND2_SCORES = [400, 380, 400, 400, 380, 380, 380, 400]   # by player: Ann Bob Cy Dee Eve Fay Gus Hal
TWO_SEATING3 = [[0, 1, 7, 3], [2, 5, 6, 4]]
# continuous: Ann 410+400 = 810; Bob 410+380 = 790; Cy 310+400 = 710;
# Dee 370+400 = 770; Eve 410+380 = 790; Fay 410+380 = 790; Gus 310+380 = 690;
# Hal 370+400 = 770.
TWO_TOTALS = [810, 790, 710, 770, 790, 790, 690, 770]
# ranks: Ann 1; Bob, Eve, Fay 2 (three on 790, lower number first); Dee, Hal
# 5; Cy 7; Gus 8.
TWO_STANDINGS = [(1, 0), (2, 1), (2, 4), (2, 5), (5, 3), (5, 7), (7, 2), (8, 6)]
# games won (the largest score of each game, ties all win, G5):
# r1 t1 seats 0, 1 (410) Ann Bob; r1 t2 Eve Fay; r2 t1 seats 0, 3 (400)
# Ann Dee; r2 t2 seats 0, 3 Cy Hal.
TWO_GAMES_WON = [2, 1, 1, 1, 1, 1, 0, 1]

# ---------------------------------------------------------------- three tables, four-hand games
# Players P0 .. P11; round 1 tables [0..3], [4..7], [8..11]. 240 + 10w.
THREE_NAMES = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lou"]
THREE_FIRST = [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]
# Round 1
#  t1 sides 02 02 01 01: seat 0 4 -> 280; seat 1 2 -> 260; seat 2 2 -> 260;
#     seat 3 0 -> 240: loser Dee (3) alone.
#  t2 sides 13 13 23 01: seat 0 h4 -> 250; seat 1 h1 h2 h4 -> 270; seat 2 h3
#     -> 250; seat 3 h1 h2 h3 -> 270: winner tie Fay (seat 1) and Hal (seat 3),
#     continuous equal (270): the lower seat, Fay, goes up to table 1 seat 3.
#  t3 sides 02 13 23 23: seat 0 h1 -> 250; seat 1 h2 -> 250; seat 2 h1 h3 h4
#     -> 270; seat 3 h2 h3 h4 -> 270: Kit (seat 2) and Lou (seat 3) tie, equal
#     continuous: Kit goes up to table 2 into Fay's seat 1.
#  Dee goes to the foot, table 3, into Kit's seat 2.
THREE_ROUND1 = [game("02", "02", "01", "01"), game("13", "13", "23", "01"), game("02", "13", "23", "23")]
THREE_ROUND1_SCORES = [280, 260, 260, 240, 250, 270, 250, 270, 250, 250, 270, 270]
THREE_SEATING2 = [[0, 1, 2, 5], [4, 10, 6, 7], [8, 9, 3, 11]]
# Round 2
#  t1 [Ann, Bob, Cy, Fay] sides 02 02 23 01: seat 0 h1 h2 h4 -> 270; seat 1 h4
#     -> 250; seat 2 h1 h2 h3 -> 270; seat 3 h3 -> 250. Loser tie Bob (seat 1,
#     260 + 250 = 510) and Fay (seat 3, 270 + 250 = 520): the smaller
#     continuous loses though his seat is lower: Bob to the foot.
#  t2 [Eve, Kit, Gus, Hal] sides 13 02 01 01: seat 0 h2 h3 h4 -> 270; seat 1
#     h1 h3 h4 -> 270; seat 2 h2 -> 250; seat 3 h1 -> 250. Winner tie Eve
#     (seat 0, 250 + 270 = 520) and Kit (seat 1, 270 + 270 = 540): Kit goes up
#     into Bob's seat 1 at table 1, though Eve's seat is lower.
#  t3 [Ivy, Jo, Dee, Lou] sides 02 02 01 01: seat 0 280; seat 1 260; seat 2
#     260; seat 3 240: Ivy (seat 0) goes up into Kit's seat 1 at table 2;
#     Bob takes Ivy's seat 0 at table 3.
THREE_ROUND2 = [game("02", "02", "23", "01"), game("13", "02", "01", "01"), game("02", "02", "01", "01")]
THREE_ROUND2_SCORES = [270, 250, 270, 260, 270, 250, 250, 250, 280, 260, 270, 240]
THREE_SEATING3 = [[0, 10, 2, 5], [4, 8, 6, 7], [1, 9, 3, 11]]
# continuous: Ann 280+270 = 550; Bob 260+250 = 510; Cy 260+270 = 530;
# Dee 240+260 = 500; Eve 250+270 = 520; Fay 270+250 = 520; Gus 250+250 = 500;
# Hal 270+250 = 520; Ivy 250+280 = 530; Jo 250+260 = 510; Kit 270+270 = 540;
# Lou 270+240 = 510.
THREE_TOTALS = [550, 510, 530, 500, 520, 520, 500, 520, 530, 510, 540, 510]
THREE_STANDINGS = [(1, 0), (2, 10), (3, 2), (3, 8), (5, 4), (5, 5), (5, 7), (8, 1), (8, 9), (8, 11),
                   (11, 3), (11, 6)]
# games won: r1 t1 Ann; t2 Fay Hal; t3 Kit Lou; r2 t1 seats 0, 2 Ann Cy;
# t2 Eve Kit; t3 Ivy.
THREE_GAMES_WON = [2, 0, 1, 0, 1, 1, 0, 1, 1, 0, 2, 1]


def event_record(names, first, rounds, **extra):
    """An event record (a deep copy: a test may change it freely)."""
    doc = {"format": "tallyboard-event/1", "kind": "progressive", "players": names, "seating": first,
           "rounds": rounds}
    doc.update(extra)
    return json.loads(json.dumps(doc))


def table_record(names, seats, hands, four_hands):
    """A table's game record as a board's sync stores it (docs/records.md)."""
    doc = {"format": "tallyboard/1", "game": "skicket", "players": [names[p] for p in seats]}
    if four_hands:
        doc["options"] = {"hands": 4}
    doc["hands"] = hands
    return doc
