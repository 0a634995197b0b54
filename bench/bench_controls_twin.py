"""What a player waits for after a press on the board's own controls, on the device twin (the
emulated RP2040 running the stock MicroPython v1.28.0 image, the firmware deployed with
`tallyboard deploy`, the SSD1306's I²C bus time and the WS2812 wire time in).

    python bench/bench_controls_twin.py [--presses N] [--json]

A Roquet game for two; seat 0's button pressed N times (80 ms, with contact bounce), each
pegging a point (docs/rules.md RQ4; a short press counts when it is let go). For each press,
in emulated time since the contact opened: the LED frame that shows the peg latched, and the
OLED caught up (the end of the display's last I²C transaction after it). Then the undo button
the same way, from the press (undo has no long press: it counts at once). Median and most of each; issue 20's goals: the LEDs within 30 ms, the OLED
within 40 ms. Needs node, socat and twin/'s rp2040js (`npm ci` in twin/)."""
from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from twin_harness import Twin, add_flash_option, bench_main, deployed  # noqa: E402

PRESS_MS = 80


def one_press(control, name: str, counts_at: str) -> dict:
    """Press a control and wait for the display to catch up; the latencies from when the press
    counts (counts_at: "last_release_ms", a seat's short press; "last_press_ms", undo's)."""
    before = control.stats()
    control.press(name, ms=PRESS_MS)
    control.settle(quiet_ms=150, led_frames=before["led_frames"] + 1)
    after = control.stats()
    released = after[counts_at]
    return {"leds_ms": after["led_last_frame_ms"] - released,
            "oled_ms": (after["oled_last_ms"] - released) if after["oled_bytes"] > before["oled_bytes"] else None,
            "led_frames": after["led_frames"] - before["led_frames"],
            "oled_bytes": after["oled_bytes"] - before["oled_bytes"]}


def summary(presses: list[dict]) -> dict:
    leds = [p["leds_ms"] for p in presses]
    oled = [p["oled_ms"] for p in presses if p["oled_ms"] is not None]
    return {"presses": len(presses),
            "leds_median_ms": round(statistics.median(leds), 2), "leds_max_ms": round(max(leds), 2),
            "oled_median_ms": round(statistics.median(oled), 2) if oled else None,
            "oled_max_ms": round(max(oled), 2) if oled else None,
            "led_frames_per_press": round(sum(p["led_frames"] for p in presses) / len(presses), 2),
            "oled_bytes_per_press": round(sum(p["oled_bytes"] for p in presses) / len(presses))}


def run(count: int, flash: Path | None = None) -> dict:
    with tempfile.TemporaryDirectory() as tmp, deployed(Twin(Path(tmp)), flash) as twin:
        return _presses(twin, count)


def _presses(twin: Twin, count: int) -> dict:
    done = twin.tallyboard("new", "roquet", "--name", "Ann", "--name", "Bob")
    if done.returncode:
        raise RuntimeError(f"tallyboard new failed: {done.stdout}{done.stderr}")
    control = twin.control
    control.settle(quiet_ms=300)
    pegs = [one_press(control, "seat0", "last_release_ms") for _ in range(count)]
    undos = [one_press(control, "undo", "last_press_ms") for _ in range(count)]
    idle = control.stats()
    control.settle(quiet_ms=2000)
    after = control.stats()
    busy = (after["busy_ms"] - idle["busy_ms"]) / (after["emu_ms"] - idle["emu_ms"])
    wrong = control.errors()
    if wrong["ssd1306"] or wrong["ws2812"]:
        raise RuntimeError(f"the twin's parts saw the firmware get them wrong: {wrong}")
    return {"seat_press": summary(pegs), "undo_press": summary(undos), "idle_busy_percent": round(100 * busy, 1)}


def show(figures: dict) -> None:
    for key, what in (("seat_press", "seat 0 pressed (a peg), from its release"),
                      ("undo_press", "undo pressed, from the press")):
        f = figures[key]
        print(f"{what}, {f['presses']} times:")
        print(f"  LED frame latched   median {f['leds_median_ms']:6.2f} ms, most {f['leds_max_ms']:6.2f} ms "
              f"({f['led_frames_per_press']} frames a press)")
        print(f"  OLED caught up      median {f['oled_median_ms']:6.2f} ms, most {f['oled_max_ms']:6.2f} ms "
              f"({f['oled_bytes_per_press']} bytes a press)")
    print(f"idle for 2 s after them: {figures['idle_busy_percent']} % busy")


def main() -> int:
    def options(parser):
        parser.add_argument("--presses", type=int, default=10)
        add_flash_option(parser)

    return bench_main(__doc__, "bench_controls_twin", lambda args: run(args.presses, args.flash), show, options)


if __name__ == "__main__":
    sys.exit(main())
