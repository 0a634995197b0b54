# Skicket (1916): the four-player bidding game with individual scores.
# Rules: docs/rules.md SK (seed 000); each clause below cites its place there.
# Some 600 lines, past the ~500 the rest keep: the game with its pivots, the Duplicate series,
# Royal Skicket and the reasons its scoring gives are loaded whole before BOOT when a Skicket
# game is restored, and a module more costs the power-up a littlefs lookup (10 to 13 ms) and
# heap (docs/benchmarks.md, the session of issues 30 to 34).
#
# Players are indices 0..3 in the starting seat order (player 0, the score
# keeper, never moves). Seats are numbered clockwise from the keeper.
#
# Event encoding (one hand, a small int below 2**20): HAND_FIELDS below
# (the purchaser as entered: the winning bidder; the strain in bidding order);
#   bit  19    misdeal     set alone: a misdeal (no other bit set)
#
# Hand result (the four scores of one hand as one small int below 2**24):
#   every Skicket score is a multiple of 10 and at most 520 (4 * 130), so
#   player p's score / 10 (0..52) sits in bits 6p..6p+5. See hand_result.
#
# Options (docs/rules.md SK16 to SK18; a game without options is the six-hand
# game, so old journals and records load unchanged):
#   OPT_FOUR_HANDS  a game of four hands (Progressive Skicket, SK16)
#   OPT_DUPLICATE   the Duplicate series of twelve hands (SK17)
#   OPT_ROYAL       Royal Skicket (SK18): scored as Skicket, kept and shown
#
# State (STATE_SIZE bytes, all the game there is):
#   [0]      hands scored (0..12; misdeals are not hands)
#   [1]      misdeals seen, low byte (the high byte is [46])
#   [2..38)  the hands, up to twelve, 3 bytes each, little-endian event
#   [38..46) totals of players 0..3, u16 little-endian (max 12 * 520 = 6240)
#   [46]     misdeals seen, high byte: a u16 in [1] and [46], as a game takes
#            as many misdeals as its log holds (saturates at 65535)
#   [47]     the options
from tallycore import array

from tallycore import const

from tallycore import layout
from tallycore.game import NOBODY, STRAINS

MIN_PLAYERS = const(4)
MAX_PLAYERS = const(4)
STATE_SIZE = const(48)
VIEW = "skicketview"   # tallypanel.skicketview: its sheet, hand entry and dealer LED
HANDS_PER_GAME = const(6)   # the game without options (docs/rules.md SK4)
DEALS = const(6)            # the deals of a Duplicate series, each played twice (SK17)
_MOST_HANDS = const(12)      # a whole Duplicate series

OPT_FOUR_HANDS = const(1)
OPT_DUPLICATE = const(2)
OPT_ROYAL = const(4)

CLUBS = const(0)
SPADES = const(1)
HEARTS = const(2)
DIAMONDS = const(3)
NO_TRUMP = const(4)
NO_TRICK = const(5)
MISDEAL = const(0x80000)

_MISDEALS_LOW = const(1)
_HANDS = const(2)
_TOTALS = const(38)
_MISDEALS_HIGH = const(46)
_OPTIONS = const(47)

# A hand's fields (tallycore.layout), its one layout
HAND_FIELDS = (
    (b"purchaser", 0, 2, 0, 3, b"player", 0, "the winning bidder"),
    (b"level", 2, 3, 1, 7, b"", 0, "bid level"),
    (b"strain", 5, 3, 0, 5, b"", 0, "0 C, 1 S, 2 H, 3 D, 4 NT, 5 NK"),
    (b"doubled_by", 8, 3, 0, 4, b"player", 0, "who doubled; 4 nobody"),
    (b"redoubled_by", 11, 3, 0, 4, b"player", 0, "who redoubled; 4 nobody"),
    (b"lone", 14, 1, 0, 1, b"", 0, "1: the purchaser plays alone"),
    (b"tricks", 15, 4, 0, 13, b"", 0, "tricks won by the purchaser's side (or him alone)"),
)
_PURCHASER = const(0)   # rows of HAND_FIELDS
_LEVEL = const(1)
_STRAIN = const(2)
_DOUBLED_BY = const(3)
_REDOUBLED_BY = const(4)
_LONE = const(5)
_TRICKS = const(6)

# Pivoting (docs/rules.md SK5): seat -> player for each pair of
# hands. A B C D; after hand 2 player 1 swaps with seat 2; after hand 4 with seat 3.
_SEATS = b"\x00\x01\x02\x03\x00\x02\x01\x03\x00\x02\x03\x01"


def schedule(level):
    # docs/rules.md SK2: the schedule, L -> 60 + 10*L (70 .. 130)
    return 60 + 10 * level


def deal_index(hand):
    """The deal (0..5) a hand (0-based, 0..11) plays: hands 7 to 12 of a
    Duplicate series replay deals 1 to 6 (docs/rules.md SK17)."""
    return hand - DEALS if hand >= DEALS else hand


def reversed_half(hand):
    """1 for a hand of a series' second half, its deal played reversed (SK17)."""
    return 1 if hand >= DEALS else 0


def seat_player(hand, seat):
    """Player index in the given seat for hand (0-based, 0..11)."""
    # docs/rules.md SK5: the seats pivot after every second hand.
    # docs/rules.md SK16: a four-hand game stops after the first pivot.
    # docs/rules.md SK17: hand 7 is back at the first seats.
    return _SEATS[(deal_index(hand) >> 1) * 4 + seat]


def player_seat(hand, player):
    base = (deal_index(hand) >> 1) * 4
    for seat in range(4):
        if _SEATS[base + seat] == player:
            return seat
    return -1


def partner(hand, player):
    return seat_player(hand, (player_seat(hand, player) + 2) & 3)


def dealer(hand):
    # docs/rules.md SK3: hand h (1-based) is dealt from seat (2+h-1) mod 4;
    # with 0-based hand that is seat (2+hand) mod 4. A misdeal keeps the dealer.
    # docs/rules.md SK17: a reversed deal is dealt one seat further left, where
    # its dealer's cards now lie.
    return seat_player(hand, (2 + deal_index(hand) + reversed_half(hand)) & 3)


def pack_hand(purchaser, level, strain, doubled_by, redoubled_by, lone, tricks):
    """Pack one hand, range-checking every field. None means nobody."""
    checked = layout.checked
    return (checked(HAND_FIELDS[_PURCHASER], _player(purchaser), "purchaser: must be a player 0 to 3")
            | checked(HAND_FIELDS[_LEVEL], level, "bid: level must be 1 to 7")
            | checked(HAND_FIELDS[_STRAIN], strain, "bid: strain must be C, S, H, D, NT or NK")
            | checked(HAND_FIELDS[_DOUBLED_BY], NOBODY if doubled_by is None else _player(doubled_by),
                      "doubled_by: must be a player 0 to 3 or null")
            | checked(HAND_FIELDS[_REDOUBLED_BY], NOBODY if redoubled_by is None else _player(redoubled_by),
                      "redoubled_by: must be a player 0 to 3 or null")
            | layout.put(HAND_FIELDS[_LONE], 1 if lone else 0)
            | checked(HAND_FIELDS[_TRICKS], tricks, "tricks: must be 0 to 13"))


def _player(value):
    """A player 0 to 3 as given, anything else (None, NOBODY) as -1: out of its field's range."""
    return value if value is not None and 0 <= value <= 3 else -1


# The wire of this game (tallycore.game explains the declarations). Every
# index is a player (fixed for the game); the seats pivot (SK5).
from tallycore.game import ARG_INT, ARG_BID, ARG_WHO

VERBS = (
    (b"HAND", ((b"purchaser", ARG_INT, 0, 3, b"player"), (b"bid", ARG_BID, 0, 0, b""),
               (b"doubled_by", ARG_WHO, 0, 3, b"player"), (b"redoubled_by", ARG_WHO, 0, 3, b"player"),
               (b"lone", ARG_INT, 0, 1, b""), (b"tricks", ARG_INT, 0, 13, b"")),
     "one hand's result, e.g. HAND 0 4H 1 - 0 10 (SK6 to SK14)"),
    (b"MISDEAL", (), "a misdeal: dealt again by the same dealer (SK3)"),
)
OPTION_FIELDS = (
    (b"hands", 0, 1, 0, 1, b"", 0, "1: a game of four hands (Progressive Skicket, SK16); 0: six (SK4)"),
    (b"series", 1, 1, 0, 1, b"", 0, "1: the Duplicate series of twelve hands (SK17); not with hands"),
    (b"royal", 2, 1, 0, 1, b"", 0, "1: Royal Skicket (SK18)"),
)
EVENT_FORMS = (
    (b"misdeal", 0xFFFFF, MISDEAL, (), "a misdeal (MISDEAL): bit 19 alone", 0),
    (b"hand", MISDEAL, 0, HAND_FIELDS, "one hand (HAND)", 1),
)


def verb_event(verb, values):
    """verb: its index in VERBS. HAND's values: purchaser, bid (level | strain
    << 3), doubled by, redoubled by (NOBODY for "-"), lone, tricks."""
    if verb == 0:
        doubled = None if values[2] == NOBODY else values[2]
        redoubled = None if values[3] == NOBODY else values[3]
        return pack_hand(values[0], values[1] & 7, values[1] >> 3, doubled, redoubled, values[4], values[5])
    return MISDEAL


def parse_bid(text):
    """'4H' -> (4, HEARTS); 'NK' and 'NT' strains are two letters."""
    if len(text) < 2 or text[0] < "1" or text[0] > "7":
        raise ValueError("bid: must be a level 1 to 7 and a strain C, S, H, D, NT or NK")
    strain_text = text[1:].encode()
    for strain in range(6):
        if STRAINS[strain] == strain_text:
            return ord(text[0]) - 48, strain
    raise ValueError("bid: must be a level 1 to 7 and a strain C, S, H, D, NT or NK")


def bid_text(level, strain):
    return str(level) + STRAINS[strain].decode()


def purchaser_of(event):
    return layout.get(event, HAND_FIELDS[_PURCHASER])


def level_of(event):
    return layout.get(event, HAND_FIELDS[_LEVEL])


def strain_of(event):
    return layout.get(event, HAND_FIELDS[_STRAIN])


def doubled_by_of(event):
    return layout.get(event, HAND_FIELDS[_DOUBLED_BY])


def redoubled_by_of(event):
    return layout.get(event, HAND_FIELDS[_REDOUBLED_BY])


def lone_of(event):
    return layout.get(event, HAND_FIELDS[_LONE])


def tricks_of(event):
    return layout.get(event, HAND_FIELDS[_TRICKS])


def record_hand(event):
    """One event as its game record writes the hand (docs/records.md,
    "Skicket"): every event is one hand. The host's records and a board on
    the club's Wi-Fi (tallynet.tablestate) both write it from here."""
    if event == MISDEAL:
        return {"misdeal": True}
    doubler = doubled_by_of(event)
    redoubler = redoubled_by_of(event)
    return {
        "purchaser": purchaser_of(event),
        "bid": bid_text(level_of(event), strain_of(event)),
        "doubled_by": None if doubler == NOBODY else doubler,
        "redoubled_by": None if redoubler == NOBODY else redoubler,
        "lone": bool(lone_of(event)),
        "tricks": tricks_of(event),
    }


def made(event):
    """Whether the contract was made. docs/rules.md SK2: a bid of L needs 6+L
    tricks; in No Trick (docs/rules.md SK11) the adversaries must take 6+L."""
    need = 6 + level_of(event)
    if strain_of(event) == NO_TRICK:
        return 13 - tricks_of(event) >= need
    return tricks_of(event) >= need


def check_options(players, options, name):
    if options & ~(OPT_FOUR_HANDS | OPT_DUPLICATE | OPT_ROYAL):
        raise ValueError("options: unknown Skicket option")
    if options & OPT_FOUR_HANDS and options & OPT_DUPLICATE:
        raise ValueError("options: hands: a Duplicate series is twelve hands; leave hands out")


def reset(state, players, options, variant):
    state[_OPTIONS] = options   # the rest all zeros: the empty game


def options_of(state):
    return state[_OPTIONS]


def royal(state):
    """docs/rules.md SK18: Royal Skicket, scored exactly as Skicket."""
    return 1 if state[_OPTIONS] & OPT_ROYAL else 0


def series(state):
    """1 for a Duplicate series (docs/rules.md SK17)."""
    return 1 if state[_OPTIONS] & OPT_DUPLICATE else 0


def length(state):
    """The hands of the game: 4 (SK16), 6 (SK4) or 12 (SK17)."""
    options = state[_OPTIONS]
    if options & OPT_DUPLICATE:
        return _MOST_HANDS
    if options & OPT_FOUR_HANDS:
        return 4
    return HANDS_PER_GAME


def refuse_over(state):
    """The error for a hand after the last: docs/rules.md G4, SK4, SK16, SK17."""
    options = state[_OPTIONS]
    if options & OPT_DUPLICATE:
        raise ValueError("game: the twelve hands of the series are all in; start a new game")
    if options & OPT_FOUR_HANDS:
        raise ValueError("game: the four hands of the game are all in; start a new game")
    raise ValueError("game: the six hands of the game are all in")


def check(state, players, event):
    hand = state[0]
    if event == MISDEAL:
        if hand >= length(state):
            refuse_over(state)
        return
    if event >> layout.above(HAND_FIELDS[_TRICKS]):
        raise ValueError("event: not a Skicket hand")
    if hand >= length(state):
        refuse_over(state)
    level = level_of(event)
    strain = strain_of(event)
    if level < 1:
        raise ValueError("bid: level must be 1 to 7")
    if strain > NO_TRICK:
        raise ValueError("bid: strain must be C, S, H, D, NT or NK")
    if tricks_of(event) > 13:
        raise ValueError("tricks: must be 0 to 13")
    purchaser = purchaser_of(event)
    mate = partner(hand, purchaser)
    doubler = doubled_by_of(event)
    redoubler = redoubled_by_of(event)
    if doubler > NOBODY:
        raise ValueError("doubled_by: must be a player 0 to 3 or null")
    if redoubler > NOBODY:
        raise ValueError("redoubled_by: must be a player 0 to 3 or null")
    # docs/rules.md SK6: a double is by an adversary.
    if doubler == purchaser or doubler == mate:
        raise ValueError("doubled_by: a player cannot double his own side's bid")
    if redoubler != NOBODY:
        if doubler == NOBODY:
            raise ValueError("redoubled_by: a redouble needs a double")
        if redoubler != purchaser and redoubler != mate:
            raise ValueError("redoubled_by: must be the purchaser or the purchaser's partner")
    if lone_of(event):
        # docs/rules.md SK12: never on No Trick.
        if strain == NO_TRICK:
            raise ValueError("lone: a lone hand cannot be played on No Trick")
        # docs/rules.md SK13, redoubled: the lone player is the one who redoubles.
        if redoubler == mate:
            raise ValueError("redoubled_by: a lone hand is redoubled by the purchaser himself")


# The reasons a score is given (tallycore.why): the codes that key the table of
# tallycore/reasons/skicket.py, which holds each one's clause and words.
_EVERYONE = const(255)      # tallycore.why.EVERYONE
_R_MISDEAL = const(0)
_R_MADE = const(1)
_R_ADVERSARY = const(2)
_R_FAILED = const(3)
_R_FAILED_PARTNER = const(4)
_R_FAILED_ADVERSARY = const(5)
_R_EVERY_TRICK = const(6)
_R_NT_ADVERSARY = const(7)
_R_NT_FAILED_PARTNER = const(8)
_R_NT_FAILED_ADVERSARY = const(9)
_R_ROLE = const(10)
_R_LONE_MADE = const(11)
_R_LONE_FAILED = const(12)
_R_LONE_COUNT = const(13)
_R_LONE_EVERY_TRICK = const(14)
_R_NT_LOSER_PARTNER = const(15)
# doubled (SK9), then the same five redoubled (SK10): code + _R_REDOUBLED
_R_DOUBLED_MADE = const(16)
_R_DOUBLED_FAILED = const(17)
_R_DOUBLER_LOST = const(18)
_R_PURCHASER_LOST = const(19)
_R_LOSER_PARTNER = const(20)
_R_REDOUBLED = const(5)
# a lone hand doubled (SK13), then the same five redoubled: code + _R_REDOUBLED
_R_LONE_X_MADE = const(26)
_R_LONE_X_FAILED = const(27)
_R_LONE_X_DOUBLER = const(28)
_R_LONE_X_PURCHASER = const(29)
_R_LONE_X_COUNT = const(30)


def apply(state, players, event, why=None):
    if event == MISDEAL:
        # docs/rules.md SK3: redealt by the same dealer, scores nothing.
        if why is not None:
            why.add(_EVERYONE, 0, _R_MISDEAL)
        count = state[_MISDEALS_LOW] | state[_MISDEALS_HIGH] << 8
        if count < 0xFFFF:
            count += 1
            state[_MISDEALS_LOW] = count & 0xFF
            state[_MISDEALS_HIGH] = count >> 8
        return
    hand = state[0]
    at = _HANDS + 3 * hand
    state[at] = event & 0xFF
    state[at + 1] = (event >> 8) & 0xFF
    state[at + 2] = event >> 16
    score_hand(event, hand, _scores, why)
    for p in range(4):
        at = _TOTALS + 2 * p
        value = state[at] | state[at + 1] << 8
        value += _scores[p]
        state[at] = value & 0xFF
        state[at + 1] = value >> 8
    state[0] = hand + 1


_scores = array("i", (0, 0, 0, 0))



def score_hand(event, hand, out, why=None):
    """Each player's score for one (valid) hand, into out[0..3]; why: a
    tallycore.why.Parts to give each score's reason to, or None.

    hand is the 0-based index of the hand in the game: it fixes who sits
    where (pivoting) and so who partners whom."""
    for p in range(4):
        out[p] = 0
    if event == MISDEAL:
        if why is not None:
            why.add(_EVERYONE, 0, _R_MISDEAL)
        return
    purchaser = purchaser_of(event)
    level = level_of(event)
    doubler = doubled_by_of(event)
    redoubler = redoubled_by_of(event)
    tricks = tricks_of(event)
    mate = partner(hand, purchaser)
    partner_redoubled = redoubler == mate
    if partner_redoubled:
        # docs/rules.md SK6: the partner who redoubles assumes
        # the role of successful bidder and all liabilities.
        purchaser = mate
        mate = purchaser_of(event)
    seat = player_seat(hand, purchaser)
    left = seat_player(hand, (seat + 1) & 3)
    right = seat_player(hand, (seat + 3) & 3)
    amount = 60 + 10 * level  # schedule
    their_tricks = 13 - tricks
    no_trick = strain_of(event) == NO_TRICK
    if no_trick:
        # docs/rules.md SK11: every 10-point count is mirrored (tricks a side did NOT take).
        won = their_tricks >= 6 + level
        every_trick = their_tricks == 13
        count_theirs = 10 * tricks
        count_ours = 10 * their_tricks
    else:
        won = tricks >= 6 + level
        every_trick = tricks == 13
        count_theirs = 10 * their_tricks
        count_ours = 10 * tricks
    lone = lone_of(event)
    if doubler == NOBODY:
        if every_trick and won:
            amount = 130  # docs/rules.md SK14: taking every trick pays 130 undoubled
        if lone:
            # docs/rules.md SK12: the partner is a silent adversary; all three get the
            # adversaries' count; made, the purchaser alone gets A.
            out[mate] = count_theirs
            out[left] = count_theirs
            out[right] = count_theirs
            if won:
                out[purchaser] = amount
            if why is not None:
                why.add(purchaser, out[purchaser], (_R_LONE_EVERY_TRICK if every_trick else _R_LONE_MADE)
                        if won else _R_LONE_FAILED)
                why.add(mate, count_theirs, _R_LONE_COUNT)
                why.add(left, count_theirs, _R_LONE_COUNT)
                why.add(right, count_theirs, _R_LONE_COUNT)
        else:
            if won:
                out[purchaser] = amount   # docs/rules.md SK7
                out[mate] = amount
            else:
                out[mate] = count_ours    # docs/rules.md SK8: the purchaser forfeits
            out[left] = count_theirs
            out[right] = count_theirs
            if why is not None:
                if won:
                    code = _R_EVERY_TRICK if every_trick else _R_MADE
                    why.add(purchaser, amount, code)
                    why.add(mate, amount, code)
                    code = _R_NT_ADVERSARY if no_trick else _R_ADVERSARY
                else:
                    why.add(purchaser, 0, _R_FAILED)
                    why.add(mate, count_ours, _R_NT_FAILED_PARTNER if no_trick else _R_FAILED_PARTNER)
                    code = _R_NT_FAILED_ADVERSARY if no_trick else _R_FAILED_ADVERSARY
                why.add(left, count_theirs, code)
                why.add(right, count_theirs, code)
        return
    # docs/rules.md SK9, SK10: doubled pays 2A, redoubled 4A; SK14 does not apply.
    stake = amount * (4 if redoubler != NOBODY else 2)
    doubler_mate = left if doubler == right else right
    if lone:
        # docs/rules.md SK13: lone doubled / redoubled.
        if won:
            out[purchaser] = stake
            out[mate] = count_theirs
            out[doubler_mate] = count_theirs
        else:
            out[mate] = stake
            out[left] = stake
            out[right] = stake
        if why is not None:
            _lone_doubled_why(why, won, redoubler != NOBODY, purchaser, mate, doubler, doubler_mate, out)
        return
    if won:
        out[purchaser] = stake
        out[mate] = stake
        out[doubler_mate] = count_theirs  # the loser (doubler) forfeits
    else:
        out[doubler] = stake
        out[doubler_mate] = stake
        out[mate] = count_ours  # the loser (purchaser) forfeits
    if why is not None:
        _doubled_why(why, won, redoubler != NOBODY, partner_redoubled, no_trick, purchaser, mate, doubler,
                     doubler_mate, out)


def _doubled_why(why, won, redoubled, partner_redoubled, no_trick, purchaser, mate, doubler, doubler_mate, out):
    """The reasons of a doubled or redoubled hand (docs/rules.md SK9, SK10, SK11).
    purchaser is the player scored as the purchaser: the partner, when he
    redoubled (SK6). Made, he is one of the purchaser's side like the bidder;
    failed, his nothing is said to be SK6's liabilities."""
    shift = _R_REDOUBLED if redoubled else 0
    if won:
        why.add(purchaser, out[purchaser], _R_DOUBLED_MADE + shift)
        why.add(mate, out[mate], _R_DOUBLED_MADE + shift)
        why.add(doubler, 0, _R_DOUBLER_LOST + shift)
        loser_mate = doubler_mate
    else:
        why.add(doubler, out[doubler], _R_DOUBLED_FAILED + shift)
        why.add(doubler_mate, out[doubler_mate], _R_DOUBLED_FAILED + shift)
        why.add(purchaser, 0, _R_ROLE if partner_redoubled else _R_PURCHASER_LOST + shift)
        loser_mate = mate
    why.add(loser_mate, out[loser_mate], _R_NT_LOSER_PARTNER if no_trick else _R_LOSER_PARTNER + shift)


def _lone_doubled_why(why, won, redoubled, purchaser, mate, doubler, doubler_mate, out):
    """The reasons of a lone hand doubled or redoubled (docs/rules.md SK13)."""
    shift = _R_REDOUBLED if redoubled else 0
    if won:
        why.add(purchaser, out[purchaser], _R_LONE_X_MADE + shift)
        why.add(doubler, 0, _R_LONE_X_DOUBLER + shift)
        why.add(mate, out[mate], _R_LONE_X_COUNT + shift)
        why.add(doubler_mate, out[doubler_mate], _R_LONE_X_COUNT + shift)
    else:
        why.add(purchaser, 0, _R_LONE_X_PURCHASER + shift)
        why.add(mate, out[mate], _R_LONE_X_FAILED + shift)
        why.add(doubler, out[doubler], _R_LONE_X_FAILED + shift)
        why.add(doubler_mate, out[doubler_mate], _R_LONE_X_FAILED + shift)


def hand_result(event, hand):
    """The hand's four scores packed as one small int (see the top of this file)."""
    score_hand(event, hand, _scores)
    return (_scores[0] // 10 | (_scores[1] // 10) << 6 | (_scores[2] // 10) << 12
            | (_scores[3] // 10) << 18)


def result_score(result, player):
    """One player's score from a packed hand result."""
    return 10 * ((result >> (6 * player)) & 63)


def hand_event(state, hand):
    at = _HANDS + 3 * hand
    return state[at] | state[at + 1] << 8 | state[at + 2] << 16


def misdeals(state):
    return state[_MISDEALS_LOW] | state[_MISDEALS_HIGH] << 8


def total(state, players, player):
    at = _TOTALS + 2 * player
    return state[at] | state[at + 1] << 8


def hands(state):
    return state[0]


def ends_hand(event):
    return event != MISDEAL


# docs/rules.md CF1: a hand is its one event; a misdeal before it is no part of it (SK3)
REJECT_KEEPS = True


def confirmers(state, players, event, hand):
    """Who may accept the hand (0-based) that event closes, held for its
    confirmation (bit p = player p): the purchaser's two opponents in that
    hand (docs/rules.md CF2)."""
    purchaser = purchaser_of(event)
    return 0xF & ~(1 << purchaser | 1 << partner(hand, purchaser))


def complete(state, players):
    # docs/rules.md SK4: six hands; SK16: four; SK17: twelve in a series.
    return state[0] >= length(state)


def winners(state, players):
    # docs/rules.md SK4: largest individual total wins; ties possible.
    if state[0] == 0:
        return 0
    best = -1
    mask = 0
    for p in range(4):
        value = total(state, 4, p)
        if value > best:
            best = value
            mask = 1 << p
        elif value == best:
            mask |= 1 << p
    return mask
