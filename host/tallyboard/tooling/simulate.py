"""Differential simulation: random legal games played through the board (over
the protocol) and through the core on the host, compared after every step.

Every game draws from its own `random.Random` seeded with (seed, game name,
game number), so one failing game can be replayed alone. A step is an event
(a legal one: the host core's `check` picks it; sent with the game's own verb
or the generic EV), an undo, a redo, or a probe with an event the core refuses
(the board must refuse it too, changing nothing). After each step the board's
reply, its event line and its STATE must equal the host's game; at the end of
each game (and after every reconnection) the whole log is fetched and the
game rebuilt. In some games the port is closed and reopened mid-game, and the
host resynchronises from the board."""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable

from tallycore import game as core_game

from ..boardlink import wire
from .. import games
from ..boardlink.client import Board
from ..boardlink.boardgame import score_mismatch
from ..common.errors import BoardError, TallyboardError

MAX_STEPS = 200


class SimulationMismatch(TallyboardError):
    """The board and the host core disagree: the message says how to reproduce."""

    exit_code = 5


@dataclass
class Stats:
    games: int = 0
    steps: int = 0
    events: int = 0
    undos: int = 0
    redos: int = 0
    probes: int = 0
    reconnects: int = 0
    by_game: dict[str, int] = field(default_factory=dict)


def game_rng(seed: int, name: str, number: int) -> random.Random:
    return random.Random(f"{seed}:{name}:{number}")


def simulated_games() -> tuple[str, ...]:
    """The games with a random event generator in their profile."""
    return tuple(p.name for p in games.profiles() if p.candidate is not None)


SIMULATED_GAMES = simulated_games()


def legal(game: core_game.Game, event: int) -> bool:
    try:
        game.check(event)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------- one game

class GameRun:
    def __init__(self, board: Board, name: str, number: int, seed: int, games_total: int,
                 stats: Stats, reconnect: bool | None = None) -> None:
        self.board = board
        self.name = name
        self.number = number
        self.seed = seed
        self.games_total = games_total
        self.stats = stats
        self.rng = game_rng(seed, name, number)
        self.profile = games.profile(name)
        self.host = core_game.Game()
        self.step_text = "NEW"
        # about one game in four drops and reopens the port somewhere mid-game
        self.reconnect_at = -1
        if reconnect is None:
            reconnect = self.rng.random() < 0.25
        if reconnect:
            self.reconnect_at = self.rng.randint(1, 12)

    def fail(self, what: str) -> SimulationMismatch:
        return SimulationMismatch(
            f"{self.name} game {self.number} (seed {self.seed}), after {self.step_text}: {what}; "
            f"reproduce with: tallyboard simulate --game {self.name} --seed {self.seed} "
            f"--first {self.number} --games 1")

    def play(self) -> None:
        players = self.profile.fewest_players
        options = self.profile.simulation_options(self.rng)
        self.host.new(self.profile.index, players, options)
        self.step_text = f"NEW {self.name} {players} {options}"
        reply = self.board.new(self.name, players, options)
        self.check_reply(reply)
        self.check_state()
        step = 0
        while not self.host.complete() and step < MAX_STEPS:
            step += 1
            if step == self.reconnect_at:
                self.reconnect()
            self.one_step()
            self.stats.steps += 1
        if self.host.complete():
            self.probe()   # nothing can be scored after the end of the game
        # sometimes undo from the finished game and redo again
        if self.host.complete() and self.rng.random() < 0.2:
            self.undo()
            self.redo()
        self.check_rebuild()

    def one_step(self) -> None:
        rng = self.rng
        roll = rng.random()
        if roll < 0.08 and self.host.can_undo():
            self.undo()
        elif roll < 0.12 and self.host.can_redo():
            self.redo()
        elif roll < 0.16:
            self.probe()
        else:
            self.event()

    # --- steps ---------------------------------------------------------
    def candidate(self) -> int:
        candidate = self.profile.candidate
        assert candidate is not None, f"{self.name} is not simulated"
        return candidate(self.rng)

    def event(self) -> None:
        for _ in range(200):
            event = self.candidate()
            if legal(self.host, event):
                break
        else:
            raise self.fail("the generator found no legal event in 200 tries")
        use_verb = self.rng.random() < 0.5
        self.step_text, send = self.describe(event, use_verb)
        try:
            reply = send()
        except BoardError as exc:
            raise self.fail(f"the board refused a legal event: {exc}") from None
        self.host.apply(event)
        self.stats.events += 1
        self.check_reply(reply)
        self.check_event("EV", event)
        self.check_state()

    def undo(self) -> None:
        self.step_text = "UNDO"
        reply = self.board.undo()
        self.host.undo()
        self.stats.undos += 1
        self.check_reply(reply)
        self.check_event("UNDO", None)
        self.check_state()

    def redo(self) -> None:
        self.step_text = "REDO"
        event = self.host.log[self.host.n]
        reply = self.board.redo()
        self.host.redo()
        self.stats.redos += 1
        self.check_reply(reply)
        self.check_event("REDO", event)
        self.check_state()

    def probe(self) -> None:
        """An event the host core refuses: the board must refuse it and change nothing."""
        for _ in range(50):
            event = self.candidate()
            if not legal(self.host, event):
                break
        else:
            return  # every draw was legal here (e.g. early Roquet): nothing to probe
        self.step_text, send = self.describe(event, self.rng.random() < 0.5)
        self.step_text = "refused " + self.step_text
        self.stats.probes += 1
        before = len(self.board.events)
        try:
            reply = send()
        except BoardError as exc:
            if exc.code not in ("RULE", "FULL", "RANGE"):
                raise self.fail(f"the board refused it with {exc.code}, expected RULE") from None
        else:
            raise self.fail(f"the board accepted an event the core refuses ({reply})")
        if len(self.board.events) != before:
            raise self.fail("the board sent an event for a refused request")
        self.check_state()

    def describe(self, event: int, use_verb: bool) -> tuple[str, Callable[[], dict[str, str]]]:
        """The request for an event: the game's own verb, or EV."""
        board = self.board
        if use_verb and self.profile.send is not None:
            return self.profile.send(board, event)
        return f"EV {event}", lambda: board.event(event)

    def reconnect(self) -> None:
        self.step_text = "closing and reopening the port"
        current = self.board.reconnect()
        self.stats.reconnects += 1
        self.compare_game(current)

    # --- comparisons --------------------------------------------------------
    def check_reply(self, reply: dict[str, str]) -> None:
        host = (self.host.n, self.host.top)
        theirs = (_num(reply, "n"), _num(reply, "top"))
        if theirs != host:
            raise self.fail(f"the board replied n={theirs[0]} top={theirs[1]}, the host has n={host[0]} top={host[1]}")

    def check_event(self, kind: str, event: int | None) -> None:
        # the board answers first and pushes the change's event right after
        deadline = time.monotonic() + self.board.timeout
        while ((not self.board.events or self.board.events[-1].kind != kind)
               and time.monotonic() < deadline):
            self.board.poll_events(0.05, first=True)
        if not self.board.events:
            raise self.fail(f"the board sent no {kind} event")
        got = self.board.events[-1]
        self.board.events.clear()
        if got.kind != kind:
            raise self.fail(f"the board's event was {got.kind}, expected {kind}")
        if event is not None and _num(got.fields, "ev") != event:
            raise self.fail(f"the board's event carries ev={got.fields.get('ev')}, expected {event}")
        totals = ",".join(str(self.host.total(p)) for p in range(self.host.players))
        if got.fields.get("totals") != totals:
            raise self.fail(f"the board's event says totals {got.fields.get('totals')}, the host core {totals}")
        if self.board.gap:
            raise self.fail("the board's event numbers skipped one")

    def check_state(self) -> None:
        state = self.board.state()
        host = self.host
        expect = {"game": self.name, "n": str(host.n), "top": str(host.top),
                  "players": str(host.players), "options": str(host.options)}
        for key, value in expect.items():
            if state.get(key) != value:
                raise self.fail(f"STATE {key}: the board says {state.get(key)}, the host core {value}")
        lcrc = wire.log_crc(host.log[i] for i in range(host.top))
        if _num(state, "lcrc", 16) != lcrc:
            raise self.fail(f"STATE lcrc: the board says {state.get('lcrc')}, the host's log gives {lcrc:04X}")
        mismatch = score_mismatch(host, self.board.score())
        if mismatch:
            raise self.fail(mismatch)

    def check_rebuild(self) -> None:
        self.compare_game(self.board.rebuild())

    def compare_game(self, current) -> None:  # type: ignore[no-untyped-def]
        host = self.host
        mine = [host.log[i] for i in range(host.top)]
        if current.name != self.name or current.log != mine or (current.n, current.top) != (host.n, host.top):
            raise self.fail(f"the board's game ({current.name}, n={current.n}, top={current.top}, "
                            f"log {current.log}) differs from the host's (n={host.n}, top={host.top}, log {mine})")
        if bytes(current.game.state) != bytes(host.state):
            raise self.fail("the game rebuilt from the board's log has another state than the host's")


def _num(fields: dict[str, str], key: str, base: int = 10) -> int:
    try:
        return int(fields.get(key, ""), base)
    except ValueError:
        return -1


def simulate(board: Board, names: tuple[str, ...], count: int, seed: int,
             progress: Callable[[str, int], None] | None = None, first: int = 1) -> Stats:
    """Play `count` games of each name (numbered first..first+count-1); raise
    SimulationMismatch at the first difference."""
    stats = Stats()
    board.keep_events = True
    for name in names:
        if name not in SIMULATED_GAMES:
            raise TallyboardError(f"simulate: {name} is not simulated; choose from {', '.join(SIMULATED_GAMES)}")
    for name in names:
        for number in range(first, first + count):
            GameRun(board, name, number, seed, count, stats).play()
            stats.games += 1
            stats.by_game[name] = stats.by_game.get(name, 0) + 1
            if progress:
                progress(name, number)
    return stats
