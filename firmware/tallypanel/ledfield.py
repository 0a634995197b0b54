# The LED peg field: composes the WS2812 frame (GRB bytes, chain order from
# the board definition) for a game into one preallocated bytearray.
#
# What the field shows (docs/display.md has the pictures): a game with a
# view of its own (tallypanel.gameview) lights its LEDs itself: Roquet's
# pegs (tallypanel.roquetview), Skicket's bars and dealer
# (tallypanel.skicketview). Any other game: progress bars. Player p uses
# side p % 2: players 0 and 1 the king row (20 holes), players 2 and 3 the
# straight run of tally holes 1..30. A first-to-N game (rules.TARGET) scales
# a total to its target; a game without one scales to the leader, who fills
# the row. The bar is faint with its tip full; the winners' bars are full at
# game end.
#
# Current budget (as WLED's automatic brightness limiter): the estimate is
# sum(channel values) * ma_per_channel / 255 + idle_ma_per_led * LEDs; if it
# is over the budget every channel is scaled by the same integer fraction,
# so the frame never exceeds it. Integer math only; no allocation per frame.
from tallypanel import gameview
from tallypanel.wiring import STATION, TALLY, KING, SLOTS_PER_PLAYER, NO_LIGHT
from tallycore.game import player_at

from tallycore import const

# Light levels in 1/256 of full.
FULL = const(256)
TRAIL = const(40)
LAP = const(128)
LANDMARK = const(20)
REMAINDER_STEP = const(51)  # remainder r of 5 -> r * 51/256 (20%, 40%, 60%, 80%)

WHITE = const(4)           # colour index of the landmark marks
_DEFAULT_BRIGHTNESS = const(64)
# five colours, four players' and white: as protocol.PLAYER_COLOURS
DEFAULT_COLOURS = b"\xff\x20\x00\x00\x40\xff\x00\xc0\x00\xc0\x00\xc0\xff\xff\xff"

_BAR_KING = const(20)
_BAR_TALLY = const(30)


class LedField:
    def __init__(self, board, views=None):
        """board: a tallypanel.wiring.BoardDef; views: the game in play's view
        (tallypanel.gameview.Views: the View's, shared with the sheet and the
        controls), or None for one of the field's own."""
        self.board = board
        self.views = gameview.Views() if views is None else views
        self.led_of = board.led_of
        self.frame = bytearray(3 * board.led_count)
        self._blank = bytearray(3 * board.led_count)
        self.colours = bytearray(DEFAULT_COLOURS)  # RGB per colour index
        self.brightness = _DEFAULT_BRIGHTNESS
        self.budget_ma = board.budget_ma
        self.scaled = False  # whether the last frame was scaled to the budget
        self._allowed = 0
        self._set_allowed()

    # --- settings ----------------------------------------------------------

    def set_brightness(self, value):
        if not isinstance(value, int) or value < 0 or value > 255:
            raise ValueError("brightness: must be 0 to 255")
        self.brightness = value

    def set_colour(self, player, r, g, b):
        if player < 0 or player > 3:
            raise ValueError("colour: player must be 0 to 3")
        for v in (r, g, b):
            if not isinstance(v, int) or v < 0 or v > 255:
                raise ValueError("colour: red, green and blue must be 0 to 255")
        self.colours[3 * player] = r
        self.colours[3 * player + 1] = g
        self.colours[3 * player + 2] = b

    def set_budget(self, ma):
        """Current budget in mA. A budget at or below the chain's idle current
        leaves every LED dark (the idle current itself cannot be cut)."""
        if not isinstance(ma, int) or ma < 1 or ma > 20000:
            raise ValueError("budget_ma: must be 1 to 20000")
        self.budget_ma = ma
        self._set_allowed()

    def configure(self, config):
        """Take brightness, budget_ma and colours (0xRRGGBB per player) from
        the board's Config (tallyrun.config)."""
        self.set_brightness(config.brightness)
        self.set_budget(config.budget_ma)
        colours = config.colours
        for p in range(len(colours) if len(colours) < 4 else 4):
            rgb = colours[p]
            self.set_colour(p, rgb >> 16 & 0xFF, rgb >> 8 & 0xFF, rgb & 0xFF)

    def _set_allowed(self):
        board = self.board
        # The most channel-value sum whose current fits the budget:
        # sum * ma_per_channel / 255 <= budget - idle.
        spare = self.budget_ma - board.idle_ma_per_led * board.led_count
        self._allowed = spare * 255 // board.ma_per_channel if spare > 0 else 0

    # --- composing -----------------------------------------------------------

    def compose(self, game):
        """Compose the frame for game; returns the frame buffer (not a copy)."""
        self.frame[:] = self._blank
        view = self.views.of(game)
        if game.rules is None:
            self.light(STATION, WHITE, LANDMARK)
            self.light(SLOTS_PER_PLAYER + STATION, WHITE, LANDMARK)
        elif view is not None:
            view.leds(self, game)
        else:
            self.progress(game)
        if game.rules is not None and game.held:
            # a hand waits for its confirmation (tallypanel.confirm): both station holes white,
            # and the light beside each button that accepts it in its player's colour
            self.light(STATION, WHITE, FULL)
            self.light(SLOTS_PER_PLAYER + STATION, WHITE, FULL)
            self.accepting_buttons(game)
        self._limit()
        return self.frame

    def accepting_buttons(self, game):
        """The LED beside each seat button whose player may accept the held
        change (the board definition's buttons.lights), in that player's
        colour; seats as the game has them for the held hand (Skicket's
        pivot, docs/rules.md SK5)."""
        lights = self.board.seat_lights
        hand = game.held_hand() - 1
        for seat in range(len(lights)):
            led = lights[seat]
            if led == NO_LIGHT:
                continue
            player = player_at(game.rules, hand, seat)
            if player < game.players and game.held_by >> player & 1:
                self.light_led(led, player if player < WHITE else WHITE, FULL)

    def light(self, slot, colour, level):
        """Light a slot of the board (tallypanel.wiring) in a colour index at a level (of 256)."""
        self.light_led(self.led_of[slot], colour, level)

    def light_led(self, led, colour, level):
        """Light one LED of the chain in a colour index at a level (of 256)."""
        at = 3 * led
        c = 3 * colour
        colours = self.colours
        scale = self.brightness * level
        frame = self.frame
        frame[at] = _channel(colours[c + 1], scale)
        frame[at + 1] = _channel(colours[c], scale)
        frame[at + 2] = _channel(colours[c + 2], scale)

    def progress(self, game):
        """The progress bars of the game's totals."""
        rules = game.rules
        players = game.players
        if players > 4:
            players = 4
        target = getattr(rules, "TARGET", 0)
        over = game.complete()
        winners = game.winners() if over else 0
        scale = target
        if not target:
            for p in range(players):
                t = game.total(p)
                if t > scale:
                    scale = t
        for p in range(players):
            base = (p & 1) * SLOTS_PER_PLAYER
            if p < 2:
                base += KING
                length = _BAR_KING
            else:
                base += TALLY
                length = _BAR_TALLY
            t = game.total(p)
            lit = 0
            if scale > 0 and t > 0:
                lit = t * length // scale
                if lit > length:
                    lit = length
                if lit == 0:
                    lit = 1  # any score shows
            if winners >> p & 1:
                for h in range(length):
                    self.light(base + h, p, FULL)
                continue
            for h in range(lit):
                self.light(base + h, p, FULL if h == lit - 1 else TRAIL)

    def _limit(self):
        frame = self.frame
        total = sum(frame)      # in C, allocation-free (the iterator lives on the C stack)
        allowed = self._allowed
        self.scaled = total > allowed
        if self.scaled:  # total > allowed >= 0
            for i in range(len(frame)):
                frame[i] = frame[i] * allowed // total

    def estimate_ma(self):
        """The current the last frame draws by the budget's estimate (rounded up)."""
        board = self.board
        total = 0
        frame = self.frame
        for i in range(len(frame)):
            total += frame[i]
        return (total * board.ma_per_channel + 254) // 255 + board.idle_ma_per_led * board.led_count


def _channel(value, scale):
    # value 0..255 times brightness (0..255) times level (0..256) / 2**16;
    # a lit channel never rounds down to dark.
    v = value * scale >> 16
    if v == 0 and value and scale:
        return 1
    return v
