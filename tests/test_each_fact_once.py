"""Facts the board and the host share are written once (issue 31, item 3):
a board's identity, the club's topics and kinds; and (issue 41) the largest
table number, Skicket's strains, nobody, the seat letters, the player-name
rule, the director's round, asyncio's name and the reason codes."""
import re
from pathlib import Path

from tallynet import tablestate, topics
from tallyboard.club import kinds

ROOT = Path(__file__).resolve().parent.parent


def _sources():
    for top in ("firmware", "host"):
        for path in sorted((ROOT / top).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")


def test_a_boards_identity_is_formatted_in_one_place():
    # a tag in 4 hex digits, then a dot: "%04X.%d", f"{tag:04X}.{table}", "{:04X}.{}"
    pattern = re.compile(r"%04X\.|:04X\}\.")
    found = [(name, n + 1) for name, text in _sources() for n, line in enumerate(text.splitlines())
             if pattern.search(line)]
    assert [name for name, _ in found] == ["firmware/tallynet/tablestate.py"], found


def test_a_boards_identity():
    assert tablestate.board_ident(0x1A2B, 2) == "1A2B.2"
    assert tablestate.board_ident(7, 12) == "0007.12"


def test_host_kinds_are_the_firmwares_table():
    assert [kind.name for kind in kinds.KINDS.values()] == [row[0] for row in topics.KINDS]
    for name, sender, levels, sequenced, retained, subject in topics.KINDS:
        kind = kinds.KINDS[name]
        assert (kind.sender, kind.levels, kind.sequenced, kind.retained, kind.subject) == \
            (sender, levels, sequenced, retained, subject)
    assert [kind.name for kind in kinds.QUEUED] == list(topics.QUEUED) == ["hand", "state"]


def test_topics_written_out():
    # docs/club-mqtt.md, "Topics", written by hand
    assert topics.topic(topics.HAND, "club-1A2B", "1A2B.2") == "tallyboard/club-1A2B/table/1A2B.2/hand"
    assert topics.topic(topics.STATE, "club-1A2B", "1A2B.2") == "tallyboard/club-1A2B/table/1A2B.2/state"
    assert topics.topic(topics.STATUS, "club-1A2B", "t1") == "tallyboard/club-1A2B/host/t1/status"
    assert topics.topic(topics.ROUND, "club-1A2B") == "tallyboard/club-1A2B/director/round"
    assert topics.topic(topics.APPLIED, "club-1A2B", "1A2B.2") == "tallyboard/club-1A2B/director/applied/1A2B.2"
    for name in ("hand", "state", "status", "applied"):
        assert kinds.KINDS[name].topic("club-1A2B", "x") == topics.topic(name, "club-1A2B", "x")
    assert kinds.KINDS["round"].topic("club-1A2B") == topics.topic("round", "club-1A2B")


def test_the_board_writes_no_topic_or_kind_by_hand():
    """The board's link and outbox take every topic level and kind name from tallynet.topics. A
    word as a dict's key, a subscript or the key of .get() is a body's field ("round": r, body["table"])."""
    literal = re.compile(r"""(?<!b)(?<!get\()(?<!\[)["'](tallyboard|director|table|host|hand|state|status|round|applied)"""
                         r"""(/[^"']*)?["'](?![:\]])|["'][^"']*/(director|table|host)/""")
    for name in ("link.py", "outbox.py", "settings.py", "client.py"):
        text = (ROOT / "firmware" / "tallynet" / name).read_text(encoding="utf-8")
        code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        hits = [line.strip() for line in code if literal.search(line) and "seat[" not in line]
        assert hits == [], (name, hits)



# ---------------------------------------------------------------- issue 41's facts

def _lines_matching(pattern):
    """(file, line) for each code line of firmware/ and host/ that pattern finds (comments left out)."""
    return [(name, line.strip()) for name, text in _sources() for line in text.splitlines()
            if pattern.search(line) and not line.lstrip().startswith("#")]


def test_the_largest_table_is_the_firmwares_and_every_table_option_reads_it():
    import click
    from tallyboard.cli import main
    from tallyrun import protocol

    assert protocol.MAX_TABLE == 99
    # a table's or a round's bound written as a number anywhere else
    assert _lines_matching(re.compile(r"(?=.*\b(tables?|rounds?|tags?|boards?|emulators)\b).*(?<![\w.])(99|999)(?![\w.])")) == [
        ("firmware/tallyrun/protocol.py", "MAX_TABLE = const(99)         # tables of a club evening, and its rounds")]
    found = []

    def walk(command, path):
        for param in command.params:
            if param.name in ("table", "tables", "numbers", "emulators") and isinstance(param.type, click.IntRange):
                found.append((path, param.opts[0], param.type.min, param.type.max))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, path + " " + name)
    walk(main, "tallyboard")
    assert len(found) > 10 and [row for row in found if row[2:] != (1, 99)] == []


def test_the_host_refuses_table_500_where_it_is_given():
    from click.testing import CliRunner
    from tallyboard.cli import main

    for args in (["event", "join-code", "--table", "500"], ["event", "table", "--table", "500"]):
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 2 and "500 is not in the range 1<=x<=99" in result.output, (args, result.output)


def test_skickets_strains_are_written_once():
    from tallycore import game, skicket
    from tallypanel import skicketview  # noqa: F401  (it draws the strains from the same tuple)

    assert game.STRAINS == (b"C", b"S", b"H", b"D", b"NT", b"NK")
    assert skicket.STRAINS is game.STRAINS
    assert (skicket.parse_bid("7NK"), skicket.bid_text(4, skicket.HEARTS)) == ((7, 5), "4H")
    assert _lines_matching(re.compile(r"""["']NT["'],\s*b?["']NK""")) == [
        ("firmware/tallycore/game.py",
         'STRAINS = (b"C", b"S", b"H", b"D", b"NT", b"NK")   # Skicket\'s strains in bidding order: ARG_BID\'s, '
         "its fields'")]


def test_nobody_and_the_step_that_offers_nobody_have_a_name_each():
    from tallycore import game, sachem, skicket, steps

    definitions = _lines_matching(re.compile(r"^\s*(OFFERS_)?NOBODY\s*="))
    assert [(name, line.split("=")[0].strip()) for name, line in definitions] == [
        ("firmware/tallycore/game.py", "NOBODY"), ("firmware/tallycore/steps.py", "OFFERS_NOBODY")]
    assert (game.NOBODY, steps.OFFERS_NOBODY, sachem.NO_CAPTOR) == (4, 8, 8)
    assert skicket.NOBODY is game.NOBODY     # "-" on the wire is what Skicket's doubled_by holds
    assert skicket.record_hand(skicket.pack_hand(0, 4, skicket.HEARTS, None, None, 0, 10))["doubled_by"] is None


def test_the_seat_letters_are_written_once():
    from tallycore import game
    from tallynet import tablestate
    from tallypanel import boarddef, confirm, menu

    assert game.SEAT_LETTERS == "ABCD"
    assert _lines_matching(re.compile(r"""b?["']ABCD["']""")) == [
        ("firmware/tallycore/game.py",
         'SEAT_LETTERS = "ABCD"       # beside the seat buttons, seat 0 first, where a board definition names none')]
    assert tablestate.held_of.__defaults__ == ("ABCD",)
    assert menu.BoardInput.__init__.__defaults__[0] == b"ABCD"
    assert confirm.draw.__defaults__[0] == b"ABCD"
    assert boarddef._letters(None, 3) == b"ABC"


def test_a_players_name_is_taken_by_the_boards_own_rule():
    from tallynet import tablestate

    assert tablestate.board_name(" Ann Lee-Smith.Jr ") == "Ann_Lee-Smit"
    assert tablestate.board_name("Zoë O'Hara") == "Zo_OHara"
    assert tablestate.board_name("€€") == "P"
    # the characters and the length are tallyrun.protocol's NAME_CHARS and MAX_NAME, nowhere else
    assert _lines_matching(re.compile(r"""["']_-\.["']|"a" <= c <= "z"|MAX_NAME = """)) == [
        ("firmware/tallyrun/protocol.py", "MAX_NAME = const(12)          # a player's name")]


def _round(**changed):
    body = {"name": "Club night", "id": 1, "tag": 0x1A2B, "round": 2, "rounds": 3, "hands": None,
            "players": ["Ann", "Bob", "Cy", "Dee"], "seatings": [[[0, 1, 2, 3]], [[1, 0, 3, 2]]],
            "game": "skicket", "options": 32768, "record_options": {}}
    body.update(changed)
    return {key: value for key, value in body.items() if value != "leave out"}


def test_the_directors_round_is_checked_by_one_rule_on_the_board_and_the_table_host():
    import pytest
    from tallynet import outbox
    from tallyboard.evening import table_host

    assert outbox.check_round(_round()) == 2
    assert outbox.from_round(_round(), 7, 1)["names"] == ["Bob", "Ann", "Dee", "Cy"]
    host = table_host.TableHost.__new__(table_host.TableHost)
    refused = [(_round(tag="leave out"), "not a round of this tallyboard"),
               (_round(round=100, seatings=[[[0, 1, 2, 3]]] * 100), "the round: not a number 1 to 99"),
               (_round(seatings=[[[0, 1, 2, 3]]]), "not a round of this tallyboard"),
               (_round(game="leave out"), "the round names no game: the director's tallyboard is older than "
                                          "this table's; update it")]
    for body, words in refused:
        with pytest.raises(ValueError, match="^" + re.escape(words) + "$"):
            outbox.from_round(body, 7, 1)
        with pytest.raises(ValueError, match="^" + re.escape(words) + "$"):
            host._keep_round(None, {"body": body})
    # the host's rule is the firmware's: no second one
    assert "seatings" not in (ROOT / "host/tallyboard/evening/table_host.py").read_text(encoding="utf-8") \
        .split("def _keep_round", 1)[1].split("def ", 1)[0]


def test_the_directors_round_body_passes_the_rule():
    from tallynet import outbox
    from tallyboard.evening import club

    class Store:
        def seating(self, event, r):
            return [[0, 1, 2, 3]]

        def names(self, event):
            return ["Ann", "Bob", "Cy", "Dee"]

    class Event:
        name, id, round, rounds, hands = "Club night", 1, 2, 3, None

    body = club.round_body(Store(), Event())
    assert outbox.check_round(body) == 2
    assert outbox.from_round(body, 1, 1)["names"] == ["Ann", "Bob", "Cy", "Dee"]


def test_the_firmware_imports_asyncio_by_its_one_name():
    # MicroPython 1.21 and later name it asyncio (the board runs 1.28); no module falls back to uasyncio
    assert _lines_matching(re.compile(r"uasyncio")) == []
    imports = sorted(name for name, line in _lines_matching(re.compile(r"^\s*import asyncio\b"))
                     if name.startswith("firmware/"))
    assert imports == ["firmware/tallynet/link.py", "firmware/tallypanel/boardtest.py", "firmware/tallypanel/inputs.py",
                       "firmware/tallypanel/start.py",
                       "firmware/tallypanel/start.py", "firmware/tallyrun/app.py", "firmware/tallyrun/serve.py"]


# Skicket's reason codes by name, with the clause and the first words of each, written by hand
# (docs/protocol.md's table of reasons): a row added, moved or taken out of its table shows here.
SKICKET_REASONS = {
    "_R_MISDEAL": ("SK3", "a misdeal"), "_R_MADE": ("SK7", "made:"), "_R_ADVERSARY": ("SK7", "an adversary of a bid made"),
    "_R_FAILED": ("SK8", "the purchaser failed"), "_R_FAILED_PARTNER": ("SK8", "partner of the purchaser who failed:"),
    "_R_FAILED_ADVERSARY": ("SK8", "an adversary of a bid failed"), "_R_EVERY_TRICK": ("SK14", "every trick taken"),
    "_R_NT_ADVERSARY": ("SK11", "an adversary of No Trick made"),
    "_R_NT_FAILED_PARTNER": ("SK11", "partner of the purchaser who failed at No Trick"),
    "_R_NT_FAILED_ADVERSARY": ("SK11", "an adversary of No Trick failed"),
    "_R_ROLE": ("SK6", "the partner who redoubled"), "_R_LONE_MADE": ("SK12", "a lone hand made"),
    "_R_LONE_FAILED": ("SK12", "a lone hand failed"), "_R_LONE_COUNT": ("SK12", "against a lone hand"),
    "_R_LONE_EVERY_TRICK": ("SK14", "a lone hand taking every trick"),
    "_R_NT_LOSER_PARTNER": ("SK11", "partner of the loser at No Trick"),
    "_R_DOUBLED_MADE": ("SK9", "doubled and made: the purchaser's side"),
    "_R_DOUBLED_FAILED": ("SK9", "doubled, the purchaser failed: the doubler's side"),
    "_R_DOUBLER_LOST": ("SK9", "doubled and made: the doubler loses"),
    "_R_PURCHASER_LOST": ("SK9", "doubled, the purchaser failed: he scores nothing"),
    "_R_LOSER_PARTNER": ("SK9", "partner of the loser:"),
    "_R_LONE_X_MADE": ("SK13", "a lone hand doubled and made: the purchaser alone"),
    "_R_LONE_X_FAILED": ("SK13", "a lone hand doubled failed: his partner"),
    "_R_LONE_X_DOUBLER": ("SK13", "a lone hand doubled and made: the doubler"),
    "_R_LONE_X_PURCHASER": ("SK13", "a lone hand doubled failed: the purchaser"),
    "_R_LONE_X_COUNT": ("SK13", "a lone hand doubled and made: 10 for each trick"),
}


def test_skickets_reason_codes_find_their_own_words():
    from tallycore import skicket, why
    from tallycore.reasons import skicket as table

    names = sorted(name for name in vars(skicket) if name.startswith("_R_") and name != "_R_REDOUBLED")
    assert names == sorted(SKICKET_REASONS)
    for name, (clause, start) in SKICKET_REASONS.items():
        got = why.reason(table.REASONS, getattr(skicket, name))
        assert (got[0].decode(), got[1].decode()[:len(start)]) == (clause, start), name
    # SK9's five and SK13's five again, redoubled (SK10, SK13): each code + _R_REDOUBLED
    assert skicket._R_REDOUBLED == 5
    for name in ("_R_DOUBLED_MADE", "_R_DOUBLED_FAILED", "_R_DOUBLER_LOST", "_R_PURCHASER_LOST", "_R_LOSER_PARTNER"):
        clause, words = why.reason(table.REASONS, getattr(skicket, name) + 5)
        assert clause == b"SK10" and words.startswith(b"redoubled" if name != "_R_LOSER_PARTNER" else b"partner"), name
    for name in ("_R_LONE_X_MADE", "_R_LONE_X_FAILED", "_R_LONE_X_DOUBLER", "_R_LONE_X_PURCHASER", "_R_LONE_X_COUNT"):
        clause, words = why.reason(table.REASONS, getattr(skicket, name) + 5)
        assert clause == b"SK13" and words.startswith(b"a lone hand redoubled"), name


def test_every_reason_table_keys_its_rows_by_code():
    """A row carries its code: one added anywhere renumbers no other, and no two share a code."""
    import importlib
    from tallycore import games, why

    for module in sorted({row[3] for row in games.GAMES}):
        rows = importlib.import_module("tallycore.reasons." + module).REASONS
        codes = [row[0] for row in rows]
        assert all(len(row) == 3 and type(row[0]) is int for row in rows) and len(set(codes)) == len(codes), module
    planted = ((0, b"SK3", b"first"), (7, b"SK1", b"a row added in the middle"), (1, b"SK7", b"second"))
    assert (why.reason(planted, 0), why.reason(planted, 1)) == ((b"SK3", b"first"), (b"SK7", b"second"))


# ---------------------------------------------------------------- a game's bit layout

def _entry(rules, variant):
    entry = getattr(rules, "ENTRY", None)
    return rules.entry(variant) if entry is None and hasattr(rules, "entry") else entry


def test_every_entry_step_puts_its_value_in_a_field_of_the_events_layout():
    from tallycore import games
    for row in games.GAMES:
        rules = games.load(games.find(row[0]))
        entry = _entry(rules, row[4])
        if entry is None:
            continue
        shifts = {field[1] for form in rules.EVENT_FORMS for field in form[3]}
        assert [(step[0], step[4]) for step in entry if step[4] >= 0 and step[4] not in shifts] == [], row[0]


def test_the_wires_fields_are_the_layout_the_rules_pack_with():
    from tallycore import bishops_whist, cards, moosehead, most_count, points, rummy
    from tallycore import coronado, despised_nines, foozle, jaimy, roquet, sachem, skicket
    for rules in (bishops_whist, foozle, despised_nines, skicket, coronado, jaimy, sachem):
        assert [form[3] for form in rules.EVENT_FORMS if form[3]] == [rules.HAND_FIELDS]
    assert [form[3] for form in roquet.EVENT_FORMS if form[3]] == [roquet.PEG_FIELDS]
    assert most_count.EVENT_FORMS[1][3] is points.COUNT_FIELDS
    for rules in (rummy, moosehead):
        card_form = rules.EVENT_FORMS[-1][3]
        assert card_form[1:] == (cards.RANK_FIELD, cards.SUIT_FIELD) and card_form[1] is cards.RANK_FIELD


def test_bishops_whist_packs_and_reads_its_fields():
    from tallycore import bishops_whist as bw
    event = bw.pack_hand((7, 6), (1, 3), True, (0, 2), (1, 0))
    # tricks 7 | 6 << 4, bishops 1 << 8 | 3 << 11, turned 1 << 14, exposed B 2 << 18, revokes A 1 << 21
    assert event == 7 + 96 + 256 + 6144 + 16384 + 524288 + 2097152
    assert [bw.tricks_of(event, 0), bw.tricks_of(event, 1), bw.bishops_of(event, 0), bw.bishops_of(event, 1),
            bw.turned_of(event), bw.exposed_of(event, 0), bw.exposed_of(event, 1), bw.revokes_of(event, 0),
            bw.revokes_of(event, 1)] == [7, 6, 1, 3, True, 0, 2, 1, 0]


def test_card_and_count_events_read_by_their_accessors():
    from tallycore import cards, points
    event = 2 | (12 | 2 << 4) << 3           # player 2, the queen of hearts
    assert (cards.player_of(event), cards.card_of(event), cards.text(cards.card_of(event))) == (2, 44, "QH")
    assert cards.card_event(2, cards.card(12, 2)) == event
    assert cards.NO_SUIT_CARD == 4 << 7
    assert (points.count_player(5 | 13 << 3), points.count_of(5 | 13 << 3)) == (5, 13)
    assert points.count_event(5, 13) == 5 + 104


def test_no_layout_is_unpacked_by_hand():
    """The games that state a layout as fields read their events only through
    it, and the host's profiles read events through the core's accessors."""
    # a shift or mask of an event's field written out (a skicket event's bytes as its state keeps them aside)
    by_hand = re.compile(r"\b(event|e|card)\s*(>>|&|<<)\s*(3|4|7|11|14|15|18|21|24)\b")
    converted = ["firmware/tallycore/" + name for name in ("bishops_whist.py", "foozle.py", "despised_nines.py",
                                                             "skicket.py", "coronado.py", "jaimy.py",
                                                             "sachem.py", "roquet.py", "rummy.py", "moosehead.py", "most_count.py",
                                                             "points.py", "cards.py")]
    host = [path.relative_to(ROOT).as_posix() for path in sorted((ROOT / "host/tallyboard/games").glob("*.py"))]
    hits = [(name, line.strip()) for name in converted + host
            for line in (ROOT / name).read_text(encoding="utf-8").splitlines()
            if by_hand.search(line) and not line.lstrip().startswith("#")]
    assert hits == []
