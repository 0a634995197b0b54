"""Skicket's four-hand game, Duplicate series and Royal on the host
(docs/rules.md SK16 to SK18, docs/records.md "Options"): the records and
their sheets (JSON and printed), the archive, the picture's OLED, the
options of `tallyboard new`, and a series and a four-hand game played on the
emulated board from the command line. Every expected number is worked by
hand here (the same hands as tests/mp/test_skicket_series.py)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from emu_fixtures import emulated_board, oled_text, until

from tallyboard import games as profiles
from tallyboard.scorebook import records
from tallyboard.tooling import render
from tallyboard.cli import main
from tallyboard.boardlink.client import Board
from tallyboard.boardlink.transport import SerialTransport
from tallycore import games

pytestmark = [pytest.mark.emulator]

NAMES = ["Ann", "Bob", "Cy", "Dee"]


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def summary_of(output: str) -> str:
    """What a command printed before the reason of what it entered ("why (hand 3):" and its
    lines: tests/test_why_board.py holds those words)."""
    return output.split("why (", 1)[0]


def h(purchaser: int, bid: str, tricks: int, **more) -> dict:
    return {"purchaser": purchaser, "bid": bid, "tricks": tricks, **more}


# The four-hand game (SK16): seats A B C D for hands 1-2, A C B D for 3-4.
#  1 (C deals) A 2H, 9 tricks: made. A, C 80; B, D 4 tricks = 40
#  2 (D deals) B 1S, 6 tricks: set. B 0; D 60; A, C 70
#  3 (A deals) C 3NT doubled by A, 10 tricks: made. C, D 180; A 0; B 30
#  4 (C deals) B 1C, 7 tricks: made. B, A 70; C, D 60
FOUR = [h(0, "2H", 9), h(1, "1S", 6), h(2, "3NT", 10, doubled_by=0), h(1, "1C", 7)]
FOUR_SCORES = [[80, 40, 80, 40], [70, 0, 70, 60], [0, 30, 180, 180], [70, 70, 60, 60]]
FOUR_TOTALS = [220, 140, 390, 340]   # A 80+70+0+70, B 40+0+30+70, C 80+70+180+60, D 40+60+180+60

# The Duplicate series (SK17): hands 7-12 replay deals 1-6 reversed, the
# seats as in hands 1-6. Dealers C D A C D B, then D A C B B A.
SERIES = [h(0, "1H", 8), h(1, "2S", 8), h(2, "1D", 6), h(0, "3NT", 9), h(3, "2C", 8), h(1, "1H", 7),
          h(1, "1H", 8), h(0, "2S", 7), h(3, "1D", 7), h(2, "3NT", 10), h(2, "2C", 8), h(0, "1H", 7)]
SERIES_SCORES = [
    [70, 50, 70, 50],   # 1: A+C made 1H: 70; B, D 5 tricks
    [50, 80, 50, 80],   # 2: B+D made 2S: 80; A, C 5 tricks
    [70, 70, 0, 60],    # 3 (A C B D): C set: C 0, D 60; A, B 7 tricks
    [90, 90, 40, 40],   # 4: A+B made 3NT: 90; C, D 4 tricks
    [80, 50, 50, 80],   # 5 (A C D B): D+A made 2C: 80; C, B 5 tricks
    [60, 70, 70, 60],   # 6: B+C made 1H: 70; A, D 6 tricks
    [50, 70, 50, 70],   # 7 (deal 1 reversed, A B C D): B+D made 1H; A, C 5 tricks
    [0, 60, 70, 60],    # 8: A set 2S with 7: A 0, C 70; B, D 6 tricks
    [60, 60, 70, 70],   # 9 (A C B D): D+C made 1D; A, B 6 tricks
    [30, 30, 90, 90],   # 10: C+D made 3NT; A, B 3 tricks
    [50, 80, 80, 50],   # 11 (A C D B): C+B made 2C; A, D 5 tricks
    [70, 60, 60, 70],   # 12: A+D made 1H; B, C 6 tricks
]
# A 420 + 260, B 410 + 360, C 280 + 420, D 370 + 410
SERIES_TOTALS = [680, 770, 700, 780]
SERIES_DEALERS = [2, 3, 0, 2, 3, 1, 3, 0, 2, 1, 1, 0]
FIRST_SEATS = [[0, 1, 2, 3]] * 2 + [[0, 2, 1, 3]] * 2 + [[0, 2, 3, 1]] * 2


def record(hands: list, options: dict | None = None) -> dict:
    doc = {"format": "tallyboard/1", "game": "skicket", "players": NAMES, "hands": hands}
    if options is not None:
        doc["options"] = options
    return doc


def write(tmp_path: Path, doc: dict, name: str = "game.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return str(path)


def sheet_json(tmp_path: Path, doc: dict) -> dict:
    out = run("sheet", "--json", write(tmp_path, doc))
    assert out.exit_code == 0, out.output
    return json.loads(out.output)


# ---------------------------------------------------------------- records


def test_four_hand_record(tmp_path):
    doc = sheet_json(tmp_path, record(FOUR, {"hands": 4}))
    assert [row["scores"] for row in doc["hands"]] == FOUR_SCORES
    assert [row["dealer"] for row in doc["hands"]] == [2, 3, 0, 2]   # C D A C
    assert [row["seats"] for row in doc["hands"]] == FIRST_SEATS[:4]
    assert doc["totals"] == FOUR_TOTALS and doc["winners"] == [2]
    assert doc["complete"] is True and doc["length"] == 4
    assert "deal" not in doc["hands"][0] and "series" not in doc and "royal" not in doc
    assert "next_dealer" not in doc
    fifth = run("sheet", write(tmp_path, record(FOUR + [h(0, "1H", 7)], {"hands": 4})))
    assert fifth.exit_code != 0
    assert fifth.output == (f"tallyboard: {tmp_path / 'game.json'}: hand 5: game: the four hands of the game are all in; "
                            "start a new game\n")


def test_whole_duplicate_series_record(tmp_path):
    hands = SERIES[:6] + [{"misdeal": True}] + SERIES[6:]
    doc = sheet_json(tmp_path, record(hands, {"series": "duplicate"}))
    rows = doc["hands"]
    assert [row["hand"] for row in rows] == list(range(1, 13))     # the misdeal is no hand
    assert [row["deal"] for row in rows] == [1, 2, 3, 4, 5, 6] * 2
    assert [row["reversed"] for row in rows] == [False] * 6 + [True] * 6
    assert [row["dealer"] for row in rows] == SERIES_DEALERS
    assert [row["seats"] for row in rows] == FIRST_SEATS * 2
    assert [row["scores"] for row in rows] == SERIES_SCORES
    assert doc["totals"] == SERIES_TOTALS and doc["winners"] == [3]
    assert doc["complete"] is True and doc["length"] == 12 and doc["series"] == "duplicate"
    assert doc["misdeals"] == 1
    assert list(rows[0])[:3] == ["hand", "deal", "reversed"]


def test_half_a_series_is_not_complete(tmp_path):
    doc = sheet_json(tmp_path, record(SERIES[:6], {"series": "duplicate"}))
    # A 70+50+70+90+80+60, B 50+80+70+90+50+70, C 70+50+0+40+50+70, D 50+80+60+40+80+60
    assert doc["totals"] == [420, 410, 280, 370]
    assert doc["complete"] is False and doc["next_dealer"] == 3   # deal 1 reversed: D deals


def test_printed_series_puts_each_deals_two_plays_side_by_side(tmp_path):
    out = run("sheet", write(tmp_path, record(SERIES, {"series": "duplicate", "royal": True})))
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert "Royal Skicket, Duplicate series — Ann · Bob · Cy · Dee" in lines[0]
    # deal 1: first play A 1H made (C deals), reversed B 1H made (D deals);
    # A scored 70 then 50, B 50 then 70
    deal1 = next(line for line in lines if line.split()[:1] == ["1"])
    assert deal1.split() == ["1", "Cy/Dee", "Ann", "1H", "8", "made", "Bob", "1H", "8", "made",
                             "70/50", "50/70", "70/50", "50/70"]
    deal2 = next(line for line in lines if line.split()[:1] == ["2"])
    assert "Ann 2S 7 set" in deal2 and deal2.split()[-4:] == ["50/0", "80/60", "50/70", "80/60"]
    total = next(line for line in lines if line.split()[:1] == ["Total"])
    assert total.split() == ["Total", "680", "770", "700", "780"]
    assert "12 of 12 hands of the series" in out.output
    assert out.output.rstrip().endswith("Dee wins with 780.")


def test_thirteenth_hand_is_an_invalid_record(tmp_path):
    out = run("sheet", "--json", write(tmp_path, record(SERIES + [h(0, "1H", 7)], {"series": "duplicate"})))
    assert out.exit_code != 0
    assert out.output == (f"tallyboard: {tmp_path / 'game.json'}: hand 13: game: the twelve hands of the series are all in; "
                          "start a new game\n")


def test_old_record_without_options_is_six_hands(tmp_path):
    doc = sheet_json(tmp_path, record(SERIES[:6]))
    assert doc["complete"] is True and doc["length"] == 6
    assert doc["totals"] == [420, 410, 280, 370]
    out = run("sheet", write(tmp_path, record(SERIES[:7])))
    assert out.output == f"tallyboard: {tmp_path / 'game.json'}: hand 7: game: the six hands of the game are all in\n"


@pytest.mark.parametrize("options,message", [
    ({"series": "duplicate", "hands": 6}, "options: hands: a Duplicate series is twelve hands; leave hands out"),
    ({"hands": 5}, "options: hands: must be 4 or 6, not 5"),
    ({"hands": True}, "options: hands: must be a whole number, not true"),
    ({"series": "progressive"}, 'options: series: must be "duplicate", not "progressive"'),
    ({"royal": "yes"}, 'options: royal: must be true or false, not "yes"'),
])
def test_bad_options_are_one_line_errors(tmp_path, options, message):
    out = run("sheet", write(tmp_path, record(SERIES[:1], options)))
    assert out.exit_code != 0
    assert out.output == f"tallyboard: {tmp_path / 'game.json'}: {message}\n"


def test_royal_scores_as_skicket_and_the_archive_keeps_it(tmp_path):
    plain = sheet_json(tmp_path, record(FOUR, {"hands": 4}))
    royal_doc = record(FOUR, {"hands": 4, "royal": True})
    royal = sheet_json(tmp_path, royal_doc)
    assert royal["royal"] is True and royal["totals"] == plain["totals"] == FOUR_TOTALS
    assert [r["scores"] for r in royal["hands"]] == FOUR_SCORES
    archive = str(tmp_path / "a.sqlite3")
    added = run("archive", "add", write(tmp_path, royal_doc, "royal.json"), "--archive", archive)
    assert added.exit_code == 0, added.output
    listed = json.loads(run("archive", "list", "--json", "--archive", archive).output.splitlines()[0])
    shown = run("archive", "show", str(listed["id"]), "--json", "--archive", archive)
    assert json.loads(shown.output) == royal
    exported = json.loads(run("archive", "export", str(listed["id"]), "--archive", archive).output)
    assert exported["options"] == {"hands": 4, "royal": True}
    printed = run("archive", "show", str(listed["id"]), "--archive", archive).output
    assert "Royal Skicket, 4 hands — Ann · Bob · Cy · Dee" in printed


# ---------------------------------------------------------------- the picture


def test_picture_shows_the_deal_the_half_and_royal(tmp_path):
    path = write(tmp_path, record(SERIES[:8], {"series": "duplicate", "royal": True}))
    loaded = records.load(path)
    game = loaded.game
    frame = render.frame_for_game("pico-reference", "skicket", 4, game.options,
                                  [game.log[i] for i in range(game.n)], 0, NAMES, (), 64, 500, "t")
    assert frame.oled is not None
    assert oled_text(frame.oled, 0)[23:28] == "ROYAL"
    # rows are deals 1-6 of the reversed half: hand 7 = deal 1 (B+D 1H: 50 70 50 70),
    # hand 8 = deal 2 (A set: 0 60 70 60), dealers D and A
    assert oled_text(frame.oled, 1)[:23] == "1D   50   70   50   70 "
    assert oled_text(frame.oled, 2)[:23] == "2A    0   60   70   60 "
    assert oled_text(frame.oled, 7)[23:].rstrip() == "D3 REV"
    assert oled_text(frame.oled, 8).startswith("DEAL 3R CY DEALS.")
    out = run("show", path, "--png", str(tmp_path / "s.png"))
    assert out.exit_code == 0, out.output
    # the PNG shows that very screen: its OLED panel, read back pixel by pixel (each OLED pixel
    # drawn OLED_SCALE x OLED_SCALE at the panel's corner), holds the same rows
    from PIL import Image
    with Image.open(tmp_path / "s.png") as picture:
        assert (picture.format, picture.size) == ("PNG", (render.WIDTH, render.HEIGHT))
        pixels = picture.convert("RGB").load()
    x0, y0 = render.PANEL_X + 12, (render.HEIGHT - 64 * render.OLED_SCALE) // 2
    drawn = bytearray(1024)
    for y in range(64):
        for x in range(128):
            colour = pixels[x0 + x * render.OLED_SCALE, y0 + y * render.OLED_SCALE]
            assert colour in (render.OLED_ON, render.OLED_OFF), (x, y, colour)
            if colour == render.OLED_ON:
                drawn[(y >> 3) * 128 + x] |= 1 << (y & 7)
    assert bytes(drawn) == frame.oled
    assert oled_text(bytes(drawn), 0)[23:28] == "ROYAL"
    assert oled_text(bytes(drawn), 7)[23:].rstrip() == "D3 REV"
    assert oled_text(bytes(drawn), 8).startswith("DEAL 3R CY DEALS.")


# ---------------------------------------------------------------- new, the board's GAME


def test_every_game_lists_the_options_its_records_take():
    for row in games.GAMES:
        profile = profiles.profile(row[0])
        for key in row[5].split(","):
            try:
                profile.options({key: []})
            except ValueError as exc:
                assert "unknown field" not in str(exc), (row[0], key)
        with pytest.raises(ValueError, match="unknown field"):
            profile.options({"no_such_option": 1})


@pytest.mark.parametrize("args,message", [
    (("skicket", "--hands", "4", "--duplicate"),
     "--hands cannot go with --duplicate: a Duplicate series is always twelve hands; leave --hands out"),
    (("roquet", "--duplicate"), "--duplicate: roquet has no such option; only skicket takes it"),
    (("jaimy", "-n", "4", "--hands", "4"), "--hands: jaimy has no such option; only skicket takes it"),
    (("rummy", "-n", "2", "--royal"), "--royal: rummy has no such option; only skicket takes it"),
    (("skicket", "-o", "hands=4", "-o", "series=duplicate"),
     "--option: hands: a Duplicate series is twelve hands; leave hands out"),
])
def test_new_refuses_options_in_the_users_words(args, message):
    out = run("new", *args, "-p", "/nonexistent/port")   # refused before any port is opened
    assert out.exit_code == 1
    assert out.output == f"tallyboard: {message}\n"


@pytest.fixture(scope="module")
def emulator(tmp_path_factory):
    with emulated_board(tmp_path_factory.mktemp("series") / "flash") as (emulator, board):
        board.link.close()
        yield emulator


@pytest.fixture(scope="module")
def port(emulator):
    return emulator.port


def _summary(totals: list[int], hands: int, over: str = "") -> str:
    scores = "  ".join(f"{n} {t}" for n, t in zip(NAMES, totals))
    end = f"  game over: {over} wins" if over else ""
    return f"skicket: {scores}  ({hands} hand{'s' if hands != 1 else ''}){end}\n"


def _hand_args(hand: dict) -> list[str]:
    args = [str(hand["purchaser"]), hand["bid"], str(hand["tricks"])]
    if hand.get("doubled_by") is not None:
        args += ["--doubled-by", str(hand["doubled_by"])]
    return args


def test_board_game_lists_skicket_options(port):
    link = SerialTransport(port)
    try:
        board = Board(link, timeout=3.0)
        board.connect()
        assert board.game_options(0) == ["hands", "series", "royal"]
        assert board.game_options(1) == ["end", "landmark_bonus"]
    finally:
        link.close()


def test_a_duplicate_series_on_the_board(port, tmp_path):
    names = [arg for n in NAMES for arg in ("--name", n)]
    out = run("new", "skicket", "--duplicate", "--royal", *names, "-p", port)
    assert out.exit_code == 0, out.output
    running = [0, 0, 0, 0]
    for number, hand in enumerate(SERIES, 1):
        if number == 7:
            out = run("misdeal", "-p", port)   # not a hand: D deals deal 1 reversed again
            assert out.exit_code == 0, out.output
        out = run("hand", *_hand_args(hand), "-p", port)
        running = [t + s for t, s in zip(running, SERIES_SCORES[number - 1])]
        assert summary_of(out.output) == _summary(running, number, "Dee" if number == 12 else ""), number
    assert running == SERIES_TOTALS
    out = run("hand", "0", "1H", "7", "-p", port)
    assert out.exit_code == 2
    assert out.output == ("tallyboard: the board says: game: the twelve hands of the series are all in; "
                          "start a new game (RULE)\n")
    live = json.loads(run("sheet", "--json", "-p", port).output)
    expected = SERIES[:6] + [{"misdeal": True}] + SERIES[6:]
    assert live == sheet_json(tmp_path, record(expected, {"series": "duplicate", "royal": True}))
    assert [row["deal"] for row in live["hands"]] == [1, 2, 3, 4, 5, 6] * 2
    assert live["royal"] is True and live["complete"] is True
    exported = json.loads(run("export", "-p", port).output)
    assert exported["options"] == {"series": "duplicate", "royal": True}
    archive = str(tmp_path / "a.sqlite3")
    saved = run("archive", "save", "--archive", archive, "-p", port)
    assert saved.exit_code == 0, saved.output
    listed = json.loads(run("archive", "list", "--json", "--archive", archive).output.splitlines()[0])
    shown = json.loads(run("archive", "show", str(listed["id"]), "--json", "--archive", archive).output)
    assert shown == live


def test_a_four_hand_game_on_the_board(port):
    out = run("new", "skicket", "--hands", "4", "--discard", "-p", port)
    assert out.exit_code == 0, out.output
    running = [0, 0, 0, 0]
    for number, hand in enumerate(FOUR, 1):
        out = run("hand", *_hand_args(hand), "-p", port)
        running = [t + s for t, s in zip(running, FOUR_SCORES[number - 1])]
        assert summary_of(out.output) == _summary(running, number, "Cy" if number == 4 else ""), number
    assert running == FOUR_TOTALS
    live = json.loads(run("sheet", "--json", "-p", port).output)
    assert live["complete"] is True and live["length"] == 4 and live["winners"] == [2]
    out = run("misdeal", "-p", port)
    assert out.output == ("tallyboard: the board says: game: the four hands of the game are all in; "
                          "start a new game (RULE)\n")


# Issue 32, item 1: a six-hand game (SK4) at its end keeps its six rows on the OLED.
# Seats A B C D for hands 1-2, A C B D for 3-4, A C D B for 5-6 (SK5); hand h is dealt
# from seat (h + 1) mod 4 (SK3): dealers C D A C D B. A bid of L needs 6 + L tricks and
# is worth 60 + 10 L (SK2); each one here is made exactly (SK7): the purchaser and his
# partner score A, the adversaries 10 x their 13 - tricks.
SIX = [("Ann", "1C", "7"), ("Bob", "2D", "8"), ("Cy", "3H", "9"), ("Dee", "1S", "7"), ("Ann", "1C", "7"),
       ("Bob", "2D", "8")]
SIX_ROWS = [
    # hand, dealer, A B C D right-aligned to columns 6, 11, 16, 21, then purchaser, bid, tricks
    "1C   70   60   70   60 A1C     7",   # A+C 1C made: 70; B, D 6 tricks = 60
    "2D   50   80   50   80 B2D     8",   # B+D 2D made: 80; A, C 5 tricks = 50
    "3A   40   40   90   90 C3H     9",   # C+D 3H made: 90; A, B 4 tricks = 40
    "4C   60   60   70   70 D1S     7",   # D+C 1S made: 70; A, B 60
    "5D   70   60   60   70 A1C     7",   # A+D 1C made: 70; C, B 60
    "6B   50   80   80   50 B2D     8",   # B+C 2D made: 80; A, D 50
]
# A 70+50+40+60+70+50 = 340, B 60+80+40+60+60+80 = 380, C 70+50+90+70+60+80 = 420,
# D 60+80+90+70+70+50 = 420: Cy and Dee tie for the lead (G5)
SIX_TOTALS = "T   340  380 *420 *420"   # then, the game over, its chain head: the digits of STATE's chain=


def test_a_six_hand_game_at_its_end_keeps_its_rows_on_the_oled(emulator):
    port = emulator.port
    out = run("new", "skicket", *[arg for n in NAMES for arg in ("--name", n)], "--discard", "-p", port)
    assert out.exit_code == 0, out.output
    for hand in SIX:
        out = run("hand", *hand, "-p", port)
        assert out.exit_code == 0, out.output
    assert summary_of(out.output) == "skicket: Ann 340  Bob 380  Cy 420  Dee 420  (6 hands)  game over: Cy and Dee win\n"

    def rows() -> list[str]:
        oled = emulator.oled()
        return [oled_text(oled, row) for row in range(10)] if len(oled) == 1024 else []

    until(lambda: rows() and rows()[7][:22] == SIX_TOTALS and rows()[7][23:32].strip(), 10,
          what="the final totals on the OLED", explain=rows)
    shown = rows()
    assert shown[1:7] == SIX_ROWS
    link = SerialTransport(port)
    try:
        board = Board(link, timeout=3.0)
        board.connect()
        chain = board.state()["chain"]      # the head's first 4 bytes, 8 hex digits (docs/protocol.md)
    finally:
        link.close()
    assert shown[7][22:32] == f" {chain[:4]} {chain[4:]}"   # docs/display.md: two groups of four
    assert shown[8].rstrip() == "GAME OVER. WON BY CY DEE"
