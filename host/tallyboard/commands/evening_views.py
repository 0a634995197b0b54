"""The club evening's live views: `event watch` (the terminal) and `event
serve` (a read-only web page). Both show snapshot documents (docs/host.md, "The club evening's live views")
from a source: the evening in progress (evening_source) or a snapshot file
(file_source)."""
from __future__ import annotations

import contextlib
import dataclasses
import math
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

import click

from ..common.console import Console
from ..common import secretfile
from ..common.errors import TallyboardError
from .reporting import reports_errors

if TYPE_CHECKING:   # the evening's modules load when a command runs
    from ..evening.store import Evening, EveningDatabase
    from ..evening.tables import Tables

Source = Callable[[], dict[str, Any]]


FALLBACK_SECONDS = 2.0   # the evening's every board is read at least this often, push or none


class EveningSource:
    """The newest snapshot of an evening in progress (a feed.PushedSource). Each
    call stores what changed on the boards and returns the snapshot computed
    from the store. Which boards it reads: those that pushed an event since the
    last call (a board's `! N ...` line through its shared port: Tables.follow_pushes),
    and every board when nothing pushed (the fallback's call, the first) or the
    last read of them all is `fallback` seconds old, so a board that stops
    pushing (a pulled cable, a hub gone) is still noticed. A push only names a
    table: the board is read as any sync reads it, so nothing is lost or counted
    twice. The director's club link (changed()) pushes too: what it applied is
    in the store already, so only the snapshot is computed again. When the evening
    is in a season, the snapshot carries the season's standings (with_seasons)."""

    def __init__(self, store: "EveningDatabase", event: "Evening", tables: "Tables | None",
                 fallback: float = FALLBACK_SECONDS) -> None:
        self.store, self.event, self.tables, self.fallback = store, event, tables, fallback
        self._lock = threading.Lock()
        self._due: set[int] = set()      # tables whose boards pushed since the last call
        self._pushed = False             # anything pushed since the last call (a table, the club link)
        self._wake: Callable[[], None] | None = None
        self._last_full = -math.inf
        from ..season.season import Beside
        self._seasons = Beside()         # the standings of the seasons the evening is in

    def subscribe(self, wake: Callable[[], None]) -> None:
        """wake() whenever a board pushes or the club link applied a table's message."""
        self._wake = wake
        if self.tables is not None:
            self.tables.follow_pushes(self.table_pushed)

    def table_pushed(self, table: int) -> None:
        """A board pushed an event (or its port's sharer went away): read it at the next call."""
        with self._lock:
            self._due.add(table)
            self._pushed = True
        if self._wake is not None:
            self._wake()

    def changed(self) -> None:
        """The store changed by another way (a table host's message applied): compute the snapshot again."""
        with self._lock:
            self._pushed = True
        if self._wake is not None:
            self._wake()

    def __call__(self) -> dict[str, Any]:
        from ..evening import snapshot
        from ..evening.store import FINISHED

        with self._lock:
            due, pushed = self._due, self._pushed
            self._due, self._pushed = set(), False
        # a finished evening's result is stored: its boards are not read (they may be stopped, and are not
        # "unreachable" for that)
        if self.tables is not None and self.store.refresh(self.event).state != FINISHED:
            now = time.monotonic()
            if not pushed or now - self._last_full >= self.fallback:
                self._last_full = now
                self.tables.sync()
            elif due:
                self.tables.sync(only=due)
        event = self.store.refresh(self.event)
        return with_seasons(self.store, event, snapshot(self.store, event), self._seasons)


def with_seasons(store: "EveningDatabase", event: "Evening", doc: dict[str, Any],
                 beside: Callable[["EveningDatabase", "Evening"], list[dict[str, Any]]] | None = None
                 ) -> dict[str, Any]:
    """The snapshot with the standings of each season the evening is in (its `seasons`,
    docs/events.md), when it is in one: the command layer adds them, the evening's
    code knowing nothing of seasons (host.md, "Layers"). `beside`: a source's own
    season.Beside, which works them out again only when they may have changed."""
    from ..season import season

    panels = (beside or season.beside)(store, event)
    return {**doc, "seasons": panels} if panels else doc


@contextlib.contextmanager
def evening_source(name: str | None, broker: "Broker | None" = None,
                   fallback: float = FALLBACK_SECONDS) -> Iterator[EveningSource]:
    """The source of the event in progress (or the one named): an
    EveningSource. The one place where the views meet the store
    (tallyboard.evening) and the boards (tallyboard.evening.tables). With
    `broker`, the director's end of the club evening runs meanwhile: the table
    hosts' boards come in through it (tallyboard.evening.club), and each table
    message it applies pushes the source."""
    from ..evening import EveningDatabase
    from ..evening.tables import Tables

    store = EveningDatabase()
    event = store.event(name)
    # the boards the evening has attached (tallyboard event attach)
    tables = Tables(store, event) if store.boards(event) else None
    source = EveningSource(store, event, tables, fallback)
    try:
        with contextlib.ExitStack() as club:
            if broker is not None:
                club.enter_context(broker.director(store, event, source.changed))
            yield source
    finally:
        if tables is not None:
            tables.close()
        store.close()


class Broker:
    """The director's broker options: --broker URL, else the embedded broker (unless --no-broker)."""

    def __init__(self, url: str | None, tls_ca: str | None, listen: str, port: int) -> None:
        self.url, self.tls_ca, self.listen, self.port = url, tls_ca, listen, port

    @contextlib.contextmanager
    def director(self, store: EveningDatabase, event: Evening,
                 on_change: Callable[[], None] | None = None) -> Iterator[None]:
        """The director's end of the club evening while in the block; on_change() after each
        table message it applied (the live views' push)."""
        from ..club import certificates, embedded_broker
        from ..club.mqtt_link import ConnectionRefused, parse_url
        from ..evening import club

        url, tls_ca = self.url, self.tls_ca
        with contextlib.ExitStack() as stack:
            if url is None:
                passwords = club.director_secrets(event)
                # TLS with the club CA's certificate (certificates.py): the director trusts its CA's file,
                # a table host the CA's pin in its join code
                wildcard = self.listen in ("0.0.0.0", "::")
                tls = certificates.broker_files(club.club_ca_folder(), [] if wildcard else [self.listen])
                tls_ca = str(club.club_ca_folder() / certificates.CA_FILE)
                # the director and each table as itself (its board's identity; its password comes from
                # the table's key, which its join code carries)
                embedded = embedded_broker.EmbeddedBroker(self.port, club.broker_users(store, event), bind=self.listen,
                                                          event=club.club_id(event), tls=tls)
                try:
                    embedded.start()
                except RuntimeError as exc:
                    raise TallyboardError(f"{exc}; choose another --broker-port, or give --broker URL") from None
                stack.callback(embedded.stop)
                port = embedded.port          # --broker-port 0: the one the system gave
                url = f"mqtts://director:{passwords.director_password}@127.0.0.1:{port}"
                where = "THIS-MACHINE" if wildcard else self.listen
                # the secrets in the environment, not in the table host's argv (where `ps` shows them)
                click.echo(f"The embedded MQTT broker: mqtts://{where}:{port} (TLS: a table host trusts it by the "
                           f"club CA's pin in its join code); table hosts join with:\n"
                           f"  TALLYBOARD_JOIN=CODE tallyboard event table --broker mqtts://{where}:{port} "
                           f"--emulators N\n"
                           f"  where CODE is the code of that host's tables (it carries each table's broker "
                           f"login): tallyboard event join-code --table T ...", err=True)
            else:
                try:
                    address = parse_url(url)
                except ValueError as exc:
                    raise TallyboardError(str(exc)) from None
                if tls_ca and not address.tls:
                    raise TallyboardError("--tls-ca is the club's CA for a broker over TLS: give the broker as "
                                          "mqtts://director@HOST:PORT (a club's TLS port is usually 8883)")
                click.echo(f"The club's broker: {address.host}:{address.port} ({'TLS' if address.tls else 'no TLS'});"
                           f" table hosts join with --join CODE, the code of their tables: tallyboard event "
                           f"join-code --table T ...", err=True)
            director = club.Director(store, event, url, tls_ca, on_change=on_change)
            try:
                connected = director.start()
            except ConnectionRefused as exc:
                director.link.stop()
                raise TallyboardError(f"{exc}; the evening was not served") from None
            stack.callback(director.stop)
            if not connected:
                click.echo("tallyboard: the broker does not answer yet; the director keeps trying, and the "
                           "table hosts keep their hands meanwhile", err=True)
            sys.stderr.flush()
            yield


def broker_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--broker-port", type=click.IntRange(0, 65535), default=None,
                      help="Without --broker: the embedded broker's port (0: any free one); starts it.")(fn)
    fn = click.option("--broker-listen", default=None, metavar="ADDR",
                      help="Without --broker: start the embedded broker on this address (127.0.0.1 with "
                           "--club); 0.0.0.0 lets table hosts on other laptops in.")(fn)
    fn = click.option("--club", is_flag=True,
                      help="Table hosts on other laptops join this evening: start the embedded MQTT broker "
                           "(on 127.0.0.1 unless --broker-listen) and print their command.")(fn)
    fn = click.option("--tls-ca", type=click.Path(dir_okay=False, exists=True),
                      help="With an mqtts:// broker: the club's CA certificate.")(fn)
    fn = click.option("--no-broker", is_flag=True,
                      help="Only the boards on this host: no MQTT broker, no table hosts (the default "
                           "without --club, --broker or --broker-listen).")(fn)
    fn = secretfile.broker_password_option(fn)
    fn = click.option("--broker", "broker_url", metavar="URL", envvar="TALLYBOARD_BROKER",
                      help="The club's MQTT broker, mqtt://director@HOST:PORT with the password from "
                           "--broker-password-file (mqtts:// for TLS; else $TALLYBOARD_BROKER): the table hosts' "
                           "boards come in through it (docs/club-mqtt.md). A password written in the URL works "
                           "too, but is visible to every user of this machine in `ps`.")(fn)
    return fn


def chosen_broker(broker_url: str | None, no_broker: bool, tls_ca: str | None, listen: str | None,
                  port: int | None, club: bool = False) -> Broker | None:
    """The director's broker: --broker URL, or the embedded one when asked for
    (--club, --broker-listen, --broker-port); else none, the one-laptop evening."""
    embedded = club or listen is not None or port is not None
    if no_broker:
        if broker_url or embedded:
            raise click.UsageError("--no-broker with --broker, --club, --broker-listen or --broker-port: give one")
        return None
    if broker_url is None and not embedded:
        return None
    return Broker(broker_url, tls_ca, listen or "127.0.0.1", port or 0)


def file_source(path: Path) -> Source:
    """A snapshot document from a file, read again on every call; while the
    file is being rewritten (not JSON for a moment) the last good one."""
    from ..common import files
    from ..evening.watch import check

    last: list[dict[str, Any]] = []

    def source() -> dict[str, Any]:
        try:
            doc = check(files.read_json(path, "snapshot"))   # too deep, too big a number: one line too
        except (files.FileError, ValueError) as exc:
            if last:
                return last[0]
            raise TallyboardError(str(exc) if isinstance(exc, files.FileError) else f"{path}: {exc}") from None
        last[:] = [doc]
        return doc

    return source


@contextlib.contextmanager
def chosen_source(event_name: str | None, snapshot_file: Path | None,
                  broker: Broker | None = None) -> Iterator[Source]:
    if snapshot_file is not None:
        if broker is not None and broker.url is not None:
            raise click.UsageError("--snapshot shows a file: it takes no --broker")
        yield file_source(snapshot_file)
    else:
        with evening_source(event_name, broker) as source:
            yield source


def _checked(source: Source) -> Source:
    """The source, its bad documents said in the user's words."""
    from ..evening.watch import check

    def read() -> dict[str, Any]:
        try:
            return check(source())
        except ValueError as exc:
            raise TallyboardError(str(exc)) from None

    return read


def source_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--snapshot", "snapshot_file", type=click.Path(dir_okay=False, path_type=Path),
                      help="Show this snapshot document (as `event status --json` writes it), "
                           "read again whenever it changes, instead of the event in progress.")(fn)
    fn = click.option("--event", "event_name", metavar="NAME",
                      help="The event to show (default: the one in progress, else the last one finished).")(fn)
    return fn


@click.command("watch")
@click.option("--once", is_flag=True, help="Print the view once and stop (for a log).")
@click.option("--json", "as_json", is_flag=True,
              help="The snapshot as JSON: once with --once, else one line for every change.")
@click.option("--duration", type=float, default=0, help="Stop after this many seconds (0: until Ctrl-C).")
@source_options
@broker_options
@reports_errors
def watch_cmd(once: bool, as_json: bool, duration: float, event_name: str | None,
              snapshot_file: Path | None, broker_url: str | None, no_broker: bool, tls_ca: str | None,
              broker_listen: str | None, broker_port: int | None, club: bool) -> None:
    """The evening live in the terminal: the standings, each table's game (a
    held hand marked, with who must accept it) and who moves where next.
    When the tables do not fit, they are shown a page at a time."""
    from ..evening import watch

    console = Console(highlight=False)
    broker = chosen_broker(broker_url, no_broker, tls_ca, broker_listen, broker_port, club)
    with chosen_source(event_name, snapshot_file, broker) as source:
        if once:
            watch.once(_checked(source), console, as_json)
            return
        with contextlib.suppress(KeyboardInterrupt):
            watch.live(_checked(source), console, as_json, duration)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The address to listen on; 0.0.0.0 lets a TV or the players' phones on the club's network in.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one).")
@click.option("--allowed-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="A name the page may be opened by besides this machine's own (its host name, NAME.local, "
                   "localhost, any IP address); *.club.example for every name under one. Others are refused "
                   "(a guard against DNS rebinding).")
@click.option("--connections-per-address", "per_address", type=click.IntRange(1, 4096), default=None,
              metavar="N", help="How many connections one address may hold open to the page (default 6: what a "
                                "browser opens to one host, its tabs' live streams among them). Behind a reverse proxy every viewer comes "
                                "from the proxy's address: raise it to the number of viewers you expect.")
@source_options
@broker_options
@reports_errors
def serve_cmd(host: str, port: int, allowed_hosts: tuple[str, ...], per_address: int | None, event_name: str | None,
              snapshot_file: Path | None, broker_url: str | None, no_broker: bool, tls_ca: str | None,
              broker_listen: str | None, broker_port: int | None, club: bool) -> None:
    """The evening as a web page that follows it live (standings, each
    table's sheet, the next seating); read-only. Ctrl-C stops it. The
    director's end of a club evening across laptops too (--club, or
    --broker URL): the table hosts' boards come in through MQTT; without
    either, only the boards attached to this laptop, and no broker."""
    from ..evening import web

    broker = chosen_broker(broker_url, no_broker, tls_ca, broker_listen, broker_port, club)
    limits = web.Limits.for_this_process(web.raise_descriptor_limit())
    if per_address is not None:
        limits = dataclasses.replace(limits, per_address=per_address)
    with chosen_source(event_name, snapshot_file, broker) as source:
        _checked(source)()   # a bad source is said here, before anyone opens the page
        try:
            sock = web.listen(host, port)
        except OSError as exc:
            raise TallyboardError(f"cannot listen on {host} port {port} ({exc.strerror or exc}): "
                                  "choose another with --port, or stop what uses it") from None
        url = web.url_of(sock)
        where = " (open it with this machine's address from the other screens)" if host in ("0.0.0.0", "::") else ""
        click.echo(f"The club evening's page: {url}{where}; Ctrl-C stops it.")
        sys.stdout.flush()
        try:
            with contextlib.suppress(KeyboardInterrupt):   # uvicorn stops, then raises Ctrl-C again
                web.serve(source, sock, allowed_hosts, limits)
        finally:
            sock.close()
        click.echo("Stopped.")


def register(group: click.Group) -> None:
    group.add_command(watch_cmd)
    group.add_command(serve_cmd)
