"""Pictures for whoever builds a board, drawn from its definition: the
drilling and LED template at true size and the wiring diagram, both SVG in
millimetres (`tallyboard board draw`).

The holes are where tallyboard.render places them on Dana's board (13 x 8 in,
render.BOARD_W x render.BOARD_H at render.PX_PER_INCH); the LED in each, the
pins and the parts come from the definition (tallypanel.boarddef). Each SVG
carries its page size (@page), so a browser prints it 1:1."""
from __future__ import annotations

from typing import Sequence

from tallypanel import boarddef
from tallypanel.wiring import NO_LIGHT, NO_PIN, BoardDef

from . import render
from ..common.errors import TallyboardError

MM_PER_PX = 25.4 / render.PX_PER_INCH
BOARD_W_MM = render.BOARD_W * MM_PER_PX
BOARD_H_MM = render.BOARD_H * MM_PER_PX
# one 5 mm WS2812B in each hole (board/README.md, the bill of materials)
LED_HOLE_MM = 5.0
CHECK_LINE_MM = 100

# The 40 header pins of a Raspberry Pi Pico, pin 1 first; the Pico W, Pico 2 and
# Pico 2 W have the same header (their datasheets' pinouts). GP23, GP24, GP25
# and GP29 are on the board, not on the header.
HEADER = ("GP0", "GP1", "GND", "GP2", "GP3", "GP4", "GP5", "GND", "GP6", "GP7",
          "GP8", "GP9", "GND", "GP10", "GP11", "GP12", "GP13", "GND", "GP14", "GP15",
          "GP16", "GP17", "GND", "GP18", "GP19", "GP20", "GP21", "GND", "GP22", "RUN",
          "GP26", "GP27", "GND", "GP28", "ADC_VREF", "3V3(OUT)", "3V3_EN", "GND", "VSYS", "VBUS")
FIVE_VOLT = HEADER.index("VBUS") + 1
THREE_VOLT = HEADER.index("3V3(OUT)") + 1
GROUND = HEADER.index("GND", HEADER.index("3V3(OUT)")) + 1    # the one beside 3V3(OUT) and VBUS

# 74AHCT125, DIP-14 / SOIC-14: (pin, name). Gate 1 lifts the LED data from 3.3 V
# to 5 V (its TTL input reads 3.3 V as high); gates 2-4 are unused: their
# inputs and OE to GND, as a CMOS input must not float.
SHIFTER_PINS = ((1, "1OE"), (2, "1A"), (3, "1Y"), (4, "2OE"), (5, "2A"), (6, "2Y"), (7, "GND"),
                (8, "3Y"), (9, "3A"), (10, "3OE"), (11, "4Y"), (12, "4A"), (13, "4OE"), (14, "VCC"))
_ROWS = {boarddef.STATION: "station", boarddef.TALLY: "tally", boarddef.KING: "king"}


def header_pin(gpio: int) -> int:
    """The header pin (1-40) a GPIO is on."""
    try:
        return HEADER.index(f"GP{gpio}") + 1
    except ValueError:
        raise TallyboardError(f"GP{gpio} is not on the Pico's header (GP23, GP24, GP25 and GP29 are wired "
                              "on the board itself): give the definition a GPIO of 0-22 or 26-28") from None


def pico_model(board: BoardDef) -> str:
    return "Raspberry Pi Pico" + (" 2" if board.mcu == "rp2350" else "") + (" W" if board.wifi else "")


def connections(board: BoardDef) -> list[tuple[str, str, int, int]]:
    """(definition field, what it is, GPIO, header pin) for every pin the definition wires."""
    out = [("leds.pin", "LED data", board.led_pin)]
    if board.has_oled:
        out += [("oled.sda", "OLED SDA", board.oled_sda), ("oled.scl", "OLED SCL", board.oled_scl)]
    for seat, pin in enumerate(board.seat_pins):
        out.append((f"buttons.seats[{seat}]", f"seat button {chr(board.seat_letters[seat])}", pin))
    out += [("buttons.undo", "undo button", board.undo_pin), ("buttons.shift", "shift button", board.shift_pin),
            ("encoder.a", "encoder A", board.encoder_a), ("encoder.b", "encoder B", board.encoder_b),
            ("encoder.push", "encoder push", board.encoder_push)]
    wired = []
    for field, what, pin in out:
        if pin != NO_PIN:
            try:
                wired.append((field, what, pin, header_pin(pin)))
            except TallyboardError as exc:
                raise TallyboardError(f"board {board.name}: {field}: {exc}") from None
    return wired


def chain_runs(board: BoardDef) -> list[tuple[int, int, str]]:
    """The chain in wire order as (first LED, last LED, what they are), read
    back from the definition's LED of each hole: its runs, the lights beside
    the seat buttons, and the LEDs after them that stay dark."""
    place: dict[int, tuple[int, str, int]] = {}
    for slot in range(boarddef.SLOTS):
        player, rest = divmod(slot, boarddef.SLOTS_PER_PLAYER)
        base = max(b for b in _ROWS if b <= rest)
        place[board.led_of[slot]] = (player, _ROWS[base], rest - base)
    lights = {led: seat for seat, led in enumerate(board.seat_lights) if led != NO_LIGHT}
    runs: list[tuple[int, int, str]] = []
    led = 0
    while led < board.led_count:
        if led in place:
            player, row, first = place[led]
            step, last = 0, led
            while last + 1 in place and place[last + 1][:2] == (player, row) and (
                    step == 0 and abs(place[last + 1][2] - first) == 1
                    or step and place[last + 1][2] - place[last][2] == step):
                step = place[last + 1][2] - place[last][2]
                last += 1
            holes = f"hole {first}" if last == led else f"holes {first}-{place[last][2]}"
            runs.append((led, last, f"player {'AB'[player]} {row} {holes}"))
            led = last + 1
        elif led in lights:
            letter = chr(board.seat_letters[lights[led]])
            runs.append((led, led, f"the light beside seat button {letter}"))
            led += 1
        else:
            last = led
            while last + 1 < board.led_count and last + 1 not in place and last + 1 not in lights:
                last += 1
            runs.append((led, last, "after the holes: stays dark"))
            led = last + 1
    return runs


def _leds(first: int, last: int) -> str:
    return f"LED {first}" if first == last else f"LEDs {first}-{last}"


# ---------------------------------------------------------------- SVG pieces

def _n(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _esc(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _open(width: float, height: float, title: str, x: float = 0.0, y: float = 0.0) -> list[str]:
    """An SVG document width x height mm, one unit a mm, its top left corner
    at (x, y) of the drawing, with its page size for printing."""
    return [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}mm" height="{_n(height)}mm" '
            f'viewBox="{_n(x)} {_n(y)} {_n(width)} {_n(height)}" font-family="DejaVu Sans, Arial, sans-serif">',
            f'<title>{_esc(title)}</title>',
            f'<style>@page {{ size: {_n(width)}mm {_n(height)}mm; margin: 0 }}</style>',
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(width)}" height="{_n(height)}" fill="#ffffff"/>']


def _text(x: float, y: float, text: str, size: float = 3.0, anchor: str = "start", extra: str = "") -> str:
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}"{extra}>'
            f'{_esc(text)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, width: float = 0.25, colour: str = "#000000",
          extra: str = "") -> str:
    return (f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{colour}" '
            f'stroke-width="{_n(width)}"{extra}/>')


def _check_line(x: float, y: float) -> list[str]:
    """The 100 mm line a builder measures on the print, with a tick every 10 mm."""
    parts = [f'<g class="check-line" data-mm="{CHECK_LINE_MM}">',
             _line(x, y, x + CHECK_LINE_MM, y, 0.4)]
    for mm in range(0, CHECK_LINE_MM + 1, 10):
        parts.append(_line(x + mm, y - (3 if mm % 50 == 0 else 1.5), x + mm, y, 0.3))
    parts.append(_text(x + CHECK_LINE_MM / 2, y + 4.5, f"{CHECK_LINE_MM} mm: printed 1:1, this line "
                       f"measures {CHECK_LINE_MM} mm", 3, "middle"))
    parts.append("</g>")
    return parts


# ---------------------------------------------------------------- the template

def template_svg(board: BoardDef) -> str:
    """The drilling and LED template, 1:1: the board's edge, a cross and a
    5 mm circle at every hole, the LED that goes in it, the wire from LED to
    LED in chain order; one sheet the board's size (A3 holds it)."""
    w, h = BOARD_W_MM, BOARD_H_MM
    parts = _open(w, h, f"{board.name}: drilling and LED template, 1:1")
    parts.extend(_template_body(board))
    kings = [y for _led, _x, y, hole in _hole_places(board) if hole.row == "king"]
    top, bottom = min(kings) + 8, max(kings) - 8
    for i, line in enumerate(_template_notes(board)):
        parts.append(_text(w / 2, top + 4 + 4.2 * i, line, 3, "middle"))
    parts.extend(_check_line(w / 2 - CHECK_LINE_MM / 2, bottom - 6))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


SHEET_W, SHEET_H = 210.0, 297.0             # A4 portrait
SHEET_OVERLAP = 10.0
_SHEET_TOP = 20.0


def sheet_windows() -> list[tuple[float, float]]:
    """The part of the board (x from, x to, mm) on each A4 sheet: two halves
    that overlap, so the cut edge of the first lies on the second."""
    half = BOARD_W_MM / 2
    return [(0.0, half + SHEET_OVERLAP / 2), (half - SHEET_OVERLAP / 2, BOARD_W_MM)]


def template_sheets(board: BoardDef) -> list[str]:
    """The same template on two A4 sheets (portrait), each 1:1 with its own
    100 mm check line: cut the first at its dashed line and lay it on the second."""
    out = []
    windows = sheet_windows()
    half = BOARD_W_MM / 2
    for number, (x0, x1) in enumerate(windows, 1):
        width = x1 - x0
        left = x0 - (SHEET_W - width) / 2
        parts = _open(SHEET_W, SHEET_H, f"{board.name}: drilling and LED template, 1:1, sheet {number} of "
                      f"{len(windows)}", left, -_SHEET_TOP)
        parts.append(f'<clipPath id="window"><rect x="{_n(x0)}" y="-1" width="{_n(width)}" '
                     f'height="{_n(BOARD_H_MM + 2)}"/></clipPath>')
        parts.append('<g clip-path="url(#window)">')
        parts.extend(_template_body(board))
        parts.append("</g>")
        parts.append(_line(half, -6, half, BOARD_H_MM + 6, 0.4, "#000000", ' stroke-dasharray="3 2"'))
        parts.append(_text(half + (-1 if number == 1 else 1), -3, "cut sheet 1 here" if number == 1 else
                           "sheet 1's cut edge here", 3, "end" if number == 1 else "start"))
        below = BOARD_H_MM + 12
        notes = [f"Sheet {number} of {len(windows)}: the board's {'left' if number == 1 else 'right'} part, "
                 f"{_n(x0)} to {_n(x1)} mm from its left edge.",
                 "Cut sheet 1 along its dashed line and lay it on sheet 2, holes on holes."] + _template_notes(board)
        for i, line in enumerate(notes):
            parts.append(_text(left + 12, below + 4.2 * i, line, 2.8))
        parts.extend(_check_line(left + (SHEET_W - CHECK_LINE_MM) / 2, below + 4.2 * len(notes) + 8))
        parts.append("</svg>")
        out.append("\n".join(parts) + "\n")
    return out


def _hole_places(board: BoardDef) -> list[tuple[int, float, float, render.Hole]]:
    """(LED, x, y in mm, the hole) for every hole, in chain order."""
    return [(hole.led, hole.x * MM_PER_PX, hole.y * MM_PER_PX, hole)
            for hole in sorted(render.holes(board), key=lambda hole: hole.led)]


def _template_body(board: BoardDef) -> list[str]:
    w, h = BOARD_W_MM, BOARD_H_MM
    parts = [f'<rect class="edge" x="0" y="0" width="{_n(w)}" height="{_n(h)}" fill="none" '
             'stroke="#000000" stroke-width="0.5"/>']
    places = _hole_places(board)
    points = " ".join(f"{_n(x)},{_n(y)}" for _led, x, y, _hole in places)
    parts.append(f'<polyline class="chain" points="{points}" fill="none" stroke="#3b7dd8" '
                 'stroke-width="0.35" stroke-dasharray="1.2 0.8"/>')
    r = LED_HOLE_MM / 2
    for led, x, y, hole in places:
        parts.append(f'<circle class="hole" data-led="{led}" cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" '
                     f'fill="none" stroke="#000000" stroke-width="{0.45 if hole.landmark else 0.25}">'
                     f'<title>LED {led}: player {"AB"[hole.player]} {hole.row} hole {hole.hole}</title>'
                     '</circle>')
        parts.append(_line(x - 1.2, y, x + 1.2, y, 0.15) + _line(x, y - 1.2, x, y + 1.2, 0.15))
        parts.append(_text(x, y - r - 0.5, str(led), 1.7, "middle"))
    _led, x, y, _hole = places[0]
    parts.append(_text(x - r - 1, y + 0.6, "DIN", 2, "end"))
    return parts


def _template_notes(board: BoardDef) -> list[str]:
    notes = [f"{board.name}: drilling and LED template, 1:1 ({_n(BOARD_W_MM)} x {_n(BOARD_H_MM)} mm, "
             "the board's edge)",
             f"Drill {_n(LED_HOLE_MM)} mm at each cross, one WS2812B a hole; its number is its place on the "
             "chain,",
             "LED 0 takes the data (DIN); the dashed line is the wire from LED to LED.",
             "Player A sits at the lower edge, player B at the upper."]
    return notes + [f"{_leds(a, b)}: {what}" for a, b, what in chain_runs(board) if a >= boarddef.SLOTS]


# ---------------------------------------------------------------- the wiring

WIRING_W, WIRING_H = 297.0, 210.0          # A4 landscape
_PITCH = 5.08                               # the header's 2.54 mm, drawn twice as large
_PICO_X, _PICO_Y, _PICO_W, _PICO_H = 70.0, 28.0, 42.0, 102.0
_FIRST_PIN_Y = _PICO_Y + (_PICO_H - 19 * _PITCH) / 2
_USED = "#c0392b"


def _pin_xy(pin: int) -> tuple[float, float, int]:
    """Where a header pin is drawn, and which way its wire leaves (-1 left, 1 right)."""
    if pin <= 20:
        return _PICO_X + 2.5, _FIRST_PIN_Y + (pin - 1) * _PITCH, -1
    return _PICO_X + _PICO_W - 2.5, _FIRST_PIN_Y + (40 - pin) * _PITCH, 1


def _pin_name(pin: int) -> str:
    return f"{HEADER[pin - 1]} · pin {pin}"


def wiring_svg(board: BoardDef) -> str:
    """The wiring diagram: the Pico's header with every pin the definition
    uses, the 74AHCT125 between the LED data pin and the chain, the display,
    the buttons, the encoder, and the chain's order."""
    wired = connections(board)
    parts = _open(WIRING_W, WIRING_H, f"{board.name}: wiring")
    parts.append(_text(10, 12, f"{board.name}: wiring ({pico_model(board)}, {board.mcu})", 5))
    parts.append(_text(10, 18, "Wire each part's ends to the Pico pins named beside them. Buttons and the "
                       "encoder need no resistors: the firmware turns on the Pico's pull-ups.", 3))
    parts.extend(_pico(board, wired))
    parts.extend(_chain_part(board, wired[0]))
    y = 100.0
    if board.has_oled:
        sda, scl = (c for c in wired if c[0] in ("oled.sda", "oled.scl"))
        parts.append(_text(180, y, f"SSD1306 OLED {board.oled_width}x{board.oled_height}, I2C{board.oled_bus}, "
                           f"address 0x{board.oled_address:02X}, {board.oled_freq // 1000} kHz", 3.2,
                           extra=' font-weight="bold"'))
        for i, (end, to) in enumerate((("VCC", _pin_name(THREE_VOLT)), ("GND", "GND"),
                                      ("SDA", None), ("SCL", None))):
            if to is None:
                parts.append(_wire_end(180, y + 5 + 4.2 * i, end, sda if end == "SDA" else scl))
            else:
                parts.append(_text(182, y + 5 + 4.2 * i, f"{end} — {to}", 3))
        y += 24
    parts.append(_text(180, y, "Buttons (pin to GND) and the encoder", 3.2,
                       extra=' font-weight="bold"'))
    y += 5
    for connection in wired:
        if connection[0].startswith(("buttons.", "encoder.")):
            what = connection[1]
            if connection[0].startswith("buttons.seats["):
                seat = int(connection[0][len("buttons.seats["):-1])
                light = board.seat_lights[seat] if seat < len(board.seat_lights) else NO_LIGHT
                what += f" (seat {seat})" + (f", LED {light} beside it" if light != NO_LIGHT else "")
            parts.append(_wire_end(180, y, what, connection,
                                   "" if connection[0] in ("encoder.a", "encoder.b") else "GND"))
            y += 4.2
    if board.encoder_a != NO_PIN:
        parts.append(_text(182, y, "encoder C (the middle of A, C, B) — GND; A and B close to C", 3))
        y += 4.2
    parts.extend(_chain_order(board))
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _wire_end(x: float, y: float, end: str, connection: tuple[str, str, int, int], other: str = "") -> str:
    field, _what, gpio, pin = connection
    tail = f" and {other}" if other else ""
    return (f'<g class="wire" data-field="{field}" data-gpio="{gpio}" data-pin="{pin}">'
            + _text(x + 2, y, f"{end} — GP{gpio} · pin {pin}{tail}", 2.8)
            + f'<circle cx="{_n(x)}" cy="{_n(y - 1)}" r="0.8" fill="{_USED}"/></g>')


def _pico(board: BoardDef, wired: Sequence[tuple[str, str, int, int]]) -> list[str]:
    roles = {pin: what for _field, what, _gpio, pin in wired}
    roles[FIVE_VOLT] = "5 V to the LEDs and U1"
    roles[GROUND] = "ground for every part"
    if board.has_oled:
        roles[THREE_VOLT] = "the OLED's VCC"
    parts = [f'<rect x="{_n(_PICO_X)}" y="{_n(_PICO_Y)}" width="{_n(_PICO_W)}" height="{_n(_PICO_H)}" rx="2" '
             'fill="#1e7b3a" stroke="#0b3d1c" stroke-width="0.4"/>',
             f'<rect x="{_n(_PICO_X + _PICO_W / 2 - 5)}" y="{_n(_PICO_Y - 2)}" width="10" height="6" '
             'fill="#b8b8b8"/>',
             _text(_PICO_X + _PICO_W / 2, _PICO_Y + _PICO_H / 2, pico_model(board), 2.6, "middle",
                   f' fill="#ffffff" style="fill:#ffffff" transform="rotate(-90 {_n(_PICO_X + _PICO_W / 2)} '
                   f'{_n(_PICO_Y + _PICO_H / 2)})"'),
             _text(_PICO_X + _PICO_W / 2, _PICO_Y - 3, "USB", 2.4, "middle")]
    for pin in range(1, 41):
        x, y, side = _pin_xy(pin)
        used = pin in roles
        name = HEADER[pin - 1]
        parts.append(f'<circle cx="{_n(x)}" cy="{_n(y)}" r="1.1" fill="{_USED if used else "#d4af37"}"/>')
        inside = x - side * 2.2
        parts.append(_text(inside, y + 0.9, name, 2.2, "end" if side > 0 else "start",
                           ' style="fill:#ffffff"'))
        outside = _PICO_X - 1.5 if side < 0 else _PICO_X + _PICO_W + 1.5
        parts.append(_text(outside, y + 0.9, str(pin), 2.2, "end" if side < 0 else "start"))
        if used:
            end = outside + side * 5
            parts.append(_line(outside + side * 1, y, end + side * 8, y, 0.4, _USED))
            parts.append(f'<g class="pin" data-pin="{pin}">'
                         + _text(end + side * 9, y + 1, f"{name}: {roles[pin]}", 2.8,
                                 "end" if side < 0 else "start") + "</g>")
    return parts


def _chain_part(board: BoardDef, data: tuple[str, str, int, int]) -> list[str]:
    """The LED data path: the Pico's pin, gate 1 of the 74AHCT125, 330 ohm, LED 0."""
    x, y = 180.0, 26.0
    parts = [_text(x, y, "LED data through U1, a 74AHCT125 (3.3 V to 5 V)", 3.2, extra=' font-weight="bold"')]
    cx, cy, cw, ch = x + 42, y + 6, 22, 7 * 4.0
    parts.append(f'<rect x="{_n(cx)}" y="{_n(cy)}" width="{_n(cw)}" height="{_n(ch)}" fill="#f4f4f4" '
                 'stroke="#000000" stroke-width="0.35"/>')
    parts.append(_text(cx + cw / 2, cy + ch + 4, "74AHCT125 (U1)", 2.8, "middle"))
    ties = {"1OE": "GND", "2OE": "GND", "2A": "GND", "3OE": "GND", "3A": "GND", "4OE": "GND", "4A": "GND",
            "GND": "GND", "VCC": _pin_name(FIVE_VOLT), "2Y": "open", "3Y": "open", "4Y": "open",
            "1Y": "330 Ω, then DIN of LED 0"}
    for number, name in SHIFTER_PINS:
        left = number <= 7
        py = cy + 2.6 + ((number - 1) if left else (14 - number)) * 4.0
        px = cx if left else cx + cw
        parts.append(_text(px + (1.2 if left else -1.2), py + 0.9, f"{number} {name}", 2.4,
                           "start" if left else "end"))
        stub = px - 4 if left else px + 4
        parts.append(_line(px, py, stub, py, 0.3))
        if name == "1A":
            parts.append(f'<g class="wire" data-field="{data[0]}" data-gpio="{data[2]}" data-pin="{data[3]}">'
                         + _text(stub - 1, py + 1, f"LED data: GP{data[2]} · pin {data[3]}", 2.6, "end") + "</g>")
        else:
            parts.append(_text(stub - 1 if left else stub + 1, py + 1, ties[name], 2.6,
                               "end" if left else "start"))
    notes = ["100 nF ceramic across pins 14 (VCC) and 7 (GND), at the chip.",
             "1OE to GND turns gate 1 on. Gates 2-4 are unused:",
             "their A and OE to GND, their Y open.",
             f"The chain, {board.led_count} WS2812B: 5 V and GND from {_pin_name(FIVE_VOLT)} and GND,",
             "with 1000 µF across them at LED 0.",
             f"The firmware keeps the LEDs within {board.budget_ma} mA (power.budget_ma)."]
    for i, note in enumerate(notes):
        parts.append(_text(x, cy + ch + 10 + 4 * i, note, 2.8))
    return parts


def _chain_order(board: BoardDef) -> list[str]:
    x, y = 10.0, 142.0
    parts = [_text(x, y, f"The chain in wire order ({board.led_count} LEDs; the drilling template shows "
                   "each in its hole)", 3.2, extra=' font-weight="bold"')]
    runs = chain_runs(board)
    half = (len(runs) + 1) // 2 if len(runs) > 12 else len(runs)
    for i, (first, last, what) in enumerate(runs):
        column, row = divmod(i, half)
        parts.append(_text(x + 2 + 68 * column, y + 5 + 4 * row, f"{_leds(first, last)}: {what}", 2.8))
    return parts
