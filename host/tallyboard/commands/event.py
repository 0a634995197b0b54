"""`tallyboard event`: a club evening across many boards (docs/host.md).
Each part of it registers its commands on the group: event_boards.py (the
boards: attach, start, resume)."""
from __future__ import annotations

import click

from . import event_boards


@click.group("event")
def event_group() -> None:
    """Run a club evening: Progressive Skicket on many boards at once."""


event_boards.register(event_group)


def register(group: click.Group) -> None:
    group.add_command(event_group)
