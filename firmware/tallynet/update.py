# An update over the air, the board's side (issue 43; docs/club-mqtt.md,
# "Updates over the air"): the director's offer checked before a byte of it
# is taken, its chunks checked one by one against the signed hash chain and
# written to update/new.rom, where they are kept across a power cut or a
# dropped link; between games (or when the director forces it) the switch
# (tallyboot.write_state) and a restart into the new release; once that
# release has linked, tallyboot.keep. The board says where it is on its
# `update` topic, and on its OLED's last row.
#
# Loaded only when an offer comes, or when the power-up found an update under
# way (main.py imported tallyboot): a board that takes no update holds none of it.
import tallyboot
from tallycore import binascii, const, hashlib, json, os, ticks_add, ticks_diff
from tallycore.games import unload

from tallyrun import protocol
from tallynet import envelope, health, publishing, topics

MANIFEST_FILE = "update/new.man"    # the offer taken: its manifest (canonical JSON), its signature, force
POSITION_FILE = "update/new.pos"    # chunks held (2 bytes) and the hash the next must give (32)
NUMBER_FILE = "update/number"       # the number of the release kept last (none: 0, any release is newer)
FORMAT = 2
ROOT_FILES = ("boot.py", "main.py", "tallyboot.mpy")    # what stays on littlefs: the manifest's `root`
HEADER = const(46)                  # a chunk message: release id (12), index (2), the next hash (32)
MAX_CHUNKS = 0xFFFF                 # a chunk's index is 2 bytes on the wire
MAX_TRIAL_S = 3600                  # the longest trial a release may state (manifest's trial_s, 1 to this)
_WINDOW = const(8)                  # chunks the director sends for each `receiving`
_SWITCH_GRACE_MS = const(1000)      # the `switching` status on its way before the restart
_SWITCH_MOST_MS = const(5000)       # and no longer than this, whatever the broker does

# the board's states and why (docs/club-mqtt.md's table; the host's kinds.py checks a body with them)
RECEIVING = "receiving"
STAGED = "staged"
SWITCHING = "switching"
KEPT = "kept"
BACK = "back"
REFUSED = "refused"
STATES = (RECEIVING, STAGED, SWITCHING, KEPT, BACK, REFUSED)
WHYS = ("tampered", "mid_game", tallyboot.WHY_RESET, tallyboot.WHY_NO_LINK, tallyboot.WHY_FAILED,
        tallyboot.WHY_DAMAGED, "signature", "no_key", "other_board", "older", "root_files", "too_big",
        "no_partition", "format", "flash")
_TRIAL = "trial"                    # (not published: the board is not linked yet in it)

# the OLED's last row while an update is under way (docs/club-wifi.md)
_NOTE_WAITING = "UPDATE AFTER GAME"
_NOTE_SWITCHING = "UPDATING: RESTART"


class Refused(Exception):
    """An offer not taken: its args[0] is the why."""


class Updater:
    def __init__(self, link):
        self.link = link
        self.root = link.app.root
        self.release = "-"
        self.state = None
        self.why = "-"
        self.have = 0
        self.of = 0
        self.manifest = None
        self.expect = None          # the hash the next chunk must give (bytes)
        self.force = False
        self.refused = None         # the signature of the offer last refused (its retained copy comes again at
        #                             each connection; a corrected offer, signed anew, is looked at again)
        self.serving = False        # an offer stands (withdrawn: no chunks are coming, the link need not hurry)
        self.due = False            # the status changed since it was published
        self.switch_at = None
        self._note = None
        self._at_power_up()

    # ------------------------------------------------------------ at the power-up
    def _at_power_up(self):
        words = tallyboot.read_state(self.root)
        if words is not None and words[0] == tallyboot.TRIAL:
            self.release, self.state = words[1], _TRIAL
            return
        if words is not None and words[0] == tallyboot.BACK:
            self.release, self.state, self.why = words[1], BACK, words[7]
            self.due = True
            return
        if words is not None:            # install or restore that tallyboot could not carry out (flash full)
            self.release, self.state, self.why = words[1], REFUSED, "flash"
            self.due = True
            return
        self._resume()

    def _resume(self):
        """An offer taken before the power went: go on from the chunk the flash says."""
        try:
            with open(self.root + MANIFEST_FILE, "rb") as f:
                lines = f.read().split(b"\n")
            with open(self.root + POSITION_FILE, "rb") as f:
                position = f.read(34)
            manifest = json.loads(lines[0])
            force = lines[2] == b"1"
        except (OSError, ValueError, IndexError):
            return
        if len(position) != 34:
            return
        self._take(manifest, force)
        self.have = position[0] << 8 | position[1]
        self.expect = bytes(position[2:34])
        if self.have >= self.of:
            self.have = self.of
            if tallyboot.file_sha256(self.root + tallyboot.NEW, manifest["image"]["size"]) != manifest["image"]["sha256"]:
                self._refuse(self.release, tallyboot.WHY_DAMAGED)
                return
            self.state = STAGED
        self.due = True

    def _take(self, manifest, force):
        image = manifest["image"]
        self.manifest = manifest
        self.release = manifest["release"]
        self.force = force
        self.of = (image["size"] + image["chunk"] - 1) // image["chunk"]
        self.have = 0
        self.expect = binascii.unhexlify(image["chain"])
        self.state = RECEIVING
        self.why = "-"

    # ------------------------------------------------------------ the director's offer
    def offer(self, body):
        """An offer for this board (its envelope checked by the link): taken,
        resumed, or refused with why. The signature is checked last: 3.3 s of
        the chip's time, once per offer."""
        manifest = body.get("manifest")
        release = manifest.get("release") if isinstance(manifest, dict) else None
        sig = body.get("sig")
        self.serving = True
        if sig == self.refused:
            return
        if self.state == _TRIAL:
            self.due = True              # a release on trial is kept or gone back before another is looked at
            return
        if self.manifest is not None and manifest == self.manifest:
            if self.state in (RECEIVING, STAGED):
                self.force = body.get("force") is True or self.force
                self.due = True          # the director is serving: say where the flash is
            return
        if release == self.release and self.state in (_TRIAL, BACK, KEPT):
            self.due = True              # this one was tried already: said again, not taken again
            return
        if isinstance(release, str) and release == health.read_release(health.release_root(self.root)):
            self.release, self.state, self.why, self.have, self.of = release, KEPT, "-", 0, 0
            self.due = True              # it runs already
            return
        try:
            self._check(manifest, body.get("sig"))
        except Refused as exc:
            self.refused = sig
            self._refuse(release, exc.args[0])
            return
        except (KeyError, TypeError, ValueError):
            self.refused = sig
            self._refuse(release, "format")
            return
        try:
            self._start(manifest, body["sig"], body.get("force") is True)
        except OSError:
            self._refuse(release, "flash")

    def _check(self, manifest, sig):
        """Refused(why) unless the offer is whole, for this board, newer, fits, and the director's."""
        _check_shape(manifest, sig)
        boards = manifest["boards"]
        if "*" not in boards and self.link.ident not in boards:
            raise Refused("other_board")
        number = manifest["number"]
        if number <= running_number(self.root) and manifest["downgrade"] is not True:
            raise Refused("older")
        root = manifest["root"]
        for name in ROOT_FILES:
            if file_sha256(self.root + name) != root[name]:
                raise Refused("root_files")
        part = tallyboot.partition()
        if part is None or not tallyboot.image_size(memoryview(part)):
            raise Refused("no_partition")        # no image, or none in it to go back to: deploy over USB
        if manifest["image"]["size"] > len(memoryview(part)):
            raise Refused("too_big")
        public = self.link.net.get(protocol.NET_UPDATE_KEY)
        if public is None:
            raise Refused("no_key")
        from tallynet import ed25519
        try:
            good = ed25519.verify(public, hashlib.sha256(envelope.canonical(manifest)).digest(),
                                  binascii.unhexlify(sig))
        finally:
            unload("tallynet.ed25519")      # its 7 KB back: one check per offer
        if not good:
            raise Refused("signature")

    def _start(self, manifest, sig, force):
        """The offer taken: kept on flash with where it is (nothing yet), new.rom begun."""
        root = self.root
        try:
            os.mkdir(root + tallyboot.FOLDER)
        except OSError:
            pass
        tallyboot.clear(root)            # an earlier update's staged file and state (back, say) go
        _remove(root, POSITION_FILE, MANIFEST_FILE)   # and its offer: a cut below never pairs them with this one
        with open(root + MANIFEST_FILE + ".tmp", "wb") as f:
            f.write(envelope.canonical(manifest))
            f.write(b"\n" + sig.encode() + b"\n" + (b"1" if force else b"0"))
        os.rename(root + MANIFEST_FILE + ".tmp", root + MANIFEST_FILE)
        with open(root + tallyboot.NEW, "wb"):
            pass
        self._take(manifest, force)
        self._save_position()
        self.refused = None
        self.due = True

    def _refuse(self, release, why):
        if self.manifest is not None:    # an offer taken and then given up: nothing of it is kept
            _remove(self.root, MANIFEST_FILE, POSITION_FILE, tallyboot.NEW)
        self.release = release if isinstance(release, str) and 0 < len(release) <= 16 else "-"
        self.state = REFUSED
        self.why = why
        self.have = self.of = 0
        self.manifest = None
        self.due = True

    # ------------------------------------------------------------ the chunks
    def chunk(self, payload):
        """One chunk of the offered release: checked against the hash the
        board holds, written at its place, the next hash held. A repeat, or
        one out of order, is left (the director sends from `have` again); one
        that fails its hash is said (tampered) and waited for again."""
        if self.state != RECEIVING or len(payload) <= HEADER:
            return
        manifest = self.manifest
        if manifest is None or payload[0:12] != self.release.encode():
            return
        index = payload[12] << 8 | payload[13]
        if index != self.have:
            return
        image = manifest["image"]
        chunk = image["chunk"]
        data = memoryview(payload)[HEADER:]
        last = index == self.of - 1
        following = payload[14:HEADER]
        h = hashlib.sha256(data)
        h.update(following)
        if (len(data) != (image["size"] - index * chunk if last else chunk) or h.digest() != self.expect
                or (last and following != bytes(32))):
            if self.why != "tampered":
                self.why = "tampered"
                self.due = True
            return
        root = self.root
        try:
            with open(root + tallyboot.NEW, "r+b") as f:
                f.seek(index * chunk)
                f.write(data)
            self.have = index + 1
            self.expect = bytes(following)
            self._save_position()
        except OSError:
            self._refuse(self.release, "flash")
            return
        self.why = "-"
        if self.have == self.of:
            if tallyboot.file_sha256(root + tallyboot.NEW, image["size"]) != image["sha256"]:
                self._refuse(self.release, tallyboot.WHY_DAMAGED)
                return
            self.state = STAGED
            self.due = True
        elif self.have % _WINDOW == 0:
            self.due = True              # the next window, please

    def _save_position(self):
        path = self.root + POSITION_FILE
        with open(path + ".tmp", "wb") as f:
            f.write(bytes((self.have >> 8, self.have & 0xFF)))
            f.write(self.expect)
        os.rename(path + ".tmp", path)

    # ------------------------------------------------------------ the link's step
    def step(self, now):
        """The link's, each step while connected: a trial kept, the switch when
        its time has come, the status published when it changed."""
        link = self.link
        if self.state == _TRIAL:
            if link.connected_at is None or not tallyboot.keep(self.root):
                return
            self._kept()
        if self.state == STAGED and (self.force or between_games(link)):
            self._switch(now)
        self._show()
        if self.due and link.client is not None:
            self._publish(now)

    def restart_if_due(self, now):
        """The link's, every step, linked or not: the restart once the switch is written and its status out
        (or _SWITCH_MOST_MS on, whatever the broker does: a link lost here must not hold it into a game)."""
        if self.state != SWITCHING or ticks_diff(now, self.switch_at) < 0:
            return
        client = self.link.client
        if client is None or not client.tx or ticks_diff(now, self.switch_at) >= _SWITCH_MOST_MS:
            import machine
            machine.reset()

    def withdrawn(self):
        """The director withdrew its offer: what the flash holds waits for the next one."""
        self.serving = False

    def busy(self):
        """Whether chunks are coming (the link steps often then: a window's round trip is a step)."""
        return self.state == RECEIVING and self.serving

    def _kept(self):
        root = self.root
        number = self.manifest["number"] if self.manifest else None
        if number is None:
            try:
                with open(root + MANIFEST_FILE, "rb") as f:
                    number = json.loads(f.read().split(b"\n")[0])["number"]
            except (OSError, ValueError, KeyError, IndexError):
                number = 0
        try:
            with open(root + NUMBER_FILE + ".tmp", "w") as f:
                f.write("%d" % number)
            os.rename(root + NUMBER_FILE + ".tmp", root + NUMBER_FILE)
            for path in (MANIFEST_FILE, POSITION_FILE):
                os.remove(root + path)
        except OSError:
            pass
        self.state = KEPT
        self.manifest = None
        self.due = True

    def _switch(self, now):
        """The switch: the running image saved as old.rom, then the one write that
        says new.rom belongs in the partition; a restart once the status is out."""
        root = self.root
        part = tallyboot.partition()
        manifest = self.manifest
        if manifest is None:
            return
        image = manifest["image"]
        try:
            if part is None:
                raise OSError("no partition")
            old = tallyboot.save_running(part, root) or (0, "-")
            tallyboot.write_state([tallyboot.INSTALL, self.release, str(image["size"]), image["sha256"],
                                   health.read_release(health.release_root(root)), str(old[0]), old[1], "-",
                                   str(manifest.get("trial_s", tallyboot.TRIAL_S))],
                                  root)
        except OSError:
            self._refuse(self.release, "flash")
            return
        self.state = SWITCHING
        self.switch_at = ticks_add(now, _SWITCH_GRACE_MS)
        self.due = True

    def _show(self):
        note = None
        if self.state == STAGED:
            note = _NOTE_WAITING
        elif self.state == SWITCHING:
            note = _NOTE_SWITCHING
        net = self.link.net
        if note is not self._note:
            self._note = note
            net.notice = note
            if net.on_mark is not None:
                net.on_mark()

    def body(self):
        why = self.why
        if self.state == STAGED and not self.force and not between_games(self.link):
            why = "mid_game"
        return {"release": self.release, "state": self.state, "have": self.have, "of": self.of, "why": why}

    def _publish(self, now):
        link = self.link
        if self.state is None or self.state == _TRIAL:
            self.due = False
            return
        payload = envelope.seal(link.net.key(), link.event, link.ident, 0, topics.UPDATE, self.body())
        try:
            link.client.publish(link.topic_update, payload, qos=1, retain=True)
        except Exception:   # backpressure, or the connection just went: the next step tries again
            return
        self.due = False
        link.busy_until = ticks_add(now, publishing.BUSY_MS)     # out at the next step, not at the client's next turn


def _check_shape(manifest, sig):
    """Refused("format") unless the manifest's fields this board reads are of their kind and range."""
    if manifest["format"] != FORMAT or not isinstance(sig, str) or len(sig) != 128:
        raise Refused("format")
    image = manifest["image"]
    for field in ("size", "chunk"):
        if not isinstance(image[field], int) or not 0 < image[field] <= 0x3FFFFFFF:
            raise Refused("format")
    if len(binascii.unhexlify(image["chain"])) != 32 or len(binascii.unhexlify(image["sha256"])) != 32:
        raise Refused("format")
    if (image["size"] + image["chunk"] - 1) // image["chunk"] > MAX_CHUNKS or image["chunk"] > 2048:
        raise Refused("format")
    trial = manifest.get("trial_s", tallyboot.TRIAL_S)
    release = manifest["release"]
    if (not isinstance(trial, int) or not 1 <= trial <= MAX_TRIAL_S or not isinstance(release, str) or len(release) != 12
            or not isinstance(manifest["boards"], list) or not isinstance(manifest["number"], int)):
        raise Refused("format")


def between_games(link):
    """No game in play at the table (none, a new one not yet scored, or one
    complete; no hand held) and nothing of it waiting for the director: the
    time an update may restart the board (docs/club-wifi.md)."""
    game = link.app.game
    if game.rules is not None and (game.held or (game.n > 0 and not game.complete())):
        return False
    return publishing.waiting(link) == 0 and not link.dirty


def _remove(root, *paths):
    for path in paths:
        try:
            os.remove(root + path)
        except OSError:
            pass


def running_number(root):
    """The number of the release kept last (NUMBER_FILE), 0 when there is none."""
    try:
        with open(root + NUMBER_FILE, "rb") as f:
            return int(f.read(12))
    except (OSError, ValueError):
        return 0


def file_sha256(path):
    """The SHA-256 of a whole file, hex; "" when it cannot be read."""
    try:
        size = os.stat(path)[6]
    except OSError:
        return ""
    return tallyboot.file_sha256(path, size)
