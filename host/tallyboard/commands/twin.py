"""`tallyboard twin ...`: look at and work the device twin (an emulated Pico
with the board's parts, twin/run.mjs) through its control port: draw what its
LEDs and OLED show now, press its buttons, turn its knob, switch its faults,
read its counters (docs/twin.md)."""
from __future__ import annotations

import json

import click

from ..tooling import render
from ..tooling.twin_control import TwinControl
from .reporting import reports_errors
from .show import present

_PORT_HELP = "The twin's control port (node twin/run.mjs --control PORT)."


def _control_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--control", "control_port", type=click.IntRange(1, 65535), required=True,
                        envvar="TALLYBOARD_TWIN_CONTROL", show_envvar=True, help=_PORT_HELP)(fn)


@click.group("twin")
def twin_group() -> None:
    """The device twin: an emulated Pico running stock MicroPython with the
    board's OLED, LEDs, buttons and knob modelled (docs/twin.md)."""


@twin_group.command("show")
@_control_option
@click.option("--png", "png_path", type=click.Path(dir_okay=False, writable=True), help="Write a PNG picture.")
@click.option("--svg", "svg_path", type=click.Path(dir_okay=False, writable=True), help="Write an SVG picture.")
@click.option("--board", "board_name", default="pico-reference", show_default=True, metavar="NAME",
              help="The board definition the twin models (board/NAME.json).")
@click.option("--braille", is_flag=True, help="Terminal: draw the OLED in braille (half as wide).")
@reports_errors
def show_cmd(control_port: int, png_path: str | None, svg_path: str | None, board_name: str,
             braille: bool) -> None:
    """Draw what the twin's LEDs and OLED show now (the chain's latched GRB
    bytes and the SSD1306's display RAM, a dark screen while it is off), laid
    out as the physical board like `tallyboard show`."""
    with TwinControl(control_port) as control:
        frame = control.frame(render.find_board(board_name), f"device twin on control port {control_port}")
    present(frame, png_path, svg_path, braille)


@twin_group.command("press")
@_control_option
@click.argument("control_name", metavar="CONTROL")
@click.option("--ms", type=click.FloatRange(0, 60000), default=80, show_default=True, help="How long it is held.")
@click.option("--bounce", "bounce_ms", type=click.FloatRange(0, 5), default=3, show_default=True,
              help="Contact bounce on press and release, in ms (0: none).")
@reports_errors
def press_cmd(control_port: int, control_name: str, ms: float, bounce_ms: float) -> None:
    """Press one of the twin's controls: seat0..seat3, undo, shift, push."""
    with TwinControl(control_port) as control:
        at = control.press(control_name, ms, bounce_ms)
    click.echo(f"{control_name} pressed for {ms:g} ms, released at {at:.1f} ms of emulated time")


@twin_group.command("turn")
@_control_option
@click.argument("detents", type=click.IntRange(-100, 100))
@reports_errors
def turn_cmd(control_port: int, detents: int) -> None:
    """Turn the twin's knob by DETENTS (negative: the other way)."""
    if detents == 0:
        raise click.BadParameter("give a number of detents other than 0", param_hint="DETENTS")
    with TwinControl(control_port) as control:
        control.turn(detents)
    click.echo(f"turned {detents:+d} detents")


@twin_group.command("fault")
@_control_option
@click.argument("part", type=click.Choice(["oled", "button", "encoder"]))
@click.argument("state", type=click.Choice(["on", "off"]))
@click.option("--button", "control_name", metavar="CONTROL", help="button: which one is stuck down.")
@reports_errors
def fault_cmd(control_port: int, part: str, state: str, control_name: str | None) -> None:
    """Switch a fault of the twin's parts: the OLED stops answering (NAK), a
    button stuck down, the encoder's contacts bouncing without end."""
    if part == "button" and not control_name:
        raise click.UsageError("fault button: name it with --button (seat0..seat3, undo, shift, push)")
    with TwinControl(control_port) as control:
        faults = control.fault(part, state == "on", control_name)
    click.echo(f"faults now: {json.dumps(faults)}")


@twin_group.command("stats")
@_control_option
@reports_errors
def stats_cmd(control_port: int) -> None:
    """Print the twin's counters as JSON: emulated time, flash erases and
    programs, I2C bus time, OLED bytes, LED frames and wire time, errors."""
    with TwinControl(control_port) as control:
        click.echo(json.dumps(control.stats(), indent=2))


def register(group: click.Group) -> None:
    group.add_command(twin_group)
