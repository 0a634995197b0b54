"""How every command reports a failure: one line on stderr in the user's
words, the error's exit status, nothing half-printed on stdout; and how long
a command waits for a board's reply before it asks again, which decides when
a silent board is reported."""
from __future__ import annotations

from typing import Any, Callable

from ..common.errors import TallyboardError

TIMEOUT_ENV = "TALLYBOARD_TIMEOUT"     # the --timeout of every board command, for a slow link or a slow board


def reply_timeout_option(default: float = 1.0, what: str = "the board's") -> Callable[[Any], Any]:
    """--timeout: seconds to wait for each reply before sending the request again (then up to three
    times more); $TALLYBOARD_TIMEOUT sets it for every command (an emulated board on a busy machine)."""
    import click

    return click.option("--timeout", type=click.FloatRange(0.05, 60), default=default, show_default=True,
                        envvar=TIMEOUT_ENV, show_envvar=True,
                        help=f"Seconds to wait for {what} reply before sending the request again.")


def reports_errors(fn):  # type: ignore[no-untyped-def]
    """Decorator for CLI commands: a TallyboardError becomes one line on
    stderr ("tallyboard: ...") and the error's exit status; stdout stays empty.
    Standard output that cannot be written (a full disk, a closed pipe) is
    one of these errors too."""
    import functools
    import sys

    import click

    from ..common.files import guarded_stdout

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            with guarded_stdout():
                return fn(*args, **kwargs)
        except TallyboardError as exc:
            click.echo(f"tallyboard: {exc}", err=True)
            sys.exit(exc.exit_code)

    return wrapper
