"""The book's files: the pruned tree's tables read into a ``Book``, the
report's pages written (in parts, each by a task of its own on the dask
engine: the pages are the same bytes whoever writes them), DOT rendered to
SVG where Graphviz is."""

from __future__ import annotations

import shutil
import signal
from concurrent.futures import ThreadPoolExecutor
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.book import plots
from joseki_miner.book.html import is_node_page
from joseki_miner.book.node_page import GAMES, game_file
from joseki_miner.book.report import example_games, iter_pages, part_nodes
from joseki_miner.book.compare import collections_of, compare_files, eras, game_years
from joseki_miner.book.repertoire import repertoire
from joseki_miner.book.emit import game_sgf
from joseki_miner.book.strata import Cells, coded_year_collections, node_cells
from joseki_miner.book.words import About, Book, make_book, record_name
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import read_columns, rows_at
from joseki_miner.runs import stop, store
from joseki_miner.runs.context import Context
from joseki_miner.runs.progress import bar
from joseki_miner.runs.settings import BookSettings, ReportSettings, transpositions
from joseki_miner.runs.stages import INGEST, PRUNE


@dataclass(frozen=True)
class BookFiles:
    """Where a book's tables are (staged or committed) and what the run's
    stages found (``figures``: the ingest and prune figures)."""

    joseki: Path
    years: Path
    sources: Path
    examples: Path
    games: Path  # games.parquet of the work folder: the dates' range (absent: years only)
    figures: dict
    sorted_sequences: Path | None = None  # given: the report has a page of what changed between two eras
    since: int | None = None  # where the later era starts (None: the year that splits the games in half)
    sequences: Path | None = None  # sequences.parquet: the players' repertoires read it
    players: tuple[str, ...] = ()  # a page of each one's repertoire
    orders: Path | None = None  # node_orders.parquet, where move orders are merged: each node's sequences
    transpositions: Path | None = None  # node_transpositions.parquet: each node's other orders (kinds.transpositions)
    in_order: Path | None = None  # sorted_sequences.parquet: each node's games by year and collection (None: years)
    context: Path | None = None  # node_context.parquet: each node's games on their whole board (absent: not said)


def of_run(context: Context) -> BookFiles:
    """The pruned tree's tables as a run has them (staged where it has not
    committed them yet), the figures of the games it was mined from, and,
    where the settings are the report's, what the page of what changed and
    the players' pages read (the sequences in trie order: staged while
    ``mine``'s build is still being committed)."""
    catalog, current = context.catalog, context.current
    settings: BookSettings = context.settings
    report = settings if isinstance(settings, ReportSettings) else None
    in_order = store.staged(catalog.sorted_sequences)
    in_order = in_order if in_order.exists() else catalog.sorted_sequences
    return BookFiles(
        current(catalog.joseki),
        current(catalog.node_years),
        current(catalog.node_sources),
        current(catalog.node_examples),
        catalog.games,
        {**context.found(INGEST), **context.found(PRUNE)},
        in_order if report is not None and report.report_changed else None,
        report.report_since if report is not None else None,
        catalog.sequences,
        (report.report_players or ()) if report is not None else (),
        current(catalog.node_orders) if settings.prune_merge_orders else None,
        current(catalog.node_transpositions) if transpositions(settings) else None,
        in_order=in_order,
        context=current(catalog.node_context),
    )


def _date(day: int) -> str:
    """YYYYMMDD (00 for a month or day not known) as an SGF date."""
    year, month, d = day // 10000, day // 100 % 100, day % 100
    return f"{year:04d}" + (f"-{month:02d}" if month else "") + (f"-{d:02d}" if month and d else "")


def date_range(games: Path) -> tuple[str, str]:
    """The first and last date of the games mined ("" when none is known)."""
    try:
        day = numpy(read_columns(games, ["day"]).column("day"))
    except (OSError, KeyError, ValueError):
        return "", ""
    day = day[day > 0]
    return (_date(int(day.min())), _date(int(day.max()))) if len(day) else ("", "")


def load_book(files: BookFiles, *, share: float, min_length: int) -> Book:
    """The book of the pruned tree, with its statistics tables and what was
    mined."""
    figures = files.figures
    if "games_dates" in figures:  # ingest's figures name them (a run's manifest from before them does not)
        first, last = (_date(day) if day else "" for day in figures["games_dates"])
    else:
        first, last = date_range(files.games)
    about = About(
        games=int(figures.get("games_accepted", 0)),
        games_by_year={int(y): int(g) for y, g in figures.get("games_by_year", {}).items()},
        games_by_collection=dict(figures.get("games_by_collection", {})),
        first_date=first,
        last_date=last,
        threshold=int(figures.get("threshold", 0)),
        threshold_on=str(figures.get("threshold_on", "count")),
        min_length=min_length,
        share=share,
    )
    tables = [pq.ParquetFile(p).read() if p.exists() else None for p in (files.years, files.sources, files.examples)]
    others = pq.ParquetFile(files.transpositions).read() if files.transpositions else None
    tree = pq.ParquetFile(files.joseki).read()
    if files.context is not None and files.context.exists():
        tree = with_context(tree, pq.ParquetFile(files.context).read())
    cells = None
    if files.in_order is not None:
        mined, cells = cells_of(tree, files.in_order, files.games, files.orders)
        about = replace(about, cells=mined)
    return make_book(tree, *tables, about=about, transpositions=others, cells=cells)  # Arrow: no pandas to import


def with_context(tree: pa.Table, context: pa.Table) -> pa.Table:
    """joseki.parquet's ``tree`` with node_context.parquet's columns (each
    node's games with another stone near, its median move number) and its
    kinds (the board's, where a rule named a joseki move)."""
    if context.column("node").to_pylist() != tree.column("node").to_pylist():
        raise ValueError("node_context.parquet holds another tree's nodes than joseki.parquet")
    for name in ("near", "move_number"):
        tree = tree.append_column(name, context.column(name))
    if "kind" in tree.column_names:
        tree = tree.set_column(tree.column_names.index("kind"), "kind", context.column("kind"))
    return tree


def cells_of(
    tree: pa.Table, in_order: Path, games: Path, orders: Path | None = None
) -> tuple[Cells, list[dict[int, dict[str, int]]]]:
    """The games mined by year and collection, and each node's of the
    pruned tree (joseki.parquet's ``tree``, in its order): counted from the
    sequences in trie order (each node's rows: its ``first`` and ``count``,
    or its orders' in node_orders.parquet where move orders are merged) and
    the games' years and collections (``strata.node_cells``), for every
    node at once."""
    year = numpy(read_columns(games, ["year"]).column("year"))
    code, names = collections_of(games)
    mined = coded_year_collections(year, code, names)
    node, first, count = (numpy(tree.column(name)).tolist() for name in ("node", "first", "count"))
    ranges: dict[int, list[tuple[int, int]]] = {n: [(lo, c)] for n, lo, c in zip(node, first, count)}
    if orders is not None:
        rows = pq.ParquetFile(orders).read()
        ranges = {n: [] for n in node}
        for n, lo, c in zip(*(rows.column(k).to_pylist() for k in ("node", "first", "count"))):
            ranges[n].append((lo, c))
    game = numpy(read_columns(in_order, ["game"]).column("game"))
    return mined, node_cells([ranges[n] for n in node], game, year, code, names)


def changes(files: BookFiles) -> dict | None:
    """What changed from the earlier era of the games to the later
    (``compare``), with the eras' names; None without a page of it."""
    if files.sorted_sequences is None:
        return None
    year = game_years(files.games)
    sides = eras(year, files.since)
    if sides is None:
        return None
    a, b, before, after = sides
    return {
        **compare_files(files.joseki, files.sorted_sequences, files.games, a, b, orders=files.orders, year=year),
        "before": before,
        "after": after,
    }


def start(folder: Path) -> None:
    """``folder`` made anew, empty."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)


def write(
    files: BookFiles,
    folder: Path,
    *,
    share: float,
    min_length: int,
    part: tuple[int, int] = (0, 1),
    progress: bool = False,
) -> dict[str, list[int]]:
    """Write part ``part`` = (i, k) of the report's pages into ``folder``
    (``report.pages``) and the records of its share of the example games
    (``records``), with a bar of the pages where ``progress``; the sizes of
    the files written ("pages", "games").  The records are written and
    what changed between the eras is counted in threads (Parquet's reading
    and numpy's counting let the pages go on) while the nodes' pages (one
    part: all of them) or the groups' pages are made; the pages that need
    what changed come last."""
    book = load_book(files, share=share, min_length=min_length)
    sizes = []
    nodes = len(part_nodes(list(range(len(book.cols["node"]))), part))
    with ThreadPoolExecutor(max_workers=2, thread_name_prefix="report") as side:
        changed = side.submit(changes, files) if part[0] == 0 else None
        games = side.submit(records, book, files.games, folder, part)  # reading games.parquet lets the pages go on
        with bar(progress, total=nodes, desc="report", unit=" pages", leave=False) as shown:
            for name, text in iter_pages(
                book, plots.year_shares, part, lambda: changed and changed.result(), lambda: _players(files, part)
            ):
                data = text.encode("utf-8")
                (folder / name).write_bytes(data)
                sizes.append(len(data))
                if is_node_page(name):
                    shown.update(1)
        return {"pages": sizes, "games": games.result()}


RECORD_COLUMNS = ["PB", "BR", "PW", "WR", "DT", "EV", "RE", "KM", "size", "handicap"]
RECORD_COLUMNS += ["setup_black", "setup_white", "setup_events", "moves", "source", "location", "collection"]


def records(book: Book, games: Path, folder: Path, part: tuple[int, int] = (0, 1)) -> list[int]:
    """Write the records of the example games of part ``part`` = (i, k)
    (``report.example_games``) into ``folder``'s games folder, each an SGF
    of the game (``emit.game_sgf``) named by its collection and its place
    there; the sizes of the files written."""
    wanted = example_games(book, part)
    if not wanted:
        return []
    (folder / GAMES).mkdir(exist_ok=True)
    names = book.about.collection_names()
    rows = rows_at(games, np.asarray(wanted, np.int64), RECORD_COLUMNS).to_pylist()
    sizes = []
    for game, row in zip(wanted, rows):
        data = game_sgf(row, record_name(row, names)).encode("utf-8")
        (folder / game_file(game)).write_bytes(data)
        sizes.append(len(data))
    return sizes


PAGES_A_PART = 200  # a part loads the book (0.05-0.1 s for 800 nodes) and makes a node's page in about 1 ms
PARTS_A_WORKER = 4  # each part loads the whole book: a book of many thousand nodes gets larger parts, not more


def parts(nodes: int, workers: int) -> int:
    """How many parts write the report of ``nodes`` nodes (``write``): the
    book's own pages, and the node pages cut in parts of at most
    ``PAGES_A_PART``, a part a worker at least (where there are as many
    nodes) and ``PARTS_A_WORKER`` a worker at most."""
    wanted = max(min(workers, nodes), -(-nodes // PAGES_A_PART))
    return 1 + max(1, min(wanted, PARTS_A_WORKER * workers))


def _players(files: BookFiles, part: tuple[int, int]) -> list[dict]:
    """The repertoires the report shows (part 0 writes them)."""
    if part[0] != 0 or files.sequences is None:
        return []
    return [repertoire(files.joseki, files.sequences, files.games, p) for p in files.players]


def figures(parts: list[dict[str, list[int]]]) -> dict:
    """The stage's figures from the sizes of the files of every part
    (``write``'s): the pages but the style sheet, the games' records, the
    bytes of them all and of the largest page."""
    sizes = [size for part in parts for size in part["pages"]]
    games = [size for part in parts for size in part["games"]]
    return {
        "report_pages": len(sizes) - 1,
        "report_games": len(games),
        "report_bytes": sum(sizes) + sum(games),
        "report_largest_page_bytes": max(sizes),
    }


# Graphviz's dot draws a tree of 2,000 nodes in about 3 s on one core, of 3,000 in 4 s and of 8,600 in 68 s: a
# larger tree's SVG is left undrawn (its DOT is written)
SVG_NODES = 2000


def svg_skipped(nodes: int, limit: int | None = None) -> str | None:
    """Why a tree of ``nodes`` gets no SVG drawing (None: it gets one);
    ``limit``: the most nodes drawn (``SVG_NODES``)."""
    limit = SVG_NODES if limit is None else limit
    if nodes <= limit:
        return None
    return (
        f"the tree has {nodes:,} nodes, and Graphviz draws at most {limit:,} in seconds; the DOT files are "
        "written (dot -Tsvg joseki.dot > joseki.svg draws it, in minutes)"
    )


def render_svg(dot_text: str, svg_path: Path) -> bool:
    """Render DOT text to ``svg_path`` with Graphviz's ``dot``; False when
    it is missing.  Rendered through a pipe: no file but the one given is
    written.  ``dot`` runs in a session of its own: a Ctrl-C in the terminal
    is the run's to handle (it stops at its next check, in one line), and
    reaching ``dot`` mid-render it made ``dot`` abort with a message of
    its own.  A Ctrl-C sent to the run's group just as ``dot`` starts, before
    its session is its own, still ends it: ``dot`` ended by SIGINT or SIGTERM
    is the run's stop (``Stopped``), not a drawing that failed."""
    dot = shutil.which("dot")
    if dot is None:
        return False
    done = subprocess.run([dot, "-Tsvg"], input=dot_text.encode("utf-8"), capture_output=True, start_new_session=True)
    if -done.returncode in (signal.SIGINT, signal.SIGTERM):
        raise stop.Stopped(signal.Signals(-done.returncode).name)
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RuntimeError(f"dot could not render {svg_path.name}: {said[-1] if said else done.returncode}")
    svg_path.write_bytes(done.stdout)
    return True
