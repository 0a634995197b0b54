"""The board describes itself (DESC, issue 41): its description is written from its own rows, page
by page within the frame; the host reads it (once a firmware: its cache), encodes from it and asks
for capabilities by name; a board before DESC is read by the host's own rows less DESC, and a board
with more than this host knows is served by what it says."""
from __future__ import annotations

import binascii
import io

import pytest

from tallyboard.boardlink import description
from tallyboard.boardlink.client import Board
from tallyboard.boardlink.session import RequestError
from tallyboard.boardlink.transport import Transport
from tallyboard.common.errors import BoardError
from tallyrun import describe, incoming, protocol
from tallyrun.app import App


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))     # no description read by another test


def with_rows(monkeypatch, rows) -> None:
    """The board's message table as another firmware's: the parser's and the app's (the games' own
    verbs begin after the last row)."""
    for module in (protocol, incoming):
        monkeypatch.setattr(module, "VERBS", rows)
        monkeypatch.setattr(module, "V_GAME_VERB", len(rows))


class AppLink(Transport):
    """A Transport straight into an App in this process: what the board writes is what the host reads.
    seen: the verbs asked, in order."""

    def __init__(self, app: App, out: io.BytesIO) -> None:
        super().__init__()
        self.app, self.out, self.read_at = app, out, len(out.getvalue())
        self.seen: list[str] = []
        self.name = "in-process"

    def _write(self, data: bytes) -> None:
        self.seen.append(data.split(b" ")[1].split(b"*")[0].decode())
        self.app.feed_bytes(data)

    def _read(self, timeout: float) -> bytes:
        data = self.out.getvalue()[self.read_at:]
        self.read_at += len(data)
        return data


def board_on(tmp_path) -> tuple[Board, AppLink]:
    out = io.BytesIO()
    app = App(out, str(tmp_path) + "/", "test")
    app.boot()
    link = AppLink(app, out)
    return Board(link, timeout=1.0), link


def test_every_item_is_one_word_that_fits_the_longest_page():
    items = list(describe.items())
    # the longest head: "65535 OK at=255 next=255 of=255 id=FFFF items=" is 5 + 4 + 7 + 9 + 7 + 8 + 7 = 47,
    # and *XXXX with the newline 6 more: 128 - 47 - 6 = 75 characters for an item... 76 with the head's
    # own space before OK counted once: ITEM_MOST
    assert len("65535 OK at=255 next=255 of=255 id=FFFF items=") + describe.ITEM_MOST + 6 <= protocol.MAX_FRAME + 1
    for item in items:
        assert len(item) <= describe.ITEM_MOST, item
        assert all(33 <= c <= 126 and c not in b"~*" for c in item), item


def test_the_pages_give_every_item_once_in_order_and_the_id_is_their_crc(tmp_path):
    board, link = board_on(tmp_path)
    board.hello()
    pages, at = [], 0
    while True:
        page = board.request("DESC", at)
        pages.append(page)
        if int(page["next"]) == int(page["of"]):
            break
        at = int(page["next"])
    items = [item for page in pages for item in page["items"].split("~")]
    assert items == [item.decode() for item in describe.items()]
    assert {page["of"] for page in pages} == {str(len(items))}
    # CRC-16/CCITT-FALSE is binascii's crc_hqx from 0xFFFF: over the items with ~ between
    assert {page["id"] for page in pages} == {"%04X" % binascii.crc_hqx("~".join(items).encode(), 0xFFFF)}
    assert items[0] == "V:HELLO:0::fw,proto,board,games,frame,log,players,seqs"
    # NEW: three arguments, the last (options) may be left out; n=0 after it
    assert items[1:6] == ["V:GAME:0::index,name,min,max,options", "A:GAME:index:int:0:15",
                          "V:NEW:1:new:n,top,eseq", "A:NEW:game:game:0:0", "A:NEW:players:int:1:8"]
    with pytest.raises(BoardError, match="at: must be 0 to %d" % (len(items) - 1)):
        board.request("DESC", len(items))


def test_the_host_reads_a_board_once_and_asks_it_for_capabilities_by_name(tmp_path):
    board, link = board_on(tmp_path / "a")
    board.hello()
    assert link.seen == ["HELLO"]          # a board of this host's protocol: read when first asked (issue 11.7)
    assert board.can("WHY") and board.can("ENTRY") and board.can("DESC")
    assert link.seen.count("DESC") > 10                # every page, the first time
    assert board.can("cfg:round") and not board.can("cfg:volume")
    assert board.can("net:key") and board.can("held") and not board.can("teleport")
    again, link2 = board_on(tmp_path / "b")            # the same firmware: its description from the cache
    again.hello()
    assert again.can("held") and link2.seen == ["HELLO", "DESC"]
    assert again.description == board.description
    # the encoder is the board's: NEW takes 2 or 3 arguments
    with pytest.raises(RequestError, match="NEW: takes 2 to 3 arguments, not 1"):
        again.request("NEW", "roquet")


def test_a_board_before_desc_is_read_by_this_hosts_rows_and_what_it_refuses_is_not_asked_again(
        tmp_path, monkeypatch):
    # a firmware of protocol 5 from before WHY and DESC (and the self-test's rows after them): it answers
    # both VERB
    assert [row[0] for row in protocol.VERBS[protocol.V_WHY:protocol.V_DESC + 1]] == [b"WHY", b"DESC"]
    with_rows(monkeypatch, protocol.VERBS[:protocol.V_WHY])
    monkeypatch.setattr(protocol, "PROTOCOL_VERSION", description.PRE_DESC_PROTOCOL)
    board, link = board_on(tmp_path)
    board.hello()
    assert not board.can("DESC") and board.can("WHY")
    assert link.seen == ["HELLO", "DESC"] and board.description.ident == ""        # WHY: this host's rows say so, until refused
    assert board.new("roquet", 2)["n"] == "0"                 # it scores
    board.request("PEG", 0, 5)
    with pytest.raises(BoardError, match="unknown verb"):
        board.why_parts()
    assert not board.can("WHY")
    with pytest.raises(RequestError, match="WHY: the board's firmware does not have it"):
        board.why_parts()                                      # not asked again
    assert link.seen.count("WHY") == 1
    with pytest.raises(RequestError, match="DESC: the board's firmware does not have it"):
        board.request("DESC")


def test_a_board_with_more_than_this_host_knows_is_served_by_its_own_description(tmp_path, monkeypatch):
    # a newer board: a verb, a capability and a protocol number this host has never heard of
    ping = (b"PING", ((b"times", protocol.T_INT, 1, 3, b""),), 0, ("free",), b"", "tallyrun.replies.read_verb")
    with_rows(monkeypatch, protocol.VERBS + (ping,))
    monkeypatch.setattr(describe, "CAPABILITIES", describe.CAPABILITIES + (b"echo",))
    monkeypatch.setattr(protocol, "PROTOCOL_VERSION", protocol.PROTOCOL_VERSION + 1)
    board, link = board_on(tmp_path)
    assert board.hello()["proto"] == str(protocol.PROTOCOL_VERSION)     # no version refused: it is read
    assert link.seen.count("DESC") > 10 and board.can("PING") and board.can("echo")
    assert set(board.request("PING", 2)) == {"free"}
    with pytest.raises(RequestError, match="PING: takes 1 argument, not 0"):
        board.request("PING")
    monkeypatch.undo()
    assert not description.this_hosts().can("PING")          # the host's own rows never had it


def test_a_damaged_cache_is_read_again_and_a_garbled_description_is_said_not_raised(tmp_path):
    board, _link = board_on(tmp_path / "a")
    board.hello()
    assert board.can("WHY")
    kept = next((tmp_path / "cache" / "tallyboard" / "descriptions").glob("*.txt"))
    kept.write_text(kept.read_text().replace("V:WHY:", "V:WHO:"))      # its CRC no longer its id
    again, link = board_on(tmp_path / "b")
    again.hello()
    assert again.can("WHY") and link.seen.count("DESC") > 10           # read from the board again
    assert "V:WHY:" in kept.read_text()                                # and kept whole
    # a board that answers DESC with pages this host cannot read: a ProtocolError in words, no traceback
    from tallyboard.common.errors import ProtocolError
    with pytest.raises(ProtocolError, match="a page this tallyboard cannot read"):
        description.read(lambda verb, at: {"of": "3", "id": "ABCD", "at": "0", "next": "001"}, {"proto": "6"})
    with pytest.raises(ProtocolError, match="an item this tallyboard cannot read"):
        description.parse("x", ["E:NOTE"])


def test_a_board_before_desc_has_protocol_5s_verbs_only():
    # the self-test's verbs came after DESC: a board of protocol 5 without DESC has none of them
    old = description.before_desc({"proto": "5", "fw": "0.1.0"})
    assert old.can("WHY") and old.can("ENTRY") and old.can("NET")
    assert not old.can("DESC") and not old.can("LAMP") and not old.can("PINS")
