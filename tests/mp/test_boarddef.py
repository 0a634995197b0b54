# Board definitions: the reference wiring and the serpentine Pico 2 build
# are data only; the loader refuses broken definitions with a clear message.
from tallypanel import boarddef

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"


def _reference():
    return boarddef.find("pico-reference", BOARD_DIR)


def _valid_dict():
    return {
        "name": "t", "leds": {"pin": 2, "count": 132, "chain": [
            [0, "station", 0, 0], [0, "tally", 0, 44], [0, "king", 0, 19],
            [1, "station", 0, 0], [1, "tally", 0, 44], [1, "king", 0, 19]]},
        "oled": None, "buttons": {"seats": [10, 11]}, "power": {"budget_ma": 500}}


def _valid_with(path, value):
    """The valid definition with one value changed: path is the keys down to it;
    a list index equal to the list's length appends the value."""
    d = _valid_dict()
    at = d
    for key in path[:-1]:
        at = at[key]
    if isinstance(at, list) and path[-1] == len(at):
        at.append(value)
    else:
        at[path[-1]] = value
    return d


def _assert_leds(b, rows):
    """rows: (player, run, hole, led): that hole of the player's run is LED led."""
    for player, run, hole, led in rows:
        assert b.led(player, run, hole) == led, (player, run, hole, led)


def _refused(d, words):
    try:
        boarddef.from_dict(d)
    except ValueError as exc:
        text = str(exc)
        assert text.startswith("board: "), text
        for word in words:
            assert word in text, text
        return
    raise AssertionError("accepted a broken definition")


def test_reference_chain_runs_hole_by_hole_along_each_player():
    b = _reference()
    assert b.name == "pico-reference" and b.led_count == 132 and b.has_oled
    # Runs: p0 station (LED 0), tally 0..44 (1..45), king 0..19 (46..65);
    # p1 station (66), tally (67..111), king (112..131).
    _assert_leds(b, ((0, boarddef.STATION, 0, 0), (0, boarddef.TALLY, 0, 1),
                     (0, boarddef.TALLY, 15, 16), (0, boarddef.TALLY, 44, 45),
                     (0, boarddef.KING, 0, 46), (0, boarddef.KING, 19, 65),
                     (1, boarddef.STATION, 0, 66), (1, boarddef.TALLY, 0, 67),
                     (1, boarddef.KING, 19, 131)))
    assert b.oled_sda == 4 and b.oled_scl == 5 and b.oled_address == 0x3C
    assert bytes(b.seat_pins) == bytes([10, 11, 12, 13])
    assert b.undo_pin == 14 and b.shift_pin == 15
    assert (b.encoder_a, b.encoder_b, b.encoder_push) == (16, 17, 18)
    assert b.budget_ma == 500


def test_serpentine_build_is_data_only():
    b = boarddef.find("pico2-serpentine-nooled", BOARD_DIR)
    assert b.mcu == "rp2350" and not b.has_oled
    # Runs: p0 station 0; tally 0..29 -> 1..30; tally 44..30 -> 31..45;
    # king 0..19 -> 46..65; p1 king 0..19 -> 66..85; p1 tally 44..30 -> 86..100;
    # p1 station 101; p1 tally 0..29 -> 102..131.
    _assert_leds(b, ((0, boarddef.TALLY, 29, 30), (0, boarddef.TALLY, 44, 31),
                     (0, boarddef.TALLY, 30, 45), (1, boarddef.KING, 0, 66),
                     (1, boarddef.TALLY, 44, 86), (1, boarddef.TALLY, 30, 100),
                     (1, boarddef.STATION, 0, 101), (1, boarddef.TALLY, 0, 102),
                     (1, boarddef.TALLY, 29, 131)))
    assert b.undo_pin == 8 and b.shift_pin == boarddef.NO_PIN
    assert len(b.seat_pins) == 2


def test_every_led_is_one_hole_on_both_boards():
    for name in ("pico-reference", "pico2-serpentine-nooled", "picow-reference", "pico2w-reference"):
        b = boarddef.find(name, BOARD_DIR)
        seen = sorted(b.led_of)
        assert seen == list(range(132)), name


def test_broken_definitions_are_refused_with_the_field():
    d = _valid_dict()
    boarddef.from_dict(d)  # the base is valid
    for path, value, words in (
            (("leds", "chain", 1), [0, "tally", 0, 43], ("tally hole 44", "player 0", "without an LED")),
            (("leds", "chain", 6), [1, "king", 3, 3], ("king hole 3", "twice")),   # appended
            (("buttons", "seats"), [10, 2], ("buttons.seats[1]", "GPIO 2", "taken")),
            (("leds", "pin"), 30, ("leds.pin", "0 to 29")),
            (("leds", "count"), 100, ("leds.count",)),
            (("leds", "chain", 0), [0, "peg", 0, 0], ("station, tally or king",)),
            (("leds", "chain", 2), [0, "king", 0, 20], ("last hole", "0 to 19")),
            (("power", "budget_ma"), 120, ("idle current",))):   # below 132 LEDs x 1 mA idle
        _refused(_valid_with(path, value), words)


def test_the_seat_buttons_letters_and_lights():
    # the reference board names none: A to D, seat 0 first, and no light beside a button
    b = _reference()
    assert b.seat_letters == b"ABCD"
    assert bytes(b.seat_lights) == bytes([boarddef.NO_LIGHT] * 4)
    # the serpentine build: LEDs 132 and 133, after its 132 holes, beside its two buttons A and B
    b = boarddef.find("pico2-serpentine-nooled", BOARD_DIR)
    assert (b.led_count, b.seat_letters, bytes(b.seat_lights)) == (134, b"AB", bytes([132, 133]))
    # letters of its own, and a light beside the second button only
    d = _valid_with(("leds", "count"), 133)
    d["buttons"]["letters"] = "N2"
    d["buttons"]["lights"] = [None, 132]
    b = boarddef.from_dict(d)
    assert (b.seat_letters, bytes(b.seat_lights)) == (b"N2", bytes([boarddef.NO_LIGHT, 132]))


def test_broken_letters_and_lights_are_refused_with_the_field():
    for path, value, words in (
            (("buttons", "letters"), "ABC", ("buttons.letters", "2 letters", "e.g. AB")),
            (("buttons", "letters"), ["A", "B"], ("buttons.letters", "a text")),
            (("buttons", "letters"), "Ab", ("buttons.letters[1]", "capital letter or a digit")),
            (("buttons", "letters"), "AA", ("names A twice",)),
            (("buttons", "lights"), [132], ("buttons.lights", "2 LEDs")),
            (("buttons", "lights"), [None, 132], ("buttons.lights[1]", "0 to 131")),   # 132 LEDs: 0-131
            (("buttons", "lights"), [5, None], ("buttons.lights[0]", "LED 5 is a hole's")),
            (("buttons", "lights"), [None, True], ("buttons.lights[1]", "whole number"))):
        _refused(_valid_with(path, value), words)
    d = _valid_with(("leds", "count"), 134)
    d["buttons"]["lights"] = [133, 133]
    _refused(d, ("buttons.lights[1]", "LED 133", "beside another button"))


def test_missing_file_and_bad_names_are_refused():
    for name in ("no-such-board", "../etc/passwd"):
        try:
            boarddef.find(name, BOARD_DIR)
        except ValueError as exc:
            assert str(exc).startswith("board: "), exc
            continue
        raise AssertionError(name)


def _message(d, name=None, mcu=None, wifi=None):
    try:
        if name is None:
            boarddef.from_dict(d)
        else:
            boarddef.checked(d, name, mcu, wifi)
    except ValueError as exc:
        return str(exc)
    raise AssertionError("accepted")


def test_the_pico_w_builds_are_the_reference_wiring_with_the_wireless_chip():
    for name, mcu in (("picow-reference", "rp2040"), ("pico2w-reference", "rp2350")):
        b = boarddef.find(name, BOARD_DIR, mcu, True)
        assert b.name == name and b.mcu == mcu and b.wifi and b.has_oled
        # the reference's pins (GP2, GP4/5, GP10-18): none of the chip's 23, 24, 25, 29
        assert b.led_pin == 2 and bytes(b.seat_pins) == bytes([10, 11, 12, 13])
        assert (b.encoder_a, b.encoder_b, b.encoder_push) == (16, 17, 18)
        assert b.wireless_pin == boarddef.NO_PIN
    assert not _reference().wifi


def test_a_pico_w_definition_may_not_wire_the_wireless_chips_gpios():
    # the Pico W and Pico 2 W datasheets: GP23 WL_ON, GP24 WL_D, GP25 WL_CS, GP29 WL_CLK
    assert boarddef.WIFI_PINS == bytes([23, 24, 25, 29])
    for path, pin, signal in ((("leds", "pin"), 23, "WL_ON"), (("buttons", "seats", 1), 24, "WL_D"),
                              (("buttons", "undo"), 25, "WL_CS"), (("buttons", "shift"), 29, "WL_CLK")):
        d = _valid_with(path, pin)
        boarddef.from_dict(d)          # a plain Pico may use it (GP25 is its LED, but it is a GPIO)
        d["wifi"] = True
        text = _message(d)
        field = ".".join(str(k) for k in path).replace(".1", "[1]")
        assert text == ("board: %s uses GPIO %d, which the wireless chip of a Pico W or Pico 2 W takes (%s, %s): "
                        "wire it to a free GPIO (0 to 22, 26 to 28)" % (
                            field, pin, signal, {"WL_ON": "the chip's power", "WL_D": "its data",
                                                 "WL_CS": "its chip select", "WL_CLK": "its clock"}[signal])), text
    d = _valid_with(("buttons", "seats", 1), 22)    # GP22 and GP26-28 stay free
    d["wifi"] = True
    assert boarddef.from_dict(d).wifi
    d["wifi"] = "yes"
    assert _message(d) == "board: wifi must be true (a Pico W or Pico 2 W) or false"


def test_a_definition_and_the_board_it_runs_on_agree_on_the_wireless_chip():
    wireless = _valid_dict()
    wireless["wifi"] = True
    assert _message(wireless, "w", "rp2040", False) == (
        "board: w.json is for a Pico W or Pico 2 W (\"wifi\": true), and this board has no wireless "
        "chip: choose a definition without wifi")
    plain = _valid_with(("buttons", "undo"), 25)
    assert boarddef.from_dict(plain).wireless_pin == 25
    assert _message(plain, "p", "rp2040", True) == (
        "board: p.json wires GPIO 25, which this board's wireless chip takes: choose a definition made "
        "for a Pico W (\"wifi\": true)")
    # a plain definition that leaves the chip's GPIOs alone runs on a W, and is one there
    assert boarddef.checked(_valid_dict(), "t", "rp2040", True).wifi
    assert not boarddef.checked(_valid_dict(), "t", "rp2040", False).wifi


def test_the_self_test_button_is_one_of_the_board_s_buttons_but_not_undo():
    assert _reference().test_pin == 15                    # pico-reference.json: shift
    assert boarddef.from_dict(_valid_dict()).test_pin == -1     # none named: no self-test from the board
    assert boarddef.from_dict(_valid_with(("buttons", "test"), 11)).test_pin == 11   # seat 1
    for value in (14, 3, "11", 40, -1):                  # undo (safe mode), no button's GPIO, not a GPIO
        d = _valid_with(("buttons", "test"), value)
        d["buttons"]["undo"] = 14
        _refused(d, ("buttons.test", "safe mode"))
    # without undo, seat 0 is safe mode's (wiring.safe_mode_pin): held at power-up it never reaches the test
    _refused(_valid_with(("buttons", "test"), 10), ("buttons.test", "seat 0"))
