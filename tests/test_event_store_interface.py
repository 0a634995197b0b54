"""The evening's store has one interface (tallyboard.evening.evening_store.
EveningStore) and three implementations: the director's SQLite EveningDatabase,
a table host's HostStore (evening/club.py) and the tests' FakeStore
(tests/event_fakes.py). Each has every method of the interface with the
same parameters (names, kinds, defaults), and the same calls give the same
answers on the real store and on the stand-ins, so a test on FakeStore says
something of EveningDatabase."""
from __future__ import annotations

import inspect
from typing import Any, Callable

import pytest
from event_fakes import FakeStore

from tallyboard.evening import club, standings
from tallyboard.evening.table_host import HostStore
from tallyboard.evening.evening_store import EveningStore
from tallyboard.evening.store import EveningError, EveningDatabase

IMPLEMENTATIONS = [EveningDatabase, HostStore, FakeStore]
PLAYERS = ["Ann", "Bob", "Cy", "Dee", "Eve", "Fay", "Gus", "Hal"]
SEATING = [[0, 1, 2, 3], [4, 5, 6, 7]]
HELD = {"hand": 1, "waiting_for": ["Bob", "Dee"], "scores": [70, 60, 70, 60], "buttons": ["B", "D"]}
STAMP = {"game": "skicket", "players": "4", "n": "0", "lcrc": "0000", "held": "0", "round": 1}


def protocol_methods() -> list[str]:
    return sorted(name for name, value in vars(EveningStore).items()
                  if inspect.isfunction(value) and not name.startswith("_"))


def parameters(function: Callable[..., Any]) -> list[tuple[str, Any, Any]]:
    """A method's parameters as a caller sees them: name, kind, default (types aside: each
    implementation names its own event type; mypy checks those)."""
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


def test_the_interface_declares_what_the_tables_call():
    assert protocol_methods() == ["boards", "event", "names", "pending", "save_table_game", "seating", "set_board",
                                  "set_pending", "set_table_status", "table_game"]


@pytest.mark.parametrize("implementation", IMPLEMENTATIONS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", protocol_methods())
def test_every_implementation_has_each_method_with_the_same_parameters(implementation, method):
    assert callable(getattr(implementation, method, None)), f"{implementation.__name__} has no {method}()"
    want = parameters(getattr(EveningStore, method))
    got = parameters(getattr(implementation, method))
    assert got == want, f"{implementation.__name__}.{method}{inspect.signature(getattr(implementation, method))} " \
                        f"is not EveningStore.{method}{inspect.signature(getattr(EveningStore, method))}"


# ---------------------------------------------------------------- the same calls, the same answers

@pytest.fixture
def real(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    store = EveningDatabase(tmp_path / "archive.sqlite3")
    store.create("Tuesday club", PLAYERS, SEATING, rounds=2)
    try:
        yield store
    finally:
        store.close()


def make_fake(real: EveningDatabase, tmp_path) -> FakeStore:
    return FakeStore.create(tmp_path / "store.json", "Tuesday club", PLAYERS, SEATING)


def make_host(real: EveningDatabase, tmp_path) -> HostStore:
    return HostStore(club.round_body(real, real.event()), lambda round, table: None)


STAND_INS = {"FakeStore": make_fake, "HostStore": make_host}


def outcome(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception as exc:       # the same failure, by its class
        return type(exc)


def table_record(store: EveningStore[Any], hands: list[dict]) -> dict:
    """Table 1's game of round 1 as a board reports it."""
    event = store.event()
    names = [store.names(event)[p] for p in store.seating(event, 1)[0]]
    return standings.club_record(names, hands, standings.game_length(len(SEATING)))


def held_hands(store: EveningStore[Any]) -> list[Any]:
    """A table with no hand held, one held, the same again, then none (accepted)."""
    event = store.event()
    return [store.pending(event, 1, 1),
            store.set_pending(event, 1, 1, HELD), store.pending(event, 1, 1), store.pending(event, 1, 2),
            store.set_pending(event, 1, 1, dict(HELD)), store.pending(event, 1, 1),
            store.set_pending(event, 1, 1, None), store.pending(event, 1, 1),
            store.set_pending(event, 1, 1, None), store.pending(event, 1, 1)]


def games(store: EveningStore[Any]) -> list[Any]:
    """A table's game saved, saved again unchanged, with a new stamp only (a hand held), with a new hand."""
    event = store.event()
    empty, one = table_record(store, []), table_record(store, [{"purchaser": 0, "bid": "1C", "tricks": 7}])
    return [store.table_game(event, 1, 1),
            store.save_table_game(event, 1, 1, empty, STAMP), store.table_game(event, 1, 1),
            store.save_table_game(event, 1, 1, empty, dict(STAMP)),
            store.save_table_game(event, 1, 1, empty, dict(STAMP, held="1")),
            store.save_table_game(event, 1, 1, one, dict(STAMP, n="1")), store.table_game(event, 1, 1),
            store.table_game(event, 1, 2), store.table_game(event, 2, 1)]


def boards(store: EveningStore[Any], unattached_status: bool = True) -> list[Any]:
    """Boards attached, a status, the board replaced (its status ok again)."""
    event = store.event()
    steps: list[Callable[[], Any]] = [
        lambda: store.boards(event),
        lambda: store.set_board(event, 2, "/dev/ttyACM1", "pico@2"),
        lambda: store.set_board(event, 1, "/dev/ttyACM0", "pico@1"),
        lambda: store.boards(event), lambda: list(store.boards(event)),
        lambda: store.set_table_status(event, 1, "unreachable"), lambda: store.boards(event),
        lambda: store.set_board(event, 1, "/dev/ttyACM2", "pico@1"), lambda: store.boards(event)]
    if unattached_status:
        # EveningDatabase and FakeStore: no board, no status; a table host keeps its table's status before
        # its board is known (it reports it to the director), so HostStore is not asked this
        steps += [lambda: store.set_table_status(event, 3, "unreachable"), lambda: store.boards(event)]
    return [outcome(step) for step in steps]


def evening(store: EveningStore[Any]) -> list[Any]:
    event = store.event()
    return [event.name, store.names(event), store.seating(event, 1), outcome(lambda: store.seating(event, 9)),
            outcome(lambda: store.event("no such evening"))]


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_a_held_hand_reads_back_the_same_on_the_real_store_and_a_stand_in(real, tmp_path, stand_in):
    other = STAND_INS[stand_in](real, tmp_path)
    assert held_hands(other) == held_hands(real) == [None, None, HELD, None, None, HELD, None, None, None, None]


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_a_table_game_saves_the_same_on_the_real_store_and_a_stand_in(real, tmp_path, stand_in):
    other = STAND_INS[stand_in](real, tmp_path)
    want = games(real)
    assert [want[i] for i in (1, 3, 4, 5)] == [True, False, True, True]
    assert games(other) == want


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_boards_and_their_status_are_the_same_on_the_real_store_and_a_stand_in(real, tmp_path, stand_in):
    other = STAND_INS[stand_in](real, tmp_path)
    every = stand_in != "HostStore"
    assert boards(other, every) == boards(real, every)


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_the_evening_reads_the_same_on_the_real_store_and_a_stand_in(real, tmp_path, stand_in):
    other = STAND_INS[stand_in](real, tmp_path)
    assert evening(other) == evening(real)
    assert evening(real)[3:] == [EveningError, EveningError]


@pytest.mark.parametrize("stand_in", STAND_INS)
def test_every_implementation_is_an_evening_store_at_run_time(real, tmp_path, stand_in):
    assert isinstance(real, EveningStore)
    assert isinstance(STAND_INS[stand_in](real, tmp_path), EveningStore)
