"""Commands that work on game records with no board: sheet, demo, verify."""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import click
from rich.markup import escape

from tallycore import game as core_game

from ..common.console import Console
from ..common import files
from ..common.errors import RecordError, TallyboardError
from ..evening import corrections, record as event_record
from ..scorebook import records, sheet, verify
from .reporting import reports_errors


@click.command("sheet")
@click.argument("record", type=click.Path(dir_okay=False, allow_dash=True), required=False)
@click.option("--json", "as_json", is_flag=True, help="Print the machine-readable sheet (docs/records.md).")
@click.option("--why", "with_why", is_flag=True,
              help="Say under the sheet why each hand scored what it did (the rules' clauses; tallyboard why).")
@click.option("--port", "-p", metavar="PORT", help="With no RECORD: the board on this port.")
@click.option("--emulator", "use_emulator", is_flag=True, help="With no RECORD: the emulator.")
@reports_errors
def sheet_cmd(record: str | None, as_json: bool, with_why: bool, port: str | None, use_emulator: bool) -> None:
    """Print the score sheet of a game RECORD (a JSON file, see docs/records.md; - reads stdin),
    or with no RECORD of the game on the board (--port/--emulator, or the one on USB)."""
    letters: str | None = None   # beside the board's seat buttons
    if record is None:
        from .scoring import live_sheet

        loaded, letters = live_sheet(port, use_emulator, 1.0)
    elif record == "-":
        loaded = records.loads(files.read_stdin(), source="stdin")
    else:
        loaded = records.load(record)
    doc = sheet.sheet_json(loaded)
    held = loaded.game.held if record is None else 0
    if held:
        # docs/records.md: the hand waiting for an opponent's accept is on no sheet yet
        doc["pending"] = pending(loaded)
    if with_why:
        from ..scorebook import why as reasons

        doc["why"] = [{"hand": number, "lines": lines} for number, lines in enumerate(reasons.sheet_lines(loaded), 1)]
    if as_json:
        click.echo(json.dumps(doc))
    else:
        sheet.print_sheet(doc)
        for row in doc.get("why", []):
            click.echo(f"hand {row['hand']}:")
            for line in row["lines"]:
                click.echo(f"  {line}")
        if held:
            from .connect import held_words

            click.echo(f"{held_words(loaded.game, loaded.players, letters)}: not on the sheet until accepted")


def pending(loaded: records.LoadedGame) -> dict[str, object]:
    """The change waiting for its confirmation on the board (docs/rules.md CF1), for --json."""
    game = loaded.game
    doc: dict[str, object] = {"hand": game.held_hand(),
                              "waiting_for": [loaded.players[p] for p in range(game.players)
                                              if game.held_by >> p & 1]}
    if game.held == core_game.HELD_UNDO:
        doc["undo"] = True
    return doc


def demo_records() -> list[str]:
    data = resources.files("tallyboard") / "data"
    return sorted(p.name for p in data.iterdir() if p.name.startswith("demo_") and p.name.endswith(".json"))


@click.command("demo")
@reports_errors
def demo_cmd() -> None:
    """Print the score sheets of the bundled demo games (no board needed)."""
    console = Console()
    for name in demo_records():
        text = (resources.files("tallyboard") / "data" / name).read_text(encoding="utf-8")
        sheet.print_sheet(sheet.sheet_json(records.loads(text, source=name)), console)
        console.print()


def _keys(given: tuple[str, ...]) -> set[str] | None:
    keys = set()
    for text in given:
        key = text.strip().lower()
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise TallyboardError(f"--key {text}: a board's key is 64 hex digits, as a record's chain writes it")
        keys.add(key)
    return keys or None


def documents(paths: tuple[str, ...]) -> list[tuple[str, object]]:
    """Each JSON document to check: the files given, and those in a folder given (a results site's)."""
    found = []
    for given in paths:
        path = Path(given)
        names = sorted(path.rglob("*.json")) if path.is_dir() else [path]
        if path.is_dir() and not names:
            raise TallyboardError(f"{given}: no records in the folder (a results site holds one per evening: "
                                  "tallyboard results build writes them)")
        found += [(str(name), files.read_json(name, "record")) for name in names]
    return found


def verdicts_of(doc: object, source: str, keys: set[str] | None) -> list[verify.Verdict]:
    """The games of one document checked: a game record's one game; an event record's
    (docs/events.md) every table's game as its board kept it, and every correction of the director's."""
    if not (isinstance(doc, dict) and doc.get("format") == event_record.FORMAT):
        return [verify.check(doc, source, keys)]
    try:
        names, plays = event_record.from_document(doc, source)
    except RecordError as exc:
        return [verify.Verdict(source, "the evening", False, "-", "-", f"not an evening the rules allow: {exc}")]
    tables = event_record.table_games(doc, names, plays, event_record.failing(source))
    found = [verify.check(game, f"{source}: {where}", keys) for where, game in tables]
    signed = {v.source for v in found}
    if keys is None:
        found += one_key_a_table(source, tables)
    for r, play in enumerate(plays, 1):
        for t in range(1, len(play.tables) + 1):
            where = f"{source}: round {r} table {t}"
            if where not in signed:
                found.append(verify.Verdict(where, "its game", False, "-", "-",
                                            "not signed: its board sent no chain (its game not finished on "
                                            "the board, or a board firmware before protocol 6)"))
    for entry in doc.get("corrections", []):
        what = (f"round {entry['round']} table {entry['table']} "
                + ("the whole game" if entry.get("whole") else f"hand {entry['hand']}"))
        problem = corrections.check(entry)
        key = (entry.get("key") or "-")[:8].upper()
        found.append(verify.Verdict(f"{source}: correction", what, problem is None, "-", key,
                                    problem or f"signed by the director's key {key}, made {entry['at']}"))
    return found


def one_key_a_table(source: str, tables: list[tuple[str, dict]]) -> list[verify.Verdict]:
    """A table's board signs every round's game with its one key: a table whose games
    two keys signed is said (a board changed between rounds, or a game signed again by
    another key: --key names the boards' keys when boards were changed)."""
    by_table: dict[str, dict[str, list[str]]] = {}
    for where, game in tables:
        table = where.partition(" table ")[2]
        by_table.setdefault(table, {}).setdefault(game["chain"]["key"][:8].upper(), []).append(where)
    return [verify.Verdict(f"{source}: table {table}: keys", "its boards", False, "-", ", ".join(signers),
                           "its games were signed by " + "; ".join(f"key {k} ({', '.join(w)})" for k, w in
                                                                  signers.items())
                           + ": a board changed between rounds, or a game signed again by another key; "
                           "compare each with its board, and give the boards' keys with --key")
            for table, signers in sorted(by_table.items()) if len(signers) > 1]


@click.command("verify")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--key", "keys", multiple=True, metavar="HEX",
              help="Accept only games signed by this board's key (64 hex digits; repeat for more boards).")
@reports_errors
def verify_cmd(paths: tuple[str, ...], keys: tuple[str, ...]) -> None:
    """Check game RECORDs (or a folder of them: a results site) against the boards that scored them:
    each game's hands must make its board's chain head, signed by the board's key (docs/records.md,
    The chain). Exits 1 if any game does not verify."""
    wanted = _keys(keys)
    results = [v for source, doc in documents(paths) for v in verdicts_of(doc, source, wanted)]
    console = Console()
    for v in results:
        mark = "[green]verified[/]" if v.ok else "[red]NOT verified[/]"
        console.print(f"{mark} {escape(f'{v.source}: {v.game}: {v.found}')}", markup=True, highlight=False,
                      soft_wrap=True)
    made = [v for v in results if v.source.endswith(": correction")]
    played = [v for v in results if v not in made and not v.source.endswith(": keys")]
    said = f"{sum(v.ok for v in played)} of {len(played)} game{'s' if len(played) != 1 else ''} verified"
    if made:
        said += f"; {sum(v.ok for v in made)} of {len(made)} correction{'s' if len(made) != 1 else ''} signed"
    console.print(said, highlight=False, soft_wrap=True)
    if not all(v.ok for v in results):
        raise SystemExit(1)


def register(group: click.Group) -> None:
    group.add_command(sheet_cmd)
    group.add_command(demo_cmd)
    group.add_command(verify_cmd)
