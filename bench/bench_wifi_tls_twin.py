"""What a TLS client connection to the club's broker would cost a Pico W's heap: the device twin
running tallyboard's Pico W image (MicroPython v1.28.0, its `ssl` module on Mbed TLS, whose
allocations come from the MicroPython heap), the firmware deployed and loaded as
bench/bench_wifi_twin.py leaves it (enrolled, the link connected to its stand-in broker, a Skicket
game with a hand waiting), then a TLS client handshake and session on the chip beside it.

    python bench/bench_wifi_tls_twin.py [--no-margin] [--json]

The club's certificates as the director makes them, by the project's own module for each run
(tallyboard.club.certificates: club_ca and broker_files, naming broker.club): the club CA (ECDSA
P-256, self-signed) and the broker's certificate (ECDSA P-256, signed by it); the broker sends both,
as mosquitto does with broker.pem. The board's side is what tallynet would do:
ssl.SSLContext(PROTOCOL_TLS_CLIENT), CERT_REQUIRED, the CA given as cadata (DER), wrap_socket with
server_hostname="broker.club".

The board's clock: the image's Mbed TLS checks a certificate's dates against the chip's RTC
(measured, not assumed: on the clock the twin starts with, 2021-01-01, the board refuses the club's
certificates, valid from an hour before they were made, with "The certificate validity starts in the
future"). So the bench sets the chip's clock to the host's (UTC) at the raw REPL before the client
runs, as a board would have to from NTP once joined, and, last of all, sets it back to 2021-01-01 and
tries once more: that refusal is a figure too.

The twin has no network, so the broker's end of the connection is on the host: Python's own `ssl`
server (OpenSSL, as mosquitto's is, so the version and cipher suite are the ones a mosquitto would
negotiate with the board), on memory BIOs. The app is stopped with Ctrl-C (its objects, the link's
buffers and the game among them, stay in the heap, as bench_wifi_twin.py's round check does) and a
script run at the raw REPL makes the client over a stand-in socket (an io.IOBase stream) whose
bytes go over the USB serial as hex lines: `W<hex>` what the board sends, `R<n>` a read, answered
`D<hex>` with at most 96 bytes (`D` alone: nothing yet, EAGAIN). Only the client is on the chip.

Figures (gc.mem_alloc after a collection; the heap's size is the Pico W's own, as the image has it):

  * before: the app's heap (free, in use, largest free block: the firmware's own probe,
    tallyrun.replies.largest_free_block);
  * the context: an SSLContext with the CA loaded (its Mbed TLS config, DRBG, entropy, CA chain);
  * the handshake's peak: the most in use at any moment the chip's own code could look, which is
    every read and write Mbed TLS makes through the stand-in socket (a collection first, so garbage
    does not count): a lower bound, as an elliptic-curve computation between two of them allocates
    and frees its own temporaries unseen; so also
  * the margin: the largest extra block (to 1 KB) the heap can give up beforehand, one bytearray,
    with the handshake still completing (bisection, a fresh context and handshake each try): what
    the heap has to spare for the handshake at its true peak (--no-margin leaves it out, as each try
    is a handshake of a few seconds of the chip's time);
  * the session: in use after the handshake and an exchange of 512 bytes each way (the session's
    record buffers, its keys, the broker's certificate kept), the heap's free and largest block then;
  * whether anything raised MemoryError, and where; a CA that did not sign the broker, and the clock
    the twin starts with, each refused.

Needs node, socat and twin/'s rp2040js."""
from __future__ import annotations

import binascii
import ssl
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# bench_wifi_twin's board, loaded as it measures it (it also puts tests/ and host/ on sys.path)
from bench_wifi_twin import load_board  # noqa: E402
from twin_harness import REPL_S, RawRepl, Twin, bench_main, deployed, patient_chip  # noqa: E402

HOSTNAME = "broker.club"
CHUNK = 96                   # bytes of TLS per `D` line to the chip: 193 characters and a newline, under 256
EXCHANGE = 512               # bytes each way over the session once it is up (a publish and its answer)
MARGIN_STEP = 1024           # the margin's bisection: to 1 KB
HANDSHAKE_S = patient_chip(30_000)   # one handshake on the chip: a few seconds of its own time
TWIN_EPOCH = time.struct_time((2021, 1, 1, 0, 0, 0, 4, 1, 0))   # where the twin's clock starts (a Friday)


def make_certificates(folder: Path) -> dict:
    """The club's CA and broker chain as the director makes them (tallyboard.club.certificates: club_ca,
    broker_files; ECDSA P-256, the broker's certificate naming HOSTNAME), PEM paths for the host's
    server, the CA's DER for the board, and their sizes; and another club's CA, which signed nothing
    (the board given it must refuse the broker)."""
    from cryptography import x509
    from cryptography.hazmat.primitives.serialization import Encoding

    from tallyboard.club import certificates

    chain = certificates.broker_files(folder / "club", [HOSTNAME])
    leaf, ca = (c.public_bytes(Encoding.DER) for c in x509.load_pem_x509_certificates(chain.certfile.read_bytes()))
    other = x509.load_pem_x509_certificate(certificates.club_ca(folder / "other").read_bytes())
    return {"chain_pem": chain.certfile, "key_pem": chain.keyfile,
            "cas": {"club": ca, "other": other.public_bytes(Encoding.DER)},
            "ca_der_bytes": len(ca), "leaf_der_bytes": len(leaf)}


# The board's side, run at the raw REPL with the app stopped. CAS (the CAs by name, DER), HOSTNAME,
# EXCHANGE and TRIES come before it: each try (ballast, CA's name), ballast None for the measured
# handshake, else a try with that many bytes taken first in one block (the margin's, or the check that
# a broker the CA did not sign is refused).
TLS_CLIENT = """
import gc, io, sys, ssl, binascii
from tallyrun.replies import largest_free_block
class Link(io.IOBase):
    # the stand-in socket: its bytes go over the serial as hex lines, to the host's TLS server
    def __init__(self, watch):
        self.watch = watch
    def sample(self):
        if self.watch:
            gc.collect()
            global peak
            used = gc.mem_alloc()
            if used > peak:
                peak = used
    def write(self, data):
        self.sample()
        sys.stdout.write("W")
        sys.stdout.write(binascii.hexlify(data).decode())
        sys.stdout.write("\\n")
        return len(data)
    def readinto(self, buf, size=None):
        self.sample()
        n = len(buf) if size is None else min(size, len(buf))
        sys.stdout.write("R%d\\n" % n)
        data = binascii.unhexlify(sys.stdin.readline().strip()[1:])
        if not data:
            return None
        buf[:len(data)] = data
        return len(data)
    def ioctl(self, request, arg):
        return 0
    def close(self):
        pass
def heap(tag):
    gc.collect()
    free = gc.mem_free()
    print("HEAP", tag, gc.mem_alloc(), free, largest_free_block(free))
def context(ca):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_verify_locations(cadata=CAS[ca])
    return ctx
def session(ctx, watch):
    s = ctx.wrap_socket(Link(watch), server_hostname=HOSTNAME)
    return s
def exchange(s):
    s.write(b"p" * EXCHANGE)
    got = b""
    while len(got) < EXCHANGE:
        part = s.read(EXCHANGE - len(got))
        if part:
            got += part
    assert got == b"q" * EXCHANGE, got[:20]
peak = 0
for ballast, ca in TRIES:
    ctx = s = block = None
    gc.collect()
    at = "context"
    try:
        if ballast is None:
            heap("before")
            ctx = context(ca)
            heap("context")
            gc.collect()
            peak = gc.mem_alloc()
            at = "handshake"
            s = session(ctx, True)
            print("PEAK", peak)
            heap("handshake")
            at = "exchange"
            exchange(s)
            heap("session")
        else:
            at = "ballast"              # the block itself: no block that size left, before any TLS
            block = bytearray(ballast)
            at = "context"
            ctx = context(ca)
            at = "handshake"
            s = session(ctx, False)
            at = "exchange"
            exchange(s)
        print("TRY", ballast, "ok")
    except MemoryError:
        print("TRY", ballast, "MemoryError", at)
    except Exception as exc:    # a broker refused: ValueError (the chain), OSError (the handshake's own)
        print("TRY", ballast, type(exc).__name__, at, repr(exc.args[0] if exc.args else "").replace(" ", "_"))
    finally:
        if s is not None:
            s.close()
        ctx = s = block = None
        print("END")
print("DONE")
"""


class BrokerEnd:
    """The broker's end of one TLS connection, on the host: OpenSSL on memory BIOs, each byte from the
    board as it comes, answering the EXCHANGE bytes it reads with as many of its own."""

    def __init__(self, certs: dict) -> None:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(certs["chain_pem"], certs["key_pem"])
        self.incoming, self.outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = context.wrap_bio(self.incoming, self.outgoing, server_side=True)
        self.handshaken = False
        self.refused: str | None = None      # the alert the board sent, if it refused the broker
        self.received = 0
        self.pending = b""
        self.from_board = self.to_board = 0

    def take(self, data: bytes) -> None:
        self.from_board += len(data)
        self.incoming.write(data)
        if self.refused:
            return
        if not self.handshaken:
            try:
                self.tls.do_handshake()
                self.handshaken = True
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLError as exc:     # the board's alert (a broker it refuses): the connection is over
                self.refused = exc.reason or str(exc)
                return
        if self.handshaken:
            while True:
                try:
                    got = self.tls.read(4096)
                except ssl.SSLWantReadError:
                    break
                if not got:
                    break
                self.received += len(got)
                self.tls.write(b"q" * len(got))
        self.pending += self.outgoing.read()

    def give(self, most: int) -> bytes:
        data, self.pending = self.pending[:most], self.pending[most:]
        self.to_board += len(data)
        return data


def tls_on_chip(twin: Twin, certs: dict, tries: list) -> dict:
    """TLS_CLIENT on the twin's chip, its tries (ballast, CA's name) each against a fresh BrokerEnd;
    its HEAP, PEAK and TRY lines as figures."""
    repl = RawRepl(twin.link)
    figures: dict = {"heap": {}, "tries": []}
    try:
        repl.start(f"CAS = {certs['cas']!r}\nHOSTNAME = {HOSTNAME!r}\nEXCHANGE = {EXCHANGE}\n"
                   f"TRIES = {tries!r}\n" + TLS_CLIENT)
        broker = BrokerEnd(certs)
        while True:
            line = repl.wait_for("\n", timeout=HANDSHAKE_S).strip()
            if line.startswith("W"):
                broker.take(binascii.unhexlify(line[1:]))
            elif line.startswith("R"):
                repl.send(b"D" + binascii.hexlify(broker.give(min(CHUNK, int(line[1:])))) + b"\n")
            elif line.startswith("HEAP "):
                _, tag, alloc, free, block = line.split()
                figures["heap"][tag] = {"alloc": int(alloc), "free": int(free), "block": int(block)}
            elif line.startswith("PEAK "):
                figures["peak_alloc"] = int(line.split()[1])
            elif line.startswith("TRY "):
                _, ballast, outcome, *where = line.split(None, 4)
                # MemoryError: the Python heap; OSError 12 (ENOMEM): Mbed TLS's own allocation failed
                try_ = {"ballast": None if ballast == "None" else int(ballast), "outcome": outcome,
                        "at": where[0] if where else None, "error": where[1] if len(where) > 1 else None}
                if broker.handshaken:
                    try_.update(version=broker.tls.version(), cipher=(broker.tls.cipher() or (None,))[0])
                try_.update(board_sent=broker.from_board, board_received=broker.to_board, alert=broker.refused)
                figures["tries"].append(try_)
            elif line == "END":
                broker = BrokerEnd(certs)
            elif line == "DONE":
                break
            elif "\x04" in line:       # the script ended before DONE: its traceback follows
                raise RuntimeError(f"the script on the twin failed: {repl.seen.decode('utf-8', 'replace')}")
            elif line:
                figures.setdefault("said", []).append(line)
        repl.finish(timeout=REPL_S)
    finally:
        repl.close()
    return figures


def margin(twin: Twin, certs: dict, most: int) -> dict:
    """The largest block (to MARGIN_STEP) the heap can give up with the handshake still completing."""
    low, high = 0, most            # low: known to complete (the measured handshake did); high: not known
    tries = []
    # one raw REPL session a try: the chip's state is the same for each (what a try took is let go)
    while high - low > MARGIN_STEP:
        size = (low + high) // 2 // MARGIN_STEP * MARGIN_STEP or MARGIN_STEP
        result = tls_on_chip(twin, certs, [(size, "club")])["tries"][0]
        tries.append(result)
        if result["outcome"] == "ok":
            low = size
        else:
            high = size
    return {"bytes": low, "failed_at": high, "tries": tries}


def set_clock(twin: Twin, when: time.struct_time) -> None:
    """The chip's clock (its RTC, UTC) set to when, at the raw REPL: the image's Mbed TLS checks the
    certificates' dates against it."""
    date = (when.tm_year, when.tm_mon, when.tm_mday, when.tm_wday, when.tm_hour, when.tm_min, when.tm_sec, 0)
    repl = RawRepl(twin.link)
    try:
        repl.run(f"import machine\nmachine.RTC().datetime({date!r})\n", timeout=REPL_S)
    finally:
        repl.close()


def run(args=None) -> dict:
    figures: dict = {"image": "pico-w"}
    with tempfile.TemporaryDirectory() as tmp, deployed(Twin.running(Path(tmp) / "twin", "pico-w"), None) as twin:
        certs = make_certificates(Path(tmp) / "certs")
        figures["certificates"] = {"ca_der_bytes": certs["ca_der_bytes"], "leaf_der_bytes": certs["leaf_der_bytes"]}
        load_board(twin, "pico-w", figures)
        set_clock(twin, time.gmtime())     # as a board would take it from NTP once joined
        figures["tls"] = tls_on_chip(twin, certs, [(None, "club")])
        # the check that the board verifies the chain: given a CA that did not sign the broker, it refuses it
        figures["other_ca"] = tls_on_chip(twin, certs, [(0, "other")])["tries"][0]
        heap = figures["tls"]["heap"]
        measured = figures["tls"]["tries"][0]
        if measured["outcome"] == "ok" and not getattr(args, "no_margin", False):
            figures["margin"] = margin(twin, certs, heap["before"]["block"])
        # last, so that it changes no figure above: the same board on the clock the twin starts with
        set_clock(twin, TWIN_EPOCH)
        figures["clock_unset"] = tls_on_chip(twin, certs, [(0, "club")])["tries"][0]
    if "before" in heap:
        before = heap["before"]["alloc"]
        figures["context_bytes"] = heap["context"]["alloc"] - before if "context" in heap else None
        figures["handshake_peak_bytes"] = figures["tls"]["peak_alloc"] - before if "peak_alloc" in figures["tls"] else None
        figures["session_bytes"] = heap["session"]["alloc"] - before if "session" in heap else None
        if figures["session_bytes"] is not None:
            # the app's own free heap (STATS, the app running) less the session: the REPL's figures above
            # also hold this script's own code, which a board would not
            figures["app_free_less_session"] = int(figures["link_and_a_game"]["free"]) - figures["session_bytes"]
    return figures


def show(figures: dict) -> None:
    tls = figures["tls"]
    print(f"image: {figures['image']} (heap {tls['heap']['before']['alloc'] + tls['heap']['before']['free']} B)")
    print(f"the board as bench_wifi_twin leaves it: a Skicket game and a hand started beside the link: "
          f"{figures['game_started']}; the link: {figures['link_state_after']}")
    app = figures["link_and_a_game"]
    print(f"STATS, the app running: free {app['free']} B, in use {app['alloc']} B, largest free block {app['block']} B,"
          f" errors {app['errors']}")
    print(f"certificates (tallyboard.club.certificates): CA {figures['certificates']['ca_der_bytes']} B, broker's "
          f"{figures['certificates']['leaf_der_bytes']} B (DER, ECDSA P-256; the broker sends both)")
    for tag in ("before", "context", "handshake", "session"):
        if tag in tls["heap"]:
            h = tls["heap"][tag]
            print(f"{tag:10} in use {h['alloc']:>7} B, free {h['free']:>7} B, largest free block {h['block']:>6} B")
    measured = tls["tries"][0]
    print(f"the handshake: {measured['outcome']}" + (f" at {measured['at']}" if measured["outcome"] != "ok" else "")
          + (f", {measured.get('version')} {measured.get('cipher')}" if measured.get("version") else "")
          + f"; the board sent {measured['board_sent']} B, received {measured['board_received']} B")
    for key, what in (("context_bytes", "the context with the CA"),
                      ("handshake_peak_bytes", "the handshake's peak seen (a lower bound)"),
                      ("session_bytes", "the session, established, after an exchange")):
        if figures.get(key) is not None:
            print(f"{what}: {figures[key]} B more in use than before")
    if figures.get("app_free_less_session") is not None:
        print(f"the app's free heap (STATS) less the session: {figures['app_free_less_session']} B")
    other = figures["other_ca"]
    print(f"the same board given another CA (it did not sign the broker): {other['outcome']} at {other['at']}"
          + (f" ({other['error']})" if other.get("error") else ""))
    unset = figures["clock_unset"]
    print(f"the same board on the twin's own clock (2021-01-01, before the certificates' dates): {unset['outcome']}"
          + (f" at {unset['at']} ({unset['error']})" if unset["outcome"] != "ok" else ""))
    if "margin" in figures:
        m = figures["margin"]
        failed = sorted({f"{t['outcome']}" + (f" {t['error']}" if t["error"] else "") + f" at {t['at']}"
                         for t in m["tries"] if t["outcome"] != "ok"})
        print(f"the margin: the handshake still completes with {m['bytes']} B more taken beforehand "
              f"(one block; {m['failed_at']} B: not), in {len(m['tries'])} tries; those that failed: "
              f"{', '.join(failed) or 'none'}")


def main() -> int:
    def options(parser):
        parser.add_argument("--no-margin", action="store_true",
                            help="leave out the margin's bisection (a handshake a try)")

    return bench_main(__doc__, "bench_wifi_tls_twin", run, show, options)


if __name__ == "__main__":
    sys.exit(main())
