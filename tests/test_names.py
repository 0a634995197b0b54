"""One rule for the names the host takes, and no control character from data
on the terminal (issue 22.4, finding 7): a name holding an escape sequence or
a bidirectional override, or longer than the board shows, is refused where it
comes in; one already in a file (an archive or a record made before the rule)
is shown escaped by every view."""
from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from tallyboard.common import names
from tallyboard.cli import main
from tallyboard.commands.scoring import check_names
from tallyboard.common.errors import TallyboardError
from tallyboard.evening.store import EveningDatabase

TITLE = "A\x1b]0;PWNED\x07"          # sets the terminal's title when printed raw
EVIL = "\u202eevil"                  # reads "live" right to left
OTHERS = ["Bob", "Cy", "Dee"]


def cli(*args, env=None):
    return CliRunner().invoke(main, list(args), env=env)


@pytest.fixture
def archive(tmp_path, monkeypatch):
    path = tmp_path / "archive.sqlite3"
    monkeypatch.setenv("TALLYBOARD_ARCHIVE", str(path))
    return path


def raw(text: str) -> bool:
    """Whether text holds a character no view may print: ESC, BEL or U+202E."""
    return any(c in text for c in "\x1b\x07\u202e")


@pytest.mark.parametrize("player, says", [
    (TITLE, "player 'A\\x1b]0;PWNED\\x07': it holds U+001B (a control character), which a name may not"),
    (EVIL, "player '\\u202eevil': it holds U+202E (right-to-left override), which a name may not"),
    ("Ann\u2066", "U+2066 (left-to-right isolate)"),
    ("An\u0085n", "U+0085 (a control character)"),
    ("Ann\u200bLee", "U+200B (zero width space)"),
    ("Maximilianus1", "player 'Maximilianus1': 13 characters, and a name has at most 12 (what the board shows)"),
])
def test_an_evening_refuses_a_player_name_the_rule_refuses_and_creates_nothing(archive, player, says):
    result = cli("event", "create", "Tuesday", "--player", player, *[a for n in OTHERS for a in ("--player", n)])
    assert result.exit_code != 0
    assert says in result.output, result.output
    assert not raw(result.output)
    with EveningDatabase(archive) as store:
        assert store.events() == []


def test_an_evenings_name_is_checked_too_and_a_good_one_taken(archive):
    long = "The Tuesday club's autumn evening"          # 33 characters: more than one OLED line
    assert len(long) == 33
    result = cli("event", "create", long, *[a for n in ["Ann"] + OTHERS for a in ("--player", n)])
    assert result.exit_code != 0 and "33 characters, and a name has at most 32" in result.output
    result = cli("event", "create", f"Tues{EVIL}", *[a for n in ["Ann"] + OTHERS for a in ("--player", n)])
    assert result.exit_code != 0 and "U+202E" in result.output and not raw(result.output)
    # letters of any language, spaces inside, twelve characters: taken
    result = cli("event", "create", "Tuesday club", *[a for n in ["José Müller", "Ann Lee-Smit"] + OTHERS[:2]
                                                      for a in ("--player", n)])
    assert result.exit_code == 0, result.output


def test_a_board_name_is_the_boards_rule_on_the_host():
    for bad in (TITLE, EVIL, "Maximilianus1", "José"):
        with pytest.raises(TallyboardError, match="1 to 12 letters, digits, _ - or ."):
            check_names([bad])
    check_names(["Ann", "Bob_2", "Maximilianus"])
    result = cli("config", "set", "name", "--player", "0", EVIL, "-p", "/dev/null-board")
    assert result.exit_code != 0 and "name '\\u202eevil': 1 to 12 letters, digits, _ - or ." in result.output


def test_the_rule_itself():
    assert names.check("player", "  Ann  ", 12) == "Ann"
    assert names.refused_character("Zoë d'Arc") is None
    assert names.refused_character("a\u00a0b") == "\u00a0"          # a space that is not one
    assert names.shown(TITLE) == "A\\x1b]0;PWNED\\x07"
    assert names.shown(EVIL + "\n") == "\\u202eevil\n"
    assert names.shown("Zoë\tAnn") == "Zoë\tAnn"


# ---------------------------------------------------------------- the views

def _old_evening(archive):
    """An evening whose players were stored before the rule (an old archive)."""
    result = cli("event", "create", "Tuesday", *[a for n in ["Ann"] + OTHERS for a in ("--player", n)])
    assert result.exit_code == 0, result.output
    db = sqlite3.connect(archive)
    with db:
        db.execute("UPDATE event_players SET name = ? WHERE number = 0", (TITLE,))
        db.execute("UPDATE event_players SET name = ? WHERE number = 1", (EVIL,))
    db.close()


def test_event_status_and_next_never_print_a_control_character_from_the_store(archive):
    _old_evening(archive)
    result = cli("event", "status", env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert not raw(result.output), repr(result.output)
    # (rich drops a BEL itself; the ESC is shown escaped)
    assert "A\\x1b]0;PWNED" in result.output and "\\u202eevil" in result.output
    assert cli("event", "pin", "set", "--new-pin", "4711").exit_code == 0
    result = cli("event", "next", "--force", env={"TALLYBOARD_DIRECTOR_PIN": "4711"})
    assert result.exit_code == 0, result.output
    assert "\nRound 2 of 3: " in result.output and "\\u202eevil" in result.output
    assert not raw(result.output), repr(result.output)


def test_event_watch_never_prints_a_control_character_from_a_snapshot(archive, tmp_path):
    _old_evening(archive)
    result = cli("event", "watch", "--once", env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert not raw(result.output), repr(result.output)
    assert "\\x1b" in result.output and "\\u202e" in result.output


def test_a_record_whose_player_holds_one_is_refused_in_words(tmp_path):
    record = {"format": "tallyboard/1", "game": "roquet", "players": [TITLE, "Bob"], "hands": []}
    path = tmp_path / "r.json"
    path.write_text(json.dumps(record))
    result = cli("sheet", str(path))
    assert result.exit_code != 0
    assert "players: 'A\\x1b]0;PWNED\\x07' holds U+001B: a name may not hold a control, bidi" in result.output
    assert not raw(result.output), repr(result.output)


def test_the_archive_list_never_prints_a_control_character_from_an_old_archive(archive):
    from tallyboard.scorebook.archive import Archive
    Archive(archive).close()
    db = sqlite3.connect(archive)
    with db:
        db.execute("INSERT INTO games VALUES (1, 'd', 'roquet', ?, 0, '[5, 3]', '[]', 'in progress', 'test', 't', ?)",
                   (json.dumps([TITLE, EVIL]), json.dumps({"format": "tallyboard/1", "game": "roquet",
                                                            "players": ["A", "B"], "hands": []})))
    db.close()
    result = cli("archive", "list", env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    assert not raw(result.output), repr(result.output)
    assert "\\u202eevil" in result.output


def test_players_added_or_substituted_later_are_checked_the_same(archive):
    assert cli("event", "create", "Tuesday", *[a for n in ["Ann"] + OTHERS for a in ("--player", n)]).exit_code == 0
    assert cli("event", "pin", "set", "--new-pin", "4711").exit_code == 0
    env = {"TALLYBOARD_DIRECTOR_PIN": "4711"}
    result = cli("event", "add", "Wu", "Xi", "Yo", EVIL, env=env)
    assert result.exit_code != 0 and "U+202E (right-to-left override)" in result.output, result.output
    result = cli("event", "withdraw", "Ann", "--substitute", TITLE, env=env)
    assert result.exit_code != 0 and "U+001B" in result.output, result.output
    assert not raw(result.output)
    with EveningDatabase(archive) as store:
        assert store.names(store.event()) == ["Ann"] + OTHERS


def test_on_a_terminal_the_colours_stay_and_the_datas_escape_goes():
    """rich's own escape codes (colours, Live's cursor) pass; the data's are escaped."""
    import io

    from rich.table import Table

    from tallyboard.common.console import Console
    out = io.StringIO()
    table = Table("Player", "Total")
    table.add_row(TITLE, "5")
    table.add_row(EVIL, "3")
    Console(file=out, force_terminal=True, color_system="standard", width=80).print(table, style="bold")
    text = out.getvalue()
    assert "\x1b[1m" in text                                   # bold: rich's own code
    assert "\x1b]" not in text and "\x07" not in text and "\u202e" not in text
    assert "A\\x1b]0;PWNED" in text and "\\u202eevil" in text


# ---------------------------------------------------------------- a board's id (issue 30, finding 6)

BAD_BOARD_NAME = TITLE + EVIL        # what a board answered HELLO with in the hostile pass


def test_a_board_that_calls_itself_by_an_escape_sequence_is_refused_at_hello():
    from test_client_protocol import FakeLink, frame

    from tallyrun import protocol
    from tallyboard.boardlink.client import Board
    from tallyboard.common.errors import ProtocolError

    hello = f"{{seq}} OK fw=0.1.0 proto={protocol.PROTOCOL_VERSION} board={BAD_BOARD_NAME} games=2 frame=128"
    link = FakeLink(lambda seq, verb, count: frame(hello.format(seq=seq)))
    link.name = "/dev/ttyACM0"
    with pytest.raises(ProtocolError) as refused:
        Board(link, timeout=0.5).hello()
    message = str(refused.value)
    assert not raw(message), message
    assert message == ("the board on /dev/ttyACM0 calls itself 'A\\x1b]0;PWNED\\x07\\u202eevil', which is not a "
                       "board's name (1 to 32 letters, digits, _ - or .): it runs other firmware, or its board "
                       "definition is damaged; run tallyboard deploy")


def test_a_board_id_is_a_boards_name_at_its_table():
    assert names.is_board_id("pico-reference@1A2B.2", 0x1A2B, 2)
    for bad in (f"{BAD_BOARD_NAME}@1A2B.2", "@1A2B.2", "pico@1A2B.3", "pico@1a2b.2", "x" * 33 + "@1A2B.2", None, 7):
        assert not names.is_board_id(bad, 0x1A2B, 2), bad


def test_event_attach_never_prints_a_board_id_raw(archive, monkeypatch):
    """An id stored before the rule (an older archive, a table host's message) is shown escaped."""
    from tallyboard.commands import evening_boards

    assert cli("event", "create", "Tuesday", *[a for n in ["Ann", *OTHERS] for a in ("--player", n)]).exit_code == 0

    class AttachedRaw:
        def __init__(self, store, event, timeout):
            self.store, self.event = store, event

        def attach_ports(self, ports):
            self.store.set_board(self.event, 1, ports[0], f"{BAD_BOARD_NAME}@0000.1")

        def close(self):
            pass

    monkeypatch.setattr(evening_boards, "Tables", AttachedRaw)
    result = cli("event", "attach", "--port", "/dev/ttyACM0")
    assert result.exit_code == 0, result.output
    assert not raw(result.output), repr(result.output)
    assert "table 1: /dev/ttyACM0 (A\\x1b]0;PWNED\\x07\\u202eevil@0000.1)" in result.output
