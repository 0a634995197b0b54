# The board's settings on flash (tallyrun/config.py): saved with
# write-then-rename, every value range-checked again when loaded, a bad line
# keeping its default. Runs under CPython and the MicroPython unix port.
import os

from tallyrun import protocol as P
from tallyrun.config import Config, CONFIG_FILE
from mpfixtures import cleanup, folder


def test_defaults():
    c = Config("/nonexistent-folder/")
    assert not c.load()
    assert c.brightness == 64 and c.budget_ma == 500 and c.board == "pico-reference"
    assert c.names[0] == "P1" and c.names[7] == "P8"
    assert c.colours[1] == 0x0040FF


def test_save_and_load_round_trip():
    root = folder("config")
    try:
        c = Config(root)
        c.set(P.CFG_BRIGHTNESS, 0, 255)
        c.set(P.CFG_BUDGET, 0, 100)
        c.set(P.CFG_NAME, 3, "Dee-3.x_y")
        c.set(P.CFG_COLOUR, 7, 0xABCDEF)
        c.set(P.CFG_BOARD, 0, "pico2-serpentine-nooled")
        c.save()
        assert CONFIG_FILE + ".tmp" not in os.listdir(root[:-1])
        again = Config(root)
        assert again.load()
        assert again.problems == 0
        assert (again.brightness, again.budget_ma) == (255, 100)
        assert again.names[3] == "Dee-3.x_y" and again.colours[7] == 0xABCDEF
        assert again.board == "pico2-serpentine-nooled"
    finally:
        cleanup(root)


def test_set_checks_ranges():
    c = Config("")
    for key, player, value in ((P.CFG_BRIGHTNESS, 0, 256), (P.CFG_BRIGHTNESS, 0, -1), (P.CFG_BUDGET, 0, 99),
                               (P.CFG_BUDGET, 0, 3001), (P.CFG_NAME, 8, "Ann"), (P.CFG_NAME, 0, ""),
                               (P.CFG_NAME, 0, "a b"), (P.CFG_NAME, 0, "x" * 13), (P.CFG_COLOUR, 0, 0x1000000),
                               (P.CFG_BOARD, 0, "../etc"), (P.CFG_BRIGHTNESS, 0, "12")):
        try:
            c.set(key, player, value)
        except ValueError:
            continue
        assert False, (key, player, value)
    assert c.brightness == 64 and c.names[0] == "P1"
    try:
        c.set(P.CFG_NAME, 8, "Ann")
    except ValueError as exc:
        # eight players (0 to 7) have names, not four
        assert str(exc) == "player: must be 0 to 7", exc


def test_a_name_is_the_name_characters_only():
    # the host's rule for the board's names (tallyboard.common.names): 1 to 12 of NAME_CHARS, so an escape
    # sequence, a bidi override or a thirteenth character is refused by the board itself too
    c = Config("")
    for value in ("A\x1b]0;PWNED\x07", "\u202eevil", "evil\u2066", "Ann\x00", "Jos\u00e9", "Ann Lee", "x" * 13):
        try:
            c.set(P.CFG_NAME, 0, value)
        except ValueError as exc:
            assert str(exc) == "name: 1 to 12 letters, digits, _ - .", exc
            continue
        assert False, value
    for value in ("Ann", "Dee-3.x_y", "x" * 12):
        c.set(P.CFG_NAME, 1, value)
        assert c.names[1] == value
    # every byte: taken alone exactly when it is one of NAME_CHARS
    for code in range(1, 128):
        try:
            c.set(P.CFG_NAME, 2, chr(code))
            taken = True
        except ValueError:
            taken = False
        assert taken == (P.NAME_CHARS.find(bytes((code,))) >= 0), code
    assert c.names[0] == "P1"


def test_a_damaged_file_keeps_the_defaults_for_its_bad_lines():
    root = folder("config")
    try:
        with open(root + CONFIG_FILE, "w") as f:
            f.write("brightness 300\n"           # out of range
                    "budget_ma 750\n"            # fine
                    "name.2 Bob\n"               # fine
                    "name.9 Zed\n"               # no player 9
                    "colour.1 GGGGGG\n"          # not hex
                    "colour.2 00FF00\n"          # fine
                    "board __import__('os')\n"   # never evaluated; not a board name
                    "volume 11\n"                # no such key
                    "brightness\n"               # no value
                    "\x00\xff garbage")
        c = Config(root)
        assert c.load()
        assert c.problems == 7
        assert c.brightness == 64 and c.budget_ma == 750
        assert c.names[2] == "Bob" and c.colours[2] == 0x00FF00 and c.colours[1] == 0x0040FF
        assert c.board == "pico-reference"
    finally:
        cleanup(root)


def test_one_byte_that_is_not_utf8_costs_only_its_line():
    root = folder("config")
    try:
        with open(root + CONFIG_FILE, "wb") as f:
            f.write(b"brightness 99\nname.0 A\xffn\nname.1 Bob\nbudget_ma 900\n")
        c = Config(root)
        assert c.load()
        # line 2 cannot be read: it alone keeps its default (P1)
        assert c.problems == 1 and c.bad_lines == [2]
        assert c.brightness == 99 and c.names[0] == "P1" and c.names[1] == "Bob" and c.budget_ma == 900
    finally:
        cleanup(root)


def test_a_club_table_is_kept_and_range_checked():
    # event: a 16-bit tag of the evening, table 1..99 and round 0..99 (0: none)
    c = Config("")
    assert (c.event, c.table, c.round) == (0, 0, 0)
    for key, value in ((P.CFG_EVENT, 65536), (P.CFG_EVENT, -1), (P.CFG_TABLE, 100), (P.CFG_ROUND, 100),
                       (P.CFG_TABLE, "3")):
        try:
            c.set(key, 0, value)
        except ValueError:
            continue
        assert False, (key, value)
    root = folder("config")
    try:
        c = Config(root)
        c.set(P.CFG_EVENT, 0, 65535)
        c.set(P.CFG_TABLE, 0, 99)
        c.set(P.CFG_ROUND, 0, 2)
        c.save()
        again = Config(root)
        assert again.load() and again.problems == 0
        assert (again.event, again.table, again.round) == (65535, 99, 2)
        assert again.get(P.CFG_TABLE) == 99 and again.get(P.CFG_EVENT) == 65535
        # a line out of range keeps its default, the others load
        with open(root + CONFIG_FILE, "ab") as f:
            f.write(b"table 100\n")
        again = Config(root)
        again.load()
        assert again.problems == 1 and again.table == 99
    finally:
        cleanup(root)


def test_a_file_from_before_the_club_keys_loads():
    root = folder("config")
    try:
        with open(root + CONFIG_FILE, "wb") as f:
            f.write(b"brightness 40\nbudget_ma 500\nboard pico-reference\nconfirm 1\nname.0 Ann\n")
        c = Config(root)
        assert c.load() and c.problems == 0
        assert (c.brightness, c.confirm, c.names[0]) == (40, 1, "Ann")
        assert (c.event, c.table, c.round) == (0, 0, 0)
    finally:
        cleanup(root)
