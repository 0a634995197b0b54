"""A record or a hand that is not JSON the host can read (bytes that are not
UTF-8, arrays nested deeper than any of tallyboard's documents, a whole number
far beyond the format's: 5000 digits) is one line naming it, "PATH: ...", and
a non-zero exit, for every command that reads one: sheet, show, archive add
(files and standard input), enter, event replay and event serve or watch
--snapshot (issue 30's finding 6: a ValueError or RecursionError traceback)."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

NOT_UTF8 = b"\xff\xfe\x00"
DEEP = b"[" * 3_000_000

# a record whose hand holds a number of 5000 digits (Python's int() refuses more than 4300)
BIG = b'{"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"], "hands": [[' + b"9" * 5000 + b']]}'
# well-formed JSON, 100 deep: under Python's recursion limit, far over any record's nesting
NESTED = b"[" * 100 + b"]" * 100
BIG_SAYS = "the number 999999999999\u2026 (5000 digits) is too big for a record (its whole numbers are below 2**30"

CASES = [("not UTF-8", NOT_UTF8, "not UTF-8 JSON"), ("deep", DEEP, "too deeply nested"),
         ("nested", NESTED, "too deeply nested (arrays or objects more than 32 deep"),
         ("big number", BIG, BIG_SAYS),
         ("empty", b"", "empty: no record in it"), ("blank", b" \n\t\n", "empty: no record in it")]


def check_one_line(result, source: str, message: str) -> None:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"tallyboard: {source}: {message}"), lines[0]


@pytest.mark.parametrize("data,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("command", [["sheet"], ["sheet", "--json"], ["show"], ["archive", "add"]],
                         ids=["sheet", "sheet-json", "show", "archive-add"])
def test_a_bad_record_file(tmp_path, command, data, message):
    path = tmp_path / "r.json"
    path.write_bytes(data)
    args = [*command, str(path)]
    if command[0] == "archive":
        args += ["--archive", str(tmp_path / "a.sqlite3")]
    check_one_line(CliRunner().invoke(main, args), str(path), message)


@pytest.mark.parametrize("data,message", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
@pytest.mark.parametrize("command", [["sheet"], ["show"]])
def test_a_bad_record_on_stdin(command, data, message):
    check_one_line(CliRunner().invoke(main, [*command, "-"], input=data), "stdin", message)


def test_the_message_says_what_to_do(tmp_path):
    path = tmp_path / "r.json"
    path.write_bytes(NOT_UTF8)
    result = CliRunner().invoke(main, ["sheet", str(path)])
    assert result.stderr == (f"tallyboard: {path}: not UTF-8 JSON (byte 0xff at offset 0); "
                             "save the record as UTF-8 text\n")


@pytest.mark.emulator
@pytest.mark.parametrize("data,message", [(NOT_UTF8, "not UTF-8 JSON"), (b"[" * 100_000, "too deeply nested")],
                         ids=["not UTF-8", "deep"])
def test_a_bad_hand_for_enter(tmp_path, data, message):
    env = {"TALLYBOARD_EMULATOR_HOME": str(tmp_path / "emu")}
    new = CliRunner().invoke(main, ["new", "foozle", "--name", "A", "--name", "B", "--name", "C", "--emulator"],
                             env=env)
    assert new.exit_code == 0, new.output
    check_one_line(CliRunner().invoke(main, ["enter", "-", "--emulator"], input=data, env=env), "hand", message)


EVENT_RECORD_CASES = [("deep", DEEP, "too deeply nested"),
                      ("big number", b'{"format": "tallyboard-event/1", "rounds": [' + b"7" * 5000 + b"]}",
                       "the number 777777777777\u2026 (5000 digits) is too big for an event record")]


@pytest.mark.parametrize("data,message", [c[1:] for c in EVENT_RECORD_CASES], ids=[c[0] for c in EVENT_RECORD_CASES])
def test_a_bad_event_record_for_replay(tmp_path, data, message):
    path = tmp_path / "evening.json"
    path.write_bytes(data)
    check_one_line(CliRunner().invoke(main, ["event", "replay", str(path)]), str(path), message)


SNAPSHOT_CASES = [("deep", DEEP, "too deeply nested (arrays or objects more than 32 deep, and a snapshot has a few)"),
                  ("nested", NESTED, "too deeply nested"),
                  ("big number", b'{"format": "tallyboard-event-view/1", "round": ' + b"1" * 5000 + b"}",
                   "the number 111111111111\u2026 (5000 digits) is too big for a snapshot")]


@pytest.mark.parametrize("data,message", [c[1:] for c in SNAPSHOT_CASES], ids=[c[0] for c in SNAPSHOT_CASES])
@pytest.mark.parametrize("command", [["event", "serve", "--port", "0"], ["event", "watch", "--once"]],
                         ids=["serve", "watch"])
def test_a_bad_snapshot_for_serve_and_watch(tmp_path, command, data, message):
    path = tmp_path / "s.json"
    path.write_bytes(data)
    check_one_line(CliRunner().invoke(main, [*command, "--snapshot", str(path)]), str(path), message)
