"""The emulator's stand-ins for machine and neopixel (firmware/emu/), run by
the MicroPython unix port as the emulator runs them: the OLED image in
oled.bin is the SSD1306 driver's buffer, leds.bin is the raw GRB frame, and
pins.bin is read as the buttons."""
import pytest
import os
import subprocess
from pathlib import Path

from tallyboard.tooling.mpunix import micropython_binary

pytestmark = [pytest.mark.emulator]

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"


def run_mp(code: str, io: Path) -> str:
    env = dict(os.environ)
    env["MICROPYPATH"] = os.pathsep.join([str(FIRMWARE / "emu"), str(FIRMWARE), ".frozen"])
    env["TALLYBOARD_EMU_IO"] = str(io)
    proc = subprocess.run([micropython_binary(), "-c", code], env=env, capture_output=True, text=True,
                          timeout=60, cwd=io)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_oled_bin_is_the_driver_buffer(tmp_path: Path) -> None:
    out = run_mp(
        "import machine\n"
        "from tallypanel.ssd1306 import SSD1306_I2C\n"
        "d = SSD1306_I2C(machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5)))\n"
        "d.text('Tally 123', 3, 9, 1)\n"
        "d.fill_rect(100, 40, 20, 20, 1)\n"
        "d.show()\n"
        "open('want.bin', 'wb').write(d.buffer)\n"
        "d.pixel(0, 63, 1)\n"
        "d.show(1 << 7)\n"          # only the last page
        "open('want2.bin', 'wb').write(d.buffer)\n"
        "print('ok')\n", tmp_path)
    assert out.strip() == "ok"
    got = (tmp_path / "oled.bin").read_bytes()
    assert len(got) == 1024
    assert got == (tmp_path / "want2.bin").read_bytes()
    # pixel (0, 63): page 7, column 0, bit 7
    assert got[7 * 128] & 0x80
    assert (tmp_path / "want.bin").read_bytes()[7 * 128] & 0x80 == 0
    assert not list(tmp_path.glob("*.tmp"))   # written then renamed


def test_leds_bin_is_the_grb_frame(tmp_path: Path) -> None:
    run_mp(
        "import machine, neopixel\n"
        "n = neopixel.NeoPixel(machine.Pin(2, machine.Pin.OUT), 3)\n"
        "n[0] = (255, 0, 0)\n"          # red: GRB bytes 00 FF 00
        "n[2] = (1, 2, 3)\n"            # GRB bytes 02 01 03
        "n.write()\n", tmp_path)
    assert (tmp_path / "leds.bin").read_bytes() == bytes([0, 255, 0, 0, 0, 0, 2, 1, 3])


def test_pins_bin_is_read_as_the_gpio_levels(tmp_path: Path) -> None:
    code = ("import machine, time\n"
            "p = machine.Pin(10, machine.Pin.IN, machine.Pin.PULL_UP)\n"
            "q = machine.Pin(29, machine.Pin.IN, machine.Pin.PULL_UP)\n"
            "print(p.value(), q.value())\n")
    assert run_mp(code, tmp_path).split() == ["1", "1"]      # no file: all released
    levels = bytearray(b"\x01" * 30)
    levels[10] = 0
    (tmp_path / "pins.bin").write_bytes(bytes(levels))
    assert run_mp(code, tmp_path).split() == ["0", "1"]
    (tmp_path / "pins.bin").write_bytes(b"\x00\x00")           # a short file: the rest high
    assert run_mp(code, tmp_path).split() == ["1", "1"]


def test_watchdog_and_reset_cause(tmp_path: Path) -> None:
    out = run_mp(
        "from tallypanel import hw\n"
        "w = hw.Watchdog()\n"
        "w.feed(); w.feed(); w.stop()\n"
        "print(w.wdt.feeds, w.wdt.running, hw.reset_cause(), hw.is_emulator())\n", tmp_path)
    assert out.split() == ["2", "False", "power-on", "True"]
