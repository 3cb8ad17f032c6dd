"""The joseki command's queries: lookup, games, trend, compare, repertoire
and position answer from a mined tree, each in one process that changes
nothing (registered on the command's app by pipeline.cli)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import load
from joseki_miner.runs.errors import JosekiError, UsageError
from joseki_miner.runs.stages import EXTRACT, INGEST
from joseki_miner.runs import stop
from pipeline.options import CONFIG, OUT, SET, WORK, app, catalog_of, fail, plain

SEQUENCE = typer.Argument(
    ...,
    help=plain(
        "moves as board points (Q16 R17; 'W Q16 ...' when White starts) or "
        "SGF (B[pd];W[qc]), any orientation; 'tenuki' for a move elsewhere"
    ),
)


def mined_catalog(out: str, work: Optional[Path]):
    """The catalog of the mined outputs a query reads (of an output URL:
    its local copy; without --work, the work folder the tree records), and
    the check that no run changes them while they are read (``lineage``):
    refused, with exit 2, where the work folder holds another run's stages."""
    from joseki_miner.runs import lineage

    try:
        catalog = catalog_of(out, work)
        if work is None:
            catalog = Catalog(
                work=lineage.work_for(catalog.out, catalog.work), out=catalog.out, publish=catalog.publish
            )
        return catalog, lineage.Steady(catalog)
    except UsageError as exc:
        fail(str(exc), 2)


def answered(steady, call):
    """Run a query; its errors as one line: 2 for text that is no sequence,
    outputs that are missing or of another run, a name or limit that
    cannot be; 1 for a sequence the tree does not hold (each error's
    ``exit_code``)."""
    try:
        found = call()
        steady.confirm()
        return found
    except JosekiError as exc:
        fail(exc.line(), exc.exit_code)
    except FileNotFoundError as exc:
        fail(f"nothing mined in {steady.catalog.out}: run `joseki mine` first ({exc.filename or exc})", 2)
    except (stop.Stopped, KeyboardInterrupt):
        fail("interrupted", 130)


def _limit(value: Optional[int], default: Optional[int] = None) -> Optional[int]:
    from joseki_miner.runs import asked

    try:
        return asked.limit(value, default)
    except UsageError as exc:
        fail(str(exc), 2)


def _json(data) -> None:
    import json

    typer.echo(json.dumps(data, indent=2, ensure_ascii=False))


LIMIT = "at most this many {} (0: all)"


@app.command()
def lookup(
    sequence: str = SEQUENCE,
    out: str = OUT,
    work: Optional[Path] = WORK,
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A sequence's count, games, win rate, years and collections, and its
    continuations, from the mined outputs in OUT."""
    from joseki_miner.book import answers, explore

    catalog, steady = mined_catalog(out, work)
    found = answered(steady, lambda: explore.lookup(catalog, sequence))
    if json_:
        keep = (
            "count",
            "games",
            "black_wins",
            "white_wins",
            "first_year",
            "last_year",
            "most_popular",
            "most_popular_within_collections",
            "years",
            "sources",
            "sequence",
            "board",
            "normal",
            "normal_board",
            "first_player",
            "kind",
        )
        data = {k: found[k] for k in keep if k in found}
        data["continuations"] = [
            {
                k: c[k]
                for k in (
                    "move",
                    "board",
                    "normal",
                    "count",
                    "share",
                    "games",
                    "black_wins",
                    "white_wins",
                    "last_year",
                    "kind",
                )
                if k in c
            }
            for c in found["continuations"]
        ]
        _json(data)
        return
    typer.echo(answers.lookup_text(found))


@app.command()
def games(
    sequence: str = SEQUENCE,
    out: str = OUT,
    work: Optional[Path] = WORK,
    sgf: Optional[Path] = typer.Option(None, "--sgf", help="write the games as one SGF collection to this file"),
    limit: Optional[int] = typer.Option(
        None, "--limit", help=LIMIT.format("games, the most recent") + "; default: 20 listed, all written with --sgf"
    ),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """Every game whose corner sequence starts with SEQUENCE (in any
    orientation), the most recent first."""
    from joseki_miner.book import answers, explore

    catalog, steady = mined_catalog(out, work)
    most = _limit(limit, None if sgf is not None else 20)
    q, rows, total = answered(steady, lambda: explore.games_of(catalog, sequence, most, records=sgf is not None))
    if json_ and sgf is None:
        _json({"sequence": q.text(), "board": q.board_text(), "games": total, "listed": rows.to_pylist()})
        return
    if sgf is not None:
        try:
            sgf.write_text(explore.sgf_collection(rows), encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {sgf}: {exc.strerror}", 2)
        typer.echo(f"{rows.num_rows:,} of {total:,} games starting {q.board_text()} written to {sgf}")
        return
    typer.echo(answers.games_text(q.board_text(), rows.to_pylist(), total))


@app.command()
def trend(
    sequence: str = SEQUENCE,
    out: str = OUT,
    work: Optional[Path] = WORK,
    by_collection: bool = typer.Option(False, "--by-collection", help="a table a collection"),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A sequence's share of each year's games (its games in a year over the
    games mined that year), and within collections; the years whose games
    are mostly one collection's are marked."""
    from joseki_miner.book import answers, explore

    catalog, steady = mined_catalog(out, work)
    q, rows = answered(steady, lambda: explore.trend(catalog, sequence, by_collection))
    peak = explore.trend_peak(rows)
    if json_:
        _json({"sequence": q.board_text(), "by_collection": by_collection, "most_popular": peak, "years": rows})
        return
    typer.echo(answers.trend_text(q.board_text(), rows, by_collection, peak))


SIDE = plain(
    'one filter.* key of a side, as --set takes it: "filter.sources=[ai]", '
    '"filter.years=[2000,2015]", "filter.players=[Lee Sedol]" (the prefix may be left out); '
    "repeat for another key"
)


@app.command()
def compare(
    a: List[str] = typer.Option([], "--a", help=SIDE),
    b: List[str] = typer.Option([], "--b", help=SIDE),
    out: str = OUT,
    work: Optional[Path] = WORK,
    limit: Optional[int] = typer.Option(
        None, "--limit", help=LIMIT.format("risers and as many fallers") + "; default: 10"
    ),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """What changed from side A to side B: the moves of the tree whose share
    of the sequences at their position rose or fell, the largest real
    changes first."""
    from joseki_miner.book import answers
    from joseki_miner.book.compare import compare as compare_sides
    from joseki_miner.runs import asked

    catalog, steady = mined_catalog(out, work)
    most = _limit(limit, 10)

    def answer():
        (side_a, text_a), (side_b, text_b) = asked.side(a, "a"), asked.side(b, "b")
        if side_a.active or side_b.active:
            known = asked.Known.of_games(catalog.games)
            known.check(side_a, "--a")
            known.check(side_b, "--b")
        found = compare_sides(catalog, side_a, side_b)
        for name, side in (("--a", found["a"]), ("--b", found["b"])):
            if not side["games"]:
                raise UsageError(
                    f"{name} selects no game of the {steady.catalog.games.name} mined: "
                    "widen it (filter.years, filter.min_rank ...)"
                )
        return found, text_a, text_b

    found, text_a, text_b = answered(steady, answer)
    found = {**found, "risers": found["risers"][:most], "fallers": found["fallers"][:most]}
    if json_:
        found["a"]["filters"], found["b"]["filters"] = text_a, text_b
        _json(found)
        return
    typer.echo(answers.compare_text(found, text_a, text_b))


@app.command()
def repertoire(
    player: str = typer.Argument(..., help="a player's name as the games write it (either colour; case aside)"),
    games: Optional[List[Path]] = typer.Argument(
        None, help="the player's own games (files, folders, archives); default: the games mined, by the player's name"
    ),
    out: str = OUT,
    work: Optional[Path] = WORK,
    config: Optional[Path] = CONFIG,
    set_: Optional[List[str]] = SET,
    limit: Optional[int] = typer.Option(
        None, "--limit", help=LIMIT.format("lines, the most played first") + "; default: 20"
    ),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A player's corner sequences against the tree: where each leaves it,
    the move played there, the player's own results, and what the tree's
    games played there.  Their own GAMES are read as the tree's games were
    (its phase 1 parameters; --config and --set may only repeat them)."""
    from joseki_miner.book import answers
    from joseki_miner.book.repertoire import repertoire as repertoire_of
    from joseki_miner.runs import asked

    catalog, steady = mined_catalog(out, work)
    most = _limit(limit, 20)

    def answer():
        if not games:
            asked.Known.of_games(catalog.games).player(player, str(catalog.games))
            return repertoire_of(catalog.joseki, catalog.sequences, catalog.games, player)
        import tempfile

        from .run import Request, run_stages

        with tempfile.TemporaryDirectory(prefix="joseki-repertoire-") as folder:
            own = Catalog(work=Path(folder) / "interim", out=Path(folder))
            run_stages(own, _as_the_tree_read(catalog, config, set_), [INGEST, EXTRACT], games, Request(progress=False))
            asked.Known.of_games(own.games).player(player, "the games given")
            return repertoire_of(catalog.joseki, own.sequences, own.games, player)

    found = answered(steady, answer)
    if not found["games"]:  # every game of the name was against themself
        fail(
            f"no game of {player!r} against another player"
            + (f" ({found['self_play']:,} against themself left out)" if found.get("self_play") else ""),
            1,
        )
    found = {**found, "lines": found["lines"][:most]}
    if json_:
        _json(found)
        return
    typer.echo(answers.repertoire_text(player, found))


@app.command()
def position(
    black: str = typer.Option("", "--black", help="Black's stones in the corner, as board points: Q16,R17"),
    white: str = typer.Option("", "--white", help="White's stones, as board points"),
    to_play: Optional[str] = typer.Option(None, "--to-play", help="B or W (default: either)"),
    sgf: Optional[str] = typer.Option(
        None, "--sgf", help="a game (or a diagram's AB/AW stones): its corner's position"
    ),
    move: Optional[int] = typer.Option(None, "--move", help="with --sgf: after this many moves (default: all)"),
    corner: Optional[str] = typer.Option(
        None, "--corner", help="with --sgf: UL, UR, LL or LR (default: the last move's)"
    ),
    out: str = OUT,
    work: Optional[Path] = WORK,
    limit: Optional[int] = typer.Option(None, "--limit", help=LIMIT.format("next moves") + "; default: 20"),
    json_: bool = typer.Option(False, "--json", help="one JSON object instead of text"),
) -> None:
    """A corner position, whatever order of moves reached it: its games,
    the orders that reach it, each next move and the most recent games; in
    any orientation, the colours as given or swapped.  Given by its stones,
    or as one corner of a game after some moves (--sgf)."""
    from joseki_miner.book import answers
    from joseki_miner.book.position import position as position_of

    catalog, steady = mined_catalog(out, work)
    most = _limit(limit, 20)

    def answer() -> dict:
        asked, where = _asked_position(catalog, black, white, to_play, sgf, move, corner)
        return {**position_of(catalog, asked), **where}

    found = answered(steady, answer)
    found = {**found, "moves": found["moves"][:most] if most else found["moves"]}
    if json_:
        _json({**found, "recent": [{k: v for k, v in r.items() if k != "day"} for r in found["recent"]]})
        return
    typer.echo(answers.position_text(found))


def _practice_file(path: Optional[Path]) -> Path:
    """The practice file, made where there is none; a PracticeError where it is not ours or cannot be written."""
    from joseki_miner.practice.schedule import Schedule

    with Schedule.open(path) as schedule:
        return schedule.path


def _asked_position(
    catalog: Catalog,
    black: str,
    white: str,
    to_play: Optional[str],
    sgf: Optional[str],
    move: Optional[int],
    corner: Optional[str],
):
    """The position asked for, and where it was taken from (--sgf): a game's
    corner is read with the tree's phase 1 (a handicap stone opens its
    corner where the tree's did)."""
    from joseki_miner.book.position import Position, from_game, read_game
    from joseki_miner.stages.params import phase1_params

    if sgf is None:
        if move is not None or corner is not None:
            raise UsageError("--move and --corner go with --sgf FILE")
        return Position.of(black, white, to_play), {}
    if black or white or to_play:
        raise UsageError("give the stones (--black, --white, --to-play) or --sgf FILE, not both")
    asked, where = from_game(read_game(sgf), phase1_params(_as_the_tree_read(catalog, None, [])), move, corner)
    return asked, {"sgf": sgf, **where}


def _as_the_tree_read(catalog: Catalog, config: Optional[Path], sets: Optional[List[str]]):
    """The config a player's own games are read with: phase 1 as the tree's
    games were read (a config that reads them otherwise is a UsageError);
    none of the filters of collections, eras or ranks mined."""
    import dataclasses

    from joseki_miner.runs import lineage

    given = load(config, sets or [])
    made = lineage.recorded(catalog.out) or {}
    tree = made.get("phase1") or {}
    named = set(tree) if config is not None else {s.split("=", 1)[0].strip() for s in sets or []}
    differ = {k: v for k, v in lineage.phase1(given).items() if k in named and k in tree and tree[k] != v}
    if differ:
        shown = ", ".join(f"{k}={tree[k]} (not {v})" for k, v in differ.items())
        raise UsageError(
            f"the tree was mined with {shown}: read the player's games as its games were, or mine "
            "the tree again with these parameters"
        )
    import json

    from joseki_miner.runs.config import KEYS

    same = load(config, [*(sets or []), *(f"{k}={json.dumps(v)}" for k, v in tree.items() if k in KEYS)])
    return dataclasses.replace(
        same,
        filter_years=None,
        filter_sources=None,
        filter_result_known=False,
        filter_players=None,
        filter_min_rank=None,
        filter_events=None,
        filter_handicap=None,
    )


@app.command()
def explore(
    out: str = OUT,
    work: Optional[Path] = WORK,
    port: int = typer.Option(8765, "--port", help="the port to serve on"),
    host: str = typer.Option("127.0.0.1", "--host", help="the address to serve on (default: this machine only)"),
    no_open: bool = typer.Option(False, "--no-open", help="do not open the page in a browser"),
    practice: Optional[Path] = typer.Option(
        None,
        "--practice",
        metavar="FILE",
        help="the practice file the page's reviews go to (SQLite; default: XDG_DATA_HOME or ~/.local/share, "
        "joseki-miner/practice.sqlite3)",
    ),
) -> None:
    """Serve the mined outputs in OUT on a local web page: every stored
    move on a board, with filters chosen at the click, and a JSON API
    (docs/explorer.md).  Ctrl-C stops it."""
    import socket

    from joseki_miner.explorer.app import Explorer
    from joseki_miner.explorer.server import serve

    catalog, steady = mined_catalog(out, work)
    if not 0 < port < 65536:
        fail(f"--port is 1 to 65535, not {port}", 2)
    try:
        with socket.socket() as s:
            s.bind((host, port))
    except OSError as exc:
        fail(f"cannot serve on {host}:{port}: {exc.strerror or exc} (another --port?)", 2)
    practice_file = answered(steady, lambda: _practice_file(practice))  # refused before the index is read
    explorer = answered(steady, lambda: Explorer.open(catalog))
    explorer.practice = practice_file

    def ready(url: str) -> None:
        typer.echo(f"joseki explore: serving {catalog.out} at {url}/ (Ctrl-C stops it)")
        if not no_open:
            import webbrowser

            webbrowser.open(f"{url}/")

    try:
        serve(explorer, host, port, ready)
    except KeyboardInterrupt:
        pass
    fail("explore: stopped", 130)
