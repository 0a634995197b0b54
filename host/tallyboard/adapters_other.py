"""Record adapters for the fourteen short games (docs/records.md, "Hands, game by game").

Each adapter turns one record hand into the core's packed events (and
back, for export) and a record's `options` object into the packed options
int. Only the shape of the JSON is checked here (types, indices, card names);
every rule is checked by the game's own module in `tallycore`, whose error
names the field ("tricks: must add up to 13"); `records.from_document` adds
the hand ("hand 3: ...").

Options every one of these games takes:
  first_dealer  player index of the first dealer (default 0)
and per game:
  rummy, parquet  faces: "rank" (default: J 11, Q 12, K 13) or "ten"
  moosehead       faces: "ten" (default, as in cribbage) or "rank" (11, 12, 13)
  jaimy           partners: false (default) or true (4 or 6 players; sides
                  0, 2, 4 against 1, 3, 5)
  doolittle       cards: cards dealt to each player, 6 (default) to 13
"""
from __future__ import annotations

import json
from dataclasses import replace
from functools import partial
from typing import Any, Iterator

from tallycore import (bishops_whist, cards, coronado, despised_nines, doolittle, foozle,
                       jaimy, moosehead, most_count, points, rummy, sachem)

from .records import ADAPTERS, Adapter, _bool, _int, _only, _player

# ---------------------------------------------------------------- options


def _first_dealer(options: dict) -> int:
    value = options.get("first_dealer", 0)
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 7:
        raise ValueError(f"first_dealer: must be a player index, not {json.dumps(value)}")
    return value


def _dealer_only(options: dict) -> int:
    _only(options, {"first_dealer"})
    return _first_dealer(options)


def _faces(options: dict, default: str) -> bool:
    """Whether the faces count at rank (J 11, Q 12, K 13) rather than 10."""
    value = options.get("faces", default)
    if value not in ("rank", "ten"):
        raise ValueError(f'faces: must be "rank" (J 11, Q 12, K 13) or "ten", not {json.dumps(value)}')
    return value == "rank"


def _rummy_options(options: dict) -> int:
    _only(options, {"first_dealer", "faces"})
    return _first_dealer(options) | (0 if _faces(options, "rank") else rummy.OPT_FACES_TEN)


def _moosehead_options(options: dict) -> int:
    _only(options, {"first_dealer", "faces"})
    return _first_dealer(options) | (moosehead.OPT_FACES_RANK if _faces(options, "ten") else 0)


def _jaimy_options(options: dict) -> int:
    _only(options, {"first_dealer", "partners"})
    return _first_dealer(options) | (jaimy.OPT_PARTNERS if _bool(options, "partners") else 0)


def _doolittle_options(options: dict) -> int:
    _only(options, {"first_dealer", "cards"})
    dealt = options.get("cards", doolittle.CARDS)
    if isinstance(dealt, bool) or not isinstance(dealt, int) or not doolittle.CARDS <= dealt <= 13:
        raise ValueError(f"cards: must be 6 to 13 cards each, not {json.dumps(dealt)}")
    return _first_dealer(options) | dealt << doolittle.OPT_CARDS_SHIFT


# ---------------------------------------------------------------- helpers


def _card(text: Any, field: str) -> int:
    if not isinstance(text, str):
        raise ValueError(f"{field}: a card is a string such as \"10\" or \"QH\", not {json.dumps(text)}")
    try:
        return cards.parse(text.strip().upper())
    except ValueError:
        raise ValueError(f"{field}: unknown card {json.dumps(text)}; cards are A, 2..10, J, Q, K, "
                         "optionally followed by C, S, H or D") from None


def _per_player(hand: dict, key: str, players: int, top: int) -> list[int]:
    values = hand.get(key)
    if not isinstance(values, list):
        raise ValueError(f"{key}: missing; one count per player")
    if len(values) != players:
        raise ValueError(f"{key}: {len(values)} counts for {players} players; one count per player")
    for value in values:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
            raise ValueError(f"{key}: {json.dumps(value)} is not a count 0 to {top}")
    return values


def _pair(hand: dict, key: str, top: int, *, optional: bool = False) -> list[int]:
    if key not in hand and optional:
        return [0, 0]
    values = hand.get(key)
    if (not isinstance(values, list) or len(values) != 2
            or any(isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top for v in values)):
        raise ValueError(f"{key}: must be two counts 0 to {top}, one per side, not {json.dumps(values)}")
    return values


# ---------------------------------------------------------------- bishops whist


def _bishops_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict) and hand.get("misdeal") is True:
        _only(hand, {"misdeal"})
        yield bishops_whist.MISDEAL
        return
    hand = _only(hand, {"tricks", "bishops", "bishop_turned", "exposed", "revokes", "misdeal"})
    if "misdeal" in hand and hand["misdeal"] is not False:
        raise ValueError("misdeal: must be true or false")
    yield bishops_whist.pack_hand(_pair(hand, "tricks", 13), _pair(hand, "bishops", 4),
                                  _bool(hand, "bishop_turned"), _pair(hand, "exposed", 7, optional=True),
                                  _pair(hand, "revokes", 7, optional=True))


def _bishops_hand(events: list[int]) -> Any:
    (event,) = events
    if event == bishops_whist.MISDEAL:
        return {"misdeal": True}
    bw = bishops_whist
    return {"tricks": [bw.tricks_of(event, 0), bw.tricks_of(event, 1)],
            "bishops": [bw.bishops_of(event, 0), bw.bishops_of(event, 1)],
            "bishop_turned": bw.turned_of(event),
            "exposed": [bw.exposed_of(event, 0), bw.exposed_of(event, 1)],
            "revokes": [bw.revokes_of(event, 0), bw.revokes_of(event, 1)]}


# ---------------------------------------------------------------- rummy, parquet


def _rummy_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"out", "cards"})
    out = _player(hand, "out", players)
    held = hand.get("cards")
    if not isinstance(held, list) or len(held) != players:
        raise ValueError(f"cards: one list of unplayed cards per player ({players})")
    for p, unplayed in enumerate(held):
        if not isinstance(unplayed, list):
            raise ValueError(f"cards: player {p}: must be a list of cards")
        for text in unplayed:
            yield rummy.pack_card(p, _card(text, f"cards: player {p}"))
    yield rummy.pack_out(out)


def _rummy_hand(events: list[int]) -> Any:
    held: dict[int, list[str]] = {}
    out = 0
    for event in events:
        if event & rummy.OUT:
            out = event & 7
        else:
            held.setdefault(event & 7, []).append(cards.text(event >> 3))
    players = max([out, *held]) + 1
    return {"out": out, "cards": [held.get(p, []) for p in range(players)]}


# ---------------------------------------------------------------- one-event games


def _coronado_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"mode", "tricks"})
    mode = hand.get("mode")
    if mode not in coronado.MODES:
        raise ValueError(f'mode: must be "stand", "refused" or "drew", not {json.dumps(mode)}')
    tricks = _int(hand, "tricks")
    if not 0 <= tricks <= 5:
        raise ValueError(f"tricks: must be 0 to 5, not {tricks}")
    yield coronado.pack_hand(coronado.MODES.index(mode), tricks)


def _coronado_hand(events: list[int]) -> Any:
    (event,) = events
    return {"mode": coronado.MODES[coronado.mode_of(event)], "tricks": coronado.tricks_of(event)}


def _foozle_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"bidder", "bid", "tricks"})
    bidder = _player(hand, "bidder", players)
    bid = _int(hand, "bid")
    if not 1 <= bid <= 5:
        raise ValueError(f"bid: must be 1 to 5 tricks, not {bid}")
    tricks = _int(hand, "tricks")
    if not 0 <= tricks <= 5:
        raise ValueError(f"tricks: must be 0 to 5, not {tricks}")
    yield foozle.pack_hand(bidder, bid, tricks)


def _foozle_hand(events: list[int]) -> Any:
    (event,) = events
    return {"bidder": foozle.bidder_of(event), "bid": foozle.bid_of(event), "tricks": foozle.tricks_of(event)}


def _jaimy_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"claimed", "all"})
    if "claimed" in hand and "all" in hand:
        raise ValueError("all: a hand is claimed with three tricks or taken all five, not both")
    if "claimed" in hand:
        yield jaimy.pack_hand(jaimy.CLAIMED, _player(hand, "claimed", players))
    elif "all" in hand:
        yield jaimy.pack_hand(jaimy.ALL, _player(hand, "all", players))
    else:
        yield jaimy.pack_hand(jaimy.NOBODY_SCORED)


def _jaimy_hand(events: list[int]) -> Any:
    (event,) = events
    kind = jaimy.kind_of(event)
    if kind == jaimy.CLAIMED:
        return {"claimed": jaimy.player_of(event)}
    if kind == jaimy.ALL:
        return {"all": jaimy.player_of(event)}
    return {}


def _winner_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"winner"})
    winner = _player(hand, "winner", players)
    assert winner is not None
    yield winner


def _winner_hand(events: list[int]) -> Any:
    (event,) = events
    return {"winner": event}


def _numero_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"cards"})
    for p, held in enumerate(_per_player(hand, "cards", players, most_count.PACK)):
        yield most_count.pack_count(p, held, most_count.PACK)
    yield most_count.END


def _count_hand(key: str, end: int):  # type: ignore[no-untyped-def]
    def hand(events: list[int]) -> Any:
        counts: dict[int, int] = {e & 7: e >> 3 for e in events if e != end}
        return {key: [counts.get(p, 0) for p in range(max(counts, default=-1) + 1)]}
    return hand


def _quatro_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"tricks"})
    for p, tricks in enumerate(_per_player(hand, "tricks", players, most_count.TRICKS)):
        yield most_count.pack_count(p, tricks, most_count.TRICKS)
    yield most_count.END


def _sachem_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, set(sachem.FIELDS))
    who = []
    for key in sachem.FIELDS:
        if key not in hand:
            raise ValueError(f"{key}: missing (the player who captured it, or null)")
        who.append(_player(hand, key, players, optional=True))
    yield sachem.pack_hand(*who)


def _sachem_hand(events: list[int]) -> Any:
    (event,) = events
    out = {}
    for field, key in enumerate(sachem.FIELDS):
        who = sachem.captor(event, field)
        out[key] = None if who == sachem.NOBODY else who
    return out


def _doolittle_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"takers"})
    takers = hand.get("takers")
    if not isinstance(takers, list):
        raise ValueError("takers: missing; the player who took each trick, in order")
    for k, taker in enumerate(takers, 1):
        if isinstance(taker, bool) or not isinstance(taker, int) or not 0 <= taker < players:
            raise ValueError(f"takers: trick {k}: {json.dumps(taker)} is not a player 0 to {players - 1}")
        yield taker
    yield doolittle.END


def _doolittle_hand(events: list[int]) -> Any:
    return {"takers": [e for e in events if e != doolittle.END]}


def _nines_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"nines"})
    yield despised_nines.pack_hand(_per_player(hand, "nines", players, 4))


def _nines_hand(events: list[int]) -> Any:
    (event,) = events
    return {"nines": [despised_nines.nines_of(event, p) for p in range(despised_nines.players_of(event))]}


# ---------------------------------------------------------------- moosehead


def _moosehead_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    hand = _only(hand, {"plays"})
    plays = hand.get("plays")
    if not isinstance(plays, list):
        raise ValueError('plays: missing; every card played, in order, as [player, "card"], and "go"')
    for k, play in enumerate(plays, 1):
        if play == "go":
            yield moosehead.GO
            continue
        if (not isinstance(play, list) or len(play) != 2 or isinstance(play[0], bool)
                or not isinstance(play[0], int)):
            raise ValueError(f'plays: play {k}: must be [player, "card"] or "go", not {json.dumps(play)}')
        if not 0 <= play[0] < players:
            raise ValueError(f"plays: play {k}: player {play[0]} is out of range 0 to {players - 1}")
        yield moosehead.pack_play(play[0], _card(play[1], f"plays: play {k}"))
    yield moosehead.END


def _moosehead_hand(events: list[int]) -> Any:
    plays: list[Any] = []
    for event in events:
        if event == moosehead.GO:
            plays.append("go")
        elif event != moosehead.END:
            plays.append([event & 7, cards.text(event >> 3)])
    return {"plays": plays}


# ---------------------------------------------------------------- options, back


def options_document(name: str, packed: int) -> dict[str, Any]:
    """The record's `options` object for one of these games' packed options
    (defaults left out), the reverse of the adapter's `options`."""
    doc: dict[str, Any] = {}
    if packed & points.DEALER_MASK:
        doc["first_dealer"] = packed & points.DEALER_MASK
    rest = packed >> points.DEALER_BITS << points.DEALER_BITS
    if name in ("rummy", "parquet") and rest & rummy.OPT_FACES_TEN:
        doc["faces"] = "ten"
        rest &= ~rummy.OPT_FACES_TEN
    elif name == "moosehead" and rest & moosehead.OPT_FACES_RANK:
        doc["faces"] = "rank"
        rest &= ~moosehead.OPT_FACES_RANK
    elif name == "jaimy" and rest & jaimy.OPT_PARTNERS:
        doc["partners"] = True
        rest &= ~jaimy.OPT_PARTNERS
    elif name == "doolittle" and rest:
        if doolittle.cards_dealt(packed) != doolittle.CARDS:
            doc["cards"] = doolittle.cards_dealt(packed)
        rest = 0
    if rest:
        raise ValueError(f"options: {name} has no option {rest}")
    return doc


# ---------------------------------------------------------------- registry

OTHER_GAMES: dict[str, Adapter] = {
    "bishops_whist": Adapter(_bishops_events, _bishops_hand, _dealer_only, closes=lambda event: True),
    "rummy": Adapter(_rummy_events, _rummy_hand, _rummy_options),
    "parquet": Adapter(_rummy_events, _rummy_hand, _rummy_options),
    "coronado": Adapter(_coronado_events, _coronado_hand, _dealer_only),
    "foozle": Adapter(_foozle_events, _foozle_hand, _dealer_only),
    "jaimy": Adapter(_jaimy_events, _jaimy_hand, _jaimy_options),
    "hoodoo": Adapter(_winner_events, _winner_hand, _dealer_only),
    "numero": Adapter(_numero_events, _count_hand("cards", most_count.END), _dealer_only),
    "sachem": Adapter(_sachem_events, _sachem_hand, _dealer_only),
    "quatro": Adapter(_quatro_events, _count_hand("tricks", most_count.END), _dealer_only),
    "doolittle": Adapter(_doolittle_events, _doolittle_hand, _doolittle_options),
    "despised_nines": Adapter(_nines_events, _nines_hand, _dealer_only),
    "ups_and_downs": Adapter(_winner_events, _winner_hand, _dealer_only),
    "moosehead": Adapter(_moosehead_events, _moosehead_hand, _moosehead_options),
}

# every one of them turns packed options back into a record's with options_document
OTHER_GAMES = {name: replace(adapter, options_document=partial(options_document, name))
               for name, adapter in OTHER_GAMES.items()}
ADAPTERS.update(OTHER_GAMES)
