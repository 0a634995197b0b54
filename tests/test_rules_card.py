"""A rules card per game (issue 34, item 5): `tallyboard rules GAME` prints the
game's section of docs/rules.md with its clause numbers, the clauses of another
game it plays by, and the common clauses (G, CF); `--pdf FILE` prints a
one-page A4 card with Debian's headless Chromium. The headings and numbers
expected here are read off docs/rules.md by hand."""
from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from tallyboard.scorebook import rulescard
from tallyboard.cli import main
from tallycore import games

ROOT = Path(__file__).resolve().parent.parent
from browser_support import CHROMIUM, NEEDS_CHROMIUM
COMMON_NUMBERS = ["G1", "G2", "G3", "G4", "G5", "G6", "G7", "CF1", "CF2"]
# each game's code and how many clauses its section has (docs/rules.md, counted by hand)
OWN_CLAUSES = {
    "skicket": ("SK", 20), "roquet": ("RQ", 9), "bishops_whist": ("BW", 6), "rummy": ("RU", 4),
    "parquet": ("PQ", 1), "coronado": ("CO", 5), "foozle": ("FO", 5), "jaimy": ("JA", 4), "hoodoo": ("HO", 3),
    "numero": ("NU", 3), "sachem": ("SA", 3), "quatro": ("QU", 3), "doolittle": ("DO", 3),
    "despised_nines": ("DN", 3), "ups_and_downs": ("UD", 3), "moosehead": ("MH", 6),
}
# A4 in PDF points: 210 mm and 297 mm at 72 / 25.4 points a millimetre
A4_POINTS = (210 * 72 / 25.4, 297 * 72 / 25.4)


def rules(*args: str):
    return CliRunner().invoke(main, ["rules", *args], env={"COLUMNS": "80"})


def lines_of(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines()]


def in_order(lines: list[str], headings: list[str]) -> list[int]:
    """Where each heading stands as a line of its own; fails naming the first missing one."""
    where = []
    for heading in headings:
        assert heading in lines, f"no line {heading!r}"
        where.append(lines.index(heading))
    return where


def test_roquet_in_the_terminal_has_its_clauses_in_order_and_lists_the_common_ones():
    out = rules("roquet")
    assert out.exit_code == 0, out.output
    lines = lines_of(out.stdout)
    headings = ["Roquet (RQ)", "RQ1 The game", "RQ2 The board", "RQ3 Tally peg and king peg", "RQ4 The track",
                "RQ5 The king row", "RQ6 Counts", "RQ7 The 15th hole", "RQ8 Landmark bonuses", "RQ9 The end",
                "Common rules (G, CF)"]
    where = in_order(lines, headings)
    assert where == sorted(where), where
    # Roquet's section cites no common clause: all nine are listed by number and title, none given whole
    listing = " ".join(lines[where[-1] + 1:])
    assert "G1 Players and seats; G2 The deal; G3 Cards; G4 How a game ends; G5 Winners and ties;" in listing
    assert "G7 What the board refuses; CF1 A hand waits for the other side; CF2 Who accepts." in listing
    assert "G5 Winners and ties" not in lines
    assert "Players: 2 · The game ends: at 100" in lines
    # readable at 80 columns: nothing runs past them
    assert max(len(line) for line in out.stdout.splitlines()) <= 80


def test_parquet_in_the_terminal_brings_rummys_clauses_and_the_common_ones_they_cite():
    out = rules("Parquet")        # any case, as `new` takes it
    assert out.exit_code == 0, out.output
    lines = lines_of(out.stdout)
    # PQ1: "RU1–RU4 apply unchanged"; RU2 and RU3 cite G3, RU4 cites G4 and G5
    headings = ["Parquet (PQ)", "PQ1 Parquet is scored as Rummy", "As in Rummy (RU)", "RU1 Players and the deal",
                "RU2 A hand", "RU3 Card values", "RU4 The game", "Common rules (G, CF)", "G3 Cards",
                "G4 How a game ends", "G5 Winners and ties"]
    where = in_order(lines, headings)
    assert where == sorted(where), where
    listing = " ".join(lines[where[-1] + 1:])
    assert "G1 Players and seats; G2 The deal; G6 Games without points; G7 What the board refuses;" in listing
    assert "The fewest points against wins (G4, G5)." in " ".join(lines)
    assert max(len(line) for line in out.stdout.splitlines()) <= 80


def test_every_games_rules_print_within_80_columns_with_its_clause_numbers():
    for game in OWN_CLAUSES:
        out = rules(game)
        assert out.exit_code == 0, (game, out.output)
        assert max(len(line) for line in out.stdout.splitlines()) <= 80, game
        headings = [line.split(" ", 1)[0] for line in lines_of(out.stdout) if re.match(r"^[A-Z]{1,2}\d+ \S", line)]
        code, count = OWN_CLAUSES[game]
        assert headings[:count] == [f"{code}{n}" for n in range(1, count + 1)], (game, headings)
        assert all(re.search(rf"\b{number}\b", out.stdout) for number in COMMON_NUMBERS), game


def test_a_misspelt_game_is_refused_with_the_likeliest_one():
    out = rules("parquett")
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr.startswith("tallyboard: unknown game 'parquett'; did you mean parquet? known games: skicket, ")
    out = rules("whist--")
    assert out.exit_code == 1 and "did you mean" not in out.stderr


def test_a_card_without_a_chromium_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setattr(rulescard, "CHROMIUM_NAMES", ("no-such-browser-here",))
    out = rules("hoodoo", "--pdf", str(tmp_path / "card.pdf"))
    assert out.exit_code == 1 and out.stdout == ""
    assert out.stderr == ("tallyboard: no Chromium to print the card with: install it (Debian: apt-get install "
                          "chromium), or leave out --pdf to read the rules in the terminal\n")
    assert not (tmp_path / "card.pdf").exists()


def test_the_checkout_reads_its_own_rules_and_runs_are_spelt_out():
    assert rulescard.RULES_MD == ROOT / "docs" / "rules.md"
    known = {"SK6", "SK7", "SK8", "SK9", "SK10", "RU1", "RU2", "RU3", "G5"}
    assert rulescard.cited("SK6 to SK9, RU2–RU3 and G5; 2A, SK10", known) == [
        "SK6", "SK7", "SK8", "SK9", "RU2", "RU3", "G5", "SK10"]


def test_the_readme_lists_the_rules_command():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert re.search(r"^tallyboard rules \S+ +#", readme, re.M), "README's command list has no `tallyboard rules`"
    assert re.search(r"^tallyboard rules \S+ --pdf \S+ +#", readme, re.M)


def pdf_text(data: bytes) -> tuple[int, tuple[float, float], str]:
    from pypdf import PdfReader

    reader = PdfReader(io.BytesIO(data))
    box = reader.pages[0].mediabox
    return len(reader.pages), (float(box.width), float(box.height)), "\n".join(p.extract_text() for p in reader.pages)


def expected_numbers(game: str) -> list[str]:
    code, count = OWN_CLAUSES[game]
    return [f"{code}{n}" for n in range(1, count + 1)] + COMMON_NUMBERS


def assert_a_one_page_card(game: str, data: bytes) -> None:
    pages, size, text = pdf_text(data)
    assert pages == 1, f"{game}: {pages} pages"
    assert abs(size[0] - A4_POINTS[0]) < 1 and abs(size[1] - A4_POINTS[1]) < 1, (game, size)
    for number in expected_numbers(game):
        assert re.search(rf"\b{number}\b", text), f"{game}: no {number} in the card's text"


needs_chromium = NEEDS_CHROMIUM


@needs_chromium
@pytest.mark.browser
def test_every_games_card_prints_on_one_a4_page_with_its_clause_numbers():
    from playwright.sync_api import sync_playwright

    assert list(OWN_CLAUSES) == games.names()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), timeout=30_000,
                                             args=["--no-sandbox", *rulescard.CHROMIUM_ARGS])
        try:
            page = browser.new_page()
            for game in OWN_CLAUSES:
                page.set_content(rulescard.card_html(rulescard.card(game)))
                assert_a_one_page_card(game, page.pdf(prefer_css_page_size=True, print_background=True))
                if game == "skicket":
                    # the longest section fits without the fit reaching its floor
                    size = float(page.evaluate("document.body.dataset.fontPx"))
                    assert rulescard.SMALLEST_PX < size < rulescard.LARGEST_PX, size
        finally:
            browser.close()


@needs_chromium
@pytest.mark.browser
def test_the_command_prints_skickets_card_with_chromium(tmp_path):
    out = rules("skicket", "--pdf", str(tmp_path / "card.pdf"))
    assert out.exit_code == 0, out.output
    assert out.stdout == f"Skicket (SK): a one-page A4 card in {tmp_path / 'card.pdf'}\n"
    assert_a_one_page_card("skicket", (tmp_path / "card.pdf").read_bytes())
