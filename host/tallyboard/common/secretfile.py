"""Secrets given to a command without putting them in its argv, where every
user of the machine reads them with `ps`: from a file (--pin-file,
--join-file, --broker-password-file), from the environment, or asked for
(hidden) when a person is at the terminal (docs/events.md, docs/club-mqtt.md).
The old argv options still work; their help says they show in `ps`."""
from __future__ import annotations

import functools
import os
import stat
import sys
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote, urlsplit, urlunsplit

import click

IN_PS = "visible to every user of this machine in `ps`: prefer"


def read(path: str | Path, what: str) -> str:
    """The first line of the file at path (spaces around it taken off);
    click.UsageError saying what is wrong. A file others may read is said."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
        mode = stat.S_IMODE(path.stat().st_mode)
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"{path}: cannot read {what} ({getattr(exc, 'strerror', None) or exc})") from None
    lines = text.strip().splitlines()
    if not lines or not lines[0].strip():
        raise click.UsageError(f"{path} is empty: write {what} on its first line")
    if mode & 0o077:
        click.echo(f"tallyboard: {path} holds {what} and other users may read it ({mode:04o}): chmod 600 it",
                   err=True)
    return lines[0].strip()


def given(value: str | None, path: str | None, what: str, prompt: str | None = None,
          value_typed: bool = True) -> str | None:
    """The secret from the file (path), else from argv or the environment
    (value), else asked for (prompt) when a person is at the terminal; None
    if none. A value typed on the command line beside a file is refused."""
    if value is not None and path is not None and value_typed:
        raise click.UsageError(f"{what}: give it once (the option or its file), not both")
    if path is not None:
        return read(path, what)
    if value is None and prompt is not None and sys.stdin.isatty():
        value = click.prompt(prompt, hide_input=True, default="", show_default=False, err=True) or None
    return value


def file_option(name: str, envvar: str, what: str, target: str,
                prompt: str | None = None) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An option --NAME FILE (else $ENVVAR) that gives the command's `target`
    parameter from the file's first line; the command is called with the
    secret as target, never with the file."""
    param = name.lstrip("-").replace("-", "_")

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            context = click.get_current_context(silent=True)
            typed = context is None or context.get_parameter_source(target) == click.core.ParameterSource.COMMANDLINE
            kwargs[target] = given(kwargs.get(target), kwargs.pop(param, None), what, prompt, typed)
            return fn(*args, **kwargs)
        return click.option(name, param, type=click.Path(dir_okay=False), envvar=envvar, metavar="FILE",
                            help=f"A file whose first line is {what} (else ${envvar}).")(run)
    return decorate


def with_password(url: str | None, password: str | None) -> str | None:
    """The broker URL with this password put in (the URL's own is kept when it has one)."""
    if url is None or password is None:
        return url
    parts = urlsplit(url)
    if parts.password is not None or parts.username is None:
        if parts.username is None:
            raise click.UsageError(f"broker {url!r} names no user for the password: write mqtt://USER@HOST:PORT")
        return url
    netloc = f"{parts.username}:{quote(password, safe='')}@{parts.hostname}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))


def broker_password_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--broker-password-file FILE (else $TALLYBOARD_BROKER_PASSWORD_FILE, or
    the password itself in $TALLYBOARD_BROKER_PASSWORD): the password of a
    --broker URL written without one (mqtt://USER@HOST:PORT)."""
    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        path = kwargs.pop("broker_password_file", None)
        password = read(path, "the broker's password") if path else os.environ.get("TALLYBOARD_BROKER_PASSWORD")
        kwargs["broker_url"] = with_password(kwargs.get("broker_url"), password)
        return fn(*args, **kwargs)
    return click.option("--broker-password-file", type=click.Path(dir_okay=False), metavar="FILE",
                        envvar="TALLYBOARD_BROKER_PASSWORD_FILE",
                        help="A file whose first line is the broker's password, for a --broker URL written "
                             "without one, mqtt://USER@HOST:PORT (else $TALLYBOARD_BROKER_PASSWORD_FILE, or the "
                             "password in $TALLYBOARD_BROKER_PASSWORD).")(run)
