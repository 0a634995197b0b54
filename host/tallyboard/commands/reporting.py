"""How every command reports a failure: one line on stderr in the user's
words, the error's exit status, nothing half-printed on stdout."""
from __future__ import annotations

from ..common.errors import TallyboardError


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
