"""Issue 32, items 7 and 8: `tallyboard board check` says what is wrong with a
definition in one line (no traceback), and `tallyboard board draw` draws the
builder's pictures from it: the drilling and LED template at true size and
the wiring diagram. Checked for the reference board and the serpentine
Pico 2: well-formed SVG, the template's size in mm, every hole at its place
(a few worked out by hand from Dana's layout in tallyboard.render), every pin
of the definition named with its header pin. tests/test_buildplans_browser.py
opens them in Chromium and prints them."""
from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.tooling import buildplans, render
from tallyboard.cli import main

ROOT = Path(__file__).resolve().parent.parent
SVG = "{http://www.w3.org/2000/svg}"
BOARDS = ("pico-reference", "pico2-serpentine-nooled")

# Dana's board as tallyboard.render lays it out, 80 px to the inch (0.3175 mm a px):
# player A's station (66, 557) px; his tally column c at x = 110 + 28 c + 8 (c // 5);
# single holes and the station at y = 570 - 26 / 2 = 557, the outer lane at 570, the inner
# lane at 544; his king hole k at x = 110 + k * 852 / 19, y = 478; player B's side is A's
# turned round: (1040 - x, 640 - y).
HOLES_MM = {
    "pico-reference": {
        0: (20.955, 176.8475),      # A's station: 66 * 0.3175, 557 * 0.3175
        16: (175.895, 180.975),     # A's tally hole 15, outer lane column 15: x = 110 + 420 + 24 = 554
        46: (34.925, 151.765),      # A's king hole 0: x = 110, y = 478
        65: (305.435, 151.765),     # A's king hole 19: x = 110 + 852 = 962
        66: (309.245, 26.3525),     # B's station: (1040 - 66, 640 - 557) = (974, 83)
        131: (24.765, 51.435),      # B's king hole 19: (1040 - 962, 640 - 478) = (78, 162)
    },
    "pico2-serpentine-nooled": {
        0: (20.955, 176.8475),      # A's station, as on the reference board
        31: (305.435, 172.72),      # A's tally hole 44 (the chain turns back): inner column 29, x = 962, y = 544
        45: (175.895, 172.72),      # A's tally hole 30: inner column 15, x = 554
        66: (295.275, 51.435),      # B's king hole 0: (1040 - 110, 640 - 478) = (930, 162)
        86: (24.765, 30.48),        # B's tally hole 44: (1040 - 962, 640 - 544) = (78, 96)
        101: (309.245, 26.3525),    # B's station, after his inner lane
        131: (24.765, 22.225),      # B's tally hole 29, outer lane: (78, 640 - 570 = 70)
    },
}

# every pin of the definitions, with its header pin read off the Pico's pinout
PINS = {
    "pico-reference": {
        "leds.pin": (2, 4), "oled.sda": (4, 6), "oled.scl": (5, 7),
        "buttons.seats[0]": (10, 14), "buttons.seats[1]": (11, 15), "buttons.seats[2]": (12, 16),
        "buttons.seats[3]": (13, 17), "buttons.undo": (14, 19), "buttons.shift": (15, 20),
        "encoder.a": (16, 21), "encoder.b": (17, 22), "encoder.push": (18, 24),
    },
    "pico2-serpentine-nooled": {
        "leds.pin": (22, 29), "buttons.seats[0]": (6, 9), "buttons.seats[1]": (7, 10),
        "buttons.undo": (8, 11), "encoder.a": (9, 12), "encoder.b": (10, 14), "encoder.push": (11, 15),
    },
}


def run(*args: str):
    return CliRunner().invoke(main, list(args))


def definition(name: str) -> dict:
    return json.loads((ROOT / "board" / f"{name}.json").read_text())


def pinned_fields(d: dict) -> set[str]:
    """The fields of a definition's JSON that name a GPIO."""
    out = {"leds.pin"}
    if d.get("oled"):
        out |= {"oled.sda", "oled.scl"}
    out |= {f"buttons.seats[{i}]" for i in range(len(d["buttons"]["seats"]))}
    out |= {f"buttons.{key}" for key in ("undo", "shift") if d["buttons"].get(key) is not None}
    if d.get("encoder"):
        out |= {f"encoder.{key}" for key in ("a", "b", "push")}
    return out


@pytest.fixture(scope="module")
def drawn(tmp_path_factory):
    out = tmp_path_factory.mktemp("plans")
    pictures = {}
    for name in BOARDS:
        result = run("board", "draw", name, "--out", str(out))
        assert result.exit_code == 0, result.output
        kinds = ("template", "template-a4-1", "template-a4-2", "wiring")
        assert result.output == "".join(f"wrote {out / f'{name}-{kind}.svg'}\n" for kind in kinds)
        pictures[name] = {kind: ET.parse(out / f"{name}-{kind}.svg").getroot() for kind in kinds}
    return pictures


def texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


@pytest.mark.parametrize("name", BOARDS)
def test_the_template_is_the_board_at_true_size(drawn, name):
    root = drawn[name]["template"]
    assert root.tag == f"{SVG}svg"
    # Dana's board, 13 x 8 in: 13 * 25.4 = 330.2 mm by 8 * 25.4 = 203.2 mm, one unit a mm
    assert (root.get("width"), root.get("height")) == ("330.2mm", "203.2mm")
    assert root.get("viewBox") == "0 0 330.2 203.2"
    assert "size: 330.2mm 203.2mm" in "".join(root.find(f"{SVG}style").itertext())
    edge = root.find(f"{SVG}rect[@class='edge']")
    assert (edge.get("width"), edge.get("height")) == ("330.2", "203.2")
    check = root.find(f"{SVG}g[@class='check-line']")
    line = check.find(f"{SVG}line")
    assert float(line.get("x2")) - float(line.get("x1")) == pytest.approx(100)
    assert line.get("y1") == line.get("y2")


@pytest.mark.parametrize("name", BOARDS)
def test_every_led_hole_is_drawn_once_at_its_place(drawn, name):
    circles = {int(c.get("data-led")): c for c in drawn[name]["template"].iter(f"{SVG}circle")
               if c.get("class") == "hole"}
    assert sorted(circles) == list(range(132))       # the 132 holes; the seat lights have none
    assert {c.get("r") for c in circles.values()} == {"2.5"}     # 5 mm, one WS2812B
    for led, (x, y) in HOLES_MM[name].items():
        assert (float(circles[led].get("cx")), float(circles[led].get("cy"))) == pytest.approx((x, y), abs=0.001), led
    # the LED's number beside each hole, and the wire drawn from hole to hole in chain order
    assert set(texts(drawn[name]["template"])) >= {str(led) for led in range(132)}
    chain = drawn[name]["template"].find(f"{SVG}polyline[@class='chain']").get("points").split()
    x, y = HOLES_MM[name][131]
    assert len(chain) == 132 and chain[131] == f"{x:g},{y:g}"


@pytest.mark.parametrize("name", BOARDS)
def test_the_a4_sheets_are_the_template_in_two_overlapping_halves(drawn, name):
    # A4 portrait, 210 x 297 mm; the board's 330.2 mm in two halves of 165.1 mm, each 5 mm past the middle
    windows = [(0, 170.1), (160.1, 330.2)]
    full = {c.get("data-led"): (c.get("cx"), c.get("cy")) for c in drawn[name]["template"].iter(f"{SVG}circle")
            if c.get("class") == "hole"}
    for number, (x0, x1) in enumerate(windows, 1):
        root = drawn[name][f"template-a4-{number}"]
        assert (root.get("width"), root.get("height")) == ("210mm", "297mm")
        # the window centred across the sheet: (210 - 170.1) / 2 = 19.95 mm each side; the board 20 mm down
        left, top, width, height = (float(v) for v in root.get("viewBox").split())
        assert (left, top, width, height) == pytest.approx((x0 - 19.95, -20, 210, 297))
        clip = root.find(f"{SVG}clipPath/{SVG}rect")
        assert (float(clip.get("x")), float(clip.get("width"))) == pytest.approx((x0, x1 - x0))
        holes = {c.get("data-led"): (c.get("cx"), c.get("cy")) for c in root.iter(f"{SVG}circle")
                 if c.get("class") == "hole"}
        assert holes == full             # the same drawing, at the same places, seen through the window
        line = root.find(f"{SVG}g[@class='check-line']").find(f"{SVG}line")
        assert float(line.get("x1")) >= left and float(line.get("x2")) <= left + width
        assert float(line.get("x2")) - float(line.get("x1")) == pytest.approx(100)


def test_the_serpentine_templates_name_the_lights_beside_the_buttons(drawn):
    assert {"LED 132: the light beside seat button A", "LED 133: the light beside seat button B"} <= set(
        texts(drawn["pico2-serpentine-nooled"]["template"]))
    assert not [t for t in texts(drawn["pico-reference"]["template"]) if t.startswith("LED 132")]


@pytest.mark.parametrize("name", BOARDS)
def test_the_wiring_names_every_pin_of_the_definition(drawn, name):
    root = drawn[name]["wiring"]
    assert (root.get("width"), root.get("height")) == ("297mm", "210mm")     # A4 landscape
    wires: dict[str, list[ET.Element]] = {}
    for g in root.iter(f"{SVG}g"):
        if g.get("class") == "wire":
            wires.setdefault(g.get("data-field"), []).append(g)
    assert set(wires) == pinned_fields(definition(name)) == set(PINS[name])
    for field, (gpio, pin) in PINS[name].items():
        for g in wires[field]:
            assert (g.get("data-gpio"), g.get("data-pin")) == (str(gpio), str(pin)), field
            assert f"GP{gpio} · pin {pin}" in "".join(g.itertext()), field
    # and on the Pico's header, each used pin says what it is wired to
    header = {g.get("data-pin"): "".join(g.itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "pin"}
    for field, (gpio, pin) in PINS[name].items():
        assert header[str(pin)].startswith(f"GP{gpio}: "), (field, header[str(pin)])
    assert header["40"] == "VBUS: 5 V to the LEDs and U1"
    assert header["38"] == "GND: ground for every part"


def test_the_wiring_gives_the_level_shifter_and_the_chain_order(drawn):
    reference = texts(drawn["pico-reference"]["wiring"])
    # 74AHCT125: gate 1 carries the data, OE tied low; its VCC on 5 V (VBUS is header pin 40)
    for needed in ("2 1A", "LED data: GP2 · pin 4", "3 1Y", "330 Ω, then DIN of LED 0", "1 1OE",
                   "14 VCC", "VBUS · pin 40", "7 GND"):
        assert needed in reference, needed
    assert "VCC — 3V3(OUT) · pin 36" in reference
    assert "SDA — GP4 · pin 6" in reference
    assert "LEDs 1-45: player A tally holes 0-44" in reference
    serpentine = texts(drawn["pico2-serpentine-nooled"]["wiring"])
    assert "LED data: GP22 · pin 29" in serpentine
    assert not [t for t in serpentine if "OLED" in t]
    # the chain's runs as the definition gives them, backwards runs included
    for run_text in ("LED 0: player A station hole 0", "LEDs 1-30: player A tally holes 0-29",
                     "LEDs 31-45: player A tally holes 44-30", "LEDs 46-65: player A king holes 0-19",
                     "LEDs 66-85: player B king holes 0-19", "LEDs 86-100: player B tally holes 44-30",
                     "LED 101: player B station hole 0", "LEDs 102-131: player B tally holes 0-29",
                     "LED 132: the light beside seat button A", "LED 133: the light beside seat button B"):
        assert run_text in serpentine, run_text
    assert "seat button A (seat 0), LED 132 beside it — GP6 · pin 9 and GND" in serpentine


def test_the_template_follows_render_s_layout():
    # one layout: the template's holes are the picture's, in mm
    board = render.find_board("pico-reference")
    hole = next(h for h in render.holes(board) if h.led == 16)
    assert (hole.x * buildplans.MM_PER_PX, hole.y * buildplans.MM_PER_PX) == pytest.approx(
        HOLES_MM["pico-reference"][16])


# ---------------------------------------------------------------- board check

def write(tmp_path: Path, name: str, d: dict) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(d))
    return path


def test_board_check_says_a_good_definition_is_good():
    result = run("board", "check", "pico2-serpentine-nooled")
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("pico2-serpentine-nooled: a valid definition for a Raspberry Pi Pico 2 "
                                    "(rp2350), 134 LEDs; LED data GP22, seat button A GP6, ")


def test_board_check_names_the_fault_in_one_line_without_a_traceback(tmp_path):
    # README "Adding a board", step 2: a hole mapped twice
    d = definition("pico-reference")
    d["name"] = "mine"
    d["leds"]["chain"].append([0, "tally", 3, 3])
    result = run("board", "check", str(write(tmp_path, "mine", d)))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr == (f"tallyboard: board: leds.chain[6] maps tally hole 3 of player 0 twice; fix "
                             f"{tmp_path / 'mine.json'} (board/README.md says what each field takes)\n")
    assert "Traceback" not in result.output
    assert isinstance(result.exception, SystemExit)     # the command's own exit, nothing raised past it


@pytest.mark.parametrize("change, says", [
    (lambda d: d["buttons"].update(undo=25),
     "board mine: buttons.undo: GP25 is not on the Pico's header (GP23, GP24, GP25 and GP29 are wired on the "
     "board itself): give the definition a GPIO of 0-22 or 26-28"),
    (lambda d: d.update(name="other"),
     "board: name is 'other' in mine.json: make it 'mine', the file's name"),
    (lambda d: d["power"].update(budget_ma=100),
     "board: power.budget_ma is below the idle current of the chain"),
])
def test_board_check_refuses_what_a_builder_could_not_wire(tmp_path, change, says):
    d = definition("pico-reference")
    d["name"] = "mine"
    change(d)
    result = run("board", "check", str(write(tmp_path, "mine", d)))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"tallyboard: {says}"), result.stderr


def test_board_draw_draws_nothing_for_a_broken_definition(tmp_path):
    (tmp_path / "bad.json").write_text('{"name": "bad", "leds": ')
    result = run("board", "draw", str(tmp_path / "bad.json"), "--out", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"tallyboard: board: {tmp_path / 'bad.json'} is not valid JSON; fix ")
    assert not (tmp_path / "out").exists()


def test_board_check_of_an_unknown_name_says_where_it_looked():
    result = run("board", "check", "nope")
    assert result.exit_code == 1
    assert result.stderr == (f"tallyboard: board: no definition file {ROOT / 'board' / 'nope.json'}; the "
                             "definitions there: pico-reference, pico2-serpentine-nooled, pico2w-reference, "
                             "picow-reference\n")


def test_the_readme_checks_a_board_with_the_command():
    text = (ROOT / "board" / "README.md").read_text()
    assert "tallyboard board check your-name" in text
    assert "python -c" not in text
    assert "tallyboard board draw" in text
