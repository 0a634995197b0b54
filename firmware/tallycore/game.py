# The game engine: one game in progress, its event log, undo and redo.
#
# A game is a row of the registry (tallycore.games: its name, player range,
# rules module and variant) plus a state buffer that only the rules module
# writes, and a log of the events applied to it.
#
# Events are packed small ints (each rules module documents its encoding),
# always 0 <= event < 2**30 so they stay small ints on the RP2040.
#
# The log is one preallocated array('i'). Entries [0, n) are applied; entries
# [n, top) are the redo stack. Undo moves n back one step and rebuilds the
# state by replaying [0, n) from a reset, so an undone state is byte for byte
# the state that was there before: there is no inverse arithmetic to get wrong.
# A new event after undo drops the redo stack.
#
# Confirmation by an opponent (docs/rules.md CF): a change that closes a hand
# (or takes a confirmed one back) can be held: it waits outside the log, and
# counts nowhere, until accept() applies it or reject() drops it. Nothing else
# changes the game while one is held.
from tallycore import array

from tallycore import games

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from tallycore import const

LOG_CAPACITY = const(600)   # events in one game; a Moosehead game is the longest
STATE_CAPACITY = const(64)  # bytes; every rules module's STATE_SIZE fits
_CHECKPOINT = const(32)      # events between the states undo restarts from
_EVENT_LIMIT = const(0x40000000)  # 2**30
CONFIRM = const(0x8000)     # an options bit of any game: confirmation forced on (the rules never see it)
# what a held change does (the journal's KIND_APPLY, KIND_UNDO, KIND_REDO)
HELD_APPLY = const(1)
HELD_UNDO = const(2)
_HELD_REDO = const(3)
_PLAYERS_MAX = const(8)
SEAT_LETTERS = "ABCD"       # beside the seat buttons, seat 0 first, where a board definition names none

# The wire of a game (docs/protocol.md and docs/protocol.json are generated
# from these declarations, python -m tallyboard.tooling.protocol_doc). A rules module declares
#   VERBS        its own requests, beside the runtime's (tallyrun.protocol):
#                ((verb, ((arg, ARG_*, lo, hi, index), ...), what it does), ...)
#                index: b"player" (a player, fixed for the game), b"seat" (a
#                seat at the table, which players change), or b"" (not an index)
#   verb_event(verb, values)  the packed event a verb makes (verb: its index)
#   OPTION_FIELDS  the fields of NEW's options, as EVENT_FORMS' fields (bit
#                15, CONFIRM, is any game's and not the rules')
#   EVENT_FORMS  how its packed event reads: ((form, mask, value, fields,
#                what it is, closes), ...); closes 1: an event of this form
#                closes a hand (what ends_hand() says of it; a client reads
#                it in protocol.json); an event e is of the first form whose
#                e & mask == value; fields: its fields, the rules module's
#                one statement of its layout (tallycore.layout says what a
#                field is), which its packing, accessors and ENTRY read too
ARG_INT = const(0)    # decimal, lo..hi
ARG_GAME = const(1)   # a game name (tallycore.games)
ARG_WHO = const(2)    # a player lo..hi, or "-" for nobody: NOBODY
ARG_BID = const(3)    # a Skicket bid: level 1-7 then one of STRAINS
ARG_TEXT = const(4)   # lo..hi characters of letters, digits, _ - .
ARG_RGB = const(5)    # a colour RRGGBB in hex
ARG_WORD = const(6)   # one of the words in lo (a tuple)
ARG_HEX = const(7)    # 4 hex digits, 0..0xFFFF
NOBODY = const(4)     # ARG_WHO's "-": no player (Skicket's doubled_by and redoubled_by hold it as it is)
STRAINS = (b"C", b"S", b"H", b"D", b"NT", b"NK")   # Skicket's strains in bidding order: ARG_BID's, its fields'


class Game:
    def __init__(self, log_capacity=LOG_CAPACITY):
        # A bytes initializer gives raw item bytes ('i' is 4 bytes on CPython,
        # the unix port and the RP2040): 4 per event for log_capacity events.
        self.log = array("i", bytes(4 * log_capacity))
        self.state = bytearray(STATE_CAPACITY)
        self.rules = None  # type: Any
        self.index = -1     # the game's row in tallycore.games.GAMES
        self.variant = 0    # the row's per-variant value, for rules.reset
        self.players = 0
        self.options = 0
        self.n = 0      # events applied
        self.top = 0    # events applied + redo stack
        self.scratch = bytearray(STATE_CAPACITY)  # for per-hand replays
        # the state after every _CHECKPOINT-th event, so that an undo replays
        # fewer than _CHECKPOINT events whatever the game's length
        self.checkpoints = bytearray(STATE_CAPACITY * (log_capacity // _CHECKPOINT + 1))
        self.held = 0          # a change waiting for its confirmation: HELD_*, or 0
        self.held_event = 0    # the event it applies (HELD_APPLY, _HELD_REDO)
        self.held_by = 0       # bit p: player p may accept it
        self.held_scores = array("i", bytes(4 * _PLAYERS_MAX))  # what each player gets by it
        # who accepted each event, a nibble an event (log[i]'s is accepted[i >> 1]'s low nibble for an even
        # i, high for an odd one): 1 + the player whose accept made it (docs/rules.md CF2), 0: made unconfirmed.
        # Half a byte an event: the heap a game switch loads the next rules into is tight (issue 33).
        self.accepted = bytearray((log_capacity + 1) >> 1)

    def new(self, game, players, options=0):
        """Start a new game: game is its index in tallycore.games, its name,
        or the rules module of the one game it scores. Raises ValueError
        (naming the field) on bad input."""
        index, rules = self._checked(game, players, options)
        self.rules = rules
        self.index = index
        self.variant = games.GAMES[index][4]
        self.players = players
        self.options = options
        self.n = 0
        self.top = 0
        self.held = 0
        self._reset(self.state)

    def check_new(self, game, players, options=0):
        """Raise ValueError if new() would refuse; change nothing."""
        self._checked(game, players, options)

    def _checked(self, game, players, options):
        index = games.find(game)
        row = games.GAMES[index]
        name = row[0]
        least = row[1]
        most = row[2]
        if players < least or players > most:
            if least == most:
                raise ValueError("players: %s takes %d players" % (name, least))
            raise ValueError("players: %s takes %d to %d players" % (name, least, most))
        rules = games.load(index) if isinstance(game, (int, str)) else game
        rules.check_options(players, options & ~CONFIRM, name)
        return index, rules

    def name(self):
        """The game's name (docs/records.md, the wire), or None before a game."""
        return games.GAMES[self.index][0] if self.rules is not None else None

    def _reset(self, state):
        for i in range(STATE_CAPACITY):
            state[i] = 0
        self.rules.reset(state, self.players, self.options & ~CONFIRM, self.variant)

    def check(self, event):
        """Raise ValueError if event cannot be applied now; change nothing."""
        if self.rules is None:
            raise ValueError("game: no game in progress; start one first")
        if event < 0 or event >= _EVENT_LIMIT:
            raise ValueError("event: out of range")
        if self.held:
            raise ValueError(self.held_message())
        if self.n >= len(self.log):
            raise ValueError("game: the log is full (%d changes)" % len(self.log))
        self.rules.check(self.state, self.players, event)

    def apply(self, event):
        """Validate and apply one event. Allocation-free when the event is valid."""
        self.check(event)
        self.apply_checked(event)

    def apply_checked(self, event):
        """Apply an event check() has just passed (the board checks before it
        journals, and need not check twice)."""
        self.rules.apply(self.state, self.players, event)
        self.log[self.n] = event
        self.mark_accepted(self.n, 0)
        self.n += 1
        self.top = self.n
        self._checkpoint()

    def _checkpoint(self):
        # the log before n is what it was when n last reached this multiple, or
        # n would not be here again without passing through apply or redo
        n = self.n
        if n % _CHECKPOINT == 0:
            state = self.state
            points = self.checkpoints
            at = (n // _CHECKPOINT) * STATE_CAPACITY
            for i in range(STATE_CAPACITY):
                points[at + i] = state[i]

    def undo(self):
        if self.n == 0:
            raise ValueError("undo: nothing to undo")
        self.n -= 1
        self.state_before(self.n, self.state)

    def state_before(self, n, state):
        """Rebuild into state the state before event n of the log (0 <= n <=
        the events applied): the last checkpoint at or before n, then the
        events from there to n replayed. Undo's replay, and what
        tallycore.why explains an event from. Allocation-free."""
        base = n - n % _CHECKPOINT
        if base == 0:
            self._reset(state)
        else:
            points = self.checkpoints
            at = (base // _CHECKPOINT) * STATE_CAPACITY
            for i in range(STATE_CAPACITY):
                state[i] = points[at + i]
        rules = self.rules
        players = self.players
        log = self.log
        for i in range(base, n):
            rules.apply(state, players, log[i])

    def redo(self):
        if self.n == self.top:
            raise ValueError("redo: nothing to redo")
        self.rules.apply(self.state, self.players, self.log[self.n])
        self.n += 1
        self._checkpoint()

    def can_undo(self):
        return self.n > 0

    def can_redo(self):
        return self.top > self.n

    # --- confirmation by an opponent (docs/rules.md CF) ----------------------

    def forced(self):
        """Whether this game was started with confirmation forced on."""
        return self.options & CONFIRM != 0

    def closes_hand(self, kind):
        """Whether the change (HELD_*) closes a hand or takes a closed one
        back: the changes that wait for a confirmation."""
        if kind == HELD_UNDO:
            return self.n > 0 and self.rules.ends_hand(self.log[self.n - 1])
        if kind == _HELD_REDO:
            return self.top > self.n and self.rules.ends_hand(self.log[self.n])
        return False

    def hold(self, kind, event=0):
        """Hold a change for its confirmation: kind HELD_APPLY (event, which
        check() has passed), HELD_UNDO or _HELD_REDO. Works out who may accept
        it and what each player gets by it. Raises ValueError (nothing held)
        when the change could not be made now. Allocation-free."""
        if self.rules is None:
            raise ValueError("game: no game in progress; start one first")
        if self.held:
            raise ValueError(self.held_message())
        if kind == HELD_UNDO:
            if self.n == 0:
                raise ValueError("undo: nothing to undo")
            event = self.log[self.n - 1]
        elif kind == _HELD_REDO:
            if self.n == self.top:
                raise ValueError("redo: nothing to redo")
            event = self.log[self.n]
        elif kind == HELD_APPLY:
            self.check(event)
        else:
            raise ValueError("held: not a change")
        rules = self.rules
        players = self.players
        out = self.held_scores
        state = self.state
        scratch = self.scratch
        if kind == HELD_UNDO:
            # the hand taken back: each player loses what it gave
            self.hand_scores(self.hands() - 1, out)
            for p in range(players):
                out[p] = -out[p]
        else:
            # the hand so far, and the event that closes it
            self.hand_scores(self.hands(), out)
            for i in range(STATE_CAPACITY):
                scratch[i] = state[i]
            rules.apply(scratch, players, event)
            for p in range(players):
                out[p] += rules.total(scratch, players, p) - rules.total(state, players, p)
        confirmers = getattr(rules, "confirmers", None)
        if confirmers is not None:
            by = confirmers(state, players, event, self.hands() - 1 if kind == HELD_UNDO else self.hands())
        else:
            by = _others(out, players, getattr(rules, "LOW_WINS", False))
        self.held = kind
        self.held_event = event
        self.held_by = by
        return by

    def accept(self, who=-1):
        """Make the held change, accepted by player who (-1: not known, a
        journal from before accepted_by); returns its kind (HELD_*). The
        event it makes is marked with who (accepted_by). Allocation-free."""
        kind = self.held
        if not kind:
            raise ValueError("confirm: nothing waits for a confirmation")
        self.held = 0
        if kind == HELD_APPLY:
            self.apply_checked(self.held_event)
        elif kind == HELD_UNDO:
            self.undo()
            return kind
        else:
            self.redo()
        self.mark_accepted(self.n - 1, who + 1)
        return kind

    def accepted_by(self, i):
        """The player whose accept made log[i] (docs/rules.md CF2), or -1: it
        was made without a confirmation (or by a journal that did not say)."""
        return ((self.accepted[i >> 1] >> ((i & 1) << 2)) & 15) - 1

    def mark_accepted(self, i, mark):
        """Mark log[i] as made by the accept of player mark - 1 (0: unconfirmed). Allocation-free."""
        at = i >> 1
        shift = (i & 1) << 2
        self.accepted[at] = (self.accepted[at] & (0xF0 >> shift)) | (mark << shift)

    def reject(self, take_back=0):
        """Drop the held change, and with it the take_back events applied
        before it in its hand (docs/rules.md CF1: a rejected hand goes whole;
        open_hand() says how many): undone and off the redo stack, as they
        were never the table's. Returns the kind (HELD_*). Allocation-free."""
        kind = self.held
        if not kind:
            raise ValueError("confirm: nothing waits for a confirmation")
        if take_back > self.n:
            raise ValueError("confirm: the hand has fewer events than that")
        self.held = 0
        for _ in range(take_back):
            self.undo()
        if take_back:
            self.top = self.n
        return kind

    def open_hand(self):
        """How many applied events belong to the hand in progress and are taken
        back when the event that closes it is rejected (docs/rules.md CF1): the
        events since the last hand closed, or none in a game whose rules keep
        them (REJECT_KEEPS: Roquet's pegs, a misdeal that is no hand).
        Allocation-free."""
        if self.rules is None or getattr(self.rules, "REJECT_KEEPS", False):
            return 0
        ends_hand = self.rules.ends_hand
        log = self.log
        start = self.n
        while start > 0 and not ends_hand(log[start - 1]):
            start -= 1
        return self.n - start

    def held_hand(self):
        """The number (1-based) of the hand the held change closes or takes back."""
        return self.hands() if self.held == HELD_UNDO else self.hands() + 1

    def held_message(self, names=None):
        """What a refused change is told while a change is held (names: the
        players' names; None: P1, P2, ...)."""
        who = []
        for p in range(self.players):
            if self.held_by >> p & 1:
                who.append(names[p] if names is not None and p < len(names) else "P%d" % (p + 1))
        what = "the undo of hand %d" if self.held == HELD_UNDO else "hand %d"
        return ("%s is pending: it waits for %s to accept on the board (a long press rejects)"
                % (what % self.held_hand(), " or ".join(who)))

    # --- reading the game -------------------------------------------------

    def total(self, player):
        return self.rules.total(self.state, self.players, player)

    def winners(self):
        """Bit mask of the winning players (several on a tie; 0 before any score)."""
        return self.rules.winners(self.state, self.players)

    def complete(self):
        return self.rules.complete(self.state, self.players)

    def hands(self):
        """How many hands are scored (misdeals are not hands)."""
        return self.rules.hands(self.state)

    def hand_event_index(self, hand):
        """Index in the log of the event that closed the given hand (0-based)."""
        rules = self.rules
        seen = 0
        for i in range(self.n):
            if rules.ends_hand(self.log[i]):
                if seen == hand:
                    return i
                seen += 1
        return -1

    def hand_scores(self, hand, out):
        """Write each player's score in the given hand (0-based) into out.

        The score of a hand is the change of every total over the events of
        that hand, found by replaying the log into a scratch state: generic
        for every game and allocation-free. Returns True when the hand is
        finished, False for the hand in progress."""
        rules = self.rules
        players = self.players
        state = self.scratch
        self._reset(state)
        for p in range(players):
            out[p] = 0
        seen = 0
        for i in range(self.n):
            event = self.log[i]
            if seen == hand:
                for p in range(players):
                    out[p] -= rules.total(state, players, p)
            rules.apply(state, players, event)
            if seen == hand:
                for p in range(players):
                    out[p] += rules.total(state, players, p)
            if rules.ends_hand(event):
                if seen == hand:
                    return True
                seen += 1
        return False  # the hand in progress (scores so far), or no such hand (zeros)


def seat_of(rules, hand, player):
    """The seat of a player in a hand (0-based): the place at the table whose
    seat button he presses, seat 0 the keeper's. Where the rules move the
    players between hands (Skicket's pivot, docs/rules.md SK5) their
    player_seat says; in every other game a player keeps the seat of his
    index. The one mapping the board's buttons and the host's words use.
    Allocation-free."""
    player_seat = getattr(rules, "player_seat", None)
    return player if player_seat is None else player_seat(hand, player)


def player_at(rules, hand, seat):
    """The player in a seat in a hand (0-based): seat_of's inverse. Allocation-free."""
    seat_player = getattr(rules, "seat_player", None)
    return seat if seat_player is None else seat_player(hand, seat & 3)


def _others(scores, players, low_wins):
    """Who confirms a hand in a game that names no confirmers
    (docs/rules.md CF2): every player but the one(s) the hand did best by (the most points,
    or the fewest in a game the lowest total wins); everyone when all scored
    the same."""
    best = scores[0]
    for p in range(1, players):
        if (scores[p] < best) if low_wins else (scores[p] > best):
            best = scores[p]
    by = 0
    for p in range(players):
        if scores[p] != best:
            by |= 1 << p
    return by if by else (1 << players) - 1
