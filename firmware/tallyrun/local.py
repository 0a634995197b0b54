# Changes made on the board itself (its buttons and menu, tallypanel.menu;
# the club link seating a round, tallynet.link): journaled, applied and pushed
# exactly as a host's request is, through the app's one change path
# (tallyrun.app), without a reply. The App takes them as its own methods.
# A held hand's and CFG's code are the App's to load (its _settle, _configure).
from tallyrun.journal import KIND_ACCEPT, KIND_APPLY, KIND_REDO, KIND_REJECT_HAND, KIND_UNDO

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_SRC_BOARD = b"board"


def _raise_if(message):
    if message is not None:
        raise ValueError(message if isinstance(message, str) else message.decode())


class LocalChanges:
    """The board's own changes, as methods of tallyrun.app.App (its _change,
    _new, _settle, _configure, game and config)."""
    if TYPE_CHECKING:   # the App's, for the type checker
        game: Any
        config: Any
        _change: Any
        _new: Any
        _settle: Any
        _configure: Any

    def local_event(self, event):
        """Apply a packed core event from the board's buttons, journaled and
        pushed like a host request. Raises ValueError (the core's message)
        when refused; nothing changed then."""
        _raise_if(self._change(KIND_APPLY, 0, 0, event, _SRC_BOARD, False))

    def local_undo(self):
        _raise_if(self._change(KIND_UNDO, 0, 0, 0, _SRC_BOARD, False))

    def local_redo(self):
        _raise_if(self._change(KIND_REDO, 0, 0, 0, _SRC_BOARD, False))

    def local_accept(self, player):
        """Player (its index) accepts the held change on the board (a seat
        button); ValueError when there is none, or when player may not."""
        game = self.game
        if game.held and not game.held_by >> player & 1:
            raise ValueError(game.held_message(self.config.names))
        self._settle(KIND_ACCEPT)

    def local_reject(self):
        """The held change rejected on the board (a long press). A rejected
        hand goes whole (docs/rules.md CF1): the events of its hand applied
        before it go with it, in the same journal record (a power cut keeps
        the hand whole or gone), and off the redo stack. Returns how many
        were taken back; allocation-free."""
        game = self.game
        taken = game.open_hand() if game.held == KIND_APPLY else 0
        self._settle(KIND_REJECT_HAND, taken)
        return taken

    def local_new(self):
        """The board's own new game: the game in play again, for the same
        players and options (its menu asks first). ValueError when refused."""
        game = self.game
        if game.rules is None:
            raise ValueError("game: no game in progress; start one from the host")
        _raise_if(self._new(0, 0, game.index, game.players, game.options, False))

    def local_cfg(self, key, player, value):
        """A setting changed by the board itself (the club link seating its
        round: the names, the round), saved and pushed as CFG like CFG SET.
        ValueError or OSError when refused; nothing changed then."""
        self._configure(key, player, value)
