"""Power cuts: SIGKILL the emulated board at random points (right after
requests were sent, after random delays of a few hundred microseconds: in the
middle of handling a request and of its journal write), keep the flash
folder, boot again, and check that every change the board acknowledged is
still there, that nothing was applied twice, and that the state restored is
consistent (Board.rebuild replays the board's own log with the host core and
checks it against the board's log checksum and its SCORE)."""
from __future__ import annotations

import random
import time

import pytest
from emu_fixtures import emulated_board

from tallycore import games, roquet

from tallyboard.boardlink import wire
from tallycore import game as core_game
from tallyboard import games as profiles
from tallyboard.tooling.simulate import legal

pytestmark = [pytest.mark.emulator]

ROUNDS = 60


class Model:
    """What the board must hold: the game, its log with the redo stack, n."""

    def __init__(self) -> None:
        self.name: str | None = None
        self.players = 0
        self.options = 0
        self.log: list[int] = []
        self.n = 0

    def copy(self) -> "Model":
        other = Model()
        other.name, other.players, other.options = self.name, self.players, self.options
        other.log, other.n = list(self.log), self.n
        return other

    def game(self) -> core_game.Game:
        g = core_game.Game()
        g.new(games.by_name(self.name), self.players, self.options)
        for e in self.log:
            g.apply(e)
        for _ in range(len(self.log) - self.n):
            g.undo()
        return g

    def apply(self, op: tuple) -> None:
        kind = op[0]
        if kind == "NEW":
            self.name, self.players, self.options = op[1], op[2], op[3]
            self.log, self.n = [], 0
        elif kind == "EV":
            self.log = self.log[:self.n] + [op[1]]
            self.n += 1
        elif kind == "UNDO":
            self.n -= 1
        elif kind == "REDO":
            self.n += 1

    def key(self) -> tuple:
        return (self.name, self.log, self.n)


def next_op(model: Model, rng: random.Random) -> tuple:
    """A request that is legal after everything before it."""
    if model.name is None:
        return ("NEW", "roquet", 2, 0)
    g = model.game()
    if g.complete() or rng.random() < 0.03:
        name = rng.choice(("skicket", "roquet"))
        rules = games.by_name(name)
        return ("NEW", name, rules.MIN_PLAYERS, profiles.profile(name).simulation_options(rng))
    roll = rng.random()
    if roll < 0.12 and g.can_undo():
        return ("UNDO",)
    if roll < 0.18 and g.can_redo():
        return ("REDO",)
    while True:
        event = profiles.profile(model.name).candidate(rng)
        if legal(g, event):
            return ("EV", event)


def request_text(op: tuple) -> str:
    if op[0] == "NEW":
        return f"NEW {op[1]} {op[2]} {op[3]}"
    if op[0] == "EV":
        return f"EV {op[1]}"
    return op[0]


def read_acks(board, seqs: list[int], wait: float) -> set[int]:
    """The seqs among `seqs` that got an OK within wait seconds of quiet."""
    acked: set[int] = set()
    while True:
        line = board.link.read_line(wait)
        if line is None:
            return acked
        try:
            body = wire.check_frame(line)
        except ValueError:
            continue
        head = body.split(b" ")
        if head[0].isdigit() and int(head[0]) in seqs:
            assert head[1] == b"OK", line
            acked.add(int(head[0]))


def expected_after(model: Model, ops: list[tuple]) -> list[Model]:
    out = [model.copy()]
    for op in ops:
        nxt = out[-1].copy()
        nxt.apply(op)
        out.append(nxt)
    return out


@pytest.fixture
def emu(tmp_path):
    with emulated_board(tmp_path / "flash") as pair:
        yield pair


def test_power_cuts_keep_every_acknowledged_change(emu):
    emulator, board = emu
    rng = random.Random(20261122)
    model = Model()
    cuts_with_work_lost = cuts_mid_burst = 0
    round_number = -1
    # ROUNDS rounds; on a loaded machine the emulator answers later than the cuts below land, so
    # until the cuts have landed in the middle of the work often enough, more rounds, cut later
    while True:
        round_number += 1
        covered = cuts_with_work_lost >= 5 and cuts_mid_burst >= 3
        if round_number >= ROUNDS and (covered or round_number >= 4 * ROUNDS):
            break
        later = 1 if round_number < ROUNDS else 4
        # a burst of requests sent at once, then the power is cut after 0 to
        # ~1.5 ms: some were answered, one may be half handled
        ops: list[tuple] = []
        shadow = model.copy()
        for _ in range(rng.randint(1, 6)):
            op = next_op(shadow, rng)
            ops.append(op)
            shadow.apply(op)
        frames = [board.encode(*request_text(op).split()) for op in ops]
        board.link.write(b"".join(f for _, f in frames))
        delay = rng.choice((0.0, 0.0002, 0.0005, 0.001, 0.0015)) * rng.random() * later
        if delay:
            time.sleep(delay)
        emulator.cut_power()
        acked = read_acks(board, [s for s, _ in frames], 0.05)
        emulator.power_on()
        current = board.reconnect()
        # the board holds the state after j of the requests, j >= every acked one
        steps = expected_after(model, ops)
        last_acked = max((i + 1 for i, (s, _) in enumerate(frames) if s in acked), default=0)
        matches = [j for j, m in enumerate(steps) if m.key() == (current.name, current.log, current.n)]
        assert matches, (f"round {round_number}: the board holds {current.name} n={current.n} "
                         f"log={current.log}, which is no prefix of the requests {ops}")
        j = max(matches)
        assert j >= last_acked, (f"round {round_number}: {last_acked} requests were acknowledged "
                                 f"but the board holds only {j}")
        cuts_with_work_lost += j < len(ops)
        cuts_mid_burst += 0 < j < len(ops)
        model = steps[j]
    # the random cuts really did land in the middle of the work
    assert cuts_with_work_lost >= 5 and cuts_mid_burst >= 3


def test_a_request_retried_after_a_power_cut_is_applied_once(emu):
    emulator, board = emu
    rng = random.Random(7)
    board.new("roquet", 2)
    total = 0
    for round_number in range(25):
        points = rng.randint(1, 9)
        seq, frame = board.encode("PEG", 0, points)
        board.link.write(frame)
        time.sleep(rng.choice((0.0, 0.0003, 0.001, 0.003)) * rng.random())
        emulator.cut_power()
        emulator.power_on()
        board.link.drain(0.05)
        # the same bytes again, first thing after the boot: whether or not the
        # first copy reached the journal, the peg counts once
        reply = board.send_frame(seq, frame, timeout=3.0)
        total += points
        current = board.reconnect()
        assert current.game.total(0) == total, f"round {round_number}: {reply}"
        assert int(reply["n"]) == current.n
        if current.game.complete():
            board.new("roquet", 2)
            total = 0


def test_the_flash_folder_alone_restores_the_game(emu, tmp_path):
    emulator, board = emu
    board.new("roquet", 2, roquet.OPT_END_AT_HAND_END)
    for player, points in ((0, 5), (1, 9), (0, 2)):
        board.game_verb("PEG", player, points)
    board.game_verb("END")
    board.undo()
    emulator.cut_power()
    emulator.power_on()
    current = board.reconnect()
    # 5 + 2 = 7 for player 0, 9 for player 1; END undone, so on the redo stack
    assert (current.n, current.top) == (3, 4)
    assert [current.game.total(p) for p in range(2)] == [7, 9]
    assert current.options == roquet.OPT_END_AT_HAND_END


def test_a_torn_journal_record_is_dropped_at_any_byte(emu):
    """The flash itself cut mid-write: after a kill, the journal's newest
    (never acknowledged) record is cut at every possible byte, or followed by
    erased flash (0xFF). The board boots with or without that one change,
    consistent, and every later acknowledged change survives the next cut."""
    emulator, board = emu
    journal = emulator.flash / "journal.raw"      # the ring of records (firmware/tallyrun/ring.py)
    board.new("roquet", 2)
    model = Model()
    model.apply(("NEW", "roquet", 2, 0))
    rng = random.Random(99)
    for cut_at in range(0, 13):
        board.game_verb("PEG", 1, 1)                                   # acknowledged
        model.apply(("EV", roquet.pack_peg(1, 1)))
        before = journal.read_bytes()
        seq, frame = board.encode("PEG", 0, 2)            # sent, never acknowledged
        board.link.write(frame)
        deadline = time.monotonic() + 2
        while journal.read_bytes() == before and time.monotonic() < deadline:
            time.sleep(0.0005)
        emulator.cut_power()
        data = bytearray(journal.read_bytes())
        changed = [i for i in range(len(data)) if data[i] != before[i]]
        assert changed, "the request never reached the journal"
        # the record programmed into erased flash: 12 bytes from the first changed one
        # (within one page: records never straddle a page)
        first = changed[0] - (changed[0] - 256) % 4096 % 256 % 12
        torn = bytearray(data)
        for i in range(first + min(cut_at, 12), first + 12):
            torn[i] = 0xFF                                # the program cut after cut_at bytes
        if cut_at == 12:
            for i in range(first + 5, first + 12):
                torn[i] = 0xFF                            # half a record, erased flash after it
        journal.write_bytes(bytes(torn))
        emulator.power_on()
        current = board.reconnect()
        with_peg = model.copy()
        with_peg.apply(("EV", roquet.pack_peg(0, 2)))
        assert (current.name, current.log, current.n) in (model.key(), with_peg.key()), cut_at
        if (current.name, current.log, current.n) == with_peg.key():
            model = with_peg
        if current.game.complete():
            board.new("roquet", 2)
            model = Model()
            model.apply(("NEW", "roquet", 2, 0))
    # and what is acknowledged after all that survives one more cut
    board.game_verb("PEG", 0, rng.randint(1, 9))
    kept = board.rebuild()
    emulator.cut_power()
    emulator.power_on()
    assert board.reconnect().log == kept.log


def test_damaged_storage_is_said_where_people_look_and_kept_aside(emu):
    """Issue 10.8: one flipped byte in the journal's record of the third peg of
    eleven used to restore n=2 silently and compact the 8 intact records after it away. Now the
    board says what it dropped (status, watch, every command's pointer), the
    damaged journal is kept as game.jnl.bad, and the game goes on from what
    is provably intact."""
    from click.testing import CliRunner
    from tallyboard.cli import main

    emulator, board = emu
    board.new("roquet", 2)
    for points in range(1, 12):
        board.game_verb("PEG", 0, points)
    emulator.cut_power()
    # the game's 12 records (the NEW, then pegs of 1 to 11) are the first
    # records of the ring block the snapshot names (firmware/tallyrun/ring.py)
    snapshot = (emulator.flash / "game.snp").read_bytes()
    top = snapshot[32] | snapshot[33] << 8
    block = snapshot[34 + 4 * top + 4]
    journal = emulator.flash / "journal.raw"
    data = bytearray(journal.read_bytes())
    record = block * 4096 + 256 + 3 * 12            # the 4th record: the peg of 3
    data[record + 1] ^= 0x01                        # its event
    journal.write_bytes(bytes(data))
    emulator.power_on()
    current = board.reconnect()
    # pegs 1 and 2 apply: 1 + 2 = 3 points; the game's records 4..12 dropped: 12 - 4 + 1 = 9
    assert current.n == 2 and current.game.total(0) == 3
    assert len((emulator.flash / "game.jnl.bad").read_bytes()) == 12 * 12   # the game's 12 records
    board.link.close()
    note = "the board noted: journal record 4 of 12 damaged: 9 changes dropped; " \
           "kept as game.jnl.bad"
    status = CliRunner().invoke(main, ["status", "-p", emulator.port])
    assert note in status.output.splitlines(), status.output
    peg = CliRunner().invoke(main, ["peg", "0", "4", "-p", emulator.port])
    assert peg.exit_code == 0
    assert "roquet: P1 7  P2 0  (0 hands)" in peg.output                  # 3 + 4 = 7
    assert "the board has noted 1 problem since it started: see tallyboard status" in peg.output
    watch = CliRunner().invoke(main, ["watch", "--duration", "0.5", "--plain", "-p", emulator.port])
    assert "journal record 4 of 12 damaged" in watch.output.replace("\n", " "), watch.output
