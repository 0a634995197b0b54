"""`tallyboard players`, `tallyboard season` and `tallyboard results`: the
club's register, its seasons of evenings and their standings, and the
results as a static site (docs/host.md, "A club's season")."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click
from rich import box
from rich.table import Table

from ..common import files
from ..common.console import Console
from ..common.names import shown
from ..season import register as club_register
from ..season import season, site
from ..season.evenings import EveningDatabase, director
from .evening import archive_option, pin_option, print_change_log
from .reporting import reports_errors

season_option = click.option("--season", "season_name", metavar="NAME",
                             help="The season (default: the last one made).")


def _pin(pin: str | None) -> str | None:
    if pin is None and sys.stdin.isatty():
        pin = click.prompt("Director's PIN", hide_input=True, default="", show_default=False, err=True) or None
    return pin


GUEST_NOTE = "(guest): plays and scores at evenings, not ranked in seasons (tallyboard players member NAME)"


def _entry(entry: dict[str, str]) -> None:
    click.echo(shown(f"{entry['action']}: {entry['what']}\n  before: {entry['before']}\n  after:  {entry['after']}"))


# ---------------------------------------------------------------- players

@click.group("players")
def players_group() -> None:
    """The club's register of players: one entry a person, across evenings."""


@players_group.command("list")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON list: player, name, evenings (and guest: true for a guest).")
@archive_option
@reports_errors
def players_list_cmd(as_json: bool, archive_path: str | None) -> None:
    """The register: each player's number, name and evenings played, guests marked."""
    with EveningDatabase(archive_path) as store:
        everyone = club_register.players(store)
    if as_json:
        click.echo(json.dumps([{"player": p.id, "name": p.name, "evenings": p.evenings,
                                **({"guest": True} if p.guest else {})} for p in everyone]))
        return
    table = Table(title="The club's register", box=box.SIMPLE_HEAD, title_style="bold")
    for column, justify in (("#", "right"), ("player", "left"), ("evenings", "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for p in everyone:
        table.add_row(str(p.id), p.name + (season.GUEST_MARK if p.guest else ""), str(p.evenings))
    Console().print(table)
    if any(p.guest for p in everyone):
        Console().print(GUEST_NOTE, highlight=False)


@players_group.command("add")
@click.argument("name")
@archive_option
@reports_errors
def players_add_cmd(name: str, archive_path: str | None) -> None:
    """Add NAME, a player new to the club, on purpose (event create --new-player does it too)."""
    with EveningDatabase(archive_path) as store:
        player = club_register.add(store, name)
    click.echo(shown(f"added #{player.id} {player.name} to the club's register"))


@players_group.command("guest")
@click.argument("name")
@pin_option
@archive_option
@reports_errors
def players_guest_cmd(name: str, pin: str | None, archive_path: str | None) -> None:
    """Add NAME to the register as a guest: he plays and scores at evenings and is not ranked in
    seasons. NAME a member already (name or #number): he becomes a guest, left out of every season's
    ranking with all his evenings; that is the director's (PIN) and logged."""
    with EveningDatabase(archive_path) as store:
        known = club_register.lookup(store, name)
        if known is None:
            player = club_register.add(store, name, guest=True)
            click.echo(shown(f"added #{player.id} {player.name} to the club's register as a guest (not ranked "
                             f"in seasons; tallyboard players member {player.name!r} makes him a member)"))
            return
        director.check_pin(store, _pin(pin), "tallyboard players guest")
        _entry(club_register.set_guest(store, name, True))


@players_group.command("member")
@click.argument("player")
@pin_option
@archive_option
@reports_errors
def players_member_cmd(player: str, pin: str | None, archive_path: str | None) -> None:
    """PLAYER (name or #number), a guest, becomes a member: every season ranks him with all his
    evenings, those he played as a guest too. Director's PIN; logged."""
    with EveningDatabase(archive_path) as store:
        director.check_pin(store, _pin(pin), "tallyboard players member")
        _entry(club_register.set_guest(store, player, False))


@players_group.command("rename")
@click.argument("player")
@click.argument("new_name")
@pin_option
@archive_option
@reports_errors
def players_rename_cmd(player: str, new_name: str, pin: str | None, archive_path: str | None) -> None:
    """PLAYER (name or #number) is called NEW_NAME in the register from now on; the evenings keep the
    names they were played under. Director's PIN; logged."""
    with EveningDatabase(archive_path) as store:
        director.check_pin(store, _pin(pin), "tallyboard players rename")
        _entry(club_register.rename(store, player, new_name))


@players_group.command("merge")
@click.argument("player")
@click.argument("into")
@pin_option
@archive_option
@reports_errors
def players_merge_cmd(player: str, into: str, pin: str | None, archive_path: str | None) -> None:
    """PLAYER and INTO are one person: PLAYER's evenings become INTO's and PLAYER leaves the register.
    Director's PIN; logged."""
    with EveningDatabase(archive_path) as store:
        director.check_pin(store, _pin(pin), "tallyboard players merge")
        _entry(club_register.merge(store, player, into))


@players_group.command("log")
@click.option("--json", "as_json", is_flag=True, help="One JSON list of the entries.")
@archive_option
@reports_errors
def players_log_cmd(as_json: bool, archive_path: str | None) -> None:
    """The register's changes: players added, renamed, merged, made guests or members."""
    with EveningDatabase(archive_path) as store:
        entries = club_register.log(store)
    if as_json:
        click.echo(json.dumps(entries))
        return
    print_change_log("The register's log", entries)


# ---------------------------------------------------------------- season

@click.group("season")
def season_group() -> None:
    """A season: the club's evenings added up by the standings rule it chose."""


@season_group.command("create")
@click.argument("name")
@click.option("--rule", type=click.Choice(list(season.RULES)), required=True,
              help="total: total continuous score; best: of the best --best N evenings; average: an evening, "
                   "players of --min-evenings N or more ranked; games_won: games won (rules.md G5).")
@click.option("--best", type=click.IntRange(1), help="With --rule best: how many evenings count.")
@click.option("--min-evenings", type=click.IntRange(1), help="With --rule average: the fewest evenings ranked.")
@archive_option
@reports_errors
def season_create_cmd(name: str, rule: str, best: int | None, min_evenings: int | None,
                      archive_path: str | None) -> None:
    """Create the season NAME with its standings rule (written into it, tie-breaks with it)."""
    made_rule = season.make_rule(rule, best, min_evenings)
    with EveningDatabase(archive_path) as store:
        made = season.create(store, name, made_rule)
    click.echo(shown(f"created the season {made.name!r}: {season.rule_words(made.rule)}"))


@season_group.command("list")
@archive_option
@reports_errors
def season_list_cmd(archive_path: str | None) -> None:
    """The seasons, each with its rule and evenings."""
    with EveningDatabase(archive_path) as store:
        for s in season.seasons(store):
            nights = season.evenings(store, s)
            click.echo(shown(f"{s.name}: {season.rule_words(s.rule)}; evenings: "
                             + (", ".join(e.name for e in nights) or "none yet")))


@season_group.command("add")
@click.argument("evenings", nargs=-1, required=True)
@season_option
@archive_option
@reports_errors
def season_add_cmd(evenings: tuple[str, ...], season_name: str | None, archive_path: str | None) -> None:
    """Add the evenings EVENINGS (their names, as event create made them) to the season."""
    with EveningDatabase(archive_path) as store:
        s = season.season(store, season_name)
        now = season.add_evenings(store, s, list(evenings))
    click.echo(shown(f"{s.name}: {len(now)} evening{'s' if len(now) != 1 else ''}: " + ", ".join(e.name for e in now)))


def print_standings(doc: dict[str, Any], console: Console) -> None:
    console.print(f"[bold]{doc['season']}[/bold] — {doc['rule_words']}", highlight=False)
    table = Table(box=box.SIMPLE_HEAD)
    value = {"total": "total", "best": f"best {doc['rule'].get('best')}", "average": "average",
             "games_won": "games won"}[doc["rule"]["kind"]]
    for column, justify in (("#", "right"), ("player", "left"), (value, "right")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for n, night in enumerate(doc["evenings"], 1):
        table.add_column(f"E{n}", justify="right")
    for column in ("total", "won", "tie broken by"):
        table.add_column(column, justify="left" if column == "tie broken by" else "right")  # type: ignore[arg-type]

    def add(row: dict[str, Any], mark: str = "") -> None:
        scores = [("" if s is None else (f"{s}" if c or doc["rule"]["kind"] != "best" else f"({s})"))
                  for s, c in zip(row["scores"], row["counted"])]
        value_text = f"{row['value']:.2f}" if doc["rule"]["kind"] == "average" else str(row["value"])
        table.add_row("—" if row["rank"] is None else str(row["rank"]), row["name"] + mark, value_text, *scores,
                      str(row["total"]), str(row["games_won"]),
                      season.SHORT[row["decided_by"]] if row["decided_by"] else "")
    for row in doc["standings"]:
        add(row)
    if doc["unranked"]:
        table.add_section()
        for row in doc["unranked"]:
            add(row)
    guests = doc["guests"]
    if guests:
        table.add_section()
        for row in guests:
            add(row, season.GUEST_MARK)
    console.print(table)
    for n, night in enumerate(doc["evenings"], 1):
        console.print(f"E{n}: {night['event']}" + ("" if night["finished"] else " (not finished)"), highlight=False)
    if doc["unranked"]:
        console.print(f"—: fewer than {doc['rule']['min_evenings']} evenings, not ranked", highlight=False)
    if guests:
        console.print(GUEST_NOTE, highlight=False)
    if doc["rule"]["kind"] == "best":
        console.print("(score): an evening that does not count", highlight=False)


@season_group.command("standings")
@click.option("--json", "as_json", is_flag=True, help="The standings as JSON (docs/records.md, \"A season's standings\").")
@season_option
@archive_option
@reports_errors
def season_standings_cmd(as_json: bool, season_name: str | None, archive_path: str | None) -> None:
    """The season's standings by its rule, each evening's score, how each tie was broken."""
    with EveningDatabase(archive_path) as store:
        doc, notes = season.store_standings(store, season.season(store, season_name))
    for note in notes:
        click.echo(f"tallyboard: note: {note}", err=True)
    if as_json:
        click.echo(json.dumps(doc))
    else:
        print_standings(doc, Console())


@season_group.command("export")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True), required=False)
@season_option
@archive_option
@reports_errors
def season_export_cmd(file: str | None, season_name: str | None, archive_path: str | None) -> None:
    """Write the season record (docs/records.md, "A season") to FILE, or print it."""
    with EveningDatabase(archive_path) as store:
        doc, notes = season.export(store, season.season(store, season_name))
    for note in notes:
        click.echo(f"tallyboard: note: {note}", err=True)
    text = json.dumps(doc, indent=1) + "\n"
    if file and file != "-":
        files.write_output(file, text)
    else:
        click.echo(text, nl=False)


@season_group.command("replay")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help="The standings as JSON, as season standings --json.")
@reports_errors
def season_replay_cmd(file: str, as_json: bool) -> None:
    """Score a season record (- reads stdin): the same standings as the archive's."""
    doc = season.standings_of(season.load(file))
    if as_json:
        click.echo(json.dumps(doc))
    else:
        print_standings(doc, Console())


# ---------------------------------------------------------------- results

@click.group("results")
def results_group() -> None:
    """The club's results as web pages to publish."""


@results_group.command("build")
@click.argument("folder", type=click.Path(file_okay=False))
@click.option("--from", "from_file", type=click.Path(dir_okay=False, allow_dash=True),
              help="A season record (season export) instead of the archive.")
@season_option
@archive_option
@reports_errors
def results_build_cmd(folder: str, from_file: str | None, season_name: str | None, archive_path: str | None) -> None:
    """Write the season's results to FOLDER as a static site (HTML and CSS, no script): the season's
    standings, each evening's standings, rounds, tables' sheets and movement, each player's card.
    A page that is as it was is not written again."""
    if from_file:
        parsed = season.load(from_file)
    else:
        with EveningDatabase(archive_path) as store:
            chosen = season.season(store, season_name)
            every = season.seasons(store)
            doc, notes = season.export(store, chosen)
        if season_name is None:      # say which: a director with two seasons may have meant the other
            notes = [_which_season(chosen, every), *notes]
        for note in notes:
            click.echo(shown(f"tallyboard: note: {note}"), err=True)
        parsed = season.from_document(doc, "the archive")
    written, kept, removed = site.build(parsed, Path(folder))
    click.echo(shown(f"{folder}: {len(written)} page{'s' if len(written) != 1 else ''} written, {len(kept)} "
                     f"unchanged" + (f", {len(removed)} removed" if removed else "")
                     + f"; open {Path(folder) / 'index.html'}"))
    for name in written:
        click.echo(f"  {name}")
    for name in removed:
        click.echo(f"  {name} (removed)")


def _which_season(chosen: season.Season, every: list[season.Season]) -> str:
    """The note of a build without --season: the season built (the last one made) and how to choose another."""
    if len(every) == 1:
        return f"the results of the season {chosen.name!r}, the only one made (with more, --season NAME chooses one)"
    return (f"the results of the season {chosen.name!r}, the last one made of {len(every)} "
            f"({', '.join(repr(s.name) for s in every)}): --season NAME for another")


def register(group: click.Group) -> None:
    for one in (players_group, season_group, results_group):
        group.add_command(one)
