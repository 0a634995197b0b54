"""`tallyboard wifi`: a board with Wi-Fi at a club evening with no laptop at
its table (docs/club-wifi.md). `enrol` gives it, over USB, its Wi-Fi, broker,
evening, table and keys; `leave` takes it out of the evening; `status` shows
its link. Secrets come from files, the environment or a hidden prompt, never
from argv (club/enrol.py does the work)."""
from __future__ import annotations

import json
import os

import click
from tallynet.tablestate import board_ident
from tallyrun.protocol import MAX_TABLE

from ..common import secretfile
from ..common.errors import TallyboardError
from ..common.names import shown
from .connect import board_options, connected
from .reporting import reports_errors


@click.group("wifi")
def wifi_group() -> None:
    """A Pico W / Pico 2 W board on the club's Wi-Fi: enrol it in an evening, see its link, leave."""


def _wifi_password(path: str | None, open_network: bool) -> str | None:
    if open_network:
        if path is not None or os.environ.get("TALLYBOARD_WIFI_PASSWORD"):
            raise click.UsageError("--open-network has no passphrase: leave out --wifi-password-file and "
                                   "$TALLYBOARD_WIFI_PASSWORD")
        return None
    password = secretfile.given(os.environ.get("TALLYBOARD_WIFI_PASSWORD"), path, "the Wi-Fi's passphrase",
                                prompt="Wi-Fi passphrase", value_typed=False)
    if password is None:
        raise click.UsageError("give the Wi-Fi's passphrase: --wifi-password-file FILE, $TALLYBOARD_WIFI_PASSWORD, "
                               "or run this at a terminal, which asks (--open-network for a network without one)")
    return password


def _print_state(state: object, settings: dict[str, str | None] | None = None) -> None:
    from ..club.enrol import LinkState
    assert isinstance(state, LinkState)
    if not state.wifi:
        click.echo("Wi-Fi: this board has none")
        return
    if settings is not None and settings.get("event"):
        click.echo(shown(f"evening: {settings['event']}, board {settings.get('board', '?')}"))
    if not state.enrolled:
        click.echo("link: not enrolled in an evening (tallyboard wifi enrol)")
    ssid = settings.get("ssid") if settings else None
    where = f" {ssid!r}" if ssid else ""
    click.echo(shown(f"Wi-Fi{where}: {'joined' if state.joined else 'not joined'}"))
    if settings and settings.get("broker_host"):
        broker = f" {settings['broker_host']}:{settings.get('broker_port') or 1883}"
        user = (f" as {settings['broker_user']}" if settings.get("broker_user")
                else f" as {settings.get('board', 'its table')}")
    else:
        broker = user = ""
    click.echo(shown(f"broker{broker}{user}: {'reached' if state.broker else 'not reached'}"))
    click.echo(f"messages waiting for the director: {state.waiting}")
    if state.problem:
        click.echo(shown(f"last problem: {state.problem}"))


@wifi_group.command("enrol")
@board_options
@click.option("--ssid", required=True, metavar="NAME", help="The club's Wi-Fi network (its name, as phones show it).")
@click.option("--wifi-password-file", type=click.Path(dir_okay=False), metavar="FILE",
              envvar="TALLYBOARD_WIFI_PASSWORD_FILE",
              help="A file whose first line is the Wi-Fi's passphrase (else $TALLYBOARD_WIFI_PASSWORD_FILE, the "
                   "passphrase in $TALLYBOARD_WIFI_PASSWORD, else asked for on a terminal).")
@click.option("--open-network", is_flag=True, help="The Wi-Fi has no passphrase.")
@click.option("--broker", "broker_url", required=True, metavar="URL", envvar="TALLYBOARD_BROKER",
              help="The club's broker as the board reaches it, mqtt://HOST:PORT: the board logs in as its table "
                   "(its identity, the password its key gives; event broker-files writes these users). "
                   "mqtt://USER@HOST:PORT logs in as USER instead, the password from --broker-password-file "
                   "(else $TALLYBOARD_BROKER).")
@secretfile.broker_password_option
@click.option("--join", "join", metavar="CODE", envvar="TALLYBOARD_JOIN", hidden=True,
              help=f"The table's join code; {secretfile.IN_PS} --join-file or $TALLYBOARD_JOIN.")
@secretfile.file_option("--join-file", "TALLYBOARD_JOIN_FILE", "the table's join code", "join", prompt="Join code")
@click.option("--table", type=click.IntRange(1, MAX_TABLE), metavar="N",
              help="The table this board scores (default: the join code's only table).")
@click.option("--update-key", "update_key", metavar="HEX",
              help="The public half of the club's update key (tallyboard release key prints it), which the board "
                   "checks a release with (default: this laptop's update key's, if it has one; - : none, and the "
                   "board takes no release).")
@click.option("--wait", type=click.FloatRange(0, 300), default=30.0, show_default=True,
              help="Seconds to watch the board join the Wi-Fi and reach the broker (0: do not wait). Exit status "
                   "3: enrolled, but the broker not reached in that time (the board keeps trying).")
@reports_errors
def enrol_cmd(port: str | None, use_emulator: bool, timeout: float, ssid: str, wifi_password_file: str | None,
              open_network: bool, broker_url: str, join: str | None, table: int | None, update_key: str | None,
              wait: float) -> None:
    """Enrol the board plugged in here in a club evening: it joins the Wi-Fi
    and publishes its table to the director itself. The join code is the
    table's (tallyboard event join-code --table N on the director's laptop);
    its key goes to the board over USB only. Enrolling again (another
    evening, another table, a new passphrase) replaces the settings."""
    from ..club import enrol

    if join is None:
        raise click.UsageError("give the table's join code: --join-file FILE, $TALLYBOARD_JOIN, or run this at a "
                               "terminal, which asks (tallyboard event join-code --table N prints it)")
    plan = enrol.plan(join, table, ssid, _wifi_password(wifi_password_file, open_network), broker_url,
                      _update_key(update_key))
    user = plan.broker_user.decode() if plan.broker_user else f"{plan.board} (its table's login)"
    with connected(port, use_emulator, timeout) as board:
        state = enrol.enrol(board, plan, board.link.name, say=click.echo)
        click.echo(shown(f"enrolled: board {plan.board}, table {plan.table} of {plan.event}, on Wi-Fi {ssid!r}, "
                         f"broker {plan.broker_host}:{plan.broker_port} as {user}"))
        if wait:
            def progress(now: object) -> None:
                assert isinstance(now, enrol.LinkState)
                step = ("reached the broker" if now.broker else "joined the Wi-Fi" if now.joined
                        else "joining the Wi-Fi")
                click.echo(f"  … {step}" + (f" ({now.problem})" if now.problem and not now.broker
                                           and now.error != "not_enrolled" else ""))
            state = enrol.wait_linked(board, wait, progress=progress)
    if state.broker:
        click.echo("the board is on the evening's link; unplug it and take it to its table")
    elif wait:
        raise NotLinked(shown(f"the board is enrolled but has not reached the broker in {wait:g} s"
                              + (f": {state.problem}" if state.problem and state.error != "not_enrolled" else "")
                              + "; it keeps trying (tallyboard wifi status shows how far it got)"))


def _update_key(given: str | None) -> bytes | None:
    """The update key's public half the board is given: --update-key's, else this laptop's key's, else none."""
    from ..club import releases

    if given == "-":
        return None
    if given is not None:
        return releases.public_from_hex(given, "--update-key")
    path = releases.update_key_path()
    if not path.exists():
        click.echo("no update key on this laptop: the board will take no release until enrolled with one "
                   "(--update-key HEX; tallyboard release key on the director's laptop prints it)")
        return None
    return releases.public_key(releases.load_key(path))


class NotLinked(TallyboardError):
    """`wifi enrol`: enrolled, but the board did not reach the broker within --wait."""
    exit_code = 3


@wifi_group.command("leave")
@board_options
@reports_errors
def leave_cmd(port: str | None, use_emulator: bool, timeout: float) -> None:
    """Take the board out of its evening: its Wi-Fi, broker and keys are
    forgotten, its game stays. Enrol it again to bring it back."""
    from ..club import enrol

    with connected(port, use_emulator, timeout) as board:
        event = enrol.leave(board, board.link.name)
    click.echo(shown(f"left evening {event}: the board's link settings and keys are forgotten; its game stays"))


@wifi_group.command("status")
@board_options
@click.option("--json", "as_json", is_flag=True, help="The link's state and settings as JSON (secrets: \"set\").")
@reports_errors
def status_cmd(port: str | None, use_emulator: bool, timeout: float, as_json: bool) -> None:
    """The board's link: Wi-Fi joined, broker reached, messages waiting, the last problem."""
    from ..club import enrol

    with connected(port, use_emulator, timeout) as board:
        state = enrol.link_state(board)
        settings = enrol.settings(board) if state.wifi else {}
        if state.wifi:
            tag, table = board.cfg_get("event"), board.cfg_get("table")
            if tag.isdigit() and table.isdigit() and int(tag) and int(table):
                settings["board"] = board_ident(int(tag), int(table))
    if as_json:
        click.echo(json.dumps({**state.as_dict(), "settings": settings}))
        return
    _print_state(state, settings)


def register(group: click.Group) -> None:
    group.add_command(wifi_group)
