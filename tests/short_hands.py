"""Random games of the short games without a simulation of their own (the
simulation's profiles draw only Skicket's and Roquet's events): a hand at a
time, each drawn from the game's own rules, for the checks that want every
branch of a game's scoring reached (tests/test_why.py). Not a test module.

GAMES maps a game's name to (options, hand): options(rng, players) draws the
game's options, hand(rng, players, options) the events of one hand; a hand
the core refuses (e.g. the same card twice) is taken back whole and another
drawn."""
from __future__ import annotations

import random

from tallycore import cards, coronado, doolittle, foozle, game, games, jaimy, most_count, rummy, sachem
from tallycore import despised_nines

HANDS_A_GAME = 12   # at most; a first-to-N game may end before


def dealer(rng: random.Random, players: int) -> int:
    return rng.randrange(players)


def rummy_options(rng: random.Random, players: int) -> int:
    return dealer(rng, players) | (rummy.OPT_FACES_TEN if rng.random() < 0.5 else 0)


def rummy_hand(rng: random.Random, players: int, options: int) -> list[int]:
    out = rng.randrange(players)
    events = [rummy.pack_card(p, cards.card(rng.randint(1, 13), rng.randint(0, 4)))
              for p in range(players) if p != out for _ in range(rng.randint(1, rummy.hand_size(players)))]
    return events + [rummy.pack_out(out)]


def jaimy_options(rng: random.Random, players: int) -> int:
    partners = players in (4, 6) and rng.random() < 0.5
    return dealer(rng, players) | (jaimy.OPT_PARTNERS if partners else 0)


def jaimy_hand(rng: random.Random, players: int, options: int) -> list[int]:
    kind = rng.choice((jaimy.NOBODY_SCORED, jaimy.CLAIMED, jaimy.ALL))
    return [jaimy.pack_hand(kind, 0 if kind == jaimy.NOBODY_SCORED else rng.randrange(players))]


def numero_hand(rng: random.Random, players: int, options: int) -> list[int]:
    # now and then nobody holds a card at the end (docs/rules.md G6)
    counts = [0] * players if rng.random() < 0.15 else [rng.randint(0, 52 // players) for _ in range(players)]
    return [most_count.pack_count(p, counts[p], most_count.PACK) for p in range(players)] + [most_count.END]


def quatro_options(rng: random.Random, players: int) -> int:
    return dealer(rng, players) | (most_count.OPT_HANDS_WON if rng.random() < 0.5 else 0)


def quatro_hand(rng: random.Random, players: int, options: int) -> list[int]:
    owners = [rng.randrange(players) for _ in range(most_count.TRICKS)]
    return [most_count.pack_count(p, owners.count(p), most_count.TRICKS) for p in range(players)] + [most_count.END]


def sachem_hand(rng: random.Random, players: int, options: int) -> list[int]:
    def who(nobody: float) -> int | None:
        return None if rng.random() < nobody else rng.randrange(players)
    first = who(0.2)
    last = None if first is None else who(0)
    nine = None if first is None else who(0.4)
    return [sachem.pack_hand(first, last, nine, who(0.3))]


def doolittle_options(rng: random.Random, players: int) -> int:
    # now and then a deal of more than six cards (option cards), as many as the pack allows
    cards_each = rng.randint(7, min(13, 52 // players)) if rng.random() < 0.3 and players <= 7 else 0
    return dealer(rng, players) | cards_each << doolittle.OPT_CARDS_SHIFT


def doolittle_hand(rng: random.Random, players: int, options: int) -> list[int]:
    return [rng.randrange(players) for _ in range(doolittle.cards_dealt(options))] + [doolittle.END]


def nines_hand(rng: random.Random, players: int, options: int) -> list[int]:
    nines = [0] * players
    for _ in range(4):
        taker = rng.randrange(players + 1)   # players: a nine nobody took
        if taker < players:
            nines[taker] += 1
    return [despised_nines.pack_hand(nines)]


def one(draw):
    return lambda rng, players, options: [draw(rng, players)]


GAMES = {
    "rummy": (rummy_options, rummy_hand),
    "parquet": (rummy_options, rummy_hand),
    "coronado": (dealer, one(lambda rng, n: coronado.pack_hand(rng.randint(0, 2), rng.randint(0, 5)))),
    "foozle": (dealer, one(lambda rng, n: foozle.pack_hand(rng.randrange(n), rng.randint(1, 5), rng.randint(0, 5)))),
    "jaimy": (jaimy_options, jaimy_hand),
    "hoodoo": (dealer, one(lambda rng, n: rng.randrange(n))),
    "numero": (dealer, numero_hand),
    "sachem": (dealer, sachem_hand),
    "quatro": (quatro_options, quatro_hand),
    "doolittle": (doolittle_options, doolittle_hand),
    "despised_nines": (dealer, nines_hand),
    "ups_and_downs": (dealer, one(lambda rng, n: rng.randrange(n))),
}


def random_games(name: str, count: int, seed: int = 34) -> list[game.Game]:
    """count random games of a game of GAMES, each from its own seeded draw."""
    draw_options, draw_hand = GAMES[name]
    row = games.GAMES[games.index_of(name)]
    out = []
    for number in range(count):
        rng = random.Random(f"{seed}:{name}:{number}")
        players = rng.randint(row[1], row[2])
        options = draw_options(rng, players)
        g = game.Game()
        g.new(name, players, options)
        for _ in range(HANDS_A_GAME):
            if g.complete():
                break
            done = 0
            try:
                for event in draw_hand(rng, players, options):
                    g.apply(event)
                    done += 1
            except ValueError:
                for _ in range(done):   # the hand refused: taken back whole
                    g.undo()
        out.append(g)
    return out
