# The why screen on the OLED (tallypanel.menu.WhyScreen, docs/display.md):
# why a hand scored what it did, in the words of the rules that scored it
# (tallycore.why: its parts, the reason table's clauses), wrapped at spaces
# under a heading "WHY HAND 3 OF 6", a page of nine rows at a time (a push
# shows the next: "WHY HAND 3 OF 6 1/2"). Loaded when the screen is first opened.
# The words are composed when the hand shown or the game changes (that
# allocates: the reason is made then, from the log); a redraw of the same
# hand copies the rows composed and allocates nothing.
from tallycore import why as core_why
from tallypanel.menu import hands_so_far
from tallypanel.screen import COLS, LIST, blank, put, numl

from tallycore import const

_ROWS = const(9)     # the rows under the heading: a page
_PAGES = const(4)    # the most pages a hand's reason takes (a longer one is cut)
_text = bytearray(_PAGES * _ROWS * COLS)
_parts = core_why.Parts()


def draw(sheet, game, why, names):
    """The why screen of hand why.hand; False (nothing drawn) when the game has
    no hand to explain, and the screen is left."""
    last = hands_so_far(game)
    if last == 0:
        why.active = False
        return False
    if why.hand > last:
        why.hand = last
    if why.shown != why.hand or why.n != game.n:
        rows = _compose(game, why.hand, names)
        why.pages = (rows + _ROWS - 1) // _ROWS if rows else 1
        why.shown = why.hand
        why.n = game.n
    if why.page >= why.pages:
        why.page = why.pages - 1
    sheet.use(LIST)
    lines = sheet.lines
    line = lines[0]
    blank(line)
    at = numl(line, put(line, 0, b"WHY HAND "), why.hand)
    at = numl(line, put(line, at, b" OF "), last)
    if why.pages > 1:
        numl(line, put(line, numl(line, at + 1, why.page + 1), b"/"), why.pages)
    put(line, COLS - len(sheet.table_tag), sheet.table_tag)
    first = why.page * _ROWS * COLS
    for r in range(_ROWS):
        line = lines[r + 1]
        at = first + r * COLS
        for c in range(COLS):
            line[c] = _text[at + c]
    sheet.flush()
    return True


def _compose(game, hand, names):
    """The reason of every event of hand (1-based) into _text, each line from a
    new row, wrapped at spaces (a continued row indented by one); cut with ..
    where the rows end. Returns the rows it takes."""
    for i in range(len(_text)):
        _text[i] = 32
    rules = game.rules
    log = game.log
    seen = 1
    row = 0
    for index in range(game.n):
        if seen == hand and row < _PAGES * _ROWS:
            try:
                core_why.explain(game, index, _parts)
                for words in core_why.lines(game, _parts, names):
                    row = _wrap(words, row)
            except ValueError as exc:   # rules that do not explain their scores (yet): say so
                row = _wrap(str(exc), row)
                break
        if rules.ends_hand(log[index]):
            seen += 1
    return row if row < _PAGES * _ROWS else _PAGES * _ROWS


def _wrap(words, row):
    """One line of the reason from row on; returns the row after it."""
    col = 0
    for word in words.split(" "):
        n = len(word)
        if col and col + n > COLS:
            row += 1
            col = 1
        if row >= _PAGES * _ROWS:
            end = _PAGES * _ROWS * COLS
            _text[end - 2] = 46
            _text[end - 1] = 46
            return row
        for i in range(n if n < COLS - col else COLS - col):
            c = ord(word[i])
            _text[row * COLS + col] = c if 32 <= c < 127 else 63
            col += 1
        col += 1
    return row + 1
