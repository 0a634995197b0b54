"""docs/protocol.md and firmware/tallyrun/protocol.py describe the same
protocol: every verb, error code, event kind and config key of the table is
in the document's tables, and the document names nothing the table lacks."""
import re
from pathlib import Path

from tallyrun import protocol as P

DOC = (Path(__file__).resolve().parent.parent / "docs" / "protocol.md").read_text()


def _table_rows(heading: str) -> list[str]:
    """First cells (backquoted word) of the markdown table under a heading."""
    section = DOC.split(heading, 1)[1]
    rows = []
    for line in section.splitlines()[1:]:
        if line.startswith("#"):
            break
        match = re.match(r"\| `([A-Za-z_]+)` \|", line)
        if match:
            rows.append(match.group(1))
    return rows


def test_every_verb_is_in_the_requests_table_and_no_other():
    assert _table_rows("## Requests") == [row[0].decode() for row in P.VERBS]


def test_every_error_code_is_documented():
    assert _table_rows("## Errors") == [row[0].decode() for row in P.ERRORS]


def test_every_event_kind_is_documented():
    assert _table_rows("## Events") == [row[0].decode() for row in P.EVENTS]


def test_every_config_key_is_documented():
    assert _table_rows("### Config keys") == [row[0].decode() for row in P.CONFIG_KEYS]


def test_reply_fields_match_the_table():
    for verb, _args, _optional, reply, _what in P.VERBS:
        line = next(line for line in DOC.splitlines() if line.startswith("| `%s` |" % verb.decode()))
        assert "`%s`" % " ".join(reply) in line, verb


def test_limits_and_version_are_stated():
    assert "version %d" % P.PROTOCOL_VERSION in DOC
    assert "**%d bytes**" % P.MAX_FRAME in DOC
    assert "1..%d" % P.MAX_SEQ in DOC
