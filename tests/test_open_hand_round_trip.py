"""Every record the host writes reads back (issue 15): for random legal games of
all sixteen, cut after every event, the record `tallyboard export` writes
(a hand not yet finished as an open hand, docs/records.md "A hand in
progress") loads through the records, the sheet (JSON and table), the
archive, `enter` and `show`, and gives the board's own state: the core's
after those events. The expectations are the core's own replay of the same
events, never a re-implementation."""
import io
import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st
from rich.console import Console

from tallycore import game as core_game
from tallycore import games as core_games
from tallyboard import games
from tallyboard.scorebook import records, sheet
from tallyboard.scorebook.archive import Archive
from tallyboard.cli import main

from test_core_properties import roquet_games, skicket_games
from test_games_properties import GAMES as SHORT_GAMES
from test_games_properties import played_games


@st.composite
def skicket_played(draw):
    return 4, 0, draw(skicket_games())


@st.composite
def roquet_played(draw):
    options, events = draw(roquet_games())
    return 2, options, events


STRATEGIES = {"skicket": skicket_played(), "roquet": roquet_played()}
for name, counts, options, hand in SHORT_GAMES:
    STRATEGIES[name] = played_games(name, counts, options, hand)

EXAMPLES = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def test_every_game_is_covered():
    assert sorted(STRATEGIES) == sorted(core_games.names())


def board_game(name, players, option, events):
    """The board's game after these events: the core, as the board runs it."""
    g = core_game.Game()
    g.new(name, players, option)
    for event in events:
        g.apply(event)
    return g


def check_cut(name, players, option, events, archive):
    board = board_game(name, players, option, events)
    totals = [board.total(p) for p in range(players)]
    names = [f"P{p + 1}" for p in range(players)]
    profile = games.profile(name)
    open_events = profile.hand_in_progress(board)
    # export: the record as the host writes it
    doc = records.to_document(name, names, records.options_document(name, option), board)
    text = json.dumps(doc, indent=1)
    assert ('"open": true' in text) == bool(open_events)
    loaded = records.loads(text)
    # the record is the board's game: the same state, byte for byte
    assert bytes(loaded.game.state) == bytes(board.state)
    assert [loaded.game.total(p) for p in range(players)] == totals
    # written again, the same record
    assert records.to_document(name, names, loaded.options, loaded.game) == doc
    # the sheet: the board's totals; the hand in progress last, marked open;
    # the hands' scores add up to the totals (the hand in progress included)
    sheet_doc = sheet.sheet_json(loaded)
    assert sheet_doc["totals"] == [board.total(p) for p in range(len(sheet_doc["totals"]))]
    assert sheet_doc["complete"] == bool(board.complete())
    if open_events:
        assert sheet_doc["hands"][-1]["open"] is True
        assert sheet_doc["hands"][-1]["hand"] == board.hands() + 1
    assert not any(h.get("open") for h in sheet_doc["hands"][:len(sheet_doc["hands"]) - bool(open_events)])
    width = len(sheet_doc["totals"])
    assert [sum(h["scores"][p] for h in sheet_doc["hands"]) for p in range(width)] == sheet_doc["totals"]
    sheet.print_sheet(sheet_doc, Console(file=io.StringIO(), width=100))
    # the archive keeps it and shows it
    game_id, _ = archive.add(loaded, source="test")
    again = records.from_document(archive.record(game_id), f"#{game_id}")
    assert sheet.sheet_json(again) == sheet_doc
    # enter: each hand of the record, entered on a board that has the ones
    # before it, is accepted and leaves the board's game
    entered = core_game.Game()
    entered.new(name, players, option)
    for number, hand in enumerate(doc["hands"], 1):
        for event in records.hand_events(profile, hand, players, doc.get("options", {}),
                                         last=number == len(doc["hands"])):
            entered.apply(event)
    assert bytes(entered.state) == bytes(board.state)
    return doc


def cuts_through_one_hand(name, players, option, events, hand):
    """The cuts before and after every event of the game's hand-th hand (counted from 0, any
    number: taken modulo the hands there are), and after the whole game. A record is read back
    whole at each cut, so cutting after every event of the game would cost the square of its
    length (a Moosehead game of 120 events: 26 s); one hand's every cut, the hand drawn by
    hypothesis, tries each position a hand can be left open at, at a cost linear in the game's."""
    closes = games.profile(name).closes_hand(board_game(name, players, option, []))
    starts = [0] + [at + 1 for at, event in enumerate(events) if closes(event) and at + 1 < len(events)]
    first = starts[hand % len(starts)]
    last = next((start for start in starts if start > first), len(events))
    return sorted(set(range(first, last + 1)) | {len(events)})


def test_the_cuts_through_one_hand_are_every_position_of_that_hand(monkeypatch):
    # six events in three hands, closed by events 1, 4 and 5: hand 0 is events 0-1, hand 1 events 2-4,
    # hand 2 event 5; a cut at k keeps events[:k], so hand 1's cuts are 2 (before it) to 5 (after it)
    closing = [False, True, False, False, True, True]

    class ClosedBy:
        @staticmethod
        def closes_hand(_game):
            return lambda event: closing[event]

    monkeypatch.setattr(games, "profile", lambda _name: ClosedBy)
    events = list(range(len(closing)))
    assert cuts_through_one_hand("roquet", 2, 0, events, 0) == [0, 1, 2, 6]
    assert cuts_through_one_hand("roquet", 2, 0, events, 1) == [2, 3, 4, 5, 6]
    assert cuts_through_one_hand("roquet", 2, 0, events, 2) == [5, 6]
    assert cuts_through_one_hand("roquet", 2, 0, events, 3) == [0, 1, 2, 6]      # 3 hands: 3 is hand 0
    assert cuts_through_one_hand("roquet", 2, 0, [], 5) == [0]


# Moosehead's games are the longest (a card an event): its read-back takes about 5 s, so it is in the slow tier
@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name == "moosehead" else name
                                  for name in core_games.names()])
def test_export_reads_back_cut_after_every_event(name):
    @EXAMPLES
    @given(STRATEGIES[name], st.integers(0, 1 << 10))
    def check(played, hand):
        players, option, events = played
        with tempfile.TemporaryDirectory() as tmp, Archive(Path(tmp) / "a.sqlite3") as archive:
            for cut in cuts_through_one_hand(name, players, option, events, hand):
                check_cut(name, players, option, events[:cut], archive)
    check()


def _cli(*args):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.emulator
@pytest.mark.parametrize("name", core_games.names())
def test_the_commands_read_an_open_record(name, tmp_path):
    """Through the commands: sheet --json, archive add / show, and show --png,
    for a game of each kind cut in the middle of a hand where it has one."""
    players, option, events = _seeded_game(name)
    board = board_game(name, players, option, events)
    doc = records.to_document(name, [f"P{p + 1}" for p in range(players)],
                              records.options_document(name, option), board)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc, indent=1))
    shown = json.loads(_cli("sheet", str(path), "--json").stdout)
    assert shown["totals"] == [board.total(p) for p in range(len(shown["totals"]))]
    in_progress = bool(games.profile(name).hand_in_progress(board))
    # every game whose hand is several entries is cut in the middle of one
    assert in_progress == (games.profile(name).open_hand is not None)
    assert in_progress == bool(shown["hands"] and shown["hands"][-1].get("open"))
    assert _cli("sheet", str(path)).stdout
    archive = str(tmp_path / "a.sqlite3")
    _cli("archive", "add", str(path), "--archive", archive)
    assert json.loads(_cli("archive", "show", "1", "--json", "--archive", archive).stdout) == shown
    assert _cli("archive", "show", "1", "--archive", archive).stdout
    out = _cli("show", str(path), "--png", str(tmp_path / "game.png"))
    assert (tmp_path / "game.png").stat().st_size > 0, out.output


# A game of each kind that ends in the middle of a hand where the game has
# hands of several entries: the first hands of the property tests' own
# generators, drawn once with a fixed seed, then cut one entry short.
def _seeded_game(name):
    profile = games.profile(name)

    def cut_point(played):
        """After the last entry that leaves a hand open, else the whole game."""
        players, option, events = played
        closes = profile.closes_hand(board_game(name, players, option, []))
        for at in range(len(events) - 1, 0, -1):
            if closes(events[at]) and not closes(events[at - 1]):
                return at
        return len(events)

    def wanted(played):
        return len(played[2]) >= 3 and (profile.open_hand is None or cut_point(played) < len(played[2]))

    played = find(STRATEGIES[name], wanted, settings=settings(database=None, derandomize=True, max_examples=500))
    return played[0], played[1], played[2][:cut_point(played)]
