"""The evening's store as the tables use it: one typed interface (EveningStore)
for its three implementations, the director's SQLite store
(store.EveningDatabase), a table host's in-memory store of the director's round
(table_host.HostStore) and the tests' stand-in (tests/event_fakes.FakeStore).

It declares what the code that reads the boards and applies their games
(tables.Tables, club.round_body/table_count/broker_users, the director's
apply, `event attach/resume`) calls on a store, with EveningDatabase's
signatures. EveningDatabase has much more (rounds, corrections, the director's
log and PIN): code that needs that takes an EveningDatabase itself.

The event a store's methods take is the one its event() gives (store.Evening,
club.HostEvening, the fake's own), hence the type parameter:
EveningStore[Evening] is EveningDatabase, EveningStore[Any] any of the three.
tests/test_event_store_interface.py holds every implementation to it."""
from __future__ import annotations

from typing import Protocol, TypeVar, runtime_checkable

EventT = TypeVar("EventT")


@runtime_checkable
class EveningStore(Protocol[EventT]):
    """What an evening's store gives the tables (a board's game, the hand it
    holds, its port and status), for one event."""

    def event(self, name: str | None = None) -> EventT:
        """The event called name; with None the evening's one (EveningDatabase: the
        one in progress). EveningError when there is no such event."""
        ...

    def names(self, event: EventT) -> list[str]:
        """The evening's players by number."""
        ...

    def seating(self, event: EventT, round: int) -> list[list[int]]:
        """Round `round`'s tables, each the four players' numbers by seat;
        EveningError when there is no such round (yet)."""
        ...

    def boards(self, event: EventT) -> dict[int, dict]:
        """{table: {"port", "board_id", "status"}} of every table with a board."""
        ...

    def set_board(self, event: EventT, table: int, port: str, board_id: str) -> None:
        """The table's board is on `port` and is `board_id`; its status ok."""
        ...

    def set_table_status(self, event: EventT, table: int, status: str) -> None:
        """The status of the table's board (tables.OK, UNREACHABLE, ...)."""
        ...

    def save_table_game(self, event: EventT, round: int, table: int, record: dict, stamp: dict) -> bool:
        """The board's whole game of the table in round `round` and its stamp
        (the board's journal position), in place of what was stored; False
        when both are what was stored already."""
        ...

    def table_game(self, event: EventT, round: int, table: int) -> dict | None:
        """The table's game as the board last reported it (None: none yet)."""
        ...

    def set_pending(self, event: EventT, round: int, table: int, pending: dict | None) -> None:
        """The hand the table's board holds for an opponent's accept (None: none)."""
        ...

    def pending(self, event: EventT, round: int, table: int) -> dict | None:
        """The held hand last set (None: none)."""
        ...
