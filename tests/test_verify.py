"""tallyboard verify (issue 44): a game record read from a board carries the board's chain head and its
signature (docs/records.md, The chain), and anyone holding the record can check it against the board.

The expected head is the chain's definition spelled out with hashlib: the first link SHA-256(32 zero
bytes || the NEW packed, game index | players << 5 | options << 9, 4 bytes little-endian || 0xFF), then
per event SHA-256(head || the event, 4 bytes LE || 1 + who accepted it, 0: nobody). Roquet is game 1 of
protocol.json's games; its pegging packs points << 3 | player << 2 and its hand's end is 1 (as
tests/mp/test_protocol_app_heap.py: PEG 0 5 is EV 40, PEG 1 17 is EV 140)."""
from __future__ import annotations

import copy
import hashlib
import json

import pytest
from click.testing import CliRunner

from tallyboard.cli import main

ROQUET = 1


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def le(value: int) -> bytes:
    return value.to_bytes(4, "little")


def first(index: int, players: int, options: int) -> bytes:
    return sha(bytes(32) + le(index | players << 5 | options << 9) + b"\xff")


def link(head: bytes, event: int, who: int = 0) -> bytes:
    return sha(head + le(event) + bytes([who]))


def peg(player: int, points: int) -> int:
    return points << 3 | player << 2


END = 1


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """A Roquet game on the emulated board: hand 1 Ann 7, Bob 3, ended; hand 2 Ann 95, and her 102 ends
    the game (RQ9: the hand stays as it was, its end never pegged); exported."""
    home = tmp_path_factory.mktemp("verify")
    env = {"TALLYBOARD_EMULATOR_HOME": str(home / "emu")}
    runner = CliRunner()

    def cli(*args):
        result = runner.invoke(main, list(args), env=env)
        assert result.exit_code == 0, result.output
        return result.stdout

    cli("new", "roquet", "--name", "Ann", "--name", "Bob", "--emulator")
    cli("peg", "Ann", "7", "--emulator")
    cli("peg", "Bob", "3", "--emulator")
    cli("end", "--emulator")
    cli("peg", "Ann", "95", "--emulator")
    state = cli("status", "--emulator")
    return json.loads(cli("export", "--emulator")), state


def verify(tmp_path, doc, *extra):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["verify", str(path), *extra])
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.emulator
def test_the_boards_record_carries_its_chain_and_verifies(exported, tmp_path):
    record, _ = exported
    h0 = first(ROQUET, 2, 0)
    hand1 = link(link(link(h0, peg(0, 7)), peg(1, 3)), END)       # Ann 7, Bob 3, the hand's end
    head = link(hand1, peg(0, 95))                                  # hand 2: Ann 95, her 102 the game's end
    assert record["hands"] == [[[0, 7], [1, 3]], {"open": True, "pegs": [[0, 95]]}]
    chain = record["chain"]
    assert chain["head"] == head.hex()
    assert chain["hands"] == [hand1[:4].hex().upper(), head[:4].hex().upper()]
    assert len(chain["key"]) == 64 and len(chain["tag"]) == 128
    code, out = verify(tmp_path, record)
    assert code == 0, out
    assert f"the hands make the board's head {head[:4].hex().upper()}, signed by board key " \
           f"{chain['key'][:8].upper()}" in out and "1 of 1 game verified" in out
    code, out = verify(tmp_path, record, "--key", chain["key"])
    assert code == 0, out


@pytest.mark.emulator
def test_one_peg_changed_in_the_file_fails_and_names_its_hand(exported, tmp_path):
    record, _ = exported
    edited = copy.deepcopy(record)
    edited["hands"][0][0] = [0, 8]          # Ann's 7 made 8 in hand 1
    code, out = verify(tmp_path, edited)
    assert code == 1
    assert "NOT verified" in out and "hand 1 is not what the board kept" in out and "0 of 1 game verified" in out
    edited = copy.deepcopy(record)
    edited["hands"][1]["pegs"][0] = [0, 96]  # hand 2's Ann 95 made 96: hand 1 still the board's
    code, out = verify(tmp_path, edited)
    assert code == 1 and "hand 2 is not what the board kept" in out


@pytest.mark.emulator
def test_a_rewritten_head_a_changed_tag_another_key_or_no_chain_do_not_verify(exported, tmp_path):
    record, _ = exported
    # the hands changed and the heads after each rewritten to match: the board's tag is over the old head
    edited = copy.deepcopy(record)
    edited["hands"][0][0] = [0, 8]
    h0 = first(ROQUET, 2, 0)
    hand1 = link(link(link(h0, peg(0, 8)), peg(1, 3)), END)
    head = link(hand1, peg(0, 95))
    edited["chain"].update(head=head.hex(), hands=[hand1[:4].hex().upper(), head[:4].hex().upper()])
    code, out = verify(tmp_path, edited)
    assert code == 1 and "the tag is not key" in out
    # the head as the board's but its heads after each hand rewritten: the hands make another head
    edited["chain"]["head"] = record["chain"]["head"]
    code, out = verify(tmp_path, edited)
    assert code == 1 and "which hand cannot be told" in out
    # one bit of the tag
    edited = copy.deepcopy(record)
    edited["chain"]["tag"] = ("0" if record["chain"]["tag"][0] != "0" else "1") + record["chain"]["tag"][1:]
    code, out = verify(tmp_path, edited)
    assert code == 1 and "the tag is not key" in out
    # another board's key required
    code, out = verify(tmp_path, record, "--key", "ab" * 32)
    assert code == 1 and "not one of the boards' keys given" in out
    # no chain at all
    code, out = verify(tmp_path, {k: v for k, v in record.items() if k != "chain"})
    assert code == 1 and "not signed" in out


@pytest.mark.emulator
def test_status_shows_the_head_the_record_carries(exported):
    record, state = exported
    assert record["chain"]["head"][:8].upper() in state


def test_a_chain_of_the_wrong_shape_is_a_record_error(tmp_path):
    doc = {"format": "tallyboard/1", "game": "roquet", "players": ["Ann", "Bob"], "hands": [[[0, 7]]],
           "chain": {"head": "zz", "key": "00" * 32, "tag": "00" * 64, "hands": ["00000000"]}}
    code, out = verify(tmp_path, doc)
    assert code == 1 and "chain: head: must be 64 lowercase hex digits" in out
    doc["chain"]["head"] = "00" * 32
    doc["chain"]["hands"] = []
    code, out = verify(tmp_path, doc)
    assert code == 1 and "chain: hands: 0 heads for 1 hands" in out


def test_a_table_whose_rounds_two_keys_signed_is_said():
    from tallyboard.commands.records import one_key_a_table

    def game(key):
        return {"chain": {"key": key * 32}}

    tables = [("round 1 table 1", game("aa")), ("round 2 table 1", game("aa")),
              ("round 1 table 2", game("bb")), ("round 2 table 2", game("cc"))]
    said = one_key_a_table("e.json", tables)
    assert [(v.source, v.ok) for v in said] == [("e.json: table 2: keys", False)]
    assert said[0].found.startswith("its games were signed by key BBBBBBBB (round 1 table 2); "
                                    "key CCCCCCCC (round 2 table 2): a board changed between rounds")


def test_who_accepted_a_hand_is_in_the_chain(tmp_path):
    """A Skicket hand accepted by Dee (player 3): its link's last byte is 1 + 3 = 4, so a record
    naming Bob as its accepter leads to another head. The record is signed here with a key of the
    test's own, as a board signs (Ed25519 over b"tallyboard chain " and the head)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
    from tallycore import skicket

    # Ann (0) bids 4H and takes 10 (tests/test_confirm_board.py's hand): Skicket is game 0, four
    # players, no options; its event is HAND's packing
    event = skicket.pack_hand(0, 4, skicket.HEARTS, None, None, False, 10)
    head = link(first(0, 4, 0), event, 1 + 3)
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    hand = {"purchaser": 0, "bid": "4H", "doubled_by": None, "redoubled_by": None, "lone": False,
            "tricks": 10, "accepted_by": 3}
    record = {"format": "tallyboard/1", "game": "skicket", "players": ["Ann", "Bob", "Cy", "Dee"],
              "hands": [hand], "chain": {"head": head.hex(), "key": public.hex(),
                                         "tag": key.sign(b"tallyboard chain " + head).hex(),
                                         "hands": [head[:4].hex().upper()]}}
    code, out = verify(tmp_path, record)
    assert code == 0 and "1 of 1 game verified" in out, out
    record["hands"][0]["accepted_by"] = 1
    code, out = verify(tmp_path, record)
    assert code == 1 and "hand 1 is not what the board kept" in out, out
