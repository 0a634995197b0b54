"""Facts the board and the host share are written once (issue 31, item 3):
a board's identity, the club's topics and kinds."""
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
    """The board's link and outbox take every topic level and kind name from tallynet.topics."""
    literal = re.compile(r"""(?<!b)["'](tallyboard|director|table|host|hand|state|status|round|applied)(/[^"']*)?["']"""
                         r"""|["'][^"']*/(director|table|host)/""")
    for name in ("link.py", "outbox.py", "settings.py", "client.py"):
        text = (ROOT / "firmware" / "tallynet" / name).read_text(encoding="utf-8")
        code = [line for line in text.splitlines() if not line.lstrip().startswith("#")]
        hits = [line.strip() for line in code if literal.search(line) and "seat[" not in line
                and "body" not in line]
        assert hits == [], (name, hits)


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
