# The LED peg field: frame-exact bytes for chosen states (worked out by hand
# from the rules, the chain order and the levels), and no allocation per frame.
#
# Channel value = colour * brightness * level >> 16 (ledfield._channel), with
# brightness 64 (the default) and levels FULL 256, TRAIL 40, LANDMARK 20,
# remainder r * 51. Default colours: A 0xFF2000, B 0x0040FF, C 0x00C000,
# D 0xC000C0, landmarks white. Bytes are G, R, B per LED.
from mpfixtures import skip
from tallypanel import boarddef, ledfield
from tallycore import roquet, skicket
from tallycore.game import Game

_HERE = __file__.rsplit("/", 1)[0] if "/" in __file__ else "."
BOARD_DIR = _HERE + "/../../board"

# A full   (255, 32, 0): G 32*16384>>16 = 8, R 255*16384>>16 = 63
A_FULL = (8, 63, 0)
# A trail  scale 64*40 = 2560: G 32*2560>>16 = 1, R 255*2560>>16 = 9
A_TRAIL = (1, 9, 0)
# B full   (0, 64, 255): G 64*16384>>16 = 16, B 255*16384>>16 = 63
B_FULL = (16, 0, 63)
# landmark scale 64*20 = 1280: 255*1280>>16 = 4
MARK = (4, 4, 4)


def _field(name="pico-reference"):
    b = boarddef.find(name, BOARD_DIR)
    return b, ledfield.LedField(b)


def _expect(leds, count=132):
    frame = bytearray(3 * count)
    for led in leds:
        g, r, b = leds[led]
        frame[3 * led] = g
        frame[3 * led + 1] = r
        frame[3 * led + 2] = b
    return bytes(frame)


def _roquet(events):
    g = Game()
    g.new(roquet, 2, 0)
    for e in events:
        g.apply(e)
    return g


def _landmarks():
    # Tally holes 14, 29, 44 (positions 15, 30, 31) of both players: reference
    # LEDs 1 + hole and 67 + hole.
    return {15: MARK, 30: MARK, 45: MARK, 81: MARK, 96: MARK, 111: MARK}


def test_roquet_tally_peg_back_peg_station_and_landmarks():
    board, field = _field()
    g = _roquet((roquet.pack_peg(0, 10), roquet.pack_peg(0, 6)))
    # A's tally 16 -> hole 15 -> LED 16 (full); back peg at 10 -> hole 9 -> LED 10
    # (trail); B has not pegged: his peg stands in his station hole, LED 66.
    leds = _landmarks()
    leds[16] = A_FULL
    leds[10] = A_TRAIL
    leds[66] = B_FULL
    assert bytes(field.compose(g)) == _expect(leds)
    assert not field.scaled
    # Sum of channels 71 + 10 + 6 * 12 + 79 = 232 -> ceil(232 * 20 / 255) = 19
    # mA, plus 132 LEDs x 1 mA idle.
    assert field.estimate_ma() == 151


def test_roquet_first_peg_leaves_the_station_as_back_peg():
    board, field = _field()
    g = _roquet((roquet.pack_peg(1, 3),))
    leds = _landmarks()
    leds[0] = A_FULL            # A still stationed
    leds[66] = (2, 0, 9)        # B's back peg: station, trail: 64*2560>>16=2, 255*2560>>16=9
    leds[67 + 2] = B_FULL       # B's tally 3 -> hole 2
    assert bytes(field.compose(g)) == _expect(leds)


def test_roquet_king_peg_and_remainder():
    board, field = _field()
    g = _roquet((roquet.pack_peg(0, 10), roquet.pack_peg(0, 6), roquet.HAND_END))
    # King total 16: king hole 16 // 5 - 1 = 2 -> LED 46 + 2 = 48 (full);
    # remainder 1 lights the next king hole (LED 49) at level 51:
    # scale 64*51 = 3264: G 32*3264>>16 = 1, R 255*3264>>16 = 12.
    # Both tally pegs are back in their station holes.
    leds = _landmarks()
    leds[48] = A_FULL
    leds[49] = (1, 12, 0)
    leds[0] = A_FULL
    leds[66] = B_FULL
    assert bytes(field.compose(g)) == _expect(leds)


def test_roquet_the_turn_and_the_home_stretch():
    board, field = _field()
    # Position 31 is the turn: tally hole 30 + 45 - 31 = 44 (a landmark: the peg
    # covers it). Position 47 is hole 60 - 47 = 13 on the home stretch.
    g = _roquet((roquet.pack_peg(0, 31),))
    frame = field.compose(g)
    assert bytes(frame[3 * 45:3 * 46]) == bytes(A_FULL)
    g.apply(roquet.pack_peg(0, 16))
    frame = field.compose(g)
    assert bytes(frame[3 * 14:3 * 15]) == bytes(A_FULL)
    assert bytes(frame[3 * 45:3 * 46]) == bytes(A_TRAIL)  # the back peg at the turn


def test_roquet_count_over_60_lights_the_station_for_the_lap():
    board, field = _field()
    g = _roquet((roquet.pack_peg(1, 62),))
    # Position 62 is past one lap: the hole of position 2 (tally hole 1, LED 68).
    # The station (LED 66) is the back peg (trail) but the lap mark, at LAP
    # level 128, wins: scale 64*128 = 8192: G 64*8192>>16 = 8, B 255*8192>>16 = 31.
    frame = field.compose(g)
    assert bytes(frame[3 * 68:3 * 69]) == bytes(B_FULL)
    assert bytes(frame[3 * 66:3 * 67]) == bytes((8, 0, 31))


def test_roquet_game_end_lights_the_winners_king_row():
    board, field = _field()
    g = _roquet((roquet.pack_peg(0, 60), roquet.HAND_END, roquet.pack_peg(0, 40)))
    assert g.complete() and g.winners() == 1
    frame = field.compose(g)
    for hole in range(20):
        led = 46 + hole
        assert bytes(frame[3 * led:3 * led + 3]) == bytes(A_FULL), hole
    for hole in range(20):
        led = 112 + hole
        assert bytes(frame[3 * led:3 * led + 3]) == b"\x00\x00\x00", hole


def test_serpentine_board_puts_the_same_pegs_on_its_own_leds():
    board, field = _field("pico2-serpentine-nooled")
    g = _roquet((roquet.pack_peg(0, 10), roquet.pack_peg(0, 6)))
    # Serpentine: A's tally hole 15 -> LED 16, hole 9 -> LED 10 (same run as
    # the reference); A's landmarks 14, 29 -> LEDs 15, 30; hole 44 -> LED 31.
    # B: station LED 101; landmarks: hole 44 -> 86, hole 29 -> 131, hole 14 -> 116.
    leds = {15: MARK, 30: MARK, 31: MARK, 86: MARK, 131: MARK, 116: MARK,
            16: A_FULL, 10: A_TRAIL, 101: B_FULL}
    # its 134 LEDs: the last two, beside its seat buttons, dark (nothing waits for an accept)
    assert bytes(field.compose(g)) == _expect(leds, 134)


def test_skicket_progress_bars_scaled_to_the_leader():
    board, field = _field()
    g = Game()
    g.new(skicket, 4, 0)
    # Hand 1: A bids 4H, takes 10: A and partner C get 60 + 40 = 100,
    # B and D 10 x 3 = 30.
    g.apply(skicket.pack_hand(0, 4, skicket.HEARTS, None, None, False, 10))
    frame = field.compose(g)

    def led(i):
        return bytes(frame[3 * i:3 * i + 3])
    # A (side 0 king row, 20 holes): 100 * 20 // 100 = 20 lit; holes 0..18 trail, 19 full.
    assert led(46) == bytes(A_TRAIL) and led(64) == bytes(A_TRAIL) and led(65) == bytes(A_FULL)
    # B (side 1 king row): 30 * 20 // 100 = 6 lit: LEDs 112..117, tip 117 full.
    assert led(116) == bytes((2, 0, 9)) and led(117) == bytes(B_FULL) and led(118) == b"\x00\x00\x00"
    # C (side 0 tally holes 0..29): 100 * 30 // 100 = 30 lit, tip hole 29 (LED 30):
    # colour (0, 192, 0): G 192*16384>>16 = 48.
    assert led(30) == b"\x30\x00\x00" and led(1) == b"\x07\x00\x00" and led(31) == b"\x00\x00\x00"
    # D (side 1 tally): 30 * 30 // 100 = 9 lit: LEDs 67..75.
    assert led(75) == b"\x00\x30\x30" and led(76) == b"\x00\x00\x00"
    # Hand 2 (index 1) is dealt from seat (2 + 1) mod 4 = 3: D, on side 1:
    # station LED 66 in D's colour.
    assert led(66) == b"\x00\x30\x30"


def test_quatro_progress_bars_are_tricks_scaled_to_the_leader():
    from tallycore import most_count
    board, field = _field()
    g = Game()
    g.new("quatro", 3, 0)
    # Two hands: tricks 6, 5, 2 and 7, 0, 6: Ann 6 + 7 = 13, Bob 5 + 0 = 5,
    # Cy 2 + 6 = 8 (docs/rules.md QU3); the game goes on (three deals).
    for hand in ((6, 5, 2), (7, 0, 6)):
        for p in range(3):
            g.apply(most_count.pack_count(p, hand[p], most_count.TRICKS))
        g.apply(most_count.END)
    frame = field.compose(g)

    def led(i):
        return bytes(frame[3 * i:3 * i + 3])
    # A (side 0 king row, 20 holes, LEDs 46..65): the leader, 13 * 20 // 13 = 20 lit.
    assert led(46) == bytes(A_TRAIL) and led(64) == bytes(A_TRAIL) and led(65) == bytes(A_FULL)
    # B (side 1 king row, LEDs 112..): 5 * 20 // 13 = 100 // 13 = 7 lit: 112..118, tip 118.
    assert led(117) == bytes((2, 0, 9)) and led(118) == bytes(B_FULL) and led(119) == b"\x00\x00\x00"
    # C (side 0 tally holes, LEDs 1..30): 8 * 30 // 13 = 240 // 13 = 18 lit: 1..18, tip 18.
    assert led(18) == b"\x30\x00\x00" and led(17) == b"\x07\x00\x00" and led(19) == b"\x00\x00\x00"


def test_budget_scales_a_bright_frame_down():
    board, field = _field()
    field.set_brightness(255)
    field.set_budget(200)
    g = _roquet((roquet.pack_peg(0, 60), roquet.HAND_END, roquet.pack_peg(0, 40)))
    field.compose(g)
    assert field.scaled
    # Allowed channel sum: (200 - 132) * 255 // 20 = 867.
    assert sum(field.frame) <= 867
    assert field.estimate_ma() <= 200


def test_settings_are_range_checked():
    board, field = _field()
    for call in (lambda: field.set_brightness(256), lambda: field.set_colour(4, 0, 0, 0),
                 lambda: field.set_colour(0, 0, 300, 0), lambda: field.set_budget(0)):
        try:
            call()
        except ValueError:
            continue
        raise AssertionError("accepted")


def test_composing_a_frame_allocates_nothing():
    try:
        import micropython
        micropython.heap_lock
    except (ImportError, AttributeError):
        skip("needs micropython.heap_lock: runs in the MicroPython pass (tests/test_micropython_port.py)")
    board, field = _field()
    r = _roquet((roquet.pack_peg(0, 10), roquet.pack_peg(1, 6), roquet.HAND_END, roquet.pack_peg(0, 3)))
    s = Game()
    s.new(skicket, 4, 0)
    s.apply(skicket.pack_hand(0, 4, skicket.HEARTS, None, None, False, 10))
    field.set_budget(150)  # force the limiter's scaling path too
    for g in (r, s):
        field.compose(g)
        micropython.heap_lock()
        try:
            field.compose(g)
        finally:
            micropython.heap_unlock()
