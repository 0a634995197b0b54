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
