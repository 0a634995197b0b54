"""`tallyboard config get/set`: the board's settings (brightness, budget_ma,
name, colour, board, confirm), checked on the host before they are sent."""
from __future__ import annotations

import click

from tallyrun import protocol

from ..common import names
from ..common.errors import TallyboardError
from .reporting import reports_errors
from .connect import board_options, connected


@click.group("config")
def config_group() -> None:
    """Read or change the board's settings (brightness, budget_ma, name, colour, board, confirm)."""


def _config_keys() -> dict[str, bool]:
    return {row[0].decode(): row[4] for row in protocol.CONFIG_KEYS}


def _check_key(key: str, player: int | None) -> None:
    keys = _config_keys()
    if key not in keys:
        raise TallyboardError(f"unknown setting {key!r}; the board has: {', '.join(keys)}")
    if keys[key] and player is None:
        raise TallyboardError(f"{key} is set per player: add --player N")
    if not keys[key] and player is not None:
        raise TallyboardError(f"{key} is not a per-player setting: leave out --player")


_EXAMPLES = {"brightness": "64", "budget_ma": "500", "name": "Ann", "colour": "FF2000",
             "board": "pico-reference", "confirm": "1"}


def _check_value(key: str, value: str) -> None:
    """The board's own ranges (protocol.CONFIG_KEYS), checked before sending,
    in words that say what to type."""
    _, kind, lo, hi, per_player, _ = next(row for row in protocol.CONFIG_KEYS if row[0].decode() == key)
    example = f"e.g. tallyboard config set {key}{' --player 0' if per_player else ''} {_EXAMPLES.get(key, '')}"
    if kind == protocol.T_INT:
        if not value.isdigit() or not lo <= int(value) <= hi:
            raise TallyboardError(f"{key} {value}: must be a whole number {lo} to {hi}; {example}")
    elif kind == protocol.T_RGB:
        if len(value) != 6 or any(c not in "0123456789abcdefABCDEF" for c in value):
            raise TallyboardError(f"{key} {value}: six hex digits RRGGBB (FF0000 is red); {example}")
    else:
        try:
            names.check_board_text(key, value, lo, hi)
        except names.NameRefused as exc:
            raise TallyboardError(f"{exc}; {example}") from None
        if key == "name" and value.isdigit():
            raise TallyboardError(f"name {value!r}: a name cannot be only digits, which stand for seat "
                                  "numbers (tallyboard peg 0 5 is seat 0); add a letter")


@config_group.command("get")
@click.argument("key", required=False)
@click.option("--player", type=click.IntRange(0, protocol.MAX_PLAYERS - 1), help="For per-player keys.")
@board_options
@reports_errors
def config_get_cmd(key: str | None, player: int | None, port: str | None, use_emulator: bool,
                   timeout: float) -> None:
    """Print a setting (KEY), or every setting."""
    if key is not None:
        _check_key(key, player)
    with connected(port, use_emulator, timeout) as board:
        if key is not None:
            click.echo(board.cfg_get(key, player))
            return
        for name, per_player in _config_keys().items():
            if per_player:
                for p in range(protocol.MAX_PLAYERS):
                    click.echo(f"{name}.{p} {board.cfg_get(name, p)}")
            else:
                click.echo(f"{name} {board.cfg_get(name)}")


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@click.option("--player", type=click.IntRange(0, protocol.MAX_PLAYERS - 1), help="For per-player keys.")
@board_options
@reports_errors
def config_set_cmd(key: str, value: str, player: int | None, port: str | None, use_emulator: bool,
                   timeout: float) -> None:
    """Change a setting: KEY VALUE (the board checks the range and keeps it across power cuts)."""
    _check_key(key, player)
    _check_value(key, value)
    with connected(port, use_emulator, timeout) as board:
        if key == "name" and player is not None:
            others = {p: board.cfg_get("name", p) for p in range(protocol.MAX_PLAYERS) if p != player}
            same = [p for p, name in others.items() if name.lower() == value.lower()]
            if same:
                raise TallyboardError(f"name {value!r} is player {same[0]}'s already: each player needs a "
                                      "name of their own, so that a command given a name knows whom it means")
        click.echo(board.cfg_set(key, value, player))
        running = board.hello_fields.get("board")
    if key == "board" and running != value:
        _say_when_the_board_takes_it(value, running, port, use_emulator)


def _say_when_the_board_takes_it(value: str, running: str | None, port: str | None, use_emulator: bool) -> None:
    """A board definition takes effect when the board next starts (docs/protocol.md, CFG `board`): the
    running `tallyboard emulate` is reset now, as deploy resets it; a board on USB is told how."""
    from ..tooling import emulator as emu_mod
    from .deploy import restart_emulator
    if use_emulator:
        emulated = emu_mod.find_running()
        if emulated is None:
            click.echo(f"the next command with --emulator starts the emulated board with {value}")
            return
        hello = restart_emulator(emulated)
        click.echo(f"the emulated board started again, with board definition {hello.get('board')}")
        return
    click.echo(f"the board runs {running} until it starts again: unplug it and plug it in (or run tallyboard "
               f"deploy{' --port ' + port if port else ''}), then tallyboard status shows {value}")


def register(group: click.Group) -> None:
    group.add_command(config_group)
