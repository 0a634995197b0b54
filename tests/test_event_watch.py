"""`tallyboard event watch`: the club evening in a terminal, from snapshot
documents made by hand (tests/event_snapshots.py)."""
from __future__ import annotations

import io
import json
import re

import pytest
from click.testing import CliRunner
from rich.console import Console

from event_snapshots import held_hand_confirmed, many_tables, two_tables
from tallyboard.cli import main
from tallyboard.evening import watch

TERMINAL = {"COLUMNS": "80", "LINES": "24"}


def run(args, env=TERMINAL):
    return CliRunner().invoke(main, ["event", *args], env=env)


def write(path, doc):
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def squeeze(text):
    return [re.sub(r"\s+", " ", line).strip() for line in text.splitlines()]


def test_once_shows_standings_each_tables_sheet_and_the_moves(tmp_path):
    result = run(["watch", "--once", "--snapshot", write(tmp_path / "s.json", two_tables())])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 80, result.output
    text = "\n".join(squeeze(result.output))
    assert text.startswith("Tuesday club · round 2 of 3 · 6-hand games · 20:41")
    # the standings, highest continuous score first: rank, name, score, games won, table
    ranks = [line.split()[:6] for line in squeeze(result.output) if re.match(r"\d \w+ \d{3} ", line)]
    assert [r[:5] for r in ranks] == [
        ["1", "Fay", "570", "1", "1"], ["2", "Eve", "460", "0", "2"], ["3", "Ann", "440", "1", "1"],
        ["4", "Bob", "410", "0", "1"], ["5", "Dee", "400", "0", "1"], ["6", "Gus", "280", "0", "2"],
        ["7", "Hal", "250", "0", "2"], ["8", "Cy", "240", "0", "2"]]
    # table 1's sheet: columns Ann Bob Fay Dee, hand 3 dealt by Ann (seat 0, marked ·),
    # the held hand 4 in brackets, the totals 140 160 160 180 (worked out in event_snapshots)
    assert "# Ann Bob Fay Dee" in text
    assert "3 50· 50 70 70" in text
    assert "4 (20) (20) (20) (100)" in text
    assert "Σ 140 160 160 180" in text
    assert "hand 4: Bob (button C) or Dee (button D) to accept" in text
    assert "# Eve Cy Gus Hal" in text and "Σ 130 60 130 60" in text
    # who moves, provisional while the games go on
    assert "Next round, so far" in text
    assert "Ann: table 1 → 2" in text and "Eve: table 2 → 1" in text


def test_a_held_hand_from_a_table_host_that_names_no_buttons_names_the_players(tmp_path):
    doc = two_tables()
    del doc["tables"][0]["pending"]["buttons"]      # a table host from before the buttons were sent
    text = "\n".join(squeeze(run(["watch", "--once", "--snapshot", write(tmp_path / "s.json", doc)]).output))
    assert "hand 4: Bob or Dee to accept" in text


def test_the_confirmed_hand_replaces_the_held_one(tmp_path):
    result = run(["watch", "--once", "--snapshot", write(tmp_path / "s.json", held_hand_confirmed())])
    text = "\n".join(squeeze(result.output))
    # hand 4 is dealt from seat (4 + 1) mod 4 = 1 (SK3), where Fay sits after the pivot: her column, the third
    assert "4 20 20 20· 100" in text
    assert "Σ 160 180 180 280" in text        # 140+20, 160+20, 160+20, 180+100
    assert "to accept" not in text and "(20)" not in text
    # Eve and Ann share rank 3 on 460; the next rank is 5
    assert "3 Eve 460 0 2" in text and "3 Ann 460 1 1" in text and "5 Bob 430 0 1" in text


def test_two_tables_of_complete_six_hand_games_fit_80_by_24(tmp_path):
    doc = held_hand_confirmed()
    for table in doc["tables"]:
        while len(table["hands"]) < 6:
            n = len(table["hands"]) + 1
            table["hands"].append({"hand": n, "dealer": (n + 1) % 4, "seats": table["seats"],
                                   "scores": [1000, 1000, 1000, 1000]})
        table["complete"] = True
    doc["moves_final"] = True
    result = run(["watch", "--once", "--snapshot", write(tmp_path / "s.json", doc)])
    lines = result.output.splitlines()
    # title, then per table: its title, the names, six hands, the totals = 9 lines, twice: 1 + 18
    assert len(lines) == 19, result.output
    assert max(len(line) for line in lines) <= 80
    text = "\n".join(squeeze(result.output))
    assert "Table 1 · game over" in text and re.search(r"Next round(?!, so far)", text)


def test_more_tables_than_fit_are_shown_a_page_at_a_time():
    doc = many_tables(4)
    # a table of four hands takes 7 lines (title, names, 4 hands, totals); under the
    # evening's title 23 lines are left, one for the page note: 22 // 7 = 3 tables a page
    pages = []
    for page in range(3):
        out = io.StringIO()
        Console(file=out, width=80, height=24, force_terminal=False).print(watch.frame(doc, 24, page))
        pages.append(out.getvalue())
    assert all(len(p.splitlines()) <= 24 for p in pages)
    assert "Table 1" in pages[0] and "Table 3" in pages[0] and "Table 4" not in pages[0]
    assert "tables 1–3 of 4" in pages[0]
    assert "Table 4" in pages[1] and "Table 1" not in pages[1] and "table 4 of 4" in pages[1]
    assert pages[2] == pages[0]     # the pages go round
    # without a height (--once, a log) every table is printed
    out = io.StringIO()
    Console(file=out, width=80).print(watch.frame(doc))
    assert all(f"Table {n}" in out.getvalue() for n in (1, 2, 3, 4)) and "of 4" not in out.getvalue()


def test_names_are_shown_as_written_never_read_as_markup(tmp_path):
    doc = two_tables()
    doc["standings"][0]["name"] = doc["tables"][0]["names"][2] = "[b]Fay"
    result = run(["watch", "--once", "--snapshot", write(tmp_path / "s.json", doc)])
    text = "\n".join(squeeze(result.output))
    assert "1 [b]Fay 570 1 1" in text and "# Ann Bob [b]Fay Dee" in text


def test_json_once_is_the_snapshot_document(tmp_path):
    result = run(["watch", "--once", "--json", "--snapshot", write(tmp_path / "s.json", two_tables())])
    assert result.exit_code == 0
    assert json.loads(result.output) == two_tables()


def ending(docs):
    """A source that gives docs, then the user's Ctrl-C: the view's end is the source's, never a
    stretch of the wall clock (on a busy machine a loop does less in one)."""
    calls = iter(docs)

    def source():
        try:
            return next(calls)
        except StopIteration:
            raise KeyboardInterrupt from None

    return source


def test_live_json_prints_a_line_for_each_change():
    docs = [two_tables()] * 3 + [held_hand_confirmed()] * 3
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        watch.live(ending(docs), Console(file=out), as_json=True, poll=0.02)
    lines = out.getvalue().splitlines()
    assert [json.loads(line) for line in lines] == [two_tables(), held_hand_confirmed()]


def test_live_view_redraws_when_the_snapshot_changes():
    docs = [two_tables()] * 3 + [held_hand_confirmed()] * 3
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        watch.live(ending(docs), Console(file=out, width=80, height=24, force_terminal=True), poll=0.02)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    assert "(100)" in shown and re.search(r"Σ +140 +160 +160 +180", shown)      # first frame
    assert re.search(r"Σ +160 +180 +180 +280", shown)                             # after the accept


def test_a_bad_snapshot_file_is_one_line_naming_it(tmp_path):
    bad = tmp_path / "s.json"
    bad.write_text("{not json", encoding="utf-8")
    result = CliRunner().invoke(main, ["event", "watch", "--once", "--snapshot", str(bad)])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"tallyboard: {bad}: ") and result.stderr.count("\n") == 1
    other = write(tmp_path / "o.json", {"format": "tallyboard/1", "game": "x"})
    result = CliRunner().invoke(main, ["event", "watch", "--once", "--snapshot", other])
    assert result.exit_code == 1 and result.stdout == ""
    assert "not a club evening's snapshot" in result.stderr
    missing = CliRunner().invoke(main, ["event", "watch", "--once", "--snapshot", str(tmp_path / "none.json")])
    assert missing.exit_code == 1 and "No such file" in missing.stderr


def test_with_no_evening_watch_says_so_and_prints_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(tmp_path / "archive.sqlite3"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    result = CliRunner().invoke(main, ["event", "watch", "--once"])
    assert result.exit_code != 0 and result.stdout == ""
    assert result.stderr.startswith("tallyboard: ") and result.stderr.count("\n") == 1


def test_a_failing_source_is_said_under_the_last_snapshot_and_watch_goes_on(capsys):
    state = {"calls": 0}

    def source():
        state["calls"] += 1
        if state["calls"] > 9:
            raise KeyboardInterrupt       # the user's Ctrl-C: the end is the source's, not the wall clock's
        if 3 <= state["calls"] <= 6:
            raise RuntimeError("the board of table 2 does not answer")
        return two_tables() if state["calls"] < 3 else held_hand_confirmed()

    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        watch.live(source, Console(file=out, width=80, height=24, force_terminal=True), poll=0.02)
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", out.getvalue())
    said = shown.index("cannot read the evening just now: the board of table 2 does not answer")
    assert re.search(r"Σ +140 +160 +160 +180", shown[said:])        # the last snapshot stays shown
    assert re.search(r"Σ +160 +180 +180 +280", shown[said:])        # then the source answers again
    state["calls"] = 0
    lines = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        watch.live(source, Console(file=lines), as_json=True, poll=0.02)
    assert [json.loads(line) for line in lines.getvalue().splitlines()] == [two_tables(), held_hand_confirmed()]
    assert capsys.readouterr().err == "tallyboard: cannot read the evening just now: the board of table 2 does not answer\n"


def test_live_on_a_pipe_prints_one_plain_snapshot_per_change():
    """`event watch > file` or `| tee`: not a terminal, so no redrawn screen
    (which a file shows as nothing): each change once, in plain text."""
    docs = [two_tables()] * 3 + [held_hand_confirmed()] * 3
    out = io.StringIO()
    with pytest.raises(KeyboardInterrupt):
        watch.live(ending(docs), Console(file=out, width=100), poll=0.02)
    text = out.getvalue()
    assert "\x1b" not in text
    snapshots = re.split(r"^--- \d\d:\d\d:\d\d$", text, flags=re.M)
    assert snapshots[0] == "" and len(snapshots) == 3, text       # two changes: two snapshots
    assert re.search(r"Σ +140 +160 +160 +180", snapshots[1])      # hand 4 held
    assert re.search(r"Σ +160 +180 +180 +280", snapshots[2])      # Bob accepted it: +20 +20 +20 +100


def test_event_watch_to_a_file_is_never_empty(tmp_path):
    result = run(["watch", "--snapshot", write(tmp_path / "s.json", two_tables()), "--duration", "0.3"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("--- ") and "Tuesday club" in result.output


def test_a_bad_stored_value_is_a_marked_gap_never_a_blank_view():
    """Issue 22: a `pending` of the wrong shape (as a forged state left it)
    and a table that is not an object: the rest of the view stands."""
    doc = two_tables()
    doc["tables"][0]["pending"]["waiting_for"] = "notalist"
    doc["tables"].append("junk")
    out = io.StringIO()
    watch.once(lambda: doc, Console(file=out, width=140))
    shown = out.getvalue()
    assert "hand 4: ⚠ unreadable to accept" in shown
    assert "Table 3 · ⚠ unreadable" in shown
    assert re.search(r"Σ +130 +60 +130 +60", shown)              # table 2's sheet still there
    assert "Fay" in shown and "570" in shown                      # the standings too


def test_no_next_round_in_the_last_round():
    doc = two_tables()
    doc["round"] = doc["rounds"] = 3
    doc["last_round"] = True      # a snapshot from before would still carry moves: not shown
    out = io.StringIO()
    watch.once(lambda: doc, Console(file=out, width=140))
    assert "Next round" not in out.getvalue() and "→" not in out.getvalue()
