"""tallyboard: the host side of the tallyboard scoring board.

The rules live in `tallycore` (the firmware's scoring core); this package
imports them and never re-implements one."""
from tallycore import VERSION as __version__  # noqa: F401
