# What the board's own controls do: seat buttons, undo, and the push
# encoder that walks through entering a hand.
#
# Pure logic: no hardware, no display. Input arrives as (kind, value) from
# tallypanel.inputs through BoardInput.handle; scoring goes out through the
# app that BoardInput is made with (tallypanel.powerup): its local_event
# (which applies the event, journals it and pushes it to the host) and
# local_undo. Both raise ValueError with the core's message when the board
# must refuse; the message is kept in BoardInput.note (or HandEntry.error)
# for the OLED, and goes to the host through the app's say (a NOTE event). A
# refusal's words leave the OLED by themselves after screen.NOTE_MS (fade(),
# which tallypanel.inputs.fade_notes calls).
#
# What a seat button does and which steps the knob walks through are the
# game's own (tallypanel.gameview): Skicket's seats open the entry of a
# hand (tallypanel.skicketview), Roquet's seats peg and the knob ends the
# hand (tallypanel.roquetview). Every other game's hand is walked from its
# rules' description (tallypanel.entry): the knob opens it, a seat opens it
# with that player chosen, and in it a seat chooses a player.
from tallypanel import gameview
from tallypanel.screen import SAVE, CANCEL, NOTE_MS  # noqa: F401  (SAVE, CANCEL: the values of a confirm step)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from tallycore import const, ticks_diff
from tallycore.game import SEAT_LETTERS

# Input kinds (tallypanel.inputs emits them).
SEAT = const(0)       # value: seat index; a short press
SEAT_LONG = const(1)  # value: seat index; a long press or shift + press
UNDO = const(2)
TURN = const(3)       # value: +1 / -1 per encoder detent
PUSH = const(4)
HOLD = const(5)       # the encoder's push held long

STEPS = const(8)      # room for the values of the longest entry


class HandEntry:
    """The encoder-driven entry of one hand, through the steps of the game's
    view (its STEP_NAMES, LOW and HIGH, the values it offers, FIELDS, and
    what push and back do).
    submit(event): the hand's event scored (the app's local_event); views: the
    game in play's view (tallypanel.gameview.Views: the board's, shared with
    its display), or None for one of the entry's own."""

    def __init__(self, submit, views=None):
        self.submit = submit
        self.views = gameview.Views() if views is None else views
        self.walker = None  # type: Any  # tallypanel.entry, once a game without a view has opened it
        self.active = False
        self.view = None   # type: Any  # the game's view module, while the entry is open
        self.rules = None  # type: Any  # the game's rules module, while the entry is open
        self.step = 0
        self.values = bytearray(STEPS)
        self.hand = 0
        self.error = None  # the core's message for the last refused entry

    def open(self, game, purchaser=0):
        view = self.views.of(game)
        if view is None:
            view = self.described(game)
        self.view = view
        self.rules = game.rules
        self.hand = game.hands()
        self.error = None
        self.active = True
        view.open_entry(self, game, purchaser)

    def close(self):
        self.active = False
        self.error = None
        self.view = None   # let a game's view go with its game
        self.rules = None

    def open_on(self, game):
        """Whether the entry is open on this game (the host may have started
        another one under it)."""
        return self.active and game.rules is self.rules

    def value(self):
        return self.values[self.step]

    def turn(self, delta):
        step = self.step
        view = self.view
        if view.LOW is None:
            view.turn(self, delta)   # the described entry turns its own values
            return
        low = view.LOW[step]
        span = view.HIGH[step] - low + 1
        value = self.values[step]
        toward = 1 if delta > 0 else -1
        while delta:    # each detent moves to the next value the step offers (a view offers at least one)
            value = (value - low + toward) % span + low
            if view.offers(self, value):
                delta -= toward
        self.values[step] = value
        view.turned(self)
        self.error = None

    def push(self, game):
        """The next step, or at the last one the hand saved; True when a hand
        was scored."""
        self.error = None
        return self.view.push(self, game)

    def back(self):
        self.error = None
        self.view.back(self)

    def save(self, event):
        """Submit the entered hand and close; a refused hand stays open at the
        step its field names, with the core's message. True when scored."""
        try:
            self.submit(event)
        except ValueError as exc:
            message = str(exc)
            self.error = message
            for field, step in self.view.FIELDS:
                if message.startswith(field + ":"):
                    self.step = step
                    break
            return False
        self.close()
        return True


    def described(self, game):
        """tallypanel.entry, the entry every game without a view of its own
        walks from its description (its rules' ENTRY)."""
        walker = self.walker
        if walker is None:
            # loaded once and kept, through the games' loader: after a collection
            # when a game's code was let go since, and tried again on MemoryError
            # (tallycore.games.load_module)
            walker = self.walker = gameview.load_module("tallypanel", "entry")
        if walker.description(game) is None:
            raise ValueError("game: enter %s hands from the host" % game.name())
        return walker


class NewGame:
    """The board's own new game: the encoder held outside a hand entry asks,
    on the OLED, whether to start the game in play again for the same players
    and options; a push says yes, a hold or undo no. When that would drop a
    game with something scored, not over, that the host's archive does not
    hold as it stands (KEPT), a second screen says so and asks for a second
    push (the warning)."""

    def __init__(self):
        self.active = False
        self.warning = False


class WhyScreen:
    """The why screen: the knob turned outside a hand entry shows on the OLED
    why the last hand scored what it did (tallycore.why, in the rules'
    words: tallypanel.whyview composes and draws it); turning goes back
    (left) and on (right) through the hands; a push shows the next page of
    a reason longer than the screen, and on its last page leaves; a hold,
    undo or a seat leaves it. hand: the hand shown (1-based, as the sheet
    numbers it); page: its page shown, of pages (whyview counts them)."""

    def __init__(self):
        self.active = False
        self.hand = 0
        self.page = 0
        self.pages = 1
        self.shown = 0    # the hand whose words whyview last composed (0: none)
        self.n = 0        # and the events applied then: a change under the screen composes again


def hands_so_far(game):
    """The hands of the log's events applied, the hand in progress counted
    (as the sheet and tallyboard why number them). Allocation-free."""
    rules = game.rules
    log = game.log
    count = 0
    open_hand = False
    for i in range(game.n):
        if rules.ends_hand(log[i]):
            count += 1
            open_hand = False
        else:
            open_hand = True
    return count + 1 if open_hand else count


class BoardInput:
    """Routes the board's controls: seats and the knob as the game in play
    has them (tallypanel.gameview); undo; the encoder.

    app: the app (tallyrun.app.App), or a stand-in with what of it the
    controls use: game (the Game in play); local_event(event), local_undo();
    local_accept(player) and local_reject() (the held change accepted by an
    opponent, or rejected); local_new() (the game in play started again: the
    board's own new game) and kept() (whether the host's archive holds it as
    it stands); say(text) (words for the host, a NOTE event: why a press was
    refused). A stand-in's local_new, kept or say may be None: the board then
    starts no game of its own, takes no game as kept, tells the host nothing.
    letters: beside the seat buttons, seat 0 first (the board definition).
    views: the game in play's view (tallypanel.gameview.Views: the board's,
    shared with its display), or None for one of the controls' own."""

    def __init__(self, app, letters=SEAT_LETTERS.encode(), views=None):
        self.app = app
        self.letters = letters
        self.views = gameview.Views() if views is None else views
        self.question = NewGame()
        self.why = WhyScreen()
        self.entry = HandEntry(app.local_event, self.views)
        self.note = None   # a message for the OLED (refused input), or None
        self.refused = 0   # why the last press could not answer a held change (confirm.NOT_AN_OPPONENT, ...)
        self.refused_seat = 0
        self.noted = 0     # counts refusals, so that fade() times each from its own start
        self._fade_seen = 0
        self._fade_since = 0
        self.fading = None  # type: Any  # an asyncio.Event set when words come to fade (wake_on_note)
        self.changes = 0   # counts handled inputs, so the view knows to redraw
        self._confirm = None   # type: Any  # tallypanel.confirm, once a hand has waited for its accept

    def handle(self, kind, value=0):
        self.changes += 1
        self.note = None
        self.refused = 0
        app = self.app
        game = app.game
        entry = self.entry
        try:
            if game is None or game.rules is None:
                raise ValueError("game: no game in progress; start one from the host")
            if entry.active and not entry.open_on(game):
                entry.close()   # its game was replaced from the host
            if game.held:       # a hand waits for its confirmation
                confirm = self._confirm
                if confirm is None:   # loaded when a hand first waits (docs/rules.md CF), and kept:
                    from tallypanel import confirm   # an import allocates even when loaded already
                    self._confirm = confirm
                if kind != SEAT and kind != SEAT_LONG:
                    confirm.refuse(self, game, confirm.WAITING)
                    return
                confirm.answer(self, game, value, kind == SEAT_LONG)
                return
            why = self.why
            if why.active:
                if kind == TURN:
                    hand = why.hand + value
                    last = hands_so_far(game)
                    why.hand = 1 if hand < 1 else last if hand > last else hand
                    why.page = 0
                elif kind == PUSH and why.page + 1 < why.pages:
                    why.page += 1
                else:
                    why.active = False   # any other control leaves the why screen, and does only that
                return
            question = self.question
            if question.active:
                if kind == PUSH:
                    self._answer(game)
                elif kind == HOLD or kind == UNDO:
                    question.active = False
                return
            if entry.active:
                if kind == SEAT or kind == SEAT_LONG:
                    if entry.view.LOW is None:
                        entry.view.choose_seat(entry, game, value)
                    return
                if kind == TURN:
                    entry.turn(value)
                elif kind == PUSH:
                    entry.push(game)
                    if entry.error is not None:
                        self.tell(entry.error)   # the hand refused: the entry shows why
                elif kind == HOLD or kind == UNDO:
                    entry.back()
                return
            if kind == UNDO:
                app.local_undo()
            elif kind == SEAT or kind == SEAT_LONG:
                view = self.views.of(game)
                if view is not None:
                    view.seat(self, game, value, kind == SEAT_LONG)
                    return
                if game.complete():
                    raise ValueError("game: the game is over")
                # a seat opens the entry, with that player chosen first
                view = entry.described(game)
                entry.open(game)
                if view.player_step(game):
                    view.choose_seat(entry, game, value)
            elif kind == PUSH:
                if game.complete():
                    raise ValueError("game: the game is over")
                entry.open(game)
            elif kind == HOLD and app.local_new is not None:
                question.active = True
                question.warning = False
            elif kind == TURN:
                if game.n == 0:
                    raise ValueError("why: nothing is scored yet")
                why.active = True
                why.hand = hands_so_far(game)
                why.page = 0
        except ValueError as exc:
            self.note = str(exc)
            self._noted()
            self.tell(self.note)

    def refuse(self, why, seat=0):
        """A press that could not answer the held change: why
        (confirm.NOT_AN_OPPONENT, NO_PLAYER, WAITING) shows for a moment."""
        self.refused = why
        self.refused_seat = seat
        self._noted()

    def wake_on_note(self, event):
        """tallypanel.inputs.fade_notes's registration: event (an asyncio.Event) is set
        whenever words come to the OLED for fade() to take away."""
        self.fading = event

    def _noted(self):
        # words on the OLED: fade() times them from here, and fade_notes wakes to watch them
        self.noted += 1
        fading = self.fading
        if fading is not None:
            fading.set()

    def tell(self, text):
        """Words for the host (a NOTE event), if the board has one to tell."""
        say = self.app.say
        if say is not None:
            say(text)

    def fade(self, now):
        """The words of a refused press leave the OLED NOTE_MS after
        they came (now: ticks_ms()); True when they did, and the OLED is to be
        drawn again. Allocation-free: the poll of tallypanel.inputs.fade_notes."""
        if self.noted != self._fade_seen:
            self._fade_seen = self.noted
            self._fade_since = now
            return False
        if (self.note is not None or self.refused) and ticks_diff(now, self._fade_since) >= NOTE_MS:
            self.note = None
            self.refused = 0
            self.changes += 1
            return True
        return False

    def unarchived(self, game):
        """Whether starting again would drop a game with something scored,
        finished or not, that the host's archive does not hold as it stands."""
        kept = self.app.kept
        return game.n > 0 and not (kept is not None and kept())

    def _answer(self, game):
        question = self.question
        if not question.warning and self.unarchived(game):
            question.warning = True   # checked now: the host may have changed the game meanwhile
            return
        question.active = False
        self.app.local_new()
