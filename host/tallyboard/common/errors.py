"""The host's exception hierarchy (after mpremote's): each keeps the text the
board or the core gave, so the user sees the board's own words."""


class TallyboardError(Exception):
    """Anything the CLI reports as a one-line error with a non-zero exit."""

    exit_code = 1


class RecordError(TallyboardError):
    """A game record that cannot be read or breaks a rule."""


class BoardNotFound(TallyboardError):
    """No board (or several) where the user pointed; the message says what to do."""

    exit_code = 3


class TransportError(TallyboardError):
    """The serial link failed: port gone, cable pulled, no reply in time."""

    exit_code = 4


class ProtocolError(TransportError):
    """The board's replies make no sense (bad checksum, wrong version, garbage)."""


class BoardError(TallyboardError):
    """The board refused a request: keeps the board's own error code and text.
    The user reads the board's words, or `text` where the host says better
    what to do (its own commands)."""

    exit_code = 2

    def __init__(self, code: str, message: str, text: str | None = None) -> None:
        if text is None:
            words = message
            for wire_words, cli_words in _IN_CLI_WORDS:
                words = words.replace(wire_words, cli_words)
            text = f"the board says: {words} ({code})" if message else f"the board says: {code}"
        super().__init__(text)
        self.code = code
        self.board_message = message


# The board's advice names wire verbs; a command line user runs commands.
_IN_CLI_WORDS = (
    ("start one with NEW", "start one with tallyboard new GAME"),
)


def log_full(capacity: object) -> str:
    """What to do when the game's log is full (the board's ERR FULL, or the
    host's check of a hand before it is sent)."""
    return (f"the game's log is full ({capacity} changes); archive it (tallyboard archive save) "
            "and start a new game with tallyboard new")
