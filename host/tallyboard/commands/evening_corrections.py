"""`tallyboard event correct` and `event rescore`: the director's corrections after the fact, each a new
entry of the evening's log signed with his update key (docs/events.md, "Corrections and the boards";
evening/corrections.py and evening/director.py do the work)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from ..common import files
from ..evening import director
from ..evening.store import Evening, EveningError, EveningDatabase
from .evening import director_command


def _signing_key_option(function):  # type: ignore[no-untyped-def]
    return click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="The director's update key, which signs the correction (default: "
                             "~/.config/tallyboard/update-key; tallyboard release key makes it).")(function)


def _signing_key(key_file: Path | None) -> bytes:
    """The director's update key (club/releases.py), which signs each correction."""
    from ..club import releases

    path = key_file or releases.update_key_path()
    try:
        return releases.load_key(path)
    except releases.ReleaseError as exc:
        raise EveningError(f"a correction is signed with the director's update key: {exc}; "
                           "nothing was changed") from None


@click.command("correct")
@click.option("--round", "round_", type=int, required=True, help="The round, from 1.")
@click.option("--table", type=int, required=True, help="The table, from 1 (the head).")
@click.option("--hand", type=int, required=True, help="The hand, as the sheet numbers it.")
@click.argument("changes", nargs=-1, metavar="KEY=VALUE...")
@_signing_key_option
@director_command("tallyboard event correct")
def correct_cmd(store: EveningDatabase, event: Evening, round_: int, table: int, hand: int,
                changes: tuple[str, ...], key_file: Path | None) -> dict[str, Any]:
    """Change a confirmed hand: KEY=VALUE fields of the record's hand form (docs/records.md; a
    player by seat number or name), e.g. tricks=9. A new entry of the evening's log, signed with the
    director's update key, kept over the board's record. Director's PIN."""
    return director.correct(store, event, round_, table, hand, list(changes), _signing_key(key_file))


@click.command("rescore")
@click.option("--round", "round_", type=int, required=True, help="The round, from 1.")
@click.option("--table", type=int, required=True, help="The table, from 1 (the head).")
@click.argument("game", type=click.Path(dir_okay=False, allow_dash=True))
@_signing_key_option
@director_command("tallyboard event rescore")
def rescore_cmd(store: EveningDatabase, event: Evening, round_: int, table: int, game: str,
                key_file: Path | None) -> dict[str, Any]:
    """Replace a table's game by GAME (a game record, docs/records.md, or its list of hands; players
    by seat at the round's start). A new entry of the evening's log, signed with the director's update
    key, kept over the board's record. Director's PIN."""
    doc = files.parse_json(files.read_stdin(), "stdin") if game == "-" else files.read_json(game)
    hands = doc.get("hands") if isinstance(doc, dict) else doc
    return director.rescore(store, event, round_, table, hands, _signing_key(key_file))


def register(group: click.Group) -> None:
    group.add_command(correct_cmd)
    group.add_command(rescore_cmd)
