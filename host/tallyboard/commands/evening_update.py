"""`tallyboard event update-boards`: the director sends a signed release to the evening's boards on the
club's Wi-Fi over the evening's broker (issue 43; docs/club-wifi.md, "Updating the boards";
docs/club-mqtt.md, "Updates over the air"). A thin shell: club/update_link.py serves the update,
club/updates.py decides what to send; this reads the release, chooses the boards, logs in as the
director and shows each board's progress and end."""
from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

import click
from tallyrun.protocol import MAX_TABLE

from ..common.errors import TallyboardError
from .evening_boards import event_option, open_store
from .reporting import reports_errors

NO_BROKER = ("give the evening's broker with --broker: mqtts://127.0.0.1:PORT for the embedded one (the port "
             "`tallyboard event serve --club` printed), or the club's mosquitto, mqtts://director@HOST:8883")


@click.command("update-boards")
@click.argument("release_path", metavar="RELEASE.tbrel", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--table", "tables", type=click.IntRange(1, MAX_TABLE), multiple=True, metavar="N",
              help="Only this table's board (repeat). Default: every board of the evening.")
@click.option("--force", is_flag=True, help="Boards take it even mid-game (else each switches between games).")
@click.option("--wait", type=click.FloatRange(1, 24 * 3600), default=900, show_default=True, metavar="SECONDS",
              help="How long to serve the update before giving up on the boards that have not kept it.")
@click.option("--public", "public_hex", metavar="HEX",
              help="The update key's public half (release key prints it): check the release with it, on a laptop "
                   "without the key.")
@click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The update key's file (default: ~/.config/tallyboard/update-key).")
@click.option("--tls-ca", type=click.Path(dir_okay=False, exists=True),
              help="With an mqtts:// broker: the club's CA certificate (default: this laptop's club CA).")
@click.option("--broker", "broker_url", metavar="URL", envvar="TALLYBOARD_BROKER",
              help="The evening's MQTT broker: mqtts://HOST:PORT (else $TALLYBOARD_BROKER; a director@ in it is "
                   "left out: the update logs in as `updater`, with this evening's updater password).")
@event_option
@reports_errors
def update_boards_cmd(release_path: Path, tables: tuple[int, ...], force: bool, wait: float,
                      public_hex: str | None, key_file: Path | None, tls_ca: str | None, broker_url: str | None,
                      event_name: str | None) -> None:
    """Send a release (tallyboard release make) to the evening's boards on the club's Wi-Fi: each checks
    it, takes it in chunks, switches to it between games and keeps it once it has booted, restored its
    game and reached the broker, or goes back by itself. Shows each board's progress; exits non-zero
    unless every board kept it."""
    from ..club import releases
    from ..club.mqtt_link import ConnectionRefused
    from ..club.update_link import UpdateRun
    from ..evening import club

    if public_hex is not None:
        public = releases.public_from_hex(public_hex, "--public")
    else:
        public = releases.public_key(releases.load_key(key_file or releases.update_key_path()))
    release = releases.read(release_path, public)
    store = open_store()
    try:
        event = store.event(event_name)
        boards = chosen_boards(store, event, tables)
    finally:
        store.close()
    made = club.director_secrets(event)
    url, ca = updater_url(broker_url, club.updater_password(made), tls_ca, club)
    run = UpdateRun(url, event=club.club_id(event), release=release, boards=boards,
                    key=lambda message: club.key_for(made.secret, message), tls_ca=ca, force=force)
    click.echo(f"release {release.id} (number {release.number}, {releases.chunk_count(release)} chunks) offered to "
               f"{len(boards)} board{'s' if len(boards) != 1 else ''} of {event.name}", err=True)
    try:
        with Bars(release.id) as bars:
            rows = run.run(wait, bars.show)
    except (ConnectionRefused, TimeoutError) as exc:
        raise TallyboardError(f"{exc}; nothing was offered ({NO_BROKER})") from None
    report(rows, release.id, run.withdrawn, wait)


def chosen_boards(store: Any, event: Any, tables: tuple[int, ...]) -> dict[str, int]:
    """{identity: table} of the evening's boards (those the director tags its messages for), only
    `tables` when given."""
    from tallynet.tablestate import board_ident

    from ..evening import club
    from ..evening.tables import event_tag

    count = club.table_count(store, event)
    wrong = [t for t in tables if t > count]
    if wrong:
        raise TallyboardError(f"evening {event.name!r} has tables 1 to {count}, not {wrong[0]}")
    tag = event_tag(event)
    return {board_ident(tag, t): t for t in (sorted(set(tables)) or range(1, count + 1))}


def updater_url(broker_url: str | None, password: str, tls_ca: str | None, club: Any) -> tuple[str, str | None]:
    """The broker's URL with the update's own login (brokers.UPDATER_USER; this evening's password unless
    the URL has one), and the CA to trust (--tls-ca, else this laptop's club CA) for mqtts://."""
    from ..club import brokers, certificates
    from ..club.mqtt_link import parse_url

    if not broker_url:
        raise TallyboardError(NO_BROKER)
    try:
        address = parse_url(broker_url)
    except ValueError as exc:
        raise TallyboardError(str(exc)) from None
    if address.username not in (None, brokers.UPDATER_USER, brokers.DIRECTOR_USER):
        raise TallyboardError(f"the update logs in as {brokers.UPDATER_USER}, not {address.username} (leave the "
                              "user out of --broker: this evening's updater password is worked out here)")
    if address.username != brokers.UPDATER_USER or address.password is None:   # the director's URL: its host
        parts = urlsplit(broker_url)
        netloc = f"{brokers.UPDATER_USER}:{quote(password, safe='')}@{parts.netloc.rpartition('@')[2]}"
        broker_url = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    if address.tls and tls_ca is None:
        ca = club.club_ca_folder() / certificates.CA_FILE
        tls_ca = str(ca) if ca.exists() else None
    return broker_url, tls_ca


class Bars:
    """A rich progress bar per board: its chunks, have of of, then its state."""

    def __init__(self, release_id: str) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        from ..common.console import Console

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[state]}"), console=Console(stderr=True))
        self.tasks: dict[str, Any] = {}
        self.release_id = release_id

    def __enter__(self) -> "Bars":
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def show(self, rows: list[Any]) -> None:
        for row in rows:
            if row.board not in self.tasks:
                self.tasks[row.board] = self.progress.add_task(f"table {row.table} ({row.board})", total=row.of,
                                                               state=row.state)
            why = f" ({row.why})" if row.why != "-" else ""
            self.progress.update(self.tasks[row.board], completed=row.have, state=row.state + why)


def report(rows: list[Any], release_id: str, withdrawn: bool, wait: float) -> None:
    """The table of each board's end; TallyboardError unless every board kept the release."""
    from rich import box
    from rich.table import Table

    from ..club.updates import KEPT
    from ..common.console import Console

    table = Table(title=f"Release {release_id}", box=box.SIMPLE_HEAD, title_style="bold")
    for head in ("table", "board", "state", "why"):
        table.add_column(head, justify="right" if head == "table" else "left")
    for row in rows:
        table.add_row(str(row.table), row.board, row.state, row.words() or "-",
                      style=None if row.state == KEPT else "bold red")
    Console().print(table)
    if not withdrawn:
        click.echo("tallyboard: the offers could not be withdrawn (the broker went away): a board that links later "
                   "may still take it", err=True)
    missed = [row for row in rows if row.state != KEPT]
    if missed:
        ran_out = any(not row.final for row in missed)
        raise TallyboardError(f"{len(missed)} of {len(rows)} boards did not keep release {release_id}: "
                              + ", ".join(f"table {row.table} {END_WORDS.get(row.state, row.state)}" for row in missed)
                              + (f"; --wait {wait:g} s ran out: run it again and they go on where they are"
                                 if ran_out else "")
                              + "; the table above says why and what to do")


END_WORDS = {"offered": "did not answer", "receiving": "was still taking it", "staged": "has it staged",
             "switching": "was switching to it", "back": "went back", "refused": "refused it"}


def register(group: click.Group) -> None:
    group.add_command(update_boards_cmd)
