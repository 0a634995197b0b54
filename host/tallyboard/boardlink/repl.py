"""MicroPython's own REPL, when it answers a board's port instead of the app.

A board whose app is not running (safe mode: a button held at power-up; or
the app stopped) leaves MicroPython's REPL on the serial port. The REPL reads
a request frame as Python, answers with a SyntaxError and shows its prompt
`>>> `, which ends in no newline and so stays in the link's pending bytes.

`safe_mode(link)` then asks, as mpremote would, over the raw REPL (Ctrl-A,
the code, Ctrl-D; Ctrl-B back to the prompt), for the marker that main.py
leaves in safe mode (its global `tallyboard_safe_mode`: main.py's globals are
the REPL's). It sends neither Ctrl-C nor Ctrl-D at the prompt, so nothing is
interrupted or reset, and it sends anything only when the prompt is showing:
a running app is never sent a byte it would take for the REPL's."""
from __future__ import annotations

import time

from .transport import Transport

PROMPT = b">>> "
SAFE_MODE_MARKER = "tallyboard_safe_mode"   # firmware/main.py's global
ENTER_RAW, EXECUTE, LEAVE_RAW = b"\x01", b"\x04", b"\x02"   # Ctrl-A, Ctrl-D, Ctrl-B
RAW_BANNER = b"raw REPL; CTRL-B to exit"
ANSWER_WAIT = 2.0   # seconds for each answer of the REPL
SAFE_MODE_ADVICE = ("the board is in safe mode (a button was held at power-up): the app is not running; "
                    "power-cycle it without holding a button, or use mpremote to repair it")


def at_prompt(link: Transport) -> bool:
    """Whether the REPL's prompt is the last thing the board said."""
    return link.pending().endswith(PROMPT)


def safe_mode(link: Transport) -> str | None:
    """Why the board is in safe mode ("button held at power-up"), asked at its
    REPL; None when the prompt is not showing, the app is not in safe mode, or
    the REPL did not answer as MicroPython's raw REPL does."""
    if not at_prompt(link):
        return None
    link.drain()
    link.write(ENTER_RAW)
    try:
        if _read_until_prompt(link, b">", RAW_BANNER) is None:
            return None
        link.drain(quiet=0)       # what was read: the answer is looked for in what comes next
        code = f"print(globals().get({SAFE_MODE_MARKER!r}) or '')".encode()
        link.write(code + EXECUTE)
        answer = _read_until_prompt(link, b"\x04>", b"OK")
    finally:
        link.write(LEAVE_RAW)     # back to the friendly REPL, as the board was found
        link.drain(quiet=0.2)
    if answer is None:
        return None
    # OK<what it printed>\x04<its error, if any>\x04>
    printed, _, rest = answer[answer.index(b"OK") + 2:].partition(b"\x04")
    if rest.partition(b"\x04")[0].strip():
        return None               # the code failed: not a REPL that can say
    return printed.decode(errors="replace").strip() or None


def _read_until_prompt(link: Transport, prompt: bytes, must_contain: bytes) -> bytes | None:
    """What the REPL says up to its prompt (no newline after it), which must
    contain must_contain; None if that does not come within ANSWER_WAIT."""
    said = b""
    deadline = time.monotonic() + ANSWER_WAIT
    while True:
        whole = said + link.pending()
        if must_contain in whole and whole.endswith(prompt):
            return whole
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        line = link.read_line(min(left, 0.05))
        if line is not None:
            said += line + b"\n"
