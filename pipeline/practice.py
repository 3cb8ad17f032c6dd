"""The joseki command's practice: 'joseki practice' lists the cards due
today, '--player NAME' seeds the deck with the places a player's games left
the book, 'joseki practice export FILE.apkg' writes an Anki deck of a
subtree (registered on the command's app by pipeline.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from pipeline.options import OUT, WORK, app, fail
from pipeline.queries import answered, mined_catalog

practice_app = typer.Typer(
    add_completion=False,
    help="Practise the book: the cards due today, a player's own deck (--player), Anki decks (export).",
)
app.add_typer(practice_app, name="practice")

PRACTICE = typer.Option(
    None,
    "--practice",
    metavar="FILE",
    help="the practice file (SQLite; default: XDG_DATA_HOME or ~/.local/share, joseki-miner/practice.sqlite3)",
)


@practice_app.callback(invoke_without_command=True)
def practice(
    ctx: typer.Context,
    player: Optional[str] = typer.Option(
        None, "--player", help="seed the deck with the places this player's games left the book (joseki repertoire)"
    ),
    practice_file: Optional[Path] = PRACTICE,
    out: str = OUT,
    work: Optional[Path] = WORK,
) -> None:
    """The cards due today, the positions most games reach first; with
    --player, first the places where the player's games left the book
    (their own moves there) added to the deck."""
    if ctx.invoked_subcommand is not None:
        return
    from joseki_miner.practice.schedule import PracticeError, Schedule

    try:
        schedule = Schedule.open(practice_file)
    except PracticeError as exc:
        fail(exc.line(), exc.exit_code)
    with schedule:
        if player is not None:
            from joseki_miner.book.repertoire import repertoire
            from joseki_miner.practice.schedule import repertoire_cards
            from joseki_miner.runs import asked

            catalog, steady = mined_catalog(out, work)

            def seeded() -> tuple[int, int]:
                asked.Known.of_games(catalog.games).player(player, str(catalog.games))
                cards = repertoire_cards(repertoire(catalog.joseki, catalog.sequences, catalog.games, player))
                return schedule.add(cards), len(cards)

            added, cards = answered(steady, seeded)
            typer.echo(
                f"{player}: {cards:,} places where their games left the book, {added:,} new cards in {schedule.path}"
            )
        due = _answered_local(schedule.due)
        typer.echo(f"{len(due):,} cards due today in {schedule.path}")
        for card in due[:20]:
            typer.echo(f"  {_line(card.moves)}, {card.colour} to play: {card.games:,} games")


def _line(moves: str) -> str:
    """A card's moves as a board names them, in the tree's orientation (D16 F17 tenuki)."""
    from joseki_miner.book.words import point_text

    return " ".join(point_text(m[2:-1]) for m in moves.split(";") if m) or "the empty corner"


def _answered_local(call):
    from joseki_miner.runs.errors import JosekiError

    try:
        return call()
    except JosekiError as exc:
        fail(exc.line(), exc.exit_code)


@practice_app.command()
def export(
    file: Path = typer.Argument(..., help="the Anki deck to write (.apkg)"),
    out: str = OUT,
    work: Optional[Path] = WORK,
    moves: str = typer.Option(
        "", "--moves", help="where the deck starts: Q16,R14 (as lookup takes it); default the empty corner"
    ),
    min_share: float = typer.Option(
        0.05, "--min-share", help="a position is a note where a move of its colour has this share"
    ),
    colour: Optional[str] = typer.Option(None, "--colour", help="black or white: the colour to play (default: both)"),
    selection: Optional[List[str]] = typer.Option(
        None,
        "--selection",
        metavar="KEY=VALUE",
        help="the games counted, as the explorer's filters: years=2016-2019, collections=ai,tom-9d, min_rank=9d, "
        "player=NAME, color=black, result=white (repeat for another)",
    ),
) -> None:
    """An Anki deck of the subtree at --moves: one note per position where
    the colour to play has a move of at least --min-share; exported again,
    it updates the same notes."""
    from joseki_miner.practice import anki

    if colour is not None and colour not in ("black", "white"):
        fail(f"--colour is black or white, not {colour!r}", 2)
    if not 0 < min_share <= 1:
        fail(f"--min-share is a share above 0 and at most 1, not {min_share}", 2)
    catalog, steady = mined_catalog(out, work)
    start = moves.replace(",", " ")
    source = _selected(catalog, steady, selection or [])
    found = answered(steady, lambda: anki.positions(catalog, start, min_share, colour, source))
    name = f"joseki-miner: {start or 'the empty corner'}" + (f", {colour}" if colour else "")
    name += "".join(f", {s}" for s in selection or [])
    chosen = " ".join(sorted(selection or []))
    written = answered(steady, lambda: anki.write_deck(found, file, name, chosen))
    typer.echo(f"{written:,} notes written to {file}")


def _selected(catalog, steady, given: List[str]):
    """The explorer's index at the selection asked for (None: the stored
    figures); a filter that cannot be, or one that selects no game, is
    one line and exit 2."""
    if not given:
        return None
    from joseki_miner.explorer import params
    from joseki_miner.explorer.index import Index
    from joseki_miner.explorer.practise import Selected

    asked = {}
    for text in given:
        key, sep, value = text.partition("=")
        if not sep or key.strip() not in params.FILTER_KEYS:
            fail(f"--selection is KEY=VALUE, KEY one of {', '.join(params.FILTER_KEYS)}: not {text!r}", 2)
        asked[key.strip()] = value.strip()
    index = answered(steady, lambda: Index.read(catalog))
    try:
        chosen = params.selection(asked, index)
    except params.Asked as exc:
        fail(f"--selection: {exc.line()}", 2)
    source = Selected(index, chosen)
    if not source.games.any():
        fail(f"--selection {' '.join(given)} selects no game of the {len(index.table):,} mined: widen it", 2)
    return source
