"""The boards of one club evening (docs/host.md, "A club evening: the boards").

One board scores one table. `Tables` attaches the evening's boards (USB ports,
or emulators it starts as detached `tallyboard emulate --flash DIR` processes
that outlive the host), pushes each round to them (the club game, its length,
confirmation on, the table's four names, the round) and reads them back: every
board's own game, confirmed hands only, replaces what the store keeps for its
table (state-based and idempotent: nothing lost, nothing counted twice).

A board's identity at an evening is its `event` and `table` settings
(docs/protocol.md, config keys): the host sets them when it attaches the
board and checks them every time the board's settings change, so a board
plugged into another table's place (boards swapped on the hub) is refused,
and nothing from it is stored. Its board id, as the store keeps it, is
`<board definition>@<event tag>.<table>`: HELLO's board name says what kind of
board it is, the pair says which one.

Every board is opened through the port-sharing link (portshare.py), so other
tallyboard commands (`hand --port P`, `status`, `press`) still reach a board
while an evening holds it, and a board that pushes an event can be read at once (follow_pushes).

The boards are pushed a round, and read, side by side (sidebyside.py)."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, cast

from tallycore import game as core_game
from tallynet import tablestate
from tallyrun import protocol

from .evening_store import EveningStore
from .sidebyside import Serialized, SideBySide
from . import table_emulators
from .standings import game_length
from ..tooling import emulator as emu_mod
from ..tooling import fileset
from .. import games
from ..games.base import LoadedGame
from ..boardlink import portshare
from ..boardlink.pushed import PushedEvents
from ..scorebook import records
from ..boardlink.client import Board
from ..boardlink.boardgame import BoardGame, options_document
from ..common.errors import BoardError, TallyboardError, TransportError

# statuses a table's board can have (store.set_table_status)
OK = "ok"
UNREACHABLE = "unreachable"
SWAPPED = "swapped"
NO_GAME = "no game"
REMOTE = "mqtt:"           # a board's port at the director when a table host has it (evening/club.py)


def event_tag(event: Any) -> int:
    """The evening's 16-bit tag, as boards keep it in their `event` setting
    (never 0, which means none): CRC-16 of its name and, when the store gives
    them, its id and creation time."""
    text = "|".join(str(getattr(event, key, "") or "") for key in ("name", "id", "created"))
    data = text.encode()
    return protocol.crc16(data, 0, len(data)) or 1


def events_home() -> Path:
    """Where an evening keeps its emulated boards: $XDG_STATE_HOME/tallyboard/events
    (else ~/.local/state/tallyboard/events)."""
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "tallyboard" / "events"


def event_folder(event: Any) -> Path:
    """The evening's data folder: its name in safe letters, then its tag."""
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", str(event.name)).strip("-.") or "event"
    return events_home() / f"{slug}-{event_tag(event):04x}"


def board_name(name: str) -> str:
    """A player's name as a board takes it (docs/protocol.md: 1-12 letters,
    digits, _ - .): spaces become _, other characters are left out
    (tallynet.tablestate: a board on Wi-Fi seats itself with the same)."""
    return tablestate.board_name(name)


class Refused(TallyboardError):
    """A board that is not the table it is plugged in for (its `event`/`table` settings)."""


@dataclass
class _Board:
    """One table's board as this process knows it."""

    table: int
    port: str
    flash: Path | None = None       # an emulated board: its flash folder
    link: Any = None
    board: Board | None = None
    checked_ccrc: str | None = None  # the settings (OPEN's ccrc) whose identity was checked
    round: int = 0                   # the board's `round` setting, as last read
    saved: dict | None = None        # the stamp last saved (None: not this process yet)
    pending: Any = False             # the held hand last given to the store (False: none given yet)
    status: str = ""


class Tables:
    """The boards of one evening: ports or emulators, opened through the port-sharing link."""

    def __init__(self, store: EveningStore[Any], event: Any, timeout: float = 1.0) -> None:
        self.store = cast(EveningStore[Any], Serialized(store))
        self.pushes: PushedEvents | None = None   # follow_pushes: the boards' events followed
        self.side_by_side = SideBySide()
        self.event = event
        self.timeout = timeout
        self.tag = event_tag(event)
        self.folder = event_folder(event)
        self.names = store.names(event)      # the evening's players, by number
        self.messages: dict[int, str] = {}   # table -> what is wrong with its board, in words
        self.boards: dict[int, _Board] = {}
        self.remote: set[int] = set()       # tables whose boards are on a table host (evening/club.py)
        for table, known in sorted(store.boards(event).items()):
            if str(known.get("port", "")).startswith(REMOTE):
                self.remote.add(table)
                continue
            self.boards[table] = _Board(table, known["port"], table_emulators.emulated_flash(self.folder, table))

    # ------------------------------------------------------------ attaching
    def flash_of(self, table: int) -> Path:
        return table_emulators.flash_folder(self.folder, table)

    def attach_ports(self, ports: list[str], numbers: list[int] | None = None) -> None:
        """Each port's board becomes a table, in the order given (table 1 first,
        or the tables `numbers` names)."""
        if not ports:
            raise TallyboardError("no board to attach: give --port for each table's board, or --emulators N")
        if len(set(os.path.realpath(p) for p in ports)) != len(ports):
            raise TallyboardError("the same port is given twice: give each table's board once")
        for table, port in zip(_numbers(len(ports), numbers), ports):
            self._attach(table, port, None)

    def attach_emulators(self, count: int, numbers: list[int] | None = None) -> None:
        """Start count emulated boards, one per table (1 to count, or the tables
        `numbers` names), each a detached `tallyboard emulate --flash DIR` (DIR:
        the evening's folder, table-N) that outlives this process; close() leaves
        them running (stop_emulators() stops them)."""
        if count < 1 or count > protocol.MAX_TABLE:
            raise TallyboardError(f"--emulators: 1 to {protocol.MAX_TABLE} boards")
        for table in _numbers(count, numbers):
            port = self.start_emulator(table)
            self._attach(table, port, self.flash_of(table))

    def start_emulator(self, table: int) -> str:
        """The emulator of a table running on its own flash folder (started if it
        is not); its port."""
        return table_emulators.start(self.folder, table, self.flash_of(table))

    def emulator_pids(self) -> dict[int, int]:
        """table -> pid of its running emulator."""
        out = {}
        for table, known in self.boards.items():
            running = emu_mod.running_on(known.flash) if known.flash is not None else None
            if running:
                out[table] = int(running["pid"])
        return out

    def restart_emulators(self) -> list[int]:
        """Start again every emulated board of the evening that is not running
        (on its own flash, so its game and settings are as it left them); the
        tables restarted."""
        restarted = []
        for table, known in sorted(self.boards.items()):
            if known.flash is not None and emu_mod.running_on(known.flash) is None:
                self._drop_link(known)
                known.port = self.start_emulator(table)
                self.store.set_board(self.event, table, known.port, self._board_id(table, None))
                restarted.append(table)
        return restarted

    def stop_emulators(self) -> None:
        """Stop the evening's emulated boards (their flash folders stay)."""
        pids = self.emulator_pids()
        for known in self.boards.values():
            self._drop_link(known)
        table_emulators.stop(list(pids.values()))

    def _attach(self, table: int, port: str, flash: Path | None) -> None:
        known = self.boards.get(table)
        if known is not None:
            self._drop_link(known)
        known = _Board(table, port, flash)
        self.boards[table] = known
        board = self._connect(known)
        if _setting(board, "event") != self.tag or _setting(board, "table") != table:
            # a board new to this table: whatever game it holds is not this table's
            # (attached again where it already was, its round and game stay)
            board.cfg_set("round", "0")
            board.cfg_set("event", str(self.tag))
            board.cfg_set("table", str(table))
        self.store.set_board(self.event, table, port, self._board_id(table, board))
        self._status(known, OK)

    def _board_id(self, table: int, board: Board | None) -> str:
        kind = board.hello_fields.get("board", "board") if board is not None else "emulator"
        return f"{kind}@{tablestate.board_ident(self.tag, table)}"

    # ------------------------------------------------------------ the link
    def _connect(self, known: _Board) -> Board:
        if known.board is not None:
            return known.board
        if known.flash is not None:
            port = table_emulators.running_port(known.table, known.flash)
            if port != known.port:
                known.port = port
                self.store.set_board(self.event, known.table, known.port, self._board_id(known.table, None))
        link = portshare.open_link(known.port, serve=True)
        board = Board(link, timeout=self.timeout, keep_events=False)
        try:
            link.drain()
            board.hello()
        except BaseException:
            link.close()
            raise
        known.link, known.board = link, board
        known.checked_ccrc = None
        if self.pushes is not None:
            self.pushes.follow(known.table, known.port)
        return board

    def _drop_link(self, known: _Board) -> None:
        if self.pushes is not None:
            self.pushes.forget(known.table)
        if known.link is not None:
            try:
                known.link.close()
            except (OSError, TransportError):
                pass
        known.link = known.board = None
        known.checked_ccrc = None

    def close(self) -> None:
        """Let go of every board's port (emulators keep running)."""
        if self.pushes is not None:
            self.pushes.close()
            self.pushes = None
        self.side_by_side.close()
        for known in self.boards.values():
            self._drop_link(known)

    def follow_pushes(self, heard: Callable[[int], None]) -> None:
        """heard(table), on the listening thread, whenever a board opened pushes an event or its
        port's sharer goes away (a cable pulled), until its link is dropped: note it, sync(only=...) elsewhere."""
        if self.pushes is None:
            self.pushes = PushedEvents(heard)
        for known in self.boards.values():
            if known.link is not None:
                self.pushes.follow(known.table, known.port)

    def _status(self, known: _Board, status: str, message: str | None = None) -> None:
        if message is None:
            self.messages.pop(known.table, None)
        else:
            self.messages[known.table] = message
        if status != known.status:
            known.status = status
            self.store.set_table_status(self.event, known.table, status)

    # ------------------------------------------------------------ identity
    def _check_identity(self, known: _Board, board: Board, ccrc: str) -> bool:
        """Whether the board is this evening's table it is plugged in for (its
        `event` and `table` settings); read again only when its settings change."""
        if known.checked_ccrc == ccrc and ccrc:
            return True
        tag = _setting(board, "event")
        table = _setting(board, "table")
        known.round = _setting(board, "round")
        port = board.link.name
        if tag == self.tag and table == known.table:
            known.checked_ccrc = ccrc
            return True
        if tag == self.tag and table:
            words = (f"the board on {port} is table {table} of this evening, not table {known.table}: boards "
                     "swapped on the hub? plug each back where it was, or attach again")
        elif tag:
            words = (f"the board on {port} belongs to another evening, not table {known.table} of this one: "
                     "plug this evening's board back, or attach again")
        else:
            words = (f"the board on {port} is not a board of this evening (it has no table): plug table "
                     f"{known.table}'s board back, or attach again")
        self._status(known, SWAPPED, words)
        return False

    # ------------------------------------------------------------ rounds
    def round_options(self, tables: int) -> int:
        """The club game's packed options for an evening of this many tables,
        confirmation by an opponent forced on (docs/rules.md SK19, CF)."""
        return round_game(tables, getattr(self.event, "hands", None))[1]

    def push_round(self, round: int, only: list[int] | None = None) -> None:
        """Every board (or the tables in `only`; a table host's, evening/club.py):
        the club game of this round (its length, confirmation on),
        the table's four names by seat and the round. A board that has this
        round's game already is left alone, so a push repeated after a crash
        drops no scored hand. A board that cannot be reached or is not its
        table's is named in the error, after the others were pushed (side by side)."""
        seating = self.store.seating(self.event, round)
        wanted = [t for t in range(1, len(seating) + 1) if only is None or t in only]
        missing = [t for t in wanted if t not in self.boards and t not in self.remote]
        if missing:
            raise TallyboardError(f"table {missing[0]} has no board: attach one board per table "
                                  f"({len(seating)} tables) with tallyboard event attach")
        options = self.round_options(len(seating))
        club = games.club_game()

        def push(table: int) -> None:
            known = self.boards[table]
            names = [self.names[p] for p in seating[table - 1]]
            try:
                self._with_link(known, lambda: self._push(known, round, club.name, options, names))
            except TallyboardError as exc:
                self._lost(known, exc)
                raise

        done = self.side_by_side.run([t for t in wanted if t not in self.remote], push, TallyboardError)
        failed = [t for t, outcome in sorted(done.items()) if isinstance(outcome, TallyboardError)]
        if failed:
            raise TallyboardError("; ".join(self.messages[t] for t in failed))

    def _push(self, known: _Board, round: int, name: str, options: int, names: list[str]) -> None:
        board = self._connect(known)
        fields = board.open()
        if not self._check_identity(known, board, fields.get("ccrc", "")):
            raise Refused(self.messages[known.table])
        wanted = [board_name(n) for n in names]
        if (known.round == round and fields.get("game") == name and fields.get("options") == str(options)
                and fields.get("players") == "4"):
            # this round's game is there: its hands stay; only a name that differs is set
            for seat, player in enumerate(wanted):
                if board.cfg_get("name", seat) != player:
                    board.cfg_set("name", player, seat)
            self._status(known, OK)
            return
        self._sync_one(known)          # the last round's game is stored before it goes
        board.cfg_set("round", "0")    # between rounds: nothing is stored from the board meanwhile
        known.round = 0
        board.new(name, 4, options)
        for seat, player in enumerate(wanted):
            board.cfg_set("name", player, seat)
        board.cfg_set("round", str(round))
        known.round = round
        known.checked_ccrc = None
        known.saved = None
        known.pending = False
        self._status(known, OK)

    # ------------------------------------------------------------ reading the boards
    def sync(self, only: Iterable[int] | None = None) -> bool:
        """Read every board (or the tables in `only`) once, side by side, and
        store what changed: its game (confirmed hands only) and the hand it
        holds for a confirmation. A board that does not answer is marked
        unreachable and the others go on; it is opened again on the next sync.
        True when anything stored changed."""
        wanted = sorted(self.boards) if only is None else sorted(set(only) & set(self.boards))

        def read(table: int) -> bool:
            known = self.boards[table]
            try:
                return bool(self._with_link(known, lambda: self._sync_one(known)))
            except TallyboardError as exc:
                self._lost(known, exc)
                return False

        return any(self.side_by_side.run(wanted, read, TallyboardError).values())

    def identify(self) -> None:
        """Open every board and check that it is its table's (its `event` and
        `table` settings), reading the round it is in; nothing is stored."""
        for table in sorted(self.boards):
            known = self.boards[table]

            def check(known: _Board = known) -> None:
                board = self._connect(known)
                if self._check_identity(known, board, board.open().get("ccrc", "")):
                    self._status(known, OK)
                else:
                    self._drop_link(known)
            try:
                self._with_link(known, check)
            except TallyboardError as exc:
                self._lost(known, exc)

    def round_of(self, table: int) -> int:
        """The round a table's board was last found in (0: none, or not read yet)."""
        return self.boards[table].round

    def _with_link(self, known: _Board, act: Any) -> Any:
        """act() with the table's board; a link that broke since the last time
        (a cable pulled and plugged back, an emulator restarted) is opened again
        once."""
        fresh = known.board is None
        try:
            return act()
        except Refused:
            raise
        except TransportError:
            if fresh:
                raise
            self._drop_link(known)
            return act()

    def _lost(self, known: _Board, exc: Exception) -> None:
        self._drop_link(known)
        if isinstance(exc, Refused):
            return                  # said already: status swapped
        self._status(known, UNREACHABLE, f"table {known.table}: the board on {known.port} does not answer "
                                         f"({exc}); it is read again when it answers")

    def _sync_one(self, known: _Board) -> bool:
        board = self._connect(known)
        fields = board.open()
        if not self._check_identity(known, board, fields.get("ccrc", "")):
            self._drop_link(known)     # read again next time: it may be plugged back where it belongs
            return False
        club = games.club_game()
        if known.round == 0 or fields.get("game") != club.name or fields.get("players") != "4":
            self._status(known, NO_GAME if fields.get("game") in ("-", "") else OK)
            return False
        opened = {key: fields.get(key, "") for key in ("game", "players", "options", "n", "top", "lcrc", "held")}
        stamp = tablestate.stamp(**opened, board_id=self._board_id(known.table, board), round=known.round)
        if stamp == known.saved:
            self._status(known, OK)
            return False
        current = board.rebuild()
        if current.game is None or current.name is None:
            return False
        # what was read must be what OPEN stamped (a hand entered in between: read next time)
        if (str(current.n), str(current.top), current.state.get("lcrc")) != (stamp["n"], stamp["top"], stamp["lcrc"]):
            return False
        seating = self.store.seating(self.event, known.round)
        names = [self.names[p] for p in seating[known.table - 1]]
        options = options_document(current.name, current.options)
        # a finished game goes with the board's signature of its chain (docs/records.md, The chain):
        # asked once, when it is over (the chip takes a second or two to sign)
        chain = board.chain_of(LoadedGame(current.name, names, options, current.game)) if (
            current.game.complete()) else None
        record = records.to_document(current.name, names, options, current.game, chain)
        changed = bool(self.store.save_table_game(self.event, known.round, known.table, record, dict(stamp)))
        pending = pending_of(current, names, fileset.button_letters(board.hello_fields.get("board")))
        if pending != known.pending:
            self.store.set_pending(self.event, known.round, known.table, pending)
            changed = True             # the views show a held hand too
            known.pending = pending
        known.saved = stamp
        self._status(known, OK)
        return changed


def round_game(tables: int, hands: int | None) -> tuple[str, int, dict[str, Any]]:
    """The club game of a round of this many tables: its name, its packed
    options with confirmation by an opponent forced on (NEW's), and its
    record's options (docs/rules.md SK19, CF)."""
    club = games.club_game()
    assert club.club_options is not None
    record_options = club.club_options(game_length(tables, hands))
    return club.name, club.options(record_options) | core_game.CONFIRM, record_options


def _numbers(count: int, numbers: list[int] | None) -> list[int]:
    """The tables `count` boards are for: 1 to count, or the `numbers` given (one each)."""
    if numbers is None:
        return list(range(1, count + 1))
    if len(numbers) != count or len(set(numbers)) != count:
        raise TallyboardError(f"{count} boards and the tables {', '.join(map(str, numbers))}: give one table "
                              "number for each board, each once")
    bad = [n for n in numbers if not 1 <= n <= protocol.MAX_TABLE]
    if bad:
        raise TallyboardError(f"table {bad[0]}: tables are numbered 1 to {protocol.MAX_TABLE}")
    return list(numbers)


def pending_of(current: BoardGame, names: list[str], letters: str = core_game.SEAT_LETTERS) -> dict | None:
    """The hand a board holds for its confirmation (docs/rules.md CF), for the
    views: its number, who may accept it with which button (`letters`: those
    beside the board's seat buttons) and what it gives each seat."""
    game = current.game
    if game is None or not game.held:
        return None
    return tablestate.held_of(game, names, letters)


def _setting(board: Board, key: str) -> int:
    """One of the evening's settings on a board; a board whose firmware predates
    them is told to be updated."""
    try:
        return int(board.cfg_get(key))
    except BoardError as exc:
        if exc.code != "RANGE":
            raise
        raise TallyboardError(f"the board on {board.link.name} has no setting {key}: its firmware is older "
                              f"than this tallyboard; run tallyboard deploy --port {board.link.name}") from None
