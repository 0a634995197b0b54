"""Each game's declared event layout (its rules module's EVENT_FORMS, which
docs/protocol.md and protocol.json are generated from) reads every event the
core takes: the events of the sixteen sample records, and random ints the
core's check accepts. An event is of its first matching form; every field is
within its declared range; and the fields, packed again, give the event back
(no bit the layout leaves out); the form says whether the event closes a
hand (its closes flag), as the rules' own ends_hand() does. Also: each
game's OPTION_FIELDS packs the options its records give."""
import random
from pathlib import Path

import pytest

from tallyboard.scorebook import records
from tallycore import games
from tallycore.game import CONFIRM, Game

DATA = Path(__file__).resolve().parent.parent / "host" / "tallyboard" / "data"
SAMPLES = sorted(DATA.glob("*.json"))


def decode(rules, event, players):
    for form in rules.EVENT_FORMS:
        name, mask, value, fields = form[0], form[1], form[2], form[3]
        if event & mask == value:
            # the declared flag a client reads (protocol.json closes_hand) and the rule the board holds by
            assert form[5] in (0, 1) and bool(form[5]) == bool(rules.ends_hand(event)), (name, event, form[5])
            packed = value
            for f in fields:
                for p in range(players if f[6] else 1):
                    shift = f[1] + p * f[2]
                    part = event >> shift & ((1 << f[2]) - 1)
                    assert f[3] <= part <= f[4], (name, f[0], p, part, event)
                    packed |= part << shift
            assert packed == event, (name, event, packed)
            return name
    raise AssertionError("no form reads %d" % event)


def test_the_samples_cover_every_game():
    assert sorted(records.load(p).name for p in SAMPLES) == sorted(row[0] for row in games.GAMES)


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.stem)
def test_every_event_of_a_record_reads_by_its_games_layout(path):
    loaded = records.load(path)
    game = loaded.game
    rules = game.rules
    forms = {decode(rules, game.log[i], game.players) for i in range(game.top)}
    assert forms, path
    # the options the record gives, packed again from OPTION_FIELDS
    options = game.options & ~CONFIRM
    packed = 0
    for f in rules.OPTION_FIELDS:
        part = options >> f[1] & ((1 << f[2]) - 1)
        assert f[3] <= part <= f[4], (f[0], part)
        packed |= part << f[1]
    assert packed == options


@pytest.mark.parametrize("name", [row[0] for row in games.GAMES])
def test_random_events_the_core_takes_read_by_the_layout(name):
    index = games.index_of(name)
    least, most = games.GAMES[index][1:3]
    rng = random.Random(name)
    width = max(f[1] + f[2] * (most if f[6] else 1) for form in games.load(index).EVENT_FORMS
                for f in form[3] or ((b"", form[2].bit_length(), 0, 0, 0, b"", 0, ""),))
    taken = 0
    for players in sorted({least, most}):
        game = Game()
        game.new(index, players, 0)
        rules = game.rules
        for attempt in range(3000):
            if attempt % 2:
                event = rng.getrandbits(width + 1)     # one bit more than the layout covers
            else:
                # a form's fields at random within their ranges, now and then one stray bit
                form = rng.choice(rules.EVENT_FORMS)
                event = form[2]
                for f in form[3]:
                    for p in range(players if f[6] else 1):
                        event |= rng.randint(f[3], f[4]) << (f[1] + p * f[2])
                if rng.random() < 0.3:
                    event |= 1 << rng.randrange(width + 1)
            try:
                game.check(event)
            except ValueError:
                continue
            decode(game.rules, event, players)
            taken += 1
    assert taken > 0, name


def test_the_forms_that_close_a_hand_are_the_ones_the_rules_say():
    # worked from each game's rules: a hand is one event, except Skicket's and Bishops Whist's misdeal
    # (no hand: SK3), Roquet's pegs (RQ: END closes), Moosehead's plays and go (its END), the counted games'
    # counts (their END), Doolittle's tricks (its END) and Rummy's cards (its OUT)
    closing = {row[0]: sorted(f[0].decode() for f in games.load(i).EVENT_FORMS if f[5])
               for i, row in enumerate(games.GAMES)}
    assert closing["skicket"] == ["hand"] and closing["bishops_whist"] == ["hand"]
    assert closing["roquet"] == ["end"] and closing["moosehead"] == ["end"] and closing["doolittle"] == ["end"]
    assert closing["numero"] == ["end"] and closing["quatro"] == ["end"] and closing["rummy"] == ["out"]
    assert all(closing[name] == ["hand"] for name in ("coronado", "foozle", "jaimy", "hoodoo", "sachem",
                                                     "despised_nines", "ups_and_downs"))
