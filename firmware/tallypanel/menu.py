# What the board's own controls do: seat buttons, undo, and the push
# encoder that walks through entering a Skicket hand (or ending a Roquet hand).
#
# Pure logic: no hardware, no display. Input arrives as (kind, value) from
# tallypanel.inputs through BoardInput.handle; scoring goes out through the
# injected submit(event) (the app's local_event, which applies the event,
# journals it and pushes it to the host) and undo(). Both raise ValueError
# with the core's message when the board must refuse; the message is kept in
# BoardInput.note (or HandEntry.error) for the OLED.
#
# Skicket hand entry (the facts of a hand, docs/rules.md SK6):
#   purchaser (or MISDEAL) -> bid level -> strain -> doubled by -> redoubled by
#   (only when doubled) -> lone hand -> tricks -> confirm (SAVE / CANCEL).
# Turn = change the value, push = next step, hold (long push) = back one
# step; hold on the first step (or CANCEL at confirm) leaves without
# scoring. The hand is packed by skicket.pack_hand and checked by
# Game.check: a refused hand goes back to the step its field names, with the
# core's message shown.
from tallycore import skicket, roquet

try:
    from micropython import const
except ImportError:  # CPython
    def const(x):  # type: ignore[misc]
        return x

# Input kinds (tallypanel.inputs emits them).
SEAT = const(0)       # value: seat index; a short press
SEAT_LONG = const(1)  # value: seat index; a long press or shift + press
UNDO = const(2)
TURN = const(3)       # value: +1 / -1 per encoder detent
PUSH = const(4)
HOLD = const(5)       # the encoder's push held long

# Steps of the Skicket hand entry.
PURCHASER = const(0)
LEVEL = const(1)
STRAIN = const(2)
DOUBLED = const(3)
REDOUBLED = const(4)
LONE = const(5)
TRICKS = const(6)
CONFIRM = const(7)
END_HAND = const(8)   # the Roquet end-of-hand confirmation
STEPS = const(9)

STEP_NAMES = (b"PURCHASER", b"BID LEVEL", b"STRAIN", b"DOUBLED BY", b"REDOUBLED BY",
              b"LONE HAND", b"TRICKS WON BY BIDDERS", b"SAVE THE HAND?", b"END THE HAND?")
# Lowest and highest value of each step.
_LOW = b"\x00\x01\x00\x00\x00\x00\x00\x00\x00"
_HIGH = b"\x04\x07\x05\x04\x04\x01\x0d\x01\x01"
# The step a core error message points to, by its field name.
_FIELDS = (("purchaser", PURCHASER), ("bid", LEVEL), ("doubled_by", DOUBLED),
           ("redoubled_by", REDOUBLED), ("lone", LONE), ("tricks", TRICKS))

MISDEAL_CHOICE = const(4)  # the purchaser step's last value
NOBODY = const(4)          # doubled/redoubled by nobody
SAVE = const(0)
CANCEL = const(1)
SEAT_POINTS = const(1)     # docs/display.md "Input on the board": a seat press pegs +1
LONG_POINTS = const(5)     # a long press, or shift + press, +5


class HandEntry:
    """The encoder-driven entry of one Skicket hand (or a Roquet hand end)."""

    def __init__(self, submit):
        self.submit = submit
        self.active = False
        self.step = PURCHASER
        self.values = bytearray(STEPS)
        self.hand = 0
        self.error = None  # the core's message for the last refused entry

    def open(self, game, purchaser=0):
        self.hand = game.hands()
        self.error = None
        self.active = True
        if game.rules is roquet:
            self.step = END_HAND
            self.values[END_HAND] = SAVE
            return
        v = self.values
        v[PURCHASER] = purchaser
        v[LEVEL] = 1
        v[STRAIN] = skicket.CLUBS
        v[DOUBLED] = NOBODY
        v[REDOUBLED] = NOBODY
        v[LONE] = 0
        v[TRICKS] = 7  # a bid of 1 needs 6 + 1 tricks
        v[CONFIRM] = SAVE
        self.step = PURCHASER

    def close(self):
        self.active = False
        self.error = None

    def value(self):
        return self.values[self.step]

    def turn(self, delta):
        step = self.step
        low = _LOW[step]
        span = _HIGH[step] - low + 1
        self.values[step] = (self.values[step] - low + delta) % span + low
        if step == LEVEL:
            # Suggest the tricks the bid needs (docs/rules.md SK2: a bid of L needs 6+L).
            self.values[TRICKS] = 6 + self.values[LEVEL]
        self.error = None

    def push(self, game):
        step = self.step
        v = self.values
        self.error = None
        if step == END_HAND:
            if v[END_HAND] == CANCEL:
                self.close()
                return False
            return self._submit(roquet.HAND_END)
        if step == PURCHASER and v[PURCHASER] == MISDEAL_CHOICE:
            self.step = CONFIRM
        elif step == DOUBLED and v[DOUBLED] == NOBODY:
            v[REDOUBLED] = NOBODY
            self.step = LONE
        elif step < CONFIRM:
            self.step = step + 1
        elif v[CONFIRM] == CANCEL:
            self.close()
            return False
        else:
            return self._submit(self.event(game))
        return False

    def back(self):
        step = self.step
        self.error = None
        if step == PURCHASER or step == END_HAND:
            self.close()
        elif step == CONFIRM and self.values[PURCHASER] == MISDEAL_CHOICE:
            self.step = PURCHASER
        elif step == LONE and self.values[DOUBLED] == NOBODY:
            self.step = DOUBLED
        else:
            self.step = step - 1

    def event(self, game):
        """The packed hand; ValueError from the core if a field is out of range."""
        v = self.values
        if v[PURCHASER] == MISDEAL_CHOICE:
            return skicket.MISDEAL
        return skicket.pack_hand(v[PURCHASER], v[LEVEL], v[STRAIN],
                                 None if v[DOUBLED] == NOBODY else v[DOUBLED],
                                 None if v[REDOUBLED] == NOBODY else v[REDOUBLED],
                                 v[LONE] == 1, v[TRICKS])

    def _submit(self, event):
        try:
            self.submit(event)
        except ValueError as exc:
            message = str(exc)
            self.error = message
            for field, step in _FIELDS:
                if message.startswith(field + ":") and self.step != END_HAND:
                    self.step = step
                    break
            return False
        self.close()
        return True


class BoardInput:
    """Routes the board's controls: seats peg (Roquet) or open the hand entry
    with that seat's player as purchaser (Skicket); undo; the encoder."""

    def __init__(self, get_game, submit, undo):
        self.get_game = get_game  # () -> the Game in progress
        self.submit = submit
        self.undo = undo
        self.entry = HandEntry(submit)
        self.note = None   # a message for the OLED (refused input), or None
        self.changes = 0   # counts handled inputs, so the view knows to redraw

    def handle(self, kind, value=0):
        self.changes += 1
        self.note = None
        game = self.get_game()
        entry = self.entry
        try:
            if game is None or game.rules is None:
                raise ValueError("game: no game in progress; start one from the host")
            if entry.active:
                if kind == TURN:
                    entry.turn(value)
                elif kind == PUSH:
                    entry.push(game)
                elif kind == HOLD or kind == UNDO:
                    entry.back()
                return
            if kind == UNDO:
                self.undo()
            elif kind == SEAT or kind == SEAT_LONG:
                self._seat(game, value, kind == SEAT_LONG)
            elif kind == PUSH:
                if game.complete():
                    raise ValueError("game: the game is over")
                entry.open(game)
        except ValueError as exc:
            self.note = str(exc)

    def _seat(self, game, seat, long):
        if game.rules is roquet:
            if seat > 1:
                raise ValueError("seat: Roquet is a game for two; use seats 1 and 2")
            self.submit(roquet.pack_peg(seat, LONG_POINTS if long else SEAT_POINTS))
        elif game.rules is skicket:
            if game.complete():
                raise ValueError("game: the six hands of the game are all in")
            # The pressing seat's player (pivoting moves players between
            # seats: docs/rules.md SK5) bought the bid.
            self.entry.open(game, skicket.seat_player(game.hands(), seat & 3))
        else:
            raise ValueError("game: enter %s hands from the host" % game.rules.NAME)
