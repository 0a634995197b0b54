"""Degrade, don't die (issue 20): the real firmware in the emulator loses its OLED
mid-game (the stand-in's bus stops answering: OSError, as a NAK on the chip). The
board keeps scoring over USB, says what is wrong in a NOTE, and takes the display
back when it answers again; no acknowledged change is lost."""
from __future__ import annotations

import pytest

from emu_fixtures import emulated_board, until

pytestmark = [pytest.mark.emulator]


def _note(board, words: str, seconds: float = 10.0) -> str:
    def said() -> str | None:
        return next((event.fields["text"] for event in board.events
                     if event.kind == "NOTE" and words in event.fields.get("text", "")), None)

    def noted() -> str | None:
        # poll_events reads the wire until the next event comes (a read, not a sleep), so no pause between asks
        return said() or (board.poll_events(0.2, first=True) and said())

    return until(noted, seconds, f"a NOTE saying {words!r}", every=0,
                 explain=lambda: f"the events: {[e.fields for e in board.events]}")


def test_an_oled_that_stops_answering_mid_game_costs_no_change_and_comes_back(tmp_path):
    with emulated_board(tmp_path / "flash") as (emulator, board):
        board.keep_events = True
        board.new("roquet", 2)
        board.game_verb("PEG", 0, 5)
        first = until(emulator.oled, 60, "the OLED's first sheet")
        cut = emulator.io_dir / "no-oled"
        cut.write_bytes(b"")                      # the OLED's cable comes loose
        assert board.game_verb("PEG", 1, 7)["n"] == "2"        # acknowledged while the painter finds it silent
        said = _note(board, "the_OLED_stopped_answering")
        assert "keep_scoring" in said, said
        assert board.game_verb("PEG", 0, 3)["n"] == "3"        # and scoring goes on
        cut.unlink()                              # plugged back in: tried again within 2 s
        _note(board, "the_OLED_answers_again")
        # Ann 5 + 3 = 8, Bob 7: every acknowledged peg once
        assert board.request("SCORE")["totals"] == "8,7"
        until(lambda: emulator.oled() != first, 60, "the sheet drawn again")
        assert board.request("STATS")["errors"] == "0"
