# The board's outbox (docs/club-mqtt.md, "A board on the club's Wi-Fi"):
# the journal holds the table's state; this file holds only the one message
# numbered from it that the director has not confirmed yet, so a seq is
# never sent with two bodies.
#
#   netout.txt   "<seq> <kind> <hands>\n" then the body's canonical JSON
#   netseat.txt  the director's round as the board takes it (seat()):
#                canonical JSON {rseq, round, names, game, options, record_options}
#
# Both written then renamed (atomic on littlefs). A file that cannot be read
# counts as absent: the board then numbers from where the director's
# `applied` says (Link), never from a seq it may have used.
from tallycore import json, os

from tallyrun.protocol import MAX_TABLE

from tallynet.envelope import canonical
from tallynet.topics import QUEUED, STATE

OUT_FILE = "netout.txt"
SEAT_FILE = "netseat.txt"


def _write(path, data):
    tmp = path + ".tmp"
    f = open(tmp, "wb")
    try:
        f.write(data)
        f.flush()
    finally:
        f.close()
    os.rename(tmp, path)


def _read(path, limit):
    try:
        f = open(path, "rb")
    except OSError:
        return None
    try:
        return f.read(limit)
    except OSError:
        return None
    finally:
        f.close()


def _remove(path):
    try:
        os.remove(path)
    except OSError:
        pass


class Outbox:
    def __init__(self, root=""):
        self.path = root + OUT_FILE
        self.seq = 0          # the last seq numbered (0: none since the enrolment)
        self.kind = ""
        self.hands = 0        # the hands of that body's record (hand or state: tablestate.kind)
        self.body = None      # its canonical JSON (bytes)
        self.damaged = False

    def load(self):
        data = _read(self.path, 70000)
        if not data:
            return
        try:
            line = data.index(b"\n")
            seq, kind, hands = data[:line].split(b" ")
            seq = int(seq)
            hands = int(hands)
            kind = kind.decode()
            if seq < 1 or seq > 0x3FFFFFFF or hands < 0 or kind not in QUEUED:
                raise ValueError("range")
        except (ValueError, IndexError, UnicodeError):
            self.damaged = True
            return
        self.seq = seq
        self.kind = kind
        self.hands = hands
        self.body = data[line + 1:]

    def number(self, kind, hands, body):
        """The next seq for this body, on flash when it returns (OSError if not)."""
        seq = self.seq + 1
        _write(self.path, b"%d %s %d\n" % (seq, kind.encode(), hands) + body)
        self.seq = seq
        self.kind = kind
        self.hands = hands
        self.body = body
        return seq

    def adopt(self, seq):
        """Number on from `seq` (the director applied that many of this board's
        messages before this enrolment): nothing is waiting."""
        _write(self.path, b"%d %s 0\n" % (seq, STATE.encode()))
        self.seq = seq
        self.kind = STATE
        self.hands = 0
        self.body = b""

    def forget(self):
        _remove(self.path)
        self.seq = 0
        self.kind = ""
        self.hands = 0
        self.body = None


class Seat:
    """The director's last round the board took (`latest`, its seq so an older
    one is refused) and the round the board is seated in (`seated`: the
    names its record is written with), kept together in netseat.txt."""

    def __init__(self, root=""):
        self.path = root + SEAT_FILE
        self.latest = None    # dicts: rseq round names game options record_options
        self.seated = None

    def load(self):
        data = _read(self.path, 8192)
        if not data:
            return
        try:
            latest, seated = json.loads(data)
            for seat in (latest, seated):
                if seat is not None:
                    check(seat)
        except (ValueError, TypeError, KeyError):
            return
        self.latest = latest
        self.seated = seated

    def save(self, latest, seated):
        _write(self.path, canonical([latest, seated]))
        self.latest = latest
        self.seated = seated

    def rseq(self):
        return self.latest["rseq"] if self.latest else 0

    def forget(self):
        _remove(self.path)
        self.latest = None
        self.seated = None


def _int(value, low, high, what):
    if not isinstance(value, int) or isinstance(value, bool) or value < low or value > high:
        raise ValueError("%s: not a number %d to %d" % (what, low, high))
    return value


def check(seat):
    """What the board keeps of a round, field by field; ValueError saying what is wrong."""
    _int(seat["rseq"], 1, 0x1FFFFFFFFFFFFF, "seq")
    _int(seat["round"], 1, MAX_TABLE, "round")
    _int(seat["options"], 0, 0xFFFF, "options")
    names = seat["names"]
    if names is not None and (not isinstance(names, list) or len(names) != 4
                              or not all(isinstance(n, str) and 0 < len(n) <= 80 for n in names)):
        raise ValueError("names: not four names")
    if not isinstance(seat["game"], str) or not 0 < len(seat["game"]) <= 32:
        raise ValueError("game: not a game's name")
    options = seat["record_options"]
    if not isinstance(options, dict) or len(options) > 8:
        raise ValueError("record_options: not a record's options")
    for key in options:
        value = options[key]
        if not isinstance(key, str) or len(key) > 32 or not (isinstance(value, (int, str)) and (
                not isinstance(value, str) or len(value) <= 32)):
            raise ValueError("record_options: not a record's options")


_ROUND_KEYS = ("name", "id", "rounds", "hands")   # read by a table host only


def check_round(body):
    """The director's round body (docs/club-mqtt.md, "Payloads"; written by
    the host's evening/club.py round_body) as every table takes it, a board
    (from_round) or a table host: its round number. ValueError saying what is
    wrong; nothing is evaluated."""
    if not isinstance(body, dict):
        raise ValueError("not a round")
    r = _int(body.get("round"), 1, MAX_TABLE, "the round")
    players = body.get("players")
    seatings = body.get("seatings")
    if not isinstance(players, list) or not isinstance(seatings, list) or len(seatings) != r \
            or not isinstance(body.get("tag"), int) or any(key not in body for key in _ROUND_KEYS):
        raise ValueError("not a round of this tallyboard")
    if "game" not in body or "options" not in body or "record_options" not in body:
        raise ValueError("the round names no game: the director's tallyboard is older than this table's; "
                         "update it")
    return r


def from_round(body, rseq, table):
    """What the board keeps of the director's round body: its table's four
    names in this round (None: the table sits the round out). ValueError
    saying what is wrong; nothing is evaluated."""
    r = check_round(body)
    players = body["players"]
    seating = body["seatings"][r - 1]
    if not isinstance(seating, list):
        raise ValueError("seating: not a list of tables")
    names = None
    if table <= len(seating):
        seats = seating[table - 1]
        if not isinstance(seats, list) or len(seats) != 4:
            raise ValueError("table %d: not four seats" % table)
        names = []
        for p in seats:
            _int(p, 0, len(players) - 1, "player")
            names.append(players[p])
    seat = {"rseq": rseq, "round": r, "names": names, "game": body["game"], "options": body["options"],
            "record_options": body["record_options"]}
    check(seat)
    return seat
