# The game's chain head on the OLED sheet (issue 44; framebuf: MicroPython
# only, as tests/mp/test_sheetview.py, whose screen these use).
import hashlib

try:
    import framebuf
except ImportError:
    framebuf = None

from mpfixtures import skip
from tallycore import roquet, skicket
from tallycore.game import Game
from test_sheetview import Screen, roquet_game, skicket_game


# The chain's head (firmware/tallyrun/chain.py's header): the first link
# SHA-256(32 zero bytes || NEW packed as index | players << 5 | options << 9,
# 4 bytes little-endian || 0xFF), then a link a event, SHA-256(head || the
# event, 4 bytes LE || 1 + who accepted it: 0, these games ask nobody). The
# sheet shows its first four bytes in hex, two groups of four digits.
SKICKET = 0           # tallycore.games: GAME 0 is Skicket, 1 Roquet, 6 Foozle
ROQUET = 1
FOOZLE = 6


def _le(value):
    return bytes((value & 0xFF, (value >> 8) & 0xFF, (value >> 16) & 0xFF, (value >> 24) & 0xFF))


def _short_head(index, players, options, events):
    head = hashlib.sha256(bytes(32) + _le(index | players << 5 | options << 9) + b"\xff").digest()
    for event in events:
        head = hashlib.sha256(head + _le(event) + b"\x00").digest()
    digits = "".join("%02X" % b for b in head[:4])
    return (digits[:4] + " " + digits[4:]).encode()


def _skicket_over():
    """skicket_game's three hands and three more: six, the game over (SK4)."""
    g = skicket_game()
    for purchaser in (0, 1, 2):
        g.apply(skicket.pack_hand(purchaser, 1, skicket.CLUBS, None, None, False, 7))
    return g


def test_each_game_s_screen_shows_its_chain_head_short():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    from tallycore import foozle
    # Roquet: the 15th hole's row (5), columns 23-31
    g = roquet_game()
    s = Screen()
    s.view.draw_game(g)
    events = [g.log[i] for i in range(5)]
    row = bytes(s.view.lines[5])
    assert row[:23] == b" " * 23       # nobody at the 15th hole yet in hand 2
    assert row[23:] == _short_head(ROQUET, 2, 0, events), row
    # after an undo the head is the one of the events still applied
    g.undo()
    s.view.draw_game(g)
    assert bytes(s.view.lines[5])[23:] == _short_head(ROQUET, 2, 0, events[:4])
    # Skicket: the totals' row (7) keeps where the game is while it goes on...
    g = skicket_game()
    s = Screen()
    s.view.draw_game(g)
    assert bytes(s.view.lines[7])[23:] == b"HAND 4/6 "
    # ...and ends with the head once it is over (row 8 says so)
    g = _skicket_over()
    s.view.draw_game(g)
    assert g.complete()
    assert bytes(s.view.lines[7])[23:] == _short_head(SKICKET, 4, 0, [g.log[i] for i in range(6)])
    assert bytes(s.view.lines[8]).startswith(b"GAME OVER. WON BY")
    # any other game: the last row, after the note's place
    g = Game()
    g.new(foozle, 5, 0)
    g.apply(foozle.pack_hand(2, 3, 4))
    g.apply(foozle.pack_hand(0, 2, 1))
    s.view.draw_game(g)
    assert bytes(s.view.lines[9]) == b" " * 23 + _short_head(FOOZLE, 5, 0, [g.log[0], g.log[1]])
    # no game: no head
    s.view.draw_game(Game())
    assert bytes(s.view.lines[9]) == b" " * 32


def test_a_new_event_s_link_is_drawn_without_allocating():
    if framebuf is None:
        skip("needs MicroPython's framebuf: runs in the MicroPython pass (tests/test_display_micropython.py)")
    import micropython
    from tallycore import foozle
    short = Game()
    short.new(foozle, 5, 0)
    short.apply(foozle.pack_hand(2, 3, 4))
    games = (_skicket_over(), roquet_game(), short)
    news = (None, roquet.pack_peg(1, 2), foozle.pack_hand(1, 4, 4))
    s = Screen()
    s.view.chain.chain.head_of(short, 0)   # the first head loads the link's machine code: before the lock
    for i in range(3):
        g = games[i]
        if news[i] is None:     # Skicket over: undo the sixth hand and apply it again
            last = g.log[g.n - 1]
            g.undo()
            s.view.draw_game(g)
            s.view.chain.chain.rewritten(g.n)
            g.apply(last)
        else:
            s.view.draw_game(g)
            g.apply(news[i])
        micropython.heap_lock()
        try:
            s.view.draw_game(g)      # the head one link on, or made again from the first
        finally:
            micropython.heap_unlock()
        assert s.view.chain.chain.count == g.n
