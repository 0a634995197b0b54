"""The device twin's control interface, from Python: the JSON-line socket the
twin's runner (twin/run.mjs --control PORT) serves, to press the board's
buttons, turn its knob, switch its parts' faults and read what its OLED and
LEDs show now, with the twin's counters. docs/twin.md describes the protocol
and how to start a twin by hand; bench/twin_harness.py starts one for tests.

    control = TwinControl(port)
    control.press("seat0")                # 80 ms with contact bounce; returns once released
    control.turn(3)                       # three detents clockwise (+1 in the firmware)
    control.settle()                      # until the OLED and the LEDs have been quiet 100 ms
    control.oled().ram                    # 1024 bytes of display RAM (SSD1306 page order)
    control.leds().grb                    # the chain's GRB bytes
    control.fault("oled", True)           # the display stops answering (its address NAKs)
    control.holes()                       # the lit LEDs' holes, as the board was built (--miswire)
    control.miswire("encoder-ab")         # the board's wiring faults, all replaced ("": as defined)
"""
from __future__ import annotations

import itertools
import json
import socket
from dataclasses import dataclass, field
from typing import Any

from ..common.errors import TallyboardError

from .render import OLED_BYTES  # noqa: F401  (the SSD1306 buffer, named once in render.py)


class TwinError(TallyboardError):
    """The twin refused a control request, or its control port is not there."""


@dataclass
class OledState:
    ram: bytes                 # 1024 bytes: page * 128 + column, bit 0 the page's top row
    on: bool                   # display on (0xAF) or off (0xAE)
    contrast: int
    inverted: bool
    present: bool              # False: the address NAKs (no display, or the fault)
    fields: dict[str, Any] = field(default_factory=dict)   # addressing, windows, charge pump, ...


@dataclass
class LedState:
    grb: bytes                 # what the chain shows: 3 bytes (G, R, B) an LED, chain order
    frames: int
    fields: dict[str, Any] = field(default_factory=dict)
    sent: bytes = b""          # the last frame as the firmware sent it (a dead LED passes none of it on)
    seen: bytes = b""          # what each hole shows, in the definition's chain order (the board as built)


@dataclass
class Hole:
    """An LED as the board was built: its place along the wire (led), the hole it sits in (player, row
    "station" / "tally" / "king", hole, as tallypanel.wiring numbers them; None for an LED in no hole,
    light: the seat whose button it is beside) and what it shows."""
    led: int
    player: int | None
    row: str | None
    hole: int | None
    grb: bytes
    light: int | None = None

    @property
    def place(self) -> tuple[int, str, int] | None:
        """(player, row, hole), or None for an LED in no hole."""
        if self.player is None or self.row is None or self.hole is None:
            return None
        return (self.player, self.row, self.hole)


class TwinControl:
    """One connection to a running twin's control port (127.0.0.1)."""

    def __init__(self, port: int, *, host: str = "127.0.0.1", timeout: float = 60.0) -> None:
        self.address = (host, port)
        self.timeout = timeout
        try:
            self.sock = socket.create_connection(self.address, timeout=timeout)
        except OSError as exc:
            raise TwinError(f"no device twin answers on control port {port} ({exc.strerror or exc}); "
                            f"start one with node twin/run.mjs --control {port} (docs/twin.md)") from None
        self.reader = self.sock.makefile("r", encoding="utf-8")
        self.ids = itertools.count(1)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()

    def __enter__(self) -> "TwinControl":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def request(self, cmd: str, timeout: float | None = None, **fields: Any) -> dict[str, Any]:
        """Send one request, wait for its reply; TwinError with the twin's words if refused."""
        ident = next(self.ids)
        self.sock.settimeout(timeout or self.timeout)
        try:
            self.sock.sendall((json.dumps({"id": ident, "cmd": cmd, **fields}) + "\n").encode())
            while True:
                line = self.reader.readline()
                if not line:
                    raise TwinError("the device twin closed its control port (did the runner stop?)")
                reply = json.loads(line)
                if reply.get("id") == ident:
                    break
        except socket.timeout:
            raise TwinError(f"the device twin did not answer {cmd} within {timeout or self.timeout:.0f} s") from None
        except OSError as exc:
            raise TwinError(f"the device twin's control port failed: {exc}") from None
        if not reply.get("ok"):
            raise TwinError(f"the device twin refused {cmd}: {reply.get('error')}")
        return reply

    # ------------------------------------------------------------ the controls
    def press(self, control: str, ms: float = 80, bounce_ms: float = 3) -> float:
        """Press a control (seat0..seat3, undo, shift, push, or a GPIO number) for ms,
        with contact bounce on press and release; returns once released (emulated ms)."""
        return self.request("press", control=control, ms=ms, bounce_ms=bounce_ms,
                            timeout=self.timeout + ms / 1000 * 20)["at_ms"]

    def turn(self, detents: int, step_ms: float = 8, bounce_ms: float = 0.3) -> float:
        """Turn the knob by detents (> 0: the firmware's +1 direction), step_ms between
        quadrature steps (4 a detent: 8 ms is a brisk turn, about 30 detents a second)."""
        return self.request("turn", detents=detents, step_ms=step_ms, bounce_ms=bounce_ms)["at_ms"]

    def fault(self, part: str, on: bool, control: str | None = None) -> dict[str, Any]:
        """Switch a fault: "oled" (its address NAKs), "button" (control stuck down),
        "encoder" (its contacts bounce without end)."""
        fields: dict[str, Any] = {"part": part, "on": on}
        if control is not None:
            fields["control"] = control
        return self.request("fault", **fields)["faults"]

    def hurry(self, chip_ms: float) -> float:
        """Let the chip's idle time run unpaced for its next chip_ms (0: paced again), while
        the caller waits on the chip's own clock and sends it nothing; the emulated ms now."""
        return self.request("hurry", ms=chip_ms)["at_ms"]

    def settle(self, quiet_ms: float = 100, most_s: float = 30, **at_least: float) -> float:
        """Wait until neither the OLED's bus nor the LED line has carried anything for
        quiet_ms of emulated time, after the counters named (stats() names, e.g.
        led_frames=3) have reached those values; the emulated ms then."""
        return self.request("settle", quiet_ms=quiet_ms, most_s=most_s, at_least=at_least,
                            timeout=most_s + 10)["at_ms"]

    # ------------------------------------------------------------ what it shows
    def oled(self) -> OledState:
        reply = self.request("oled")
        ram = bytes.fromhex(reply.pop("ram"))
        return OledState(ram, reply["on"], reply["contrast"], reply["inverted"], reply["present"], reply)

    def leds(self) -> LedState:
        reply = self.request("leds")
        grb, sent, seen = (bytes.fromhex(reply.pop(key)) for key in ("grb", "sent", "seen"))
        return LedState(grb, reply["stats"]["frames"], reply, sent, seen)

    def holes(self, every: bool = False) -> list[Hole]:
        """The lit LEDs (every: all of them, in wire order) with the holes they sit in as the board was
        built (docs/twin.md, --miswire): what a builder sees light."""
        return [Hole(h["led"], h.get("player"), h.get("row"), h.get("hole"), bytes.fromhex(h["grb"]), h.get("light"))
                for h in self.request("holes", all=every)["holes"]]

    def miswire(self, spec: str | None = None) -> list[str]:
        """The board's wiring faults now; with spec (e.g. "dead:40,encoder-ab"; "": none) replace them."""
        fields: dict[str, Any] = {} if spec is None else {"set": spec}
        return self.request("miswire", **fields)["miswire"]

    def hello(self) -> dict[str, Any]:
        """The controls by name, the chain's length, the display's address as built, the wiring faults."""
        reply = self.request("hello")
        reply.pop("id", None)
        reply.pop("ok", None)
        return reply

    def stats(self) -> dict[str, Any]:
        """Counters: emu_ms, busy_ms, flash_erases/programs, i2c_bus_ms, oled_bytes,
        led_frames, led_bytes, led_wire_ms, led_timing_errors, ... (docs/twin.md)."""
        reply = self.request("stats")
        reply.pop("id", None)
        reply.pop("ok", None)
        return reply

    def errors(self) -> dict[str, list[str]]:
        """What the parts' models found wrong: {"ssd1306": [...], "ws2812": [...]}."""
        reply = self.request("errors")
        return {"ssd1306": reply["ssd1306"], "ws2812": reply["ws2812"]}

    def clear_errors(self) -> None:
        self.request("clear_errors")

    def frame(self, board: Any, title: str = "") -> Any:
        """What the twin shows now as a render.Frame (for render.png / terminal): the holes as the
        board was built (LedState.seen), drawn with the definition's map."""
        from . import render

        oled = self.oled()
        leds = self.leds()
        shown = oled.ram if oled.on else bytes(OLED_BYTES)
        if oled.on and oled.inverted:
            shown = bytes(b ^ 0xFF for b in shown)
        return render.Frame(board, leds.seen or leds.grb, shown if board.has_oled else None, title)
