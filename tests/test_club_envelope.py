"""The club envelope and outbox without a broker (docs/club-mqtt.md): what
open_message refuses and why, the join code, the broker URL, and an outbox
that never takes the director's word for more than it numbered."""
from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest

from tallyboard.common import database
from tallyboard.club import envelope, mqtt_link, outbox
from tallyboard.club.envelope import RefusedMessage

KEY = bytes(range(32))
EVENT = "club-1"


def sealed(**change):
    fields = {"v": 1, "event": EVENT, "board": "t1", "seq": 1, "kind": "hand", "body": {"n": 1}}
    fields.update(change)
    return fields


def signed(fields):
    # the signature worked out here from the envelope's definition: HMAC-SHA256
    # of the fields but sig as JSON with sorted keys, no spaces
    text = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return json.dumps(dict(fields, sig=hmac.new(KEY, text, hashlib.sha256).hexdigest())).encode()


def tagged(fields, keys):
    # the director's message as defined: where a table's has sig, tags, one per board, each the
    # HMAC-SHA256 with that board's key of the same JSON (fields but tags, sorted keys, no spaces)
    text = json.dumps(fields, sort_keys=True, separators=(",", ":")).encode()
    return json.dumps(dict(fields, tags={board: hmac.new(key, text, hashlib.sha256).hexdigest()
                                         for board, key in keys.items()})).encode()


def refusal(data, known=None, key=KEY, **options):
    with pytest.raises(RefusedMessage) as caught:
        envelope.open_message(data, key, {"t1": 0} if known is None else known, **options)
    return caught.value.reason, str(caught.value)


def test_a_message_signed_as_defined_opens_and_seal_makes_the_same_bytes():
    data = signed(sealed())
    assert envelope.open_message(data, KEY, {"t1": 0})["body"] == {"n": 1}
    assert json.loads(envelope.seal(KEY, EVENT, "t1", 1, "hand", {"n": 1})) == json.loads(data)


def test_each_bad_message_is_refused_with_its_reason():
    assert refusal(b"{not json")[0] == "json"
    assert refusal(b"[1, 2]")[0] == "json"
    assert refusal(signed(sealed(v=2))) == ("version", "version 2; this host reads version 1")
    assert refusal(signed(sealed(seq="1")))[0] == "field"
    assert refusal(signed(sealed(seq=-1)))[0] == "field"
    assert refusal(signed(sealed(seq=2**53)))[0] == "field"
    assert refusal(signed(sealed(seq=True)))[0] == "field"            # a bool is not a number here
    assert refusal(signed(sealed(board="t1/../x")))[0] == "field"    # not a topic level
    assert refusal(signed(sealed(kind="exec")))[0] == "field"
    assert refusal(signed(sealed(body=[1])))[0] == "field"
    assert refusal(signed(dict(sealed(), extra=1)))[0] == "field"
    assert refusal(signed(sealed(board="t9"))) == ("board", "unknown board 't9'")
    assert refusal(signed(sealed(event="other")), event=EVENT)[0] == "event"
    tampered = signed(sealed()).replace(b'"n": 1', b'"n": 2')
    assert refusal(tampered)[0] == "signature"


def test_floats_duplicate_keys_and_deep_bodies_are_refused_unread():
    assert refusal(signed(sealed()).replace(b'"n": 1', b'"n": 1.5'))[0] == "json"
    assert refusal(signed(sealed()).replace(b'"n": 1', b'"n": NaN'))[0] == "json"
    assert refusal(signed(sealed()).replace(b'"n": 1', b'"n": 1, "n": 2'))[0] == "json"
    deep = {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": {"a": 1}}}}}}}}}   # nine levels
    assert refusal(signed(sealed(body=deep)))[0] == "field"
    assert refusal(b"[" * 100000 + b"]" * 100000)[0] == "json"


def test_sequences_per_board_exactly_the_next_one_for_the_director():
    # the director applied t1's 1, 2, 3: 3 again is a replay, 5 is a gap, 4 is taken
    assert refusal(signed(sealed(seq=3)), {"t1": 3}) == ("replay", "hand 3 from 't1' already applied (last 3)")
    assert refusal(signed(sealed(seq=1)), {"t1": 3})[0] == "replay"
    assert refusal(signed(sealed(seq=5)), {"t1": 3}) == ("gap", "hand 5 from 't1' before 4")
    assert envelope.open_message(signed(sealed(seq=4)), KEY, {"t1": 3})["seq"] == 4


T1_KEY, T2_KEY = bytes(range(16)), bytes(range(16, 32))


def test_the_tables_take_any_later_round_and_no_earlier_one():
    round_7 = tagged(sealed(board="director", kind="round", seq=7, body={"round": 2}), {"t1": T1_KEY, "t2": T2_KEY})
    assert envelope.open_message(round_7, T2_KEY, {"director": 2}, gaps=True, tag_for="t2")["seq"] == 7
    assert refusal(round_7, {"director": 7}, T2_KEY, gaps=True, tag_for="t2")[0] == "replay"
    # seal_director makes those bytes
    assert json.loads(envelope.seal_director({"t2": T2_KEY, "t1": T1_KEY}, EVENT, 7, "round", {"round": 2})) \
        == json.loads(round_7)


def test_a_table_checks_the_directors_message_by_its_own_tag_and_no_other():
    # issue 30, finding 2: table 1's key makes no round table 2 takes, whichever tag it writes
    for_t1_only = envelope.seal_director({"t1": T1_KEY}, EVENT, 3, "round", {"round": 2})
    assert refusal(for_t1_only, {"director": 2}, T2_KEY, gaps=True, tag_for="t2") == \
        ("signature", "round 3 from 'director' has no tag for 't2'")
    t2_tag_by_t1 = envelope.seal_director({"t2": T1_KEY}, EVENT, 3, "round", {"round": 2})
    assert refusal(t2_tag_by_t1, {"director": 2}, T2_KEY, gaps=True, tag_for="t2")[0] == "signature"
    # the director's own round, its seq changed: every tag is of the old bytes
    real = envelope.seal_director({"t1": T1_KEY, "t2": T2_KEY}, EVENT, 3, "round", {"round": 2})
    assert refusal(real.replace(b'"seq":3', b'"seq":5000'), {"director": 2}, T2_KEY, gaps=True,
                   tag_for="t2")[0] == "signature"
    # a director's message with a sig (the signature of an older tallyboard, or a table's) is no message
    assert refusal(signed(sealed(board="director", kind="round", seq=3, body={})), {"director": 2},
                   gaps=True, tag_for="t1")[0] == "field"
    assert refusal(tagged(sealed(), {"t1": KEY}))[0] == "field"                 # a table's message has no tags
    with pytest.raises(ValueError, match="seal_director"):
        envelope.seal(KEY, EVENT, "director", 3, "round", {})


def test_a_round_far_above_the_last_taken_is_refused_so_it_cannot_shadow_the_next_ones():
    keys = {"t1": T1_KEY}
    far = envelope.seal_director(keys, EVENT, 2 + envelope.ROUND_AHEAD + 1, "round", {})
    assert refusal(far, {"director": 2}, T1_KEY, gaps=True, tag_for="t1")[0] == "ahead"
    at_the_bound = envelope.seal_director(keys, EVENT, 2 + envelope.ROUND_AHEAD, "round", {})
    assert envelope.open_message(at_the_bound, T1_KEY, {"director": 2}, gaps=True, tag_for="t1")["seq"] == 66
    # a table that has taken none yet (joined late) takes the first it can check
    assert envelope.open_message(far, T1_KEY, {"director": 0}, gaps=True, tag_for="t1")["seq"] == 67


def test_status_and_applied_are_not_numbered():
    status = signed(sealed(board="host1", kind="status", seq=0, body={"online": True, "boards": []}))
    assert envelope.open_message(status, KEY, {"host1": 5})["body"]["online"] is True
    assert refusal(signed(sealed(seq=0)))[0] == "field"              # a hand is numbered from 1


def test_the_join_code_carries_the_tables_and_their_keys_only_and_catches_a_typo():
    secret = envelope.new_secret()
    pin = "abcdefghijklmnopqrstuvwxyz"          # a club CA's pin: 26 of base32's letters
    code = envelope.join_code(EVENT, secret, [3, 4], lambda t: f"B39D.{t}", pin)
    assert code.startswith("tb4:club-1:3.4:")
    joined = envelope.read_join_code(code)
    assert (joined.event, joined.tables, joined.ca_pin) == (EVENT, (3, 4), pin)
    # each table's key is HMAC-SHA256(secret, "board:" + its board), cut to 16 bytes; nothing else is in it
    assert joined.keys == (hmac.new(secret, b"board:B39D.3", hashlib.sha256).digest()[:16],
                           hmac.new(secret, b"board:B39D.4", hashlib.sha256).digest()[:16])
    assert secret not in code.encode() and envelope.board_key(secret, "B39D.1") not in joined.keys
    _, event, tables, text, code_pin, check = code.split(":")
    assert code_pin == pin
    assert len(base64.b32decode(text.upper() + "=" * (-len(text) % 8))) == 2 * 16     # two keys, no third
    typo = "a" if text[5] != "a" else "b"
    with pytest.raises(ValueError, match="mistyped"):
        envelope.read_join_code(f"tb4:{event}:{tables}:{text[:5]}{typo}{text[6:]}:{pin}:{check}")
    with pytest.raises(ValueError, match="mistyped"):
        envelope.read_join_code(f"tb4:{event}:3.5:{text}:{pin}:{check}")        # another table: the check fails
    with pytest.raises(ValueError, match="mistyped"):     # another pin (another club's broker): the check fails
        envelope.read_join_code(f"tb4:{event}:{tables}:{text}:{'b' * 26}:{check}")
    with pytest.raises(ValueError, match="broker pin is not 26"):
        envelope.read_join_code(f"tb4:{event}:{tables}:{text}:{pin[:-1]}:{check}")
    # a code of before the club's TLS (tb3: no pin), its check over the event, tables and keys: taken, no pin
    material = base64.b32decode(text.upper() + "=" * (-len(text) % 8))
    old_check = hashlib.sha256(f"{event}:{tables}:".encode() + material).hexdigest()[:6]
    assert envelope.read_join_code(f"tb3:{event}:{tables}:{text}:{old_check}") == envelope.JoinCode(
        EVENT, (3, 4), joined.keys, None)
    with pytest.raises(ValueError, match="copy it again from the director"):
        envelope.read_join_code("club-1 1234")


def tb2_code(secret: bytes, tables: list[int]) -> str:
    """A join code as tallyboard wrote it before issue 30, made by hand: the director's key (HMAC-SHA256 of
    "director" keyed with the secret, 16 bytes), then each table's, base32, and its six-digit check."""
    material = hmac.new(secret, b"director", hashlib.sha256).digest()[:16] + b"".join(
        envelope.board_key(secret, f"B39D.{t}") for t in tables)
    numbers = ".".join(map(str, tables))
    check = hashlib.sha256(f"{EVENT}:{numbers}:".encode() + material).hexdigest()[:6]
    return f"tb2:{EVENT}:{numbers}:{base64.b32encode(material).decode().rstrip('=').lower()}:{check}"


def test_an_older_join_code_is_refused_and_says_to_ask_the_director_for_a_new_one():
    # tb2 carried the director's key (with which any table could sign the director's round), tb1 the secret
    for code in (tb2_code(envelope.new_secret(), [3, 4]), "tb1:club-1:abc:123456"):
        with pytest.raises(ValueError) as refused:
            envelope.read_join_code(code)
        assert "older tallyboard" in str(refused.value)
        assert "Ask the director for a new code" in str(refused.value)
        assert "tallyboard event join-code --table N" in str(refused.value)


def test_broker_urls():
    assert mqtt_link.parse_url("mqtt://ann:p%40ss@10.0.0.5:1884") == mqtt_link.BrokerAddress("10.0.0.5", 1884, False,
                                                                                    "ann", "p@ss")
    assert mqtt_link.parse_url("mqtts://broker.club") == mqtt_link.BrokerAddress("broker.club", 8883, True, None, None)
    with pytest.raises(ValueError, match="mqtt://user:password@host:port"):
        mqtt_link.parse_url("http://broker.club")
    with pytest.raises(ValueError, match="port"):
        mqtt_link.parse_url("mqtt://broker.club:99999")
    # port 0 is no port to reach a broker on, not the default: said, not taken as 1883
    with pytest.raises(ValueError, match="from 1 to 65535"):
        mqtt_link.parse_url("mqtt://broker.club:0")
    assert mqtt_link.parse_url("mqtt://broker.club").port == 1883


def test_the_outbox_numbers_each_board_and_keeps_rows_until_confirmed(tmp_path):
    box = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, KEY)
    assert [box.add("t1", "hand", {"n": n}) for n in (1, 2, 3)] == [1, 2, 3]
    assert box.add("t2", "state", {"s": 1}) == 1
    first = box.next_unacked()
    assert (first.board, first.seq, first.topic) == ("t1", 1, "tallyboard/club-1/table/t1/hand")
    box.mark_acked(first.id)
    assert box.next_unacked().seq == 2
    assert box.pending() == 4                        # acked by the broker is not yet applied
    assert box.confirm("t1", 2)
    assert box.pending() == 2                        # t1's 3 and t2's 1
    assert not box.confirm("t1", 9)                  # more than it numbered: not this outbox's board
    assert box.pending() == 2
    box.close()
    again = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, KEY)   # after a restart, the numbering goes on
    assert again.add("t1", "hand", {"n": 4}) == 4
    with pytest.raises(ValueError, match="hand or state"):
        again.add("t1", "round", {})
    again.close()


def test_add_in_is_part_of_the_callers_transaction(tmp_path):
    box = outbox.Outbox(tmp_path / "o.sqlite3", EVENT, KEY)
    mine = database.open_file(tmp_path / "o.sqlite3", database.TABLE_HOST)
    mine.execute("CREATE TABLE scores (n INTEGER)")
    with pytest.raises(ValueError):
        with database.write(mine):
            mine.execute("INSERT INTO scores VALUES (1)")
            box.add_in(mine, "t1", "hand", {"n": 1})
            raise ValueError("the hand is not scored")  # rolled back: it is not sent either
    assert mine.execute("SELECT count(*) FROM scores").fetchone() == (0,)
    assert box.pending() == 0
    assert box.add("t1", "hand", {"n": 1}) == 1      # and its number was not used
    box.close()
    mine.close()


def test_a_table_host_started_with_take_next_round_forgets_the_last_round_it_took(tmp_path):
    """`event table --take-next-round` (a host away for more than ROUND_AHEAD round changes): the
    outbox's last round from the director is forgotten before any link connects, and said."""
    from tallyboard.evening import club, table_host
    code = envelope.read_join_code(envelope.join_code("club-1a2b", bytes(range(32)), [3],
                                                      lambda table: club.board_ident(envelope.tag_of("club-1a2b"),
                                                                                     table), "a" * 26))
    said: list[str] = []
    host = table_host.TableHost("mqtts://127.0.0.1:1", code, "laptop", [3], tmp_path, emulators=1, say=said.append)
    host.outbox.apply_received(envelope.DIRECTOR, 7, lambda connection, message: None, {})
    host.outbox.close()
    host.db.close()
    again = table_host.TableHost("mqtts://127.0.0.1:1", code, "laptop", [3], tmp_path, emulators=1, say=said.append,
                           take_next_round=True)
    try:
        assert again.outbox.received(envelope.DIRECTOR) == 0
        assert said == ["the director's next round is taken whatever its number (this host had taken round seq 7)"]
    finally:
        again.outbox.close()
        again.db.close()
