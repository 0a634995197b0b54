"""What the host knows about one game: the `GameProfile`, and `LoadedGame`
(a record applied to the core), which the records, the sheets and the
profiles all share. Every rule stays in the game's `tallycore` module; a
profile only says how the game's records, sheets and simulation look."""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterator, Mapping

from tallycore import game as core_game
from tallycore import games as core_games

if TYPE_CHECKING:
    from rich.table import Table
    from rich.text import Text

# how a game is won, as `tallyboard sheet --json` says it for the short games
WINS_TARGET = "target"          # first to the rules' TARGET (the sheet prints "target": N)
WINS_HIGHEST = "highest"
WINS_LOWEST = "lowest"
WINS_MOST_HANDS = "most hands"
WINS_MOST_TRICKS = "most tricks"   # Quatro: the totals are tricks (docs/rules.md QU3)
WINS = (WINS_TARGET, WINS_HIGHEST, WINS_LOWEST, WINS_MOST_HANDS, WINS_MOST_TRICKS)


@dataclass
class LoadedGame:
    """A record applied to the core: the game plus what the record named."""

    name: str
    players: list[str]
    options: dict[str, Any]
    game: core_game.Game
    chain: dict[str, Any] | None = None     # its board's signed chain, when the record has one (docs/records.md)


@dataclass(frozen=True)
class OptionFlag:
    """A flag of `tallyboard new` that sets one of the game's record options:
    `--hands 4` sets `"hands": 4`, the bare `--royal` sets `"royal": true`."""

    flag: str                   # "--hands"
    key: str                    # the option's key in docs/records.md
    help: str
    value: Any = None           # what the bare flag sets; None: the flag takes a value
    choices: tuple[Any, ...] = ()   # the values a flag that takes one allows
    # flags it cannot go with, and why, in the user's words
    excludes: tuple[str, ...] = ()
    why: str = ""


def no_simulation_options(rng: random.Random) -> int:
    """A simulated game with no options (draws nothing from the generator)."""
    return 0


def nothing_to_check(*words: str) -> None:
    """A verb with no word the host checks before it talks to the board."""


@dataclass(frozen=True)
class GameProfile:
    """One game on the host (see games/__init__.py for the registry)."""

    name: str
    # --- records (docs/records.md)
    # one record hand -> the core's events (shape checks only; the core checks the rules)
    events: Callable[[Any, int, dict], Iterator[int]]
    # the events of one record hand -> that record hand
    hand: Callable[[list[int]], Any]
    # the record's `options` object -> packed options
    options: Callable[[dict], int]
    # packed options -> the record's `options` object (defaults left out);
    # ValueError for bits the game does not know
    options_document: Callable[[int], dict]
    # whether an event is the last of one record hand; None: the core's own
    # end of hand (rules.ends_hand)
    closes: Callable[[int], bool] | None
    # --- the score sheet
    # `tallyboard sheet --json`: (this profile, the game) -> the document
    sheet_json: Callable[[GameProfile, LoadedGame], dict[str, Any]]
    # `tallyboard sheet`: the document -> a rich Table
    sheet_table: Callable[[dict[str, Any]], Table]
    # how the game is won: one of WINS
    wins: str
    # one hand as a record writes it (JSON), a hand the game takes first:
    # the example `tallyboard enter` gives after bad JSON
    example_hand: str
    # --- simulation and the board's own verbs
    # a random event (legal or not: the core sorts them); None: not simulated
    candidate: Callable[[random.Random], int] | None = None
    # random packed options for a simulated game
    simulation_options: Callable[[random.Random], int] = no_simulation_options
    # an event sent with the game's own protocol verb instead of EV:
    # (board, event) -> (request text, send); None: the game has none
    send: Callable[[Any, int], tuple[str, Callable[[], dict[str, str]]]] | None = None
    # the protocol verbs that are this game's own, each with a check of the
    # words the host can check before it talks to the board (ValueError)
    verbs: Mapping[str, Callable[..., None]] = field(default_factory=dict)
    # the CLI's own commands of the game (click commands that send its verbs),
    # made when the CLI is built with the CLI's helpers handed in:
    # (kit: commands.scoring.command_kit()) -> commands
    commands: Callable[[Any], list[Any]] = lambda cli: []
    # --- a hand in progress (docs/records.md, "A hand in progress"); None for
    # both: every hand of the game is one entry, never in progress
    # (events of a hand not yet closed, number of players) -> its record hand
    # without "open" (records adds it)
    open_hand: Callable[[list[int], int], Any] | None = None
    # a record hand in progress ("open" taken out) -> its events, none closing
    # the hand (shape checks only, as `events`)
    open_events: Callable[[Any, int, dict], Iterator[int]] | None = None
    # a finished record hand the game writes as a list, as the object that has
    # room for its accepted_by (docs/records.md, Who accepted a hand); None:
    # the game's hands are objects already
    hand_object: Callable[[Any], dict] | None = None
    # the line `tallyboard play` prints for one record hand it played:
    # (the record's hands up to this one, player names) -> text, the hand
    # numbered as the sheet numbers it; None: a plain line
    hand_line: Callable[[list[Any], list[str]], str] | None = None
    # the game as text for `watch --plain`: (core game, player names) -> Text;
    # None: the sheet says it all
    plain_view: Callable[[core_game.Game, list[str]], Text] | None = None
    # flags of `tallyboard new` for the game's options (each sets one key)
    flags: tuple[OptionFlag, ...] = ()
    # the game a club evening plays at every table (`tallyboard event`,
    # docs/rules.md SK19): (hands in a game) -> its record options; None:
    # not a club game
    club_options: Callable[[int], dict[str, Any]] | None = None

    @property
    def index(self) -> int:
        """The game's row in tallycore.games.GAMES (its number on the wire)."""
        return core_games.index_of(self.name)

    @property
    def fewest_players(self) -> int:
        return core_games.GAMES[self.index][1]

    @property
    def rules(self) -> Any:
        """The game's rules module in tallycore."""
        return core_games.by_name(self.name)

    def closes_hand(self, game: core_game.Game) -> Callable[[int], bool]:
        """Whether an event is the last of one record hand, for this game."""
        return self.closes or game.rules.ends_hand

    def sheet(self, loaded: LoadedGame) -> dict[str, Any]:
        """The game's `tallyboard sheet --json` document."""
        return self.sheet_json(self, loaded)

    def hand_in_progress(self, game: core_game.Game) -> list[int]:
        """The events of the hand not yet finished (empty: none)."""
        groups = self.record_hands(game)
        if groups and not self.closes_hand(game)(groups[-1][-1]):
            return groups[-1]
        return []

    def record_hands(self, game: core_game.Game) -> list[list[int]]:
        """The applied events grouped by the record hand they make (the last
        group may be a hand not yet finished)."""
        closes = self.closes_hand(game)
        groups: list[list[int]] = []
        pending: list[int] = []
        for i in range(game.n):
            pending.append(game.log[i])
            if closes(game.log[i]):
                groups.append(pending)
                pending = []
        if pending:
            groups.append(pending)
        return groups
