"""The host's exception hierarchy (after mpremote's): each keeps the text the
board or the core gave, so the user sees the board's own words."""


class TallyboardError(Exception):
    """Anything the CLI reports as a one-line error with a non-zero exit."""

    exit_code = 1


class RecordError(TallyboardError):
    """A game record that cannot be read or breaks a rule."""


def reports_errors(fn):  # type: ignore[no-untyped-def]
    """Decorator for CLI commands: a TallyboardError becomes one line on
    stderr ("tallyboard: ...") and the error's exit status; stdout stays empty."""
    import functools
    import sys

    import click

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return fn(*args, **kwargs)
        except TallyboardError as exc:
            click.echo(f"tallyboard: {exc}", err=True)
            sys.exit(exc.exit_code)

    return wrapper
