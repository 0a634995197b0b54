"""Skicket on the host: its record hands (docs/records.md, "Skicket"), its
options (the game's length, the Duplicate series, Royal: docs/rules.md SK16
to SK18), sheet, simulation and its own verbs HAND and MISDEAL."""
from __future__ import annotations

import json
import random
from typing import Any, Callable, Iterator

from rich.table import Table

from tallycore import skicket

from . import fields, sheetparts
from .base import WINS_HIGHEST, GameProfile, LoadedGame, OptionFlag, nothing_to_check

# ---------------------------------------------------------------- records


def record_events(hand: Any, players: int, options: dict) -> Iterator[int]:
    if isinstance(hand, dict) and hand.get("misdeal") is True:
        fields.only(hand, {"misdeal"})
        yield skicket.MISDEAL
        return
    hand = fields.only(hand, {"purchaser", "bid", "doubled_by", "redoubled_by", "lone", "tricks", "misdeal"})
    if "misdeal" in hand and hand["misdeal"] is not False:
        raise ValueError("misdeal: must be true or false")
    purchaser = fields.read_player(hand, "purchaser", players)
    bid = hand.get("bid")
    if not isinstance(bid, str):
        raise ValueError(f"bid: must be a string such as \"4H\", not {json.dumps(bid)}")
    level, strain = skicket.parse_bid(bid)
    yield skicket.pack_hand(
        purchaser, level, strain,
        fields.read_player(hand, "doubled_by", players, optional=True),
        fields.read_player(hand, "redoubled_by", players, optional=True),
        fields.read_bool(hand, "lone"),
        fields.read_int(hand, "tricks"),
    )


def record_hand(events: list[int]) -> Any:
    (event,) = events
    return skicket.record_hand(event)    # the core writes it: a board on Wi-Fi sends the same


def closes(event: int) -> bool:
    """Every event is one record hand, misdeals included."""
    return True


# ---------------------------------------------------------------- options

SERIES = "duplicate"


def record_options(options: dict) -> int:
    """`hands` (4 or 6), `series` ("duplicate"), `royal` (true or false)."""
    fields.only(options, {"hands", "series", "royal"})
    packed = 0
    if "series" in options:
        if options["series"] != SERIES:
            raise ValueError(f"series: must be \"duplicate\", not {json.dumps(options['series'])}")
        if "hands" in options:
            raise ValueError("hands: a Duplicate series is twelve hands; leave hands out")
        packed |= skicket.OPT_DUPLICATE
    if "hands" in options:
        hands = fields.read_int(options, "hands")
        if hands not in (4, 6):
            raise ValueError(f"hands: must be 4 or 6, not {hands}")
        if hands == 4:
            packed |= skicket.OPT_FOUR_HANDS
    if fields.read_bool(options, "royal"):
        packed |= skicket.OPT_ROYAL
    return packed


def options_document(packed: int) -> dict:
    """The reverse of record_options, the defaults left out."""
    known = skicket.OPT_FOUR_HANDS | skicket.OPT_DUPLICATE | skicket.OPT_ROYAL
    if packed & ~known:
        raise ValueError(f"options: skicket has no option {packed & ~known}")
    doc: dict[str, Any] = {}
    if packed & skicket.OPT_FOUR_HANDS:
        doc["hands"] = 4
    if packed & skicket.OPT_DUPLICATE:
        doc["series"] = SERIES
    if packed & skicket.OPT_ROYAL:
        doc["royal"] = True
    return doc


# ---------------------------------------------------------------- sheet


def sheet_json(profile: GameProfile, loaded: LoadedGame) -> dict[str, Any]:
    game = loaded.game
    state = game.state
    series = skicket.series(state)
    hands = []
    for hand, scores in enumerate(sheetparts.hand_scores(loaded)):
        event = skicket.hand_event(state, hand)
        entry: dict[str, Any] = {"hand": hand + 1}
        if series:
            # docs/rules.md SK17: hands 7 to 12 replay deals 1 to 6 reversed
            entry["deal"] = skicket.deal_index(hand) + 1
            entry["reversed"] = bool(skicket.reversed_half(hand))
        entry["dealer"] = skicket.dealer(hand)
        entry["seats"] = [skicket.seat_player(hand, s) for s in range(4)]
        entry.update(skicket.record_hand(event))
        entry["made"] = bool(skicket.made(event))
        entry["scores"] = scores
        hands.append(entry)
    doc = sheetparts.common_fields(loaded)
    doc["hands"] = hands
    doc["length"] = skicket.length(state)
    if series:
        doc["series"] = SERIES
    if skicket.royal(state):
        doc["royal"] = True
    doc["misdeals"] = skicket.misdeals(game.state)
    if not doc["complete"]:
        doc["next_dealer"] = skicket.dealer(skicket.hands(game.state))
    return sheetparts.ordered(doc)


def _title(doc: dict[str, Any]) -> str:
    name = "Royal Skicket" if doc.get("royal") else "Skicket"
    if doc.get("series"):
        name += ", Duplicate series"
    elif doc["length"] != skicket.HANDS_PER_GAME:
        name += f", {doc['length']} hands"
    return f"{name} — {' · '.join(doc['players'])}"


def _contract_text(row: dict[str, Any], players: list[str]) -> str:
    contract = f"{players[row['purchaser']]} {row['bid']}"
    if row["lone"]:
        contract += " alone"
    if row["doubled_by"] is not None:
        contract += f" ×2{players[row['doubled_by']]}"
    if row["redoubled_by"] is not None:
        contract += f" ×4{players[row['redoubled_by']]}"
    return contract


def _result_text(row: dict[str, Any]) -> str:
    return f"{row['tricks']} {'made' if row['made'] else 'set'}"


def _caption(doc: dict[str, Any], what: str) -> str:
    caption = f"×2 doubled by, ×4 redoubled by; {len(doc['hands'])} of {doc['length']} {what}"
    if doc.get("misdeals"):
        caption += f", {doc['misdeals']} misdeal{'s' if doc['misdeals'] > 1 else ''}"
    return caption + sheetparts.next_deal(doc)


def sheet_table(doc: dict[str, Any]) -> Table:
    if doc.get("series"):
        return _series_table(doc)
    players = doc["players"]
    table = sheetparts.new_table(_title(doc))
    table.add_column("#", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealer", no_wrap=True)
    table.add_column("Partners", no_wrap=True)
    table.add_column("Contract", no_wrap=True)
    table.add_column("Tricks", no_wrap=True)
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]), no_wrap=True, min_width=4)
    for row in doc["hands"]:
        seats = row["seats"]
        partners = f"{players[seats[0]]}+{players[seats[2]]}"
        table.add_row(str(row["hand"]), players[row["dealer"]], partners, _contract_text(row, players),
                      _result_text(row), *(str(s) for s in row["scores"]))
    table.caption = _caption(doc, "hands")
    return table


def _series_table(doc: dict[str, Any]) -> Table:
    """docs/rules.md SK17: one row per deal, its first play and its reversed
    play side by side, each player's two scores as "first / reversed"."""
    players = doc["players"]
    table = sheetparts.new_table(_title(doc))
    table.add_column("Deal", footer="Total", justify="right", no_wrap=True)
    table.add_column("Dealers", no_wrap=True)
    table.add_column("First play", no_wrap=True)
    table.add_column("Reversed", no_wrap=True)
    for p, name in enumerate(players):
        table.add_column(name, justify="right", footer=str(doc["totals"][p]), no_wrap=True, min_width=4)
    plays: dict[int, list[dict[str, Any]]] = {}
    for row in doc["hands"]:
        plays.setdefault(row["deal"], []).append(row)
    for deal in sorted(plays):
        rows = plays[deal]
        cells = [f"{_contract_text(r, players)} {_result_text(r)}" for r in rows] + [""]
        dealers = "/".join(players[r["dealer"]] for r in rows)
        scores = ["/".join(str(r["scores"][p]) for r in rows) for p in range(len(players))]
        table.add_row(str(deal), dealers, cells[0], cells[1], *scores)
    table.caption = _caption(doc, "hands of the series")
    return table


# ---------------------------------------------------------------- simulation, verbs


def candidate(rng: random.Random) -> int:
    if rng.random() < 0.06:
        return skicket.MISDEAL
    purchaser = rng.randrange(4)
    level = rng.choice((1, 1, 2, 2, 3, 3, 4, 5, 6, 7))
    strain = rng.randrange(6)
    doubled = rng.randrange(4) if rng.random() < 0.3 else None
    redoubled = rng.randrange(4) if doubled is not None and rng.random() < 0.4 else None
    lone = rng.random() < 0.15
    need = 6 + level
    tricks = max(0, min(13, need + rng.choice((-3, -2, -1, -1, 0, 0, 0, 1, 1, 2, 13))))
    return skicket.pack_hand(purchaser, level, strain, doubled, redoubled, lone, tricks)


def simulation_options(rng: random.Random) -> int:
    """A six-hand game most of the time, else four hands or a series, Royal or not."""
    length = rng.choice((0, 0, 0, skicket.OPT_FOUR_HANDS, skicket.OPT_DUPLICATE))
    return length | (skicket.OPT_ROYAL if rng.random() < 0.2 else 0)


def send(board: Any, event: int) -> tuple[str, Callable[[], dict[str, str]]]:
    """The event as HAND or MISDEAL."""
    if event == skicket.MISDEAL:
        return "MISDEAL", lambda: board.game_verb("MISDEAL")
    contract = skicket.record_hand(event)
    args = (contract["purchaser"], contract["bid"], contract["doubled_by"], contract["redoubled_by"],
            contract["lone"], contract["tricks"])
    text = "HAND " + " ".join("-" if a is None else str(int(a) if isinstance(a, bool) else a) for a in args)
    return text, lambda: board.game_verb("HAND", *args[:4], int(args[4]), args[5])


def check_bid(bid: str) -> None:
    """HAND's bid word (e.g. 4H, 2NT, 1NK), any case; ValueError says what is wrong."""
    skicket.parse_bid(bid.upper())


def hand_line(hands: list[Any], players: list[str]) -> str:
    """The last of hands, numbered as the sheet numbers it: a misdeal is not a hand (rules.md SK3)."""
    hand = hands[-1]
    number = sum(1 for h in hands if not h.get("misdeal"))
    if hand.get("misdeal"):
        return f"misdeal: hand {number + 1} is dealt again by the same dealer"
    return f"hand {number}: {players[hand['purchaser']]} {hand['bid']}, {hand['tricks']} tricks"


def commands(cli: Any) -> list[Any]:
    """`tallyboard hand` and `tallyboard misdeal`: Skicket's verbs HAND and MISDEAL,
    made with the CLI's helpers (cli: commands.scoring's kit, handed in so that
    a profile imports nothing of the host above it)."""
    import click

    board_options, change, connected, game_of_verb = cli.board_options, cli.change, cli.connected, cli.game_of_verb
    player_index, print_summary, print_why, scoring = cli.player_index, cli.print_summary, cli.print_why, cli.scoring
    reports_errors, TallyboardError = cli.reports_errors, cli.TallyboardError

    @click.command("hand")
    @click.argument("purchaser")
    @click.argument("bid")
    @click.argument("tricks", type=click.IntRange(0, 13))
    @click.option("--doubled-by", "-d", metavar="PLAYER", help="The adversary who doubled.")
    @click.option("--redoubled-by", "-r", metavar="PLAYER", help="Who redoubled (the purchaser or partner).")
    @click.option("--lone", is_flag=True, help="The purchaser played a lone hand.")
    @board_options
    @reports_errors
    def hand_cmd(purchaser: str, bid: str, tricks: int, doubled_by: str | None, redoubled_by: str | None,
                 lone: bool, port: str | None, use_emulator: bool, timeout: float) -> None:
        """Skicket: score one hand. PURCHASER (name or number) bid BID (e.g. 4H, 2NT, 1NK)
        and his side took TRICKS tricks."""
        try:
            check_bid(bid.upper())
        except ValueError as exc:
            raise TallyboardError(str(exc)) from None
        with connected(port, use_emulator, timeout, opening="OPEN") as board:
            current = game_of_verb(board, "HAND")

            def who(value: str | None) -> int | None:
                return None if value is None else player_index(board, value, current.players)

            # every index is a player, never a seat (the seats pivot: rules.md SK5)
            start = current.n
            change(board, "HAND", player_index(board, purchaser, current.players), bid.upper(),
                   who(doubled_by), who(redoubled_by), int(lone), tricks)
            print_summary(board)
            print_why(board, start)

    @click.command("misdeal")
    @scoring
    def misdeal_cmd(board: Any) -> None:
        """Skicket: record a misdeal (the same dealer deals again; nobody scores)."""
        game_of_verb(board, "MISDEAL")
        change(board, "MISDEAL")
        click.echo("misdeal recorded: the same dealer deals again")

    return [hand_cmd, misdeal_cmd]


PROFILE = GameProfile(
    name="skicket",
    events=record_events,
    hand=record_hand,
    options=record_options,
    options_document=options_document,
    closes=closes,
    sheet_json=sheet_json,
    sheet_table=sheet_table,
    wins=WINS_HIGHEST,
    example_hand='{"purchaser": 0, "bid": "4H", "tricks": 10}',
    candidate=candidate,
    send=send,
    verbs={"HAND": check_bid, "MISDEAL": nothing_to_check},
    commands=commands,
    hand_line=hand_line,
    simulation_options=simulation_options,
    # Progressive Skicket (rules.md SK16, SK19): four hands or six a game
    club_options=lambda hands: {} if hands == 6 else {"hands": hands},
    flags=(
        OptionFlag("--hands", "hands", "Skicket: a game of 4 or 6 hands (default 6; rules.md SK16).",
                   choices=(4, 6), excludes=("--duplicate",),
                   why="a Duplicate series is always twelve hands"),
        OptionFlag("--duplicate", "series", "Skicket: the Duplicate series of twelve hands (rules.md SK17).",
                   value=SERIES),
        OptionFlag("--royal", "royal", "Skicket: Royal Skicket, scored as Skicket (rules.md SK18).",
                   value=True),
    ),
)
