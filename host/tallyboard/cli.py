"""The `tallyboard` command line: a click group; the commands live in
tallyboard.commands.* (see COMMAND_MODULES there)."""
from __future__ import annotations

import importlib

import click

from .commands import COMMAND_MODULES


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="tallyboard")
def main() -> None:
    """Keep score at the card table with the tallyboard."""


for _name in COMMAND_MODULES:
    importlib.import_module(f".commands.{_name}", __package__).register(main)


if __name__ == "__main__":
    main()
