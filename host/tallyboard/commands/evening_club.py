"""`tallyboard event` commands of a club evening across hosts over MQTT
(docs/club-mqtt.md): `table` (a table host), `join-code` and `refused` (the
director's). The director's own end is `event serve/watch --broker`
(evening_views)."""
from __future__ import annotations

import contextlib
import json
import signal
import threading
from pathlib import Path
from typing import Any

import click
from tallyrun.protocol import MAX_TABLE

from ..common import secretfile
from ..club.envelope import ROUND_AHEAD
from ..common.names import shown
from ..common.errors import TallyboardError
from .reporting import reply_timeout_option, reports_errors

event_option = click.option("--event", "event_name", metavar="NAME",
                            help="The evening (default: the one in progress).")


@click.command("table")
@click.option("--broker", "broker_url", required=True, metavar="URL", envvar="TALLYBOARD_BROKER",
              help="The club's MQTT broker, mqtt://HOST:PORT (mqtts:// for TLS; else $TALLYBOARD_BROKER). "
                   "Each table logs in as itself, with the login its join code carries: no user or password here.")
@click.option("--join", "join", metavar="CODE", envvar="TALLYBOARD_JOIN",
              help="The evening's join code, as the director's screen shows it (else $TALLYBOARD_JOIN, else "
                   f"asked for on a terminal). It holds the evening's secret: {secretfile.IN_PS} --join-file or "
                   "$TALLYBOARD_JOIN.")
@secretfile.file_option("--join-file", "TALLYBOARD_JOIN_FILE", "the evening's join code", "join", prompt="Join code")
@click.option("--port", "-p", "ports", multiple=True, metavar="PORT", help="A board on this host (repeat).")
@click.option("--emulators", type=click.IntRange(1, MAX_TABLE), metavar="N", help="N emulated boards on this host.")
@click.option("--table", "numbers", multiple=True, type=click.IntRange(1, MAX_TABLE), metavar="N",
              help="The table of each board, in the order of the boards (repeat; default: the join code's).")
@click.option("--name", metavar="NAME", help="This table host's name (default: the machine's name).")
@click.option("--tls-ca", type=click.Path(dir_okay=False, exists=True),
              help="With mqtts://: the club's CA certificate (else the join code's pin of it is enough).")
@click.option("--plain", is_flag=True,
              help="Speak plain MQTT to an mqtt:// broker although the join code is for the club's TLS broker (a "
                   "broker without TLS): the tables' passwords and hands cross the network readable.")
@click.option("--state", "state_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Where the outbox is kept (default: the evenings' folder).")
@click.option("--duration", type=float, default=0, help="Stop after this many seconds (0: until Ctrl-C).")
@reply_timeout_option(what="each board's")
@click.option("--take-next-round", is_flag=True,
              help="Take the director's next round whatever its number: when this host's log said a round was "
                   "refused as 'ahead' because the host was away while the director changed the round more than "
                   f"{ROUND_AHEAD} times (docs/club-mqtt.md).")
@reports_errors
def table_cmd(broker_url: str, join: str | None, ports: tuple[str, ...], emulators: int | None, numbers: tuple[int, ...],
              name: str | None, tls_ca: str | None, plain: bool, state_dir: Path | None, duration: float,
              timeout: float, take_next_round: bool) -> None:
    """A table host: this laptop's boards at the club evening. Their hands go
    to the director through the broker (kept in an outbox until the director
    has them), the director's rounds come to the boards. Started again after
    a crash, it carries on where it was."""
    from ..club import envelope
    from ..club.mqtt_link import parse_url
    from ..evening import table_host
    from ..evening.tables import events_home

    if join is None:
        raise click.UsageError("give the evening's join code: --join-file FILE, $TALLYBOARD_JOIN, or run this at a "
                               "terminal, which asks")
    if bool(ports) == bool(emulators):
        raise click.UsageError("give --port for each of this host's boards, or --emulators N, not both")
    try:
        code = envelope.read_join_code(join)
        event_id = code.event
        address = parse_url(broker_url)
        host = envelope.check_name("--name", name) if name else table_host.host_name()
    except ValueError as exc:
        raise TallyboardError(str(exc)) from None
    if address.username is not None or address.password is not None:
        raise click.UsageError("each table logs in to the broker as itself, with the login its join code carries "
                               "(docs/club-mqtt.md, \"Who may publish what\"): give the broker as mqtt://HOST:PORT, "
                               "without a user or password")
    count = emulators or len(ports)
    tables = list(numbers) or list(code.tables[:count])
    if len(tables) != count:
        raise click.UsageError(f"{count} boards and {len(tables)} --table: give one --table for each board")
    runner = table_host.TableHost(broker_url, code, host, tables, state_dir or events_home() / "club",
                                  list(ports), emulators or 0, tls_ca, timeout, say=click.echo,
                                  take_next_round=take_next_round, plain=plain)
    stop = threading.Event()
    if duration:
        timer = threading.Timer(duration, stop.set)
        timer.daemon = True
        timer.start()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    click.echo(f"table host {host} of {event_id}: tables {', '.join(map(str, tables))}; Ctrl-C stops it")
    with contextlib.suppress(KeyboardInterrupt):
        runner.run(stop)
    click.echo("Stopped.")


def _event(event_name: str | None) -> tuple[Any, Any]:
    from ..evening import EveningDatabase
    store = EveningDatabase()
    try:
        return store, store.event(event_name)
    except BaseException:
        store.close()
        raise


@click.command("join-code")
@click.option("--table", "tables", multiple=True, type=click.IntRange(1, MAX_TABLE), metavar="N",
              help="A table of that table host (repeat for each of its tables).")
@event_option
@reports_errors
def join_code_cmd(tables: tuple[int, ...], event_name: str | None) -> None:
    """The code a table host joins the evening with (`event table --join CODE`): with --table, the code
    for the host of those tables, which signs for them and no other; without, each table's own code."""
    from ..evening import club
    store, event = _event(event_name)
    with store:
        if tables:
            click.echo(club.join_code(event, list(tables)))
            return
        for table in range(1, club.table_count(store, event) + 1):
            click.echo(f"table {table}: {club.join_code(event, [table])}")


TLS_PORT = 8883     # MQTT over TLS's own port
PLAIN_PORT = 1883   # MQTT's own


@click.command("broker-files")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--name", "names", multiple=True, metavar="HOST",
              help="The broker's host name or address, written in its certificate (repeat; clients that "
                   "check names need it: table hosts check the club CA's pin instead).")
@click.option("--mosquitto-dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Where mosquitto will read these files, if not from FOLDER (e.g. /etc/mosquitto/tallyboard): "
                   "the paths tallyboard.conf names.")
@click.option("--wifi-boards", is_flag=True,
              help=f"Boards on the club's Wi-Fi join this evening: a plain listener on {PLAIN_PORT} for them too "
                   "(a Pico W speaks plain MQTT: docs/club-wifi.md says why).")
@event_option
@reports_errors
def broker_files_cmd(folder: Path, names: tuple[str, ...], mosquitto_dir: Path | None, wifi_boards: bool,
                     event_name: str | None) -> None:
    """Write a club's mosquitto files for the evening into FOLDER (mode 0600): tallyboard.passwd (the
    director's and every table's login, hashed as mosquitto_passwd hashes them), tallyboard.acl (who may
    publish what), broker.pem and broker.key (its certificate, signed by the club's CA, which stays on
    this machine), tallyboard.conf (the settings that use them, with the bounds on what a login may make
    mosquitto hold, and a TLS listener on 8883) and director.pw (the director's password, for
    --broker-password-file)."""
    from ..club import brokers, certificates
    from ..evening import club
    store, event = _event(event_name)
    with store:
        users = club.broker_users(store, event)
    brokers.write_private(folder / "tallyboard.passwd",
                          "".join(brokers.mosquitto_password_line(user, password) + "\n"
                                  for user, password in users.items()))
    brokers.write_private(folder / "tallyboard.acl", brokers.mosquitto_acl(club.club_id(event)))
    brokers.write_private(folder / "director.pw", users[club.DIRECTOR_LOGIN] + "\n")
    # the broker's certificate, signed by the club's CA (kept on this machine: its key never goes in FOLDER)
    certificates.broker_files(club.club_ca_folder(), list(names), into=folder)
    there = mosquitto_dir or folder.resolve()
    tls = brokers.TLSFiles(there / certificates.BROKER_FILE, there / certificates.BROKER_KEY_FILE)
    settings = brokers.mosquitto_settings(there / "tallyboard.passwd", there / "tallyboard.acl",
                                          Path("/var/lib/mosquitto"))
    brokers.write_private(folder / "tallyboard.conf", "\n".join(
        ["# tallyboard event broker-files: a club's mosquitto for this evening (docs/club-mqtt.md)", *settings,
         "# TLS (mqtts://) with the club CA's certificate: table hosts trust it by the pin in their join code",
         *brokers.mosquitto_listener(TLS_PORT, None, tls),
         *(["# boards on the club's Wi-Fi: plain MQTT (docs/club-wifi.md, \"Why the boards speak plain MQTT\")",
            *brokers.mosquitto_listener(PLAIN_PORT, None, None)] if wifi_boards else [])]) + "\n")
    tables = [user for user in users if user not in (club.DIRECTOR_LOGIN, club.UPDATER_LOGIN)]
    click.echo(f"{folder}: tallyboard.passwd (director, updater, tables {', '.join(tables)}), tallyboard.acl, "
               f"tallyboard.conf (a TLS listener on {TLS_PORT}{f', a plain one on {PLAIN_PORT}' if wifi_boards else ''}), "
               f"{certificates.BROKER_FILE} and "
               f"{certificates.BROKER_KEY_FILE}, director.pw; include tallyboard.conf in mosquitto's configuration "
               "and reload it (docs/club-mqtt.md, \"A club: mosquitto\"); the director connects with "
               f"--tls-ca {club.club_ca_folder() / certificates.CA_FILE}")


@click.command("refused")
@click.option("--json", "as_json", is_flag=True, help="One JSON list of [when last, board, reason, text, times].")
@event_option
@reports_errors
def refused_cmd(as_json: bool, event_name: str | None) -> None:
    """The table hosts' messages the director refused (unknown board, bad signature, replay, gap, ...)."""
    from ..evening import club
    store, event = _event(event_name)
    with store:
        rows = club.refused(event)
    if as_json:
        click.echo(json.dumps(rows))
    elif not rows:
        click.echo(f"{event.name!r}: the director has refused no message.")
    else:
        for at, board, reason, text, count in rows:
            times = f" ({count} times)" if count > 1 else ""
            click.echo(shown(f"{at}  {board or '-'}  {reason}{times}: {text}"))


def register(group: click.Group) -> None:
    for command in (table_cmd, join_code_cmd, broker_files_cmd, refused_cmd):
        group.add_command(command)
