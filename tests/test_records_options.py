"""A record's options survive export: packed on the way in, the same object on the way out."""
import pytest

from tallyboard import games
from tallyboard.scorebook import records

CASES = [
    ("skicket", {}),
    ("roquet", {}),
    ("roquet", {"end": "hand_end"}),
    ("roquet", {"landmark_bonus": True}),
    ("roquet", {"end": "hand_end", "landmark_bonus": True}),
    ("rummy", {"faces": "ten", "first_dealer": 2}),
    ("parquet", {"faces": "ten"}),
    ("moosehead", {"faces": "rank"}),
    ("jaimy", {"partners": True}),
    ("doolittle", {"cards": 8}),
    ("bishops_whist", {"first_dealer": 3}),
    ("foozle", {}),
    ("quatro", {}),
    ("quatro", {"hands_won": True}),
    ("quatro", {"hands_won": True, "first_dealer": 2}),
    ("numero", {"first_dealer": 1}),
    ("skicket", {"hands": 4}),
    ("skicket", {"series": "duplicate"}),
    ("skicket", {"royal": True}),
    ("skicket", {"series": "duplicate", "royal": True}),
]


@pytest.mark.parametrize("name,options", CASES, ids=[f"{n}-{o}" for n, o in CASES])
def test_options_round_trip(name, options):
    packed = games.profile(name).options(options)
    assert records.options_document(name, packed) == options


def test_unknown_packed_options_are_refused():
    # Skicket's bits are 1 (four hands), 2 (Duplicate series), 4 (Royal)
    with pytest.raises(ValueError, match="options: skicket has no option 8"):
        records.options_document("skicket", 8 | 1)
    with pytest.raises(ValueError, match="options: roquet has no option"):
        records.options_document("roquet", 4)
    # Quatro's hands_won (bit 3) is not Numero's
    with pytest.raises(ValueError, match="options: numero has no option 8"):
        records.options_document("numero", 8)


def test_quatro_hands_won_is_bit_3():
    # bits 0-2 the first dealer, bit 3 hands_won: 2 | 8 = 10
    assert games.profile("quatro").options({"hands_won": True, "first_dealer": 2}) == 10
    assert games.profile("quatro").options({"hands_won": False}) == 0
