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


def test_the_romfs_partition_is_romfs_bin_written_a_block_at_a_time(tmp_path: Path) -> None:
    from tallyboard.tooling import emulator

    (tmp_path / emulator.ROMFS_FILE).write_bytes(b"\xff" * 8192)       # two 4096-byte blocks
    out = run_mp(
        "import machine, tallyboot\n"
        "print(machine.ROMFS_FILE, machine.rom_ioctl(1))\n"
        "p = tallyboot.partition()\n"
        "p.writeblocks(1, b'\\x01' * 4096)\n"              # erased, then programmed
        "p.ioctl(6, 0)\n"
        "p.writeblocks(0, b'ab', 2)\n"                      # programmed at an offset, not erased
        "print(len(memoryview(p)), bytes(p[0:5]), p[4096], p.ioctl(4, 0))\n", tmp_path)
    assert out.split("\n")[0] == f"{emulator.ROMFS_FILE} 1"
    assert out.split("\n")[1] == "8192 b'\\xff\\xffab\\xff' 1 2"
    held = (tmp_path / emulator.ROMFS_FILE).read_bytes()
    assert held == b"\xff\xffab" + b"\xff" * 4092 + b"\x01" * 4096     # the file holds each write at once


def test_no_romfs_bin_no_partition(tmp_path: Path) -> None:
    assert run_mp("import machine, tallyboot\nprint(machine.rom_ioctl(1), tallyboot.partition())\n",
                  tmp_path).split() == ["0", "None"]


def test_a_one_shot_timer_calls_back_once_its_period_is_gone_unless_deinit(tmp_path: Path) -> None:
    out = run_mp(
        "import machine, time\n"
        "heard = []\n"
        "t = machine.Timer(-1)\n"
        "t.init(mode=machine.Timer.ONE_SHOT, period=30, callback=lambda t: heard.append(1))\n"
        "u = machine.Timer(-1)\n"
        "u.init(mode=machine.Timer.ONE_SHOT, period=30, callback=lambda t: heard.append(2))\n"
        "u.deinit()\n"
        "for _ in range(400):\n"            # until it is heard: the wait is on the condition, 4 s at most
        "    if heard:\n"
        "        break\n"
        "    time.sleep_ms(10)\n"
        "time.sleep_ms(100)\n"              # (u's would have come with t's)
        "print(heard)\n", tmp_path)
    assert out.strip() == "[1]"
