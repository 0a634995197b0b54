"""`tallyboard config get/set`: the board's settings (brightness, budget_ma,
name, colour, board), checked on the host before they are sent."""
from __future__ import annotations

import click

from tallyrun import protocol

from ..errors import TallyboardError
from .reporting import reports_errors
from .link import board_options, connected


@click.group("config")
def config_group() -> None:
    """Read or change the board's settings (brightness, budget_ma, name, colour, board)."""


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
    with connected(port, use_emulator, timeout) as board:
        click.echo(board.cfg_set(key, value, player))


def register(group: click.Group) -> None:
    group.add_command(config_group)
