"""Draws docs/img/architecture.png: the layers of tallyboard and the route of
one scoring event (docs/architecture.md). Run from the checkout:

    python docs/img/architecture.py

Pillow only, with its bundled font, so the picture is the same on every machine."""
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1500, 1090
INK = (40, 40, 48)
SOFT = (110, 110, 120)
ROUTE = (200, 60, 30)
LAYER_FILL = {"host": (232, 240, 252), "panel": (236, 248, 236), "run": (252, 244, 228),
              "core": (246, 236, 250), "hw": (240, 240, 240)}


def font(size):
    return ImageFont.load_default(size=size)


def box(draw, xy, title, lines, fill, title_size=17):
    x0, y0, x1, y1 = xy
    draw.rounded_rectangle(xy, radius=10, fill=fill, outline=INK, width=2)
    draw.text((x0 + 12, y0 + 8), title, font=font(title_size), fill=INK)
    y = y0 + 12 + title_size + 4
    for line in lines:
        draw.text((x0 + 14, y), line, font=font(14), fill=SOFT)
        y += 19


def layer(draw, xy, name, note, fill):
    x0, y0, x1, y1 = xy
    draw.rectangle(xy, fill=fill, outline=SOFT, width=1)
    draw.text((x0 + 10, y0 + 6), name, font=font(20), fill=INK)
    draw.text((x0 + 10, y0 + 31), note, font=font(13), fill=SOFT)


def arrow(draw, points, step, label_at=None, colour=ROUTE):
    draw.line(points, fill=colour, width=3, joint="curve")
    (x0, y0), (x1, y1) = points[-2], points[-1]
    dx, dy = x1 - x0, y1 - y0
    length = max((dx * dx + dy * dy) ** 0.5, 1)
    ux, uy = dx / length, dy / length
    head = [(x1, y1), (x1 - 14 * ux + 7 * uy, y1 - 14 * uy - 7 * ux), (x1 - 14 * ux - 7 * uy, y1 - 14 * uy + 7 * ux)]
    draw.polygon(head, fill=colour)
    if step is not None:
        cx, cy = label_at or ((points[0][0] + x1) / 2, (points[0][1] + y1) / 2)
        draw.ellipse((cx - 13, cy - 13, cx + 13, cy + 13), fill=colour)
        text = str(step)
        w = draw.textlength(text, font=font(15))
        draw.text((cx - w / 2, cy - 9), text, font=font(15), fill=(255, 255, 255))


def main():
    image = Image.new("RGB", (WIDTH, HEIGHT), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    draw.text((30, 18), "tallyboard: the layers, and the route of one scoring event", font=font(26), fill=INK)

    # --- host (CPython) --------------------------------------------------------
    layer(draw, (20, 70, 560, 960), "host/tallyboard (CPython)", "the CLI; imports the board's rules, never re-implements one",
          LAYER_FILL["host"])
    box(draw, (45, 130, 535, 250), "commands/  (click, one file per concern)",
        ["scoring.py  new, hand, peg, end, enter, undo, redo", "connect.py  finds the board (--port) or the emulator",
         "live.py  watch, monitor    config.py, deploy.py, ..."], (255, 255, 255))
    box(draw, (45, 290, 535, 400), "boardlink/  client.py + transport.py",
        ["numbered requests, CRC, retries and timeouts", "Transport: pyserial (USB CDC) or the emulator's pty",
         "wire.py: frames and checksums (host side)"], (255, 255, 255))
    box(draw, (45, 440, 535, 580), "games/  (one profile per game, one registry)",
        ["record hand <-> core events, options codec", "sheet JSON and table, how the game is won",
         "simulation candidate", "scorebook/, tooling/render.py only look profiles up"], (255, 255, 255))
    box(draw, (45, 620, 535, 720), "scorebook/archive.py (SQLite), tooling/render.py",
        ["finished games, checked by the core before they are stored", "the exact LED frame and OLED, drawn by the firmware's code"],
        (255, 255, 255))
    box(draw, (45, 760, 535, 860), "tooling/emulator.py",
        ["the firmware file set run by the MicroPython unix port", "stand-ins for machine, neopixel, rp2 (firmware/emu)"],
        (255, 255, 255))

    # --- board (MicroPython) ------------------------------------------------------
    bx0, bx1 = 640, 1480
    draw.text((bx0, 44), "firmware/ (MicroPython on the Pico; imports only go down)", font=font(17), fill=INK)
    layer(draw, (bx0, 70, bx1, 380), "tallypanel: display and input", "what the board shows and how it is worked",
          LAYER_FILL["panel"])
    box(draw, (bx0 + 20, 130, bx0 + 270, 250), "inputs.py", ["asyncio tasks poll buttons", "and the encoder; debounce"],
        (255, 255, 255))
    box(draw, (bx0 + 300, 130, bx0 + 560, 250), "menu.py + game views", ["seat press -> packed event", "hand entry on the encoder"],
        (255, 255, 255))
    box(draw, (bx0 + 590, 130, bx1 - 20, 250), "view.py", ["after a change: only what", "differs goes out"], (255, 255, 255))
    box(draw, (bx0 + 20, 270, bx0 + 340, 365), "ledfield.py  ->  WS2812 chain", ["the Roquet peg field, current budget"],
        (255, 255, 255))
    box(draw, (bx0 + 370, 270, bx0 + 660, 365), "sheetview.py  ->  SSD1306", ["the Skicket score sheet (framebuf)"],
        (255, 255, 255))

    layer(draw, (bx0, 400, bx1, 700), "tallyrun: the board runtime", "one change path: check, journal, apply, reply, draw",
          LAYER_FILL["run"])
    box(draw, (bx0 + 20, 460, bx0 + 300, 580), "protocol.py", ["LineReader, Request.parse,", "Writer: no allocation",
                                                                "THE message table"], (255, 255, 255))
    box(draw, (bx0 + 330, 460, bx0 + 590, 580), "app.py", ["dispatch, retry cache,", "the change path, events"],
        (255, 255, 255))
    box(draw, (bx0 + 620, 460, bx1 - 20, 580), "journal.py, config.py", ["12-byte records with CRC,", "snapshot; settings"],
        (255, 255, 255))
    draw.text((bx0 + 620, 600), "flash (littlefs)", font=font(15), fill=SOFT)

    layer(draw, (bx0, 720, bx1, 960), "tallycore: the rules", "pure, no I/O; the host imports the same files",
          LAYER_FILL["core"])
    box(draw, (bx0 + 20, 780, bx0 + 330, 900), "game.py", ["bytearray state, array('i') log", "undo/redo by replay"],
        (255, 255, 255))
    box(draw, (bx0 + 360, 780, bx1 - 20, 900), "games.py + one module per game",
        ["skicket, roquet, bishops_whist, rummy, ... (load on demand)", "check(event), apply(event): small ints < 2**30"],
        (255, 255, 255))

    # --- the route of one event -----------------------------------------------------
    arrow(draw, [(300, 250), (300, 290)], 1, (330, 270))                                   # command -> client
    arrow(draw, [(535, 335), (590, 335), (590, 520), (bx0 + 20, 520)], 2, (590, 470))     # request line
    arrow(draw, [(bx0 + 270, 190), (bx0 + 300, 190)], "1'", (bx0 + 285, 150))              # press -> menu
    arrow(draw, [(bx0 + 415, 250), (bx0 + 415, 440), (bx0 + 440, 460)], None)              # menu -> app
    arrow(draw, [(bx0 + 300, 540), (bx0 + 330, 540)], 3, (bx0 + 315, 600))                 # parsed -> app
    arrow(draw, [(bx0 + 460, 580), (bx0 + 460, 780)], 4, (bx0 + 485, 690))                 # check + apply
    arrow(draw, [(bx0 + 590, 500), (bx0 + 620, 500)], 5, (bx0 + 605, 445))                 # journal
    arrow(draw, [(bx0 + 400, 580), (bx0 + 400, 640), (610, 640), (610, 375), (535, 375)], 6, (610, 600))  # reply
    arrow(draw, [(bx0 + 560, 460), (bx0 + 560, 420), (bx0 + 700, 420), (bx0 + 700, 250)], 7, (bx0 + 725, 330))
    arrow(draw, [(bx0 + 620, 250), (bx0 + 620, 270)], None, colour=SOFT)                   # view -> sheet
    arrow(draw, [(bx0 + 600, 250), (bx0 + 600, 259), (bx0 + 180, 259), (bx0 + 180, 270)], None, colour=SOFT) # view -> leds
    arrow(draw, [(300, 400), (300, 440)], 8, (330, 420))                                   # host sheet

    legend = ["1  a CLI command (1' a button press on the board)", "2  one request line: seq, verb, values, CRC",
              "3  parsed in place, no allocation", "4  the game's rules check and apply the packed event",
              "5  journaled on flash before anything is said", "6  the reply goes to the host first",
              "7  then the pushed event, the LEDs and the OLED", "8  the host's sheet, from the same rules"]
    y = 985
    for i, line in enumerate(legend):
        draw.text((30 + (i // 4) * 740, y + (i % 4) * 24), line, font=font(16), fill=ROUTE)
    out = Path(__file__).with_suffix(".png")
    image.save(out, optimize=True)
    return out


if __name__ == "__main__":
    print(main())
