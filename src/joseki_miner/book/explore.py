"""Looking into mined outputs: ``joseki lookup``, ``games`` and ``trend``.

Reads the build's files in the work folder (trie.parquet and its years and
collections: every node counted at least twice; sorted_sequences.parquet:
every sequence in trie order) and games.parquet; writes nothing but an SGF
collection when asked.  Kept light (no compiled code is loaded), so a
lookup answers in a fraction of a second from a cold process."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from joseki_miner.fast.arrow import column, numpy, strings
from joseki_miner.fast.parquet import RowGroups, groups_where, read_columns, row_range
from joseki_miner.method.gameinfo import date_text, wilson
from joseki_miner.book.lookup import Query, board_name, check_playable, corner_of, query, sorted_range
from joseki_miner.book.compare import collections_of
from joseki_miner.book.strata import (
    Cells,
    coded_year_collections,
    held_years,
    node_cells,
    peak_of,
    within_shares,
)
from joseki_miner.book.words import YEAR_FLOOR, peak_year, record_name, share_of, short_names, start_text
from joseki_miner.runs import lineage
from joseki_miner.method.points import TENUKI, from_sgf

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.errors import JosekiError

TRIE_COLUMNS = ["parent", "depth", "move", "count", "games", "black_wins", "white_wins", "first_year", "last_year"]


class NotMined(JosekiError):
    """The outputs needed are not there; the message says which."""

    exit_code = 2


class NotInTree(JosekiError):
    """The tree does not hold the sequence; ``held`` is the longest prefix it holds."""

    def __init__(self, q: Query, held: int, node: dict) -> None:
        shown = " ".join(q.board_move(k) for k in q.keys[:held]) or "(the empty board)"
        count = f"{node['count']:,} sequences" if held else "the root"
        super().__init__(
            f"the tree does not hold {q.board_text()}: it holds {held} of its {len(q.keys)} moves, "
            f"{shown} ({count}); rarer lines are not stored (they were played once)"
        )
        self.held = held


class NoGames(JosekiError):
    """No game mined plays the sequence asked for (``joseki games``), as
    ``NotInTree`` for a lookup: an answer that found nothing (exit 1)."""

    def __init__(self, q: Query) -> None:
        super().__init__(f"no game mined starts {q.board_text()} in a corner")


def _need(path: Path) -> Path:
    """``path``, a file or a folder of parts (the dask engine's games.parquet
    and sequences.parquet), or why the run has nothing to answer from."""
    if not (path.is_file() or (path.is_dir() and any(path.glob("part-*.parquet")))):
        raise NotMined(f"no {path.name} in {path.parent}: mine some games first (joseki mine GAMES --out ...)")
    return path


def move_keys(moves: pa.ChunkedArray) -> np.ndarray:
    """A trie table's ``move`` column (read as a dictionary) as trie keys,
    each distinct move decoded once."""
    keys = [np.zeros(0, np.int64)]
    for chunk in moves.chunks:  # a part's dictionary each (a folder of parts)
        table_keys = np.array([TENUKI if m == "" else from_sgf(m) for m in chunk.dictionary.to_pylist()], np.int64)
        keys.append(table_keys[numpy(chunk.indices)])
    return np.concatenate(keys)


@dataclass
class Tree:
    """The stored trie: each node's parent and key, by node number; the
    rest of a node's row read when asked (``rows``)."""

    path: Path
    parent: np.ndarray
    key: np.ndarray

    @classmethod
    def read(cls, catalog: Catalog) -> Tree:
        table = read_columns(_need(catalog.trie), ["parent", "move"], dictionary=["move"])
        if not len(table):
            return cls(catalog.trie, np.zeros(0, np.int64), np.zeros(0, np.int64))
        return cls(catalog.trie, numpy(table.column("parent")), move_keys(table.column("move")))

    def find(self, keys: tuple[int, ...]) -> tuple[int, int]:
        """The node of ``keys``, and how many of them the tree holds."""
        node = 0
        for depth, k in enumerate(keys):
            found = np.flatnonzero((self.parent == node) & (self.key == k))
            if not len(found):
                return node, depth
            node = int(found[0])
        return node, len(keys)

    def rows(self, nodes: np.ndarray) -> list[dict]:
        """The statistics of some nodes (``TRIE_COLUMNS``, and the kind
        where the tree was mined with kinds), as dicts."""
        columns = [c for c in TRIE_COLUMNS if c not in ("parent", "move")] + ["first"]
        groups = RowGroups(self.path)
        if "kind" in groups.schema.names:
            columns.append("kind")
        return groups.rows_at(np.asarray(nodes, np.int64), columns).to_pylist()

    def node(self, n: int) -> dict:
        return self.rows(np.array([n]))[0]

    def children(self, n: int) -> tuple[np.ndarray, list[dict]]:
        """A node's children, by count (then by move), and their rows."""
        kids = np.flatnonzero(self.parent == n)
        rows = self.rows(kids)
        order = sorted(range(len(kids)), key=lambda i: (-rows[i]["count"], int(self.key[kids[i]])))
        return kids[order], [rows[i] for i in order]


def _rows_of(path: Path, node: int) -> list[tuple]:
    """A node's rows of trie_years or trie_sources (sorted by node): only
    the row groups whose node range holds it are read."""
    groups = RowGroups(_need(path))
    table = groups.read(groups.picked(lambda least, most: least <= node <= most), groups.schema.names)
    nodes = numpy(table.column("node"))
    lo, hi = np.searchsorted(nodes, node), np.searchsorted(nodes, node, side="right")
    part = table.slice(lo, hi - lo)
    return list(zip(part.column(1).to_pylist(), part.column(2).to_pylist()))


def win_rate(black: int, white: int) -> dict:
    """The tree's Black's (the first to play in the corner) win rate of the
    games with a winner, and its 95% Wilson interval."""
    decided = black + white
    low, high = wilson(black, decided)
    return {"decided": decided, "black": black / decided if decided else None, "low": low, "high": high}


def asked(catalog: Catalog, text: str) -> Query:
    """The sequence asked for, in normal form; checked (``playable``) only
    where the tree does not hold it."""
    return query(text, checked=False)


def playable(catalog: Catalog, q: Query) -> None:
    """A SequenceError where no corner can hold the sequence asked for,
    checked against the tree's own phase 1 (its moves within the
    distance.maybe it was mined with, where the output folder records it)."""
    made = lineage.recorded(catalog.out) or {}
    check_playable(q.colours, q.points, (made.get("phase1") or {}).get("distance.maybe"))


def lookup(catalog: Catalog, text: str) -> dict:
    """A sequence's node and continuations (``joseki lookup``): counts,
    games, wins in the tree's colours, years, collections; continuations
    with their moves as the player writes them, and as a board names them
    (``board``), and their shares (``words.share_of``)."""
    q = asked(catalog, text)
    tree = Tree.read(catalog)
    n, held = tree.find(q.keys)
    if held < len(q.keys):
        playable(catalog, q)
        raise NotInTree(q, held, tree.node(n))
    node = tree.node(n)
    continuations = []
    kids, rows = tree.children(n)
    for c, child in zip(kids, rows):
        key = int(tree.key[c])
        continuations.append(
            {
                "move": q.move_text(key, len(q.keys) + 1),
                "board": q.board_move(key),
                "normal": sgf_key(key, len(q.keys) + 1),
                **_stats(child),
                "share": share_of(child["count"], node["count"]) or 0.0,
                **({"kind": child["kind"]} if "kind" in child else {}),
            }
        )
    return {
        **names_of(q),
        **_stats(node),
        **({"kind": node["kind"]} if "kind" in node else {}),
        "years": {int(y): int(g) for y, g in _rows_of(catalog.trie_years, n)},
        **_most_popular(catalog, node),
        "sources": {s: int(g) for s, g in _rows_of(catalog.trie_sources, n)},
        "ended_or_rarer": node["count"] - sum(c["count"] for c in continuations),
        "continuations": continuations,
    }


@dataclass(frozen=True)
class Mined:
    """The games mined: each one's year and collection (an index of
    ``names``), and their games by year and collection (``cells``)."""

    year: np.ndarray
    code: np.ndarray
    names: list[str]
    cells: Cells

    @classmethod
    def read(cls, catalog: Catalog) -> Mined:
        year = numpy(read_columns(_need(catalog.games), ["year"]).column("year")).astype(np.int64)
        code, names = collections_of(catalog.games)
        return cls(year, code, names, coded_year_collections(year, code, names))

    def node(self, catalog: Catalog, node: dict) -> Cells:
        """A stored node's games by year and collection, counted from its
        sequences in trie order (each game once)."""
        part = row_range(_need(catalog.sorted_sequences), node["first"], node["first"] + node["count"], ["game"])
        game = numpy(part.column("game")) if len(part) else np.zeros(0, np.int64)
        return node_cells([[(0, len(game))]], game, self.year, self.code, self.names)[0]


def _most_popular(catalog: Catalog, node: dict) -> dict:
    """The year a node was most popular (``words.peak_year``), and whether
    within collections (the games mined are of more than one)."""
    mined = Mined.read(catalog)
    return {
        "most_popular": peak_year(mined.node(catalog, node), mined.cells),
        "most_popular_within_collections": len(mined.names) > 1,
    }


def _stats(node: dict) -> dict:
    return {
        "count": node["count"],
        "games": node["games"],
        "black_wins": node["black_wins"],
        "white_wins": node["white_wins"],
        "first_year": node["first_year"] or None,
        "last_year": node["last_year"] or None,
    }


def names_of(q: Query) -> dict:
    """The sequence as a lookup names it: as given, on the board, in
    normal form (SGF's and the board's), and who plays first."""
    return {
        "sequence": q.text(),
        "board": q.board_text(),
        "normal": " ".join(sgf_key(k, d) for d, k in enumerate(q.keys, 1)),
        "normal_board": " ".join(_board_key(k) for k in q.keys),
        "first_player": "white" if q.swapped else "black",
    }


def _board_key(key: int) -> str:
    """A tree key as a board names it, in the tree's orientation (D16)."""
    return "tenuki" if key == TENUKI else board_name(key)


def sgf_key(key: int, depth: int) -> str:
    """A tree key at ``depth`` as a lookup's ``normal`` writes it (B[dd])."""
    from joseki_miner.method.points import to_sgf

    colour = "B" if depth % 2 else "W"
    return f"{colour}[{to_sgf(key) if key != TENUKI else ''}]"


def _moves_of(catalog: Catalog, game: np.ndarray, sequence: np.ndarray) -> pa.StringArray:
    """The moves of some sequences (by game and number), from
    sequences.parquet (in game order): only the row groups whose games they
    are in are read."""
    low, high = (int(game.min()), int(game.max())) if len(game) else (0, -1)
    table = groups_where(
        _need(catalog.sequences), lambda least, most: least <= high and most >= low, ["game", "sequence", "moves"]
    )
    if not len(table) or not len(game):
        return strings([])
    key = numpy(table.column("game")) * 1024 + numpy(table.column("sequence"))  # the file's order
    rows = np.searchsorted(key, game.astype(np.int64) * 1024 + sequence)
    return table.column("moves").combine_chunks().take(column(rows))


GAME_COLUMNS = ["source", "location", "collection", "PB", "BR", "PW", "WR", "DT", "RE", "KM"]
RECORD_COLUMNS = ["moves", "setup_black", "setup_white"]


def games_of(
    catalog: Catalog, text: str, limit: int | None = None, records: bool = False
) -> tuple[Query, pa.Table, int]:
    """Every game with a corner sequence that starts with the sequence
    (``joseki games``), the most recent first, each once, at its
    earliest-started such sequence: a table of the games' information (and
    their moves and setup stones, with ``records``), the move number and
    corner where the sequence starts; and how many games there are in all.

    The sequences in trie order that start with it are a range: a stored
    node's ``first`` and ``count`` give it; past the stored nodes (a line
    played once), the deepest node stored gives the range, and a binary
    search of its sequences' moves (from sequences.parquet) narrows it."""
    q = asked(catalog, text)
    tree = Tree.read(catalog)
    n, held = tree.find(q.keys)
    in_order = RowGroups(_need(catalog.sorted_sequences))
    node = tree.node(n)
    lo, hi = node["first"], node["first"] + node["count"]
    if held < len(q.keys):  # within the deepest node stored: a binary search of its sequences' moves
        within = in_order.row_range(lo, hi, ["game", "sequence"])
        moves = _moves_of(catalog, numpy(within.column("game")), numpy(within.column("sequence")))
        offsets = np.frombuffer(moves.buffers()[1], np.int32, len(moves) + 1, moves.offset * 4).astype(np.int64)
        data = np.frombuffer(moves.buffers()[2], np.uint8) if len(moves) else np.zeros(0, np.uint8)
        a, b = sorted_range(offsets, data, q.keys)
        lo, hi = lo + a, lo + b
    part = in_order.row_range(lo, hi, ["game", "sequence", "start", "orientation"])
    game = numpy(part.column("game")) if len(part) else np.zeros(0, np.int64)
    sequence = numpy(part.column("sequence")) if len(part) else np.zeros(0, np.int32)
    earliest = np.lexsort((sequence, game))  # each game at its earliest-started sequence
    first = earliest[np.r_[True, np.diff(game[earliest]) != 0]] if len(game) else earliest
    games = RowGroups(_need(catalog.games))  # its parts' footers read once for both reads
    day = numpy(games.rows_at(game[first], ["day"]).column("day")) if len(first) else np.zeros(0, np.int32)
    recent = np.lexsort((game[first], -day.astype(np.int64)))
    total = len(recent)
    if not total:
        playable(catalog, q)
        raise NoGames(q)
    if limit is not None:
        recent = recent[:limit]
    chosen = first[recent]
    rows = games.rows_at(game[chosen], ["game", *GAME_COLUMNS, *(RECORD_COLUMNS if records else [])])
    start = numpy(part.column("start"))[chosen] if total else np.zeros(0, np.int32)
    orientation = numpy(part.column("orientation"))[chosen] if total else np.zeros(0, np.int8)
    corner = [corner_of(int(o), q.keys[0]) for o in orientation.tolist()]
    rows = rows.append_column("move", column(start, np.int32)).append_column("corner", strings(corner))
    return q, rows, total


def trend(catalog: Catalog, text: str, by_collection: bool = False) -> tuple[Query, list[dict]]:
    """A node's games by year, and their share of the games mined that
    year (``joseki trend``), with its share within collections
    (``within``: ``strata.within_shares``; None for a year of too few
    games) and, for a year whose games are mostly one collection's
    (``strata.held_years``), that collection and its share of the year
    (``held_by``, ``held_share``; None for the others); with
    ``by_collection``, by collection and year (each collection's games over
    the games it gave that year).  Counted from the node's games themselves."""
    q = asked(catalog, text)
    tree = Tree.read(catalog)
    n, held = tree.find(q.keys)
    if held < len(q.keys):
        playable(catalog, q)
        raise NotInTree(q, held, tree.node(n))
    mined = Mined.read(catalog)
    if not mined.cells:
        return q, []
    first, last = min(mined.cells), max(mined.cells)
    cells = mined.node(catalog, tree.node(n))
    within = within_shares(cells, mined.cells, YEAR_FLOOR)
    marks = held_years(mined.cells)

    def row(y: int, games: int, of: int) -> dict:
        name, share = marks.get(y, (None, None))
        return {"year": y, "games": games, "mined": of, "share": games / of if of else None} | {
            "within": within.get(y),
            "held_by": name,
            "held_share": share,
        }

    if not by_collection:
        return q, [
            row(y, sum(cells.get(y, {}).values()), sum(mined.cells.get(y, {}).values())) for y in range(first, last + 1)
        ]
    return q, [
        {"collection": name} | row(y, cells.get(y, {}).get(name, 0), mined.cells.get(y, {}).get(name, 0))
        for name in mined.names
        for y in range(first, last + 1)
    ]


def trend_peak(rows: list[dict]) -> int | None:
    """The year a trend's line was most popular within collections (its
    rows' ``within``, ``strata.peak_of``)."""
    return peak_of({r["year"]: r["within"] for r in rows if r["within"] is not None})


def sgf_collection(rows: pa.Table) -> str:
    """The games of a ``games_of`` table as one SGF collection (FF[4]),
    their information and main lines, to replay them."""
    from joseki_miner.method.records import decode_moves, decode_points
    from joseki_miner.method.points import to_sgf

    def value(text: str) -> str:
        return text.replace("\\", "\\\\").replace("]", "\\]")

    trees = []
    listed = rows.to_pylist()
    names = short_names(sorted({row["collection"] or "" for row in listed}))
    for row in listed:
        info = {**row, "DT": date_text(row["DT"] or "")}  # SGF's own form of a date
        props = "".join(
            f"{name}[{value(info[name])}]" for name in ("PB", "BR", "PW", "WR", "DT", "RE", "KM") if info[name]
        )
        where = record_name(row, names)  # as the book names it: no path of the machine that mined it
        note = f"{where} (the sequence starts at {start_text(row['move'])}, {row['corner']})"
        props += f"GC[{value(note)}]"
        setup = ""
        if row["setup_black"]:
            setup += "AB" + "".join(f"[{to_sgf(p)}]" for p in decode_points(row["setup_black"]))
        if row["setup_white"]:
            setup += "AW" + "".join(f"[{to_sgf(p)}]" for p in decode_points(row["setup_white"]))
        body = "".join(f";{'B' if m.colour < 0 else 'W'}[{to_sgf(m.point)}]" for m in decode_moves(row["moves"]))
        trees.append(f"(;FF[4]GM[1]SZ[19]CA[UTF-8]{props}{setup}{body})")
    return "\n".join(trees) + "\n"
