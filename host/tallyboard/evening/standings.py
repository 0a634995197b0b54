"""The evening's arithmetic: each table's game scored by the club game's own
core (through the host profile and tallyboard.scorebook.records), the continuous
score, the standings and who moves where (tallycore.progressive,
docs/rules.md SK19, SK20). Nothing here reads the store or a file: the event
record (record.py) and the snapshot (snapshot.py) both call it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tallycore import progressive

from .. import games
from ..scorebook import records, sheet
from ..scorebook import why as reasons


def game_length(tables: int, hands: int | None = None) -> int:
    """Hands in a game with this many tables (SK16, SK19), unless the event says."""
    return hands if hands else progressive.game_hands(tables)


def club_record(names: list[str], hands: list[Any], length: int) -> dict[str, Any]:
    """One table's game as a game record (docs/records.md): the four names by
    seat at the round's start, the hands whose player fields are those seats."""
    club = games.club_game()
    assert club.club_options is not None
    doc: dict[str, Any] = {"format": records.FORMAT, "game": club.name, "players": list(names)}
    options = club.club_options(length)
    if options:
        doc["options"] = options
    doc["hands"] = list(hands)
    return doc


def table_sheet(names: list[str], hands: list[Any], length: int, source: str) -> dict[str, Any]:
    """The score sheet (docs/records.md) of one table's game; RecordError
    ("SOURCE: hand 3: tricks: must be 0 to 13") for a hand the rules refuse."""
    return sheet.sheet_json(records.from_document(club_record(names, hands, length), source))


def table_why(hands: list[Any], length: int) -> list[list[str]]:
    """Each hand's reason in the rules' words (tallycore.why), hand by hand as the
    sheet numbers them, for a table's game table_sheet has taken; a player is
    named by a mark of his seat, which why_words makes his name where it is shown
    (the register may name him otherwise than the evening did)."""
    marks = [_SEAT_MARK % seat for seat in range(4)]
    return reasons.sheet_lines(records.from_document(club_record(marks, hands, length), ""))


_SEAT_MARK = "SEAT%dMARK"   # a seat in table_why's words: a name the rules' words never hold


def why_words(lines: list[str], names: list[str]) -> list[str]:
    """table_why's lines of one hand with the players' names by seat."""
    out = []
    for line in lines:
        for seat, name in enumerate(names):
            line = line.replace(_SEAT_MARK % seat, name)
        out.append(line)
    return out


@dataclass
class TablePlay:
    """One table's game in one round: who sat where at the start, and its sheet."""

    table: int                  # 1 = the head
    seats: list[int]            # event player numbers by seat at the round's start
    sheet: dict[str, Any] | None   # None: no game stored yet
    ended_early: bool = False   # the director closed it short (event next --force)
    why: list[list[str]] = field(default_factory=list)   # each hand's reason (table_why), as the sheet numbers them

    @property
    def over(self) -> bool:
        return self.ended_early or bool(self.sheet and self.sheet["complete"])

    def scores(self) -> list[int]:
        """This game's score per seat at the round's start."""
        return list(self.sheet["totals"]) if self.sheet else [0, 0, 0, 0]

    def hands_in(self) -> int:
        return len(self.sheet["hands"]) if self.sheet else 0


@dataclass
class RoundPlay:
    seating: list[list[int]]
    tables: list[TablePlay]
    length: int

    def over(self) -> bool:
        return all(t.over for t in self.tables)


@dataclass
class Standings:
    """Every player's evening so far: the game scores of each round (None
    where a player did not sit), the continuous score, games and games won."""

    players: int
    game_scores: list[list[int | None]] = field(default_factory=list)
    continuous: list[int] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    games_won: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.continuous = [0] * self.players
        self.games = [0] * self.players
        self.games_won = [0] * self.players

    def add_round(self, play: RoundPlay) -> None:
        scores: list[int | None] = [None] * self.players
        for table in play.tables:
            won = table.sheet["winners"] if table.sheet else []
            for seat, player in enumerate(table.seats):
                score = table.scores()[seat]
                scores[player] = score
                self.continuous[player] += score   # SK20: the sum over every game of the evening
                if table.over:
                    self.games[player] += 1
                    if table.sheet and seat in won and table.hands_in():
                        self.games_won[player] += 1   # G5: tied winners all win
        self.game_scores.append(scores)


def evening_of(players: int, rounds: list[RoundPlay]) -> Standings:
    out = Standings(players)
    for play in rounds:
        out.add_round(play)
    return out


def moves(play: RoundPlay, evening: Standings) -> list[tuple[int, int, int, int]]:
    """(player, from table, to table, seat) after this round's games, tables
    from 1 (SK19; the last round's scores and the continuous score so far)."""
    last = [s or 0 for s in evening.game_scores[-1]]
    return [(player, frm + 1, to + 1, seat)
            for player, frm, to, seat in progressive.moves(play.seating, last, evening.continuous)]


def next_seating(play: RoundPlay, evening: Standings) -> list[list[int]]:
    last = [s or 0 for s in evening.game_scores[-1]]
    return progressive.next_seating(play.seating, last, evening.continuous)


def ranked(evening: Standings, among: list[int] | None = None) -> list[tuple[int, int]]:
    """(rank, player) from the largest continuous score down; equal scores
    share a rank (SK20, G5)."""
    order = progressive.evening_order(evening.continuous)
    if among is not None:
        order = [p for p in order if p in among]
    out: list[tuple[int, int]] = []
    for place, player in enumerate(order, 1):
        if out and evening.continuous[out[-1][1]] == evening.continuous[player]:
            out.append((out[-1][0], player))
        else:
            out.append((place, player))
    return out


def winners(evening: Standings) -> list[int]:
    """Every player tied on the largest continuous score (SK20)."""
    if not evening.players:
        return []
    best = max(evening.continuous)
    return [p for p in range(evening.players) if evening.continuous[p] == best]
