# The hand entry of every game without a view of its own, walked from the
# game's one description (its rules module's ENTRY, in the words of
# tallycore.steps): the knob and the seat buttons choose each value, the
# values become the packed events the host would send for the record hand,
# and each event is checked by the core on a copy of the game as soon as it
# is complete, so a refused value shows the rule's message at once and is
# corrected where it was entered. SAVE sends the hand's events, in order,
# through the board's one change path (menu.HandEntry.submit).
#
# It plays the part of a game's view for menu.HandEntry (open_entry, turn,
# push, back, seat, draw_entry). Every value chosen is kept in order (the
# history); going back drops the last one and walks the history again from
# the game's state, so the events and the copy are always those of the
# values shown. Nothing is allocated per press or turn.
#
# Some 560 lines, past the ~500 the rest keep: stepping through a description, finding a
# rejected hand's values again and drawing the entry all read and move the one walk state,
# allocation-free; apart, each would reach into the others' internals.
from tallycore import array

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

from tallycore import steps
from tallycore.game import STATE_CAPACITY
from tallypanel.screen import put, numl

from tallycore import const

_HISTORY = const(200)   # values chosen in one hand: Moosehead's 40 plays and gos
_EVENTS = const(120)    # events of one hand
_MAX_PLAYERS = const(8)
_TRIES = const(4000)    # values tried when finding a rejected host hand's values
CONFIRM = const(255)    # the step after the last: SAVE or CANCEL

LOW = None              # menu.HandEntry: this view turns its own values
HIGH = None
FIELDS = ()


class Walk:
    def __init__(self):
        self.steps = ()  # type: Any  # the description being walked
        self.players = 0
        self.rules = None  # type: Any
        self.game = None  # type: Any
        self.step = 0           # index in steps, or CONFIRM
        self.player = 0         # an EACH step's player
        self.value = 0          # the value shown: its index among the step's values
        self.count = 0          # values of the current kind: players, words or the range
        self.values = bytearray(32)            # the value chosen last at each step (its index)
        self.at_step = bytearray(_HISTORY)     # the history: step, player, value
        self.at_player = bytearray(_HISTORY)
        self.at_value = bytearray(_HISTORY)
        self.taken = 0
        self.event = 0          # the event being composed
        self.events = array("i", bytes(4 * _EVENTS))
        self.kept = 0
        self.state = bytearray(STATE_CAPACITY)  # the game with the kept events applied
        self.changes = array("i", bytes(4 * _MAX_PLAYERS))  # each total's change
        self.saved_steps = None  # type: Any  # the description of the hand saved last
        self.saved_taken = 0     # and how many values it took (the history keeps them)
        self.target = array("i", bytes(4 * _EVENTS))  # a rejected hand's events


walk = Walk()


def description(game):
    """The game's entry description, or None when it has none."""
    rules = game.rules
    if hasattr(rules, "entry"):
        return rules.entry(game.variant)
    return getattr(rules, "ENTRY", None)


# --- menu.HandEntry's view interface -----------------------------------------

def open_entry(entry, game, purchaser):
    w = walk
    w.steps = description(game)
    w.game = game
    w.rules = game.rules
    w.players = game.players
    for s in range(len(w.steps)):
        w.values[s] = 0
    w.taken = 0
    _replay(w, 0)
    entry.step = w.step


def turn(entry, delta):
    w = walk
    if w.step == CONFIRM:
        w.value ^= 1 if delta & 1 else 0
    else:
        w.value = (w.value + delta) % w.count
    entry.error = None


def turned(entry):
    pass


def push(entry, game):
    w = walk
    if w.step == CONFIRM:
        if w.value:
            entry.close()
            return False
        return _save(entry, w)
    taken = w.taken
    if taken >= _HISTORY:
        entry.error = "hand: too many values for one hand"
        return False
    w.at_step[taken] = w.step
    w.at_player[taken] = w.player
    w.at_value[taken] = w.value
    w.taken = taken + 1
    try:
        _take(w, w.value)
        _settle(w)
    except ValueError as exc:
        _refused(entry, w, str(exc))
        return False
    entry.step = w.step
    return False


def back(entry):
    w = walk
    if w.taken == 0:
        entry.close()
        return
    w.taken -= 1
    value = w.at_value[w.taken]
    _replay(w, w.taken)
    w.value = value
    entry.step = w.step


def choose_seat(entry, game, seat):
    """A seat button in the entry: on a player's step, that player, chosen."""
    w = walk
    if w.step == CONFIRM or w.steps[w.step][steps.KIND] != steps.PLAYER:
        entry.error = "seat: this step is not a player; turn the knob to choose, push to go on"
        return
    if seat >= w.players:
        entry.error = "seat: no player sits there; turn the knob to choose"
        return
    w.value = seat
    push(entry, game)


def player_step(game):
    """Whether the entry of this game starts with a player (a seat opens it
    with that player chosen)."""
    described = description(game)
    return described is not None and described[0][steps.KIND] == steps.PLAYER


# --- walking the description ------------------------------------------------

def _count(w, step):
    """How many values the step offers: its own, then its specials."""
    kind = step[steps.KIND]
    if kind == steps.PLAYER:
        n = w.players + (1 if step[steps.FLAGS] & steps.OFFERS_NOBODY else 0)
    elif kind == steps.NUMBER:
        n = step[steps.HIGH] - step[steps.LOW] + 1
    else:
        n = len(step[steps.WORDS])
    specials = step[steps.SPECIALS]
    return n + (len(specials) if specials is not None else 0)


def _own(w, step):
    """How many of the step's values are its own (the rest are specials)."""
    specials = step[steps.SPECIALS]
    return _count(w, step) - (len(specials) if specials is not None else 0)


def _replay(w, upto):
    """Walk the history [0, upto) again from the game's state."""
    state = w.state
    source = w.game.state
    for i in range(len(state)):
        state[i] = source[i]
    w.kept = 0
    w.event = 0
    w.step = 0
    w.player = 0
    _arrive(w)
    _settle(w)
    for i in range(upto):
        w.step = w.at_step[i]
        w.player = w.at_player[i]
        _take(w, w.at_value[i])
        _settle(w)
    w.taken = upto


def _take(w, value):
    """The value chosen at the current step: into the event, then on."""
    step = w.steps[w.step]
    flags = step[steps.FLAGS]
    own = _own(w, step)
    if value < own:
        w.values[w.step] = value     # a special is never a step's value
    else:
        word, event, goto = step[steps.SPECIALS][value - own]
        if event != steps.DONE:
            _keep(w, event)
        w.event = 0
        if flags & steps.EACH and w.player + 1 < w.players:
            w.player += 1
            _arrive(w)
            return
        _go(w, goto)
        return
    if step[steps.KIND] == steps.PLAYER:
        code = step[steps.HIGH] if value == w.players else value   # NOBODY's code
    else:
        code = value + step[steps.LOW]
    w.event |= _bits(w, step, code)
    if flags & steps.EMIT:
        _keep(w, w.event)
        w.event = 0
    if flags & steps.EACH:
        if flags & steps.LIST:
            _arrive(w)               # the same player's next value
            return
        if w.player + 1 < w.players:
            w.player += 1
            _arrive(w)
            return
    _go(w, step[steps.THEN])


def _bits(w, step, code):
    shift = step[steps.SHIFT]
    bits = step[steps.BASE]
    if shift >= 0:
        if step[steps.FLAGS] & steps.EACH:
            stride = step[steps.STRIDE]
            if stride:
                shift += stride * w.player
            else:
                bits |= w.player
        bits |= code << shift
    return bits


def _go(w, target):
    w.step = w.step + 1 if target == steps.FOLLOWING else target
    w.player = 0
    _arrive(w)


def _arrive(w):
    """The value a step shows first: the one chosen there last (a new
    player's own first value on an EACH step, the next player where the
    step says so)."""
    if w.step >= len(w.steps):
        w.step = CONFIRM
        w.value = 0
        return
    step = w.steps[w.step]
    kind = step[steps.KIND]
    if kind > steps.CHOOSE:
        return
    w.count = _count(w, step)
    value = w.values[w.step]
    if step[steps.FLAGS] & steps.EACH and not step[steps.FLAGS] & steps.LIST:
        value = 0
    elif step[steps.FLAGS] & steps.NEXT and w.kept:
        value = (value + 1) % w.players if value < w.players else 0
    if value >= w.count:
        value = 0
    w.value = value


def _settle(w):
    """Pass over the steps that are not shown: left out by their skip, or
    worked out (CONST, PLAYERS, REST)."""
    while w.step != CONFIRM:
        step = w.steps[w.step]
        skip = step[steps.SKIP]
        if skip is not None and w.values[skip[0]] == skip[1]:
            _go(w, step[steps.THEN])
            continue
        kind = step[steps.KIND]
        if kind <= steps.CHOOSE:
            return
        if kind == steps.PLAYERS:
            code = w.players - 1
        elif kind == steps.REST:
            done = step[steps.LOW]
            code = step[steps.HIGH] - w.values[done] - w.steps[done][steps.LOW]
        else:
            code = 0
        w.values[w.step] = code
        w.event |= _bits(w, step, code)
        if step[steps.FLAGS] & steps.EMIT:
            _keep(w, w.event)
            w.event = 0
        _go(w, step[steps.THEN])


def _keep(w, event):
    """An event of the hand, checked by the core on the copy, then kept."""
    if w.kept >= _EVENTS:
        raise ValueError("hand: too many changes for one hand")
    rules = w.rules
    rules.check(w.state, w.players, event)
    rules.apply(w.state, w.players, event)
    w.events[w.kept] = event
    w.kept += 1


def _refused(entry, w, message):
    """Back to the value the core's message names (its field), else to the
    value just chosen, with the message shown."""
    end = w.taken - 1
    name_end = message.find(":")
    found = -1
    if name_end > 0:
        for i in range(end, -1, -1):
            if _named(w.steps[w.at_step[i]][steps.NAME], message, name_end):
                found = i
                break
    back_to = found if found >= 0 else end
    value = w.at_value[back_to]
    _replay(w, back_to)
    w.value = value
    entry.step = w.step
    entry.error = message


def _named(name, message, length):
    """Whether the step's name (up to a space) is the message's field."""
    n = name.find(b" ")
    if n < 0:
        n = len(name)
    if n != length:
        return False
    for i in range(n):
        if name[i] != ord(message[i]):
            return False
    return True


def _save(entry, w):
    """Send the hand's events in order; a refused one (the host changed the
    game meanwhile) stops there, with the core's message."""
    for i in range(w.kept):
        try:
            entry.submit(w.events[i])
        except ValueError as exc:
            entry.error = str(exc)
            return False
    w.saved_steps = w.steps     # its values, should an opponent reject it
    w.saved_taken = w.taken
    entry.close()
    return True


# --- a hand rejected by an opponent (tallypanel.confirm) ----------------------

def reopen_entry(entry, game, event, taken):
    """The entry of a hand rejected by an opponent, open (open_entry) on the
    game without it: game.log[n:n + taken] are the hand's events taken back,
    event the one that closed it. Reopens at SAVE THE HAND? with the values
    that make those very events, to go back to the one to correct: the values
    chosen when it was saved here, else (a hand from the host) found by
    walking the description. A hand the description cannot make (a card's
    suit, events in another order) reopens empty, saying so."""
    w = walk
    count = taken + 1
    if count <= _EVENTS:
        target = w.target
        log = game.log
        for i in range(taken):
            target[i] = log[game.n + i]
        target[taken] = event
        if ((w.saved_steps is w.steps and _again(w, w.saved_taken, target, count))
                or _search(w, target, count)):
            w.value = 0
            entry.step = w.step
            return
    _replay(w, 0)
    entry.step = w.step
    entry.error = "hand: the board's entry cannot show it; enter it again"


def _again(w, upto, target, count):
    """Whether the saved history [0, upto) still makes target's events."""
    try:
        _replay(w, upto)
    except ValueError:
        return False
    return w.step == CONFIRM and w.kept == count and _fits(w, target, count)


def _search(w, target, count):
    """The values that make target's count events, depth first: each value
    of a step tried in order, one whose bits the events do not hold passed
    over without walking it."""
    _replay(w, 0)
    value = 0
    for _ in range(_TRIES):
        if w.step == CONFIRM:
            if w.kept == count and w.event == 0:
                return True
        elif value < w.count and w.taken < _HISTORY:
            if _could(w, value, target, count):
                taken = w.taken
                w.at_step[taken] = w.step
                w.at_player[taken] = w.player
                w.at_value[taken] = value
                w.taken = taken + 1
                try:
                    _take(w, value)
                    _settle(w)
                    if _fits(w, target, count):
                        value = 0
                        continue
                except ValueError:
                    pass
                _replay(w, taken)
            value += 1
            continue
        if w.taken == 0:
            return False
        back = w.taken - 1      # this way leads nowhere: the previous value's next
        value = w.at_value[back] + 1
        _replay(w, back)
    return False


def _could(w, value, target, count):
    """Whether the value at the current step can lead to target's events:
    the bits it adds are in the next one, and an event it completes is it."""
    step = w.steps[w.step]
    own = _own(w, step)
    kept = w.kept
    if value >= own:
        event = step[steps.SPECIALS][value - own][1]
        return event == steps.DONE or (kept < count and event == target[kept])
    if step[steps.KIND] == steps.PLAYER:
        code = step[steps.HIGH] if value == w.players else value
    else:
        code = value + step[steps.LOW]
    event = w.event | _bits(w, step, code)
    if kept >= count:
        return event == 0
    if step[steps.FLAGS] & steps.EMIT:
        return event == target[kept]
    return event & ~target[kept] == 0


def _fits(w, target, count):
    """Whether the events kept so far, and the one being composed, agree
    with target's."""
    kept = w.kept
    if kept > count:
        return False
    events = w.events
    for i in range(kept):
        if events[i] != target[i]:
            return False
    if kept == count:
        return w.event == 0
    return w.event & ~target[kept] == 0


def changes(w):
    """Each player's change of total over the events kept so far."""
    rules = w.rules
    out = w.changes
    for p in range(w.players):
        out[p] = rules.total(w.state, w.players, p) - rules.total(w.game.state, w.players, p)
    return out


# --- the screen -------------------------------------------------------------

def draw_entry(sheet, entry, game, at):
    """Row 1 the step (its record field, the player it is for), row 2 (big)
    the value, rows 3-6 each total's change so far (rows 4-6 keep the core's
    message when there is one)."""
    w = walk
    lines = sheet.lines
    line = lines[1]
    if w.step == CONFIRM:
        put(line, 0, b"SAVE THE HAND?")
        put(lines[2], 4, b"CANCEL" if w.value else b"YES")
    else:
        step = w.steps[w.step]
        at = _put_name(line, 0, step[steps.NAME])
        flags = step[steps.FLAGS]
        if flags & steps.EACH:
            at = put(line, at + 1, b"OF")
            _put_player(sheet, line, at + 1, w.player)
        _put_value(sheet, lines[2], w, step)
    rows = 4 if sheet.message_len else 7
    if w.kept == 0:
        return
    out = changes(w)
    col = 0
    row = 3
    for p in range(w.players):
        if row >= rows:
            break
        line = lines[row]
        start = col
        col = _put_player(sheet, line, col, p)
        value = out[p]
        if value >= 0:
            line[col] = 43  # '+'
            col = numl(line, col + 1, value)
        else:
            col = numl(line, col, value)
        col = start + 8
        if col >= 32:
            col = 0
            row += 1


def _put_name(line, at, name):
    """The record field in capitals, '_' as a space."""
    for c in name:
        if at >= 32:
            break
        line[at] = 32 if c == 95 else (c - 32 if 97 <= c <= 122 else c)
        at += 1
    return at


def _put_player(sheet, line, at, player):
    if player < 4:
        return put(line, at, sheet.names[player])
    line[at] = 80  # 'P'
    line[at + 1] = 49 + player
    return at + 2


def _put_value(sheet, line, w, step):
    value = w.value
    own = _own(w, step)
    if value >= own:
        put(line, 4, step[steps.SPECIALS][value - own][0])
        return
    kind = step[steps.KIND]
    if kind == steps.PLAYER:
        if value == w.players:
            put(line, 5, b"NOBODY")
        else:
            _put_player(sheet, line, 6, value)
    elif kind == steps.NUMBER:
        numl(line, 7, value + step[steps.LOW])
    else:
        put(line, 4, step[steps.WORDS][value])
