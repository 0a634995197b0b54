"""`tallyboard event`: a club evening on many boards. Each part of it keeps
its commands in a module of its own with a `register(group)`: the live views
in event_views.py."""
from __future__ import annotations

import click

from . import event_views


@click.group("event")
def event_group() -> None:
    """A club evening: Progressive Skicket on many boards, with live standings."""


def register(group: click.Group) -> None:
    event_views.register(event_group)
    group.add_command(event_group)
