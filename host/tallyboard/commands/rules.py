"""`tallyboard rules GAME`: a game's rules from rules.md in the terminal,
or with --pdf a one-page card for the table (tallyboard.rulescard)."""
from __future__ import annotations

from pathlib import Path

import click
from rich.markdown import Markdown

from ..common import files
from ..scorebook import rulescard
from ..common.console import Console
from .reporting import reports_errors
from .scoring import known_game


@click.command("rules")
@click.argument("game")
@click.option("--pdf", "pdf_path", type=click.Path(dir_okay=False, writable=True, path_type=Path), metavar="FILE",
              help=f"Write the rules as a one-page {rulescard.PAPER} card (PDF, printed by Chromium) "
                   "instead of printing them.")
@reports_errors
def rules_cmd(game: str, pdf_path: Path | None) -> None:
    """Print GAME's rules from rules.md with the clause numbers the
    board's reasons cite (SK9, G5, ...): the game's own clauses, the clauses
    of another game it plays by, and the common rules (G, CF) it relies on."""
    name, _ = known_game(game)
    card = rulescard.card(name)
    if pdf_path is None:
        Console().print(Markdown(card.markdown()))
        return
    files.write_output(pdf_path, rulescard.pdf(card))
    click.echo(f"{card.title}: a one-page {rulescard.PAPER} card in {pdf_path}")


def register(group: click.Group) -> None:
    group.add_command(rules_cmd)
