"""The heap a board's club link takes on the chip (issue 24): the device twin (an emulated
RP2040 running the stock MicroPython v1.28.0 RPI_PICO image, which has no wireless chip),
the firmware deployed with `tallyboard deploy`, and stand-ins for what the Pico W's image
has and this one lacks: `network` (the emulator's WLAN, firmware/emu/network.py, its access
point in reach) and `socket` (a TCP socket whose far end answers as an MQTT broker does:
CONNACK, SUBACK, PUBACK, PINGRESP; nothing goes further, so the director never confirms and
the board's message stays waiting, sent again on the link's schedule).

    python bench/bench_wifi_twin.py [--image stock|pico|pico-w] [--tables N ...] [--json]

--image: the MicroPython image the twin runs. stock (the default): the twin's own RPI_PICO
image, the packages on littlefs. pico: tallyboard's RP2040 Pico image (image/README.md), the
packages in its ROMFS. pico-w: tallyboard's Pico W image, the packages in its ROMFS, the Pico
W's own heap: the twin has no wireless chip, and the image's `network` and `socket` are C
modules that would drive it, so boot.py puts the two stand-ins in sys.modules before the
firmware imports them (both Python, so they take heap the real ones do not: the figure is
the worse for it, by about 2 KB).

The board runs the Wi-Fi definition tests/wifi_boards.py makes (pico-reference with "wifi":
true) as table 2 of an evening; STATS (after a collection) three ways:

  * before the enrolment: the club link's settings only (tallynet.settings, NET over USB);
  * enrolled (NET SET, as `tallyboard wifi enroll` does), the link joined and connected to
    the broker: tallynet.link, its MQTT client, their buffers loaded;
  * the same with a Skicket game and a hand in it (its message numbered and waiting), or,
    where the heap left is too short for the game, the board's MemoryError said as a figure.

Then, the app stopped, what checking a director's round costs the chip: its own tag among
one per table against the one director's signature of before issue 30 (DIRECTOR_CHECK), for
rounds of 3, 12 and 20 tables (--tables: these sizes only; the tests run one, 3).

The heap in use is the chip's own (32-bit words); the free figure is this image's, which is
not a Pico W's: the Pico W's image gives its heap less than the Pico's (the wireless driver
and lwIP take RAM), so what a Pico W has left is its heap size less the heap in use here
(docs/benchmarks.md says where its size comes from). Needs node, socat and twin/'s rp2040js."""
from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "tests"))

from twin_broker import BROKER_ANSWERS  # noqa: E402
from twin_files import power_cycle  # noqa: E402
from twin_harness import RawRepl, Twin, add_flash_option, add_image_option, bench_main, deployed  # noqa: E402  (it puts host/ on sys.path)
from tallyboard.tooling.mpunix import STANDINS_DIR  # noqa: E402

TAG = 0x1A2B
TABLE = 2
DEFINITION = "wifi-test"          # tests/wifi_boards.py's name for it

# What the Pico W's image has and the RPI_PICO image lacks: `network` is the emulator's own stand-in
# (firmware/emu/network.py: the access point wifi.txt names is in reach), `socket` this one (what the
# board sends it, parsed as MQTT packets, is answered as a broker would).
SOCKET_STANDIN = '''\
# bench/bench_wifi_twin.py's stand-in for the Pico W's socket module: a TCP socket whose far end
# answers as an MQTT 3.1.1 broker would (CONNACK, SUBACK, PUBACK, PINGRESP); nothing is forwarded
''' + BROKER_ANSWERS + '''socket = BrokerEnd
'''


def _write_files(twin: Twin, files: dict[str, str]) -> None:
    """Files onto the twin's flash through its raw REPL (the app stopped), then a power cycle."""
    repl = RawRepl(twin.link)
    try:
        code = "import os\ntry:\n os.mkdir('lib')\nexcept OSError:\n pass\n"
        for path, text in files.items():
            code += f"with open({path!r}, 'w') as f:\n f.write({text!r})\n"
        repl.run(code + "print('written')\n", timeout=60)
    finally:
        repl.close()
    power_cycle(twin)


# boot.py on the Pico W image: the stand-ins where `import network` and `import socket` find them first
STANDINS_BOOT = """import micropython
micropython.alloc_emergency_exception_buf(100)
import sys
sys.path.append("/lib")
import standin_network, standin_socket
sys.modules["network"] = standin_network
sys.modules["socket"] = standin_socket
"""


# What checking a director's round costs the board (issue 30): its own tag among one per table
# (tallynet.envelope.open_director) against one director's signature as the board checked it before
# (the same parse and HMAC, with `sig`). A round of TABLES tables over three rounds of play, players
# named Player00...; the time is the chip's own clock (time.ticks_us) over five checks, the heap the
# bytes allocated during one check (gc.mem_alloc before and after, no collection between). The app is
# stopped with Ctrl-C, its objects (the link's buffers among them) still in the heap, as on the board.
DIRECTOR_CHECK = """
import gc, json, time
from tallynet import envelope
KEY = bytes(range(16))
def message(tables, tagged):
    seat = [list(range(t * 4, t * 4 + 4)) for t in range(tables)]
    body = {"name": "Club night", "id": 1, "tag": 6699, "round": 3, "rounds": 3, "hands": None,
            "players": ["Player%02d" % i for i in range(tables * 4)], "seatings": [seat, seat, seat],
            "game": "skicket", "options": 12345, "record_options": {"confirm": True}}
    fields = {"v": 1, "event": "club-1a2b", "board": "director", "seq": 4, "kind": "round", "body": body}
    mac = envelope.hex_digest(envelope.hmac_sha256(KEY, envelope.canonical(fields)))
    if tagged:
        fields["tags"] = dict(("1A2B.%d" % t, mac) for t in range(1, tables + 1))
    else:
        fields["sig"] = mac
    return envelope.canonical(fields)
def signed_check(data):
    message = json.loads(data)
    sig = message.pop("sig")
    assert envelope._same(envelope.signature(KEY, message), sig)
def tagged_check(data):
    envelope.open_director(data, KEY, "club-1a2b", "round", "1A2B.2")
for tables in TABLES:
    for tagged in (False, True):
        data = None
        gc.collect()
        try:
            data = message(tables, tagged)
            check = tagged_check if tagged else signed_check
            gc.collect()
            started = time.ticks_us()
            for _ in range(5):
                check(data)
            us = time.ticks_diff(time.ticks_us(), started) // 5
            gc.collect()
            before = gc.mem_alloc()
            check(data)
            print("CHECK", tables, int(tagged), len(data), us, gc.mem_alloc() - before)
        except MemoryError:     # the app's heap, as the link leaves it, had no block for it: a figure too
            # bytes -1: the bench's own building of the message failed (not the board's path); else the check
            print("CHECK", tables, int(tagged), len(data) if data else -1, -1, -1)
print("DONE")
"""
TABLES = (3, 12, 20)
FATAL = "FATAL: uncaught exception"     # what MicroPython prints when an exception escapes its last handler


def director_check(twin: Twin, tables: tuple[int, ...] = TABLES) -> list[dict]:
    """DIRECTOR_CHECK on the twin's chip, the app stopped (raw REPL): one row per (tables, tagged)."""
    repl = RawRepl(twin.link)
    try:
        out = repl.run(f"TABLES = {tuple(tables)!r}\n" + DIRECTOR_CHECK, timeout=300)
    except RuntimeError as exc:
        if "MemoryError" not in str(exc) and FATAL not in str(exc):
            raise
        # the heap the app left has no room even to compile the bench's script, or (once in a loaded run
        # of the test suite) MicroPython stopped with a fatal error as the app was interrupted on it: a
        # figure too (no row; show() says which)
        return [{"fatal": FATAL in str(exc)}]
    finally:
        repl.close()
    rows = []
    for line in out.splitlines():
        if line.startswith("CHECK "):
            tables, tagged, size, us, heap = map(int, line.split()[1:])
            rows.append({"tables": tables, "tags": bool(tagged), "bytes": size, "ms": us / 1000, "heap_bytes": heap})
    return rows


def load_board(twin: Twin, image: str, figures: dict) -> None:
    """The board on the twin (image: the one it runs) as this bench measures it: the Wi-Fi definition,
    the stand-ins (on the Pico W image, put in sys.modules by boot.py), the settings' STATS, then
    enrolled, the link connected to the stand-in broker, then a Skicket game with a hand waiting; STATS
    and NET at each step into figures. The board's link is closed after, the app still running."""
    import wifi_boards as wb
    from tallyboard.club import envelope
    from tallyboard.common.errors import BoardError

    definition = json.loads((ROOT / "board" / "pico-reference.json").read_text())
    definition["name"] = DEFINITION
    definition["wifi"] = True
    network_standin = (STANDINS_DIR / "network.py").read_text()
    files = {f"board/{DEFINITION}.json": json.dumps(definition),
             "config.txt": f"board {DEFINITION}\nevent {TAG}\ntable {TABLE}\n",
             "wifi.txt": f"{wb.SSID}\n{wb.PASSPHRASE}\n"}
    if image == "pico-w":
        files.update({"lib/standin_network.py": network_standin, "lib/standin_socket.py": SOCKET_STANDIN,
                      "boot.py": STANDINS_BOOT})
    else:
        files.update({"lib/network.py": network_standin, "lib/socket.py": SOCKET_STANDIN})
    _write_files(twin, files)
    board = twin.board(timeout=10)
    try:
        assert board.request("NET")["wifi"] == "1", "the board did not take the Wi-Fi definition"
        figures["settings_only"] = board.request("STATS")
        secret = envelope.new_secret()
        ident = wb.ident(TAG, TABLE)
        wb.enrol(board, event=f"club-{TAG:04x}", key=envelope.board_key(secret, ident), port=1883)
        deadline = time.monotonic() + 60
        while board.request("NET")["broker"] != "1":
            if time.monotonic() > deadline:
                raise RuntimeError(f"the link did not reach the stand-in broker: {board.request('NET')}")
            time.sleep(0.5)
        twin.chip_time_passes(3000)        # its status published, the keepalive running
        figures["link_loaded"] = board.request("STATS")
        figures["link_state"] = board.request("NET")
        # with the link loaded the heap may be too short for a game: that is a figure, not a failure
        try:
            board.new("skicket", 4)
            board.request("HAND", "0", "4H", "-", "-", "0", "10")
            figures["game_started"] = "yes"
        except BoardError as exc:
            figures["game_started"] = f"no: {exc}"
        twin.chip_time_passes(2000)        # the hand's message sent, its resend scheduled
        figures["link_and_a_game"] = board.request("STATS")
        figures["link_state_after"] = board.request("NET")
    finally:
        board.link.close()


def run(args=None) -> dict:
    image = getattr(args, "image", "stock")
    flash = getattr(args, "flash", None)
    if flash is not None and image != "stock":
        raise SystemExit("bench_wifi_twin: --flash is a deploy on the stock image; leave it out with --image")
    figures: dict = {"image": image}
    with tempfile.TemporaryDirectory() as tmp, deployed(Twin.running(Path(tmp), image), flash) as twin:
        load_board(twin, image, figures)
        figures["director_check"] = director_check(twin, tuple(getattr(args, "tables", None) or TABLES))
    settings = int(figures["settings_only"]["alloc"])
    figures["link_cost_bytes"] = int(figures["link_loaded"]["alloc"]) - settings
    return figures


def show(figures: dict) -> None:
    print(f"image: {figures['image']}")
    for key in ("settings_only", "link_loaded", "link_and_a_game"):
        stats = figures[key]
        print(f"{key:18} free {stats['free']:>7} B, in use {stats['alloc']:>7} B, largest free block "
              f"{stats['block']:>6} B, errors {stats['errors']}")
    print(f"the link's own heap (in use, enrolled less settings only): {figures['link_cost_bytes']} B")
    print(f"a Skicket game and a hand started beside the link: {figures['game_started']}")
    print(f"the link meanwhile: {figures['link_state_after']}")
    print("checking a director's round (issue 30): one director's sig before, this board's tag among one per table now")
    for row in figures["director_check"]:
        if "fatal" in row:
            print(f"  {FATAL if row['fatal'] else 'MemoryError'} on the way into the raw REPL, the app stopped "
                  "on the stock image's heap: the heap the app left has no room for the bench's script (nothing checked)")
            continue
        if row["heap_bytes"] < 0:
            where = "building the message (the bench's own work, not measured)" if row["bytes"] < 0 else "checking"
            print(f"  {row['tables']:>2} tables, {'tags' if row['tags'] else 'sig ':4}: MemoryError {where}: "
                  "the heap the app left had no block for it")
            continue
        print(f"  {row['tables']:>2} tables, {'tags' if row['tags'] else 'sig ':4}: {row['bytes']:>5} B, "
              f"{row['ms']:7.1f} ms, {row['heap_bytes']:>6} B allocated while checking")


def main() -> int:
    def options(parser):
        add_image_option(parser)
        add_flash_option(parser)
        parser.add_argument("--tables", type=int, nargs="+", metavar="N", choices=range(1, 41),
                            help=f"the rounds' sizes a director's round is checked for (default: {TABLES})")

    return bench_main(__doc__, "bench_wifi_twin", run, show, options)


if __name__ == "__main__":
    sys.exit(main())
