"""`tallyboard release`: the director's releases of the firmware for the club's boards (issue 43;
club/releases.py does the work). `key` makes the club's update key (or shows its public half, which the
boards hold), `make` builds this checkout's file set into a signed release file, `show` checks one and
says what it holds."""
from __future__ import annotations

from pathlib import Path

import click
from tallyboot import TRIAL_S
from tallynet.update import MAX_TRIAL_S

from .reporting import reports_errors


@click.group("release")
def release_group() -> None:
    """The firmware released to the club's Wi-Fi boards: the update key, making a release, checking one."""


def _key_option(function):  # type: ignore[no-untyped-def]
    return click.option("--key", "key_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                        help="The update key's file (default: ~/.config/tallyboard/update-key).")(function)


@release_group.command("key")
@_key_option
@reports_errors
def key_cmd(key_file: Path | None) -> None:
    """Make the club's update key if there is none, and print its public half (the boards hold it).
    Keep the key file safe and backed up: it alone makes releases the boards take."""
    from ..club import releases

    path = key_file or releases.update_key_path()
    existed = path.exists()
    seed = releases.load_key(path, create=True)
    click.echo(f"update key: {path} ({'kept' if existed else 'made now'}; back it up, and let no one else read it)")
    click.echo(f"public half (the boards hold it): {releases.public_key(seed).hex()}")


@release_group.command("make")
@click.option("--number", type=int, required=True,
              help="The release's number: higher than every release the boards run (a board refuses a lower one).")
@click.option("--downgrade", is_flag=True, help="Let boards that run a higher number take this one.")
@click.option("--board", "boards", multiple=True, metavar="IDENT",
              help="Only this board takes it (its identity, as `tallyboard event boards` shows it; repeat). "
                   "Default: every board of the club.")
@click.option("--trial-s", type=click.IntRange(1, MAX_TRIAL_S), default=TRIAL_S, show_default=True,
              help="The seconds a board gives the new release to restore its game and reach the broker before "
                   "it goes back to the one before by itself.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("."),
              show_default=True, help="The folder to write <release id>.tbrel in.")
@_key_option
@reports_errors
def make_cmd(number: int, downgrade: bool, boards: tuple[str, ...], trial_s: int, out_dir: Path,
             key_file: Path | None) -> None:
    """Build this checkout's firmware (the packages compiled, the board definitions) into a release
    signed with the club's update key: the ROMFS image the boards take over the air, and the files
    beside it."""
    from ..club import releases
    from ..tooling import fileset

    seed = releases.load_key(key_file or releases.update_key_path())
    files = fileset.build()
    release = releases.make(files, number, seed, downgrade, list(boards), trial_s)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{release.id}.tbrel"
    releases.write(release, path)
    size = sum(len(data) for data in release.files.values())
    click.echo(f"release {release.id}, number {number}{' (a downgrade)' if downgrade else ''}: "
               f"{len(release.files)} files, {size:,} bytes, in {path}")
    click.echo(f"  image {len(release.image):,} bytes, {_chunks(releases.chunk_count(release))}; "
               f"for {_boards_words(release.boards)}")


@release_group.command("show")
@click.argument("path", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--public", "public_hex", metavar="HEX",
              help="The update key's public half (release key prints it): check with it, on a laptop without the key.")
@_key_option
@reports_errors
def show_cmd(path: Path, public_hex: str | None, key_file: Path | None) -> None:
    """Check a release file against the club's update key, and list what it holds."""
    from ..club import releases

    if public_hex is not None:
        public = releases.public_from_hex(public_hex, "--public")
    else:
        public = releases.public_key(releases.load_key(key_file or releases.update_key_path()))
    release = releases.read(path, public)
    manifest = release.manifest
    click.echo(f"release {release.id}, number {release.number}, firmware {manifest['fw']}"
               f"{', a downgrade' if manifest['downgrade'] else ''}: signed with this club's update key")
    click.echo(f"image: {len(release.image):,} bytes, {_chunks(releases.chunk_count(release))} of "
               f"{manifest['image']['chunk']:,} bytes; for {_boards_words(release.boards)}")
    for entry in release.listing:
        click.echo(f"  {entry['size']:>7,}  {entry['dest']}")


def _chunks(count: int) -> str:
    return f"{count} chunk{'s' if count != 1 else ''}"


def _boards_words(boards: list[str]) -> str:
    from ..club import releases

    return "every board" if boards == [releases.ALL_BOARDS] else "boards " + ", ".join(boards)


def register(main: click.Group) -> None:
    main.add_command(release_group)
