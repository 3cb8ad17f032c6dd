"""What changed between two sides of the games mined (two eras, two sets
of collections, a player against the rest): every move of the pruned tree
with its share of the position's sequences on each side, and how sure the
difference is.

A side is a set of ``filter.*`` keys (``runs.inputs.Filters``) applied to
the games mined.  A move's share on a side is the share lookup and the
report give it (``words.share_of``), counted in that side's games alone:
its sequences over those at the position before it.

The change is tested within collections (a stratum a collection,
``strata.stratified``: the Cochran-Mantel-Haenszel test, the
Mantel-Haenszel difference and Sato's interval), so that sides whose
collections' mixes differ do not read a change of collection as a change
of play; a collection with games on one side only says nothing of it.
Where one collection alone has games on both sides (the games of one
collection), the test is the two shares' own: a two-proportion z-test, and
Newcombe's 95% interval (from the two shares' Wilson intervals).  Where
the sides share no collection (a collection against another), no change
can be told within collections: the raw shares are tested so, and
``warnings`` says it.  Each change keeps the raw test's figures
(``raw``) and its counts by collection (``collections``).  A change is
real when the interval leaves out 0.  The real changes are ranked by the least difference the interval
allows, weighed by how often the position arises (the larger of its
shares of each side's games): a change at a position nearly every game
reaches comes before one in a rare line, however large."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from joseki_miner.book.strata import mix_warnings, stratified
from joseki_miner.book.words import board_line, share_of
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import read_columns
from joseki_miner.method.gameinfo import wilson
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.inputs import Collections, Filters

LEAST_GAMES = 30  # a side whose position has fewer sequences says too little of a move's share there


Eras = tuple[tuple[int, int], tuple[int, int]]  # the earlier and the later era's first and last year


def in_era(year, era: tuple[int, int]):
    """Which of the games of ``year`` (a number or an array) were played
    in ``era`` (its first and last year)."""
    return (year >= era[0]) & (year <= era[1])


def game_years(games: Path) -> np.ndarray:
    """Each game's year (0: unknown), of games.parquet."""
    return numpy(read_columns(games, ["year"]).column("year"))


def side_games(games: Path, *sides: Filters, year: np.ndarray | None = None) -> list[np.ndarray]:
    """Which games of games.parquet (by number) each side holds: the
    columns the filters read, read once for all the sides (the years
    alone where the sides are eras, ``year`` where read already: the
    report's page of what changed)."""
    if all(side == Filters(years=side.years) for side in sides):
        year = game_years(games) if year is None else year
        return [np.ones(len(year), dtype=bool) if side.years is None else in_era(year, side.years) for side in sides]
    people = any(side.by_people for side in sides)
    sampled = any(side.sample is not None for side in sides)
    table = read_columns(
        games,
        [
            "year",
            "winner",
            "collection",
            "handicap",
            *(Filters.PEOPLE if people else ()),
            *(["moves"] if sampled else []),
        ],
    )
    year, winner = numpy(table.column("year")), numpy(table.column("winner"))
    handicap = numpy(table.column("handicap"))
    collection = table.column("collection").to_pylist()
    values = {k: [v or "" for v in table.column(k).to_pylist()] for k in Filters.PEOPLE} if people else None
    moves = table.column("moves").to_pylist() if sampled else None
    return [
        np.array(
            [r is None for r in side.reasons(year, winner, collection, Collections([]), values, handicap, moves)],
            dtype=bool,
        )
        if side.active
        else np.ones(len(year), dtype=bool)
        for side in sides
    ]


def _sequence(moves: list[str]) -> str:
    """A line as the tree writes it in SGF: ``B[dd];W[cc];B[]``."""
    return ";".join(f"{'BW'[d % 2]}[{m}]" for d, m in enumerate(moves))


def _share(x: int, n: int) -> dict:
    """A side's share of a move: its sequences (``count``) over those at its
    position (``of``, its parent's count), as lookup and the report share."""
    low, high = wilson(x, n)
    return {"count": x, "of": n, "share": share_of(x, n), "low": low, "high": high}


def compare(catalog: Catalog, a: Filters, b: Filters, least: int = LEAST_GAMES) -> dict:
    """Every move of the pruned tree on sides ``a`` and ``b``: ``risers``
    (a larger share on ``b``) and ``fallers``, each the real changes only,
    the largest first; and each side's games (a tree mined with move orders
    merged: each node's orders, node_orders.parquet)."""
    orders = catalog.node_orders if catalog.node_orders.exists() else None
    return compare_files(catalog.joseki, catalog.sorted_sequences, catalog.games, a, b, least, orders)


def eras(year: np.ndarray, since: int | None = None) -> tuple[Filters, Filters, str, str] | None:
    """Two eras of the games mined (``year``: each game's, ``game_years``),
    the games before ``since`` and from it on (None: the year that splits
    the dated games in half), as sides and their names; None where the
    games hold fewer than two years."""
    both = era_years(*np.unique(year, return_counts=True), since)
    if both is None:
        return None
    a, b = both
    return Filters(years=a), Filters(years=b), era_name(*a), era_name(*b)


def era_years(years: np.ndarray, games: np.ndarray, since: int | None = None) -> Eras | None:
    """The years of ``eras``' eras (first, last of each), of the games
    counted by year (``years`` ascending, each with its ``games``): what a
    run's partitions know without reading a game."""
    known = np.asarray(years) > 0
    years, games = np.asarray(years)[known], np.asarray(games, np.int64)[known]
    if len(years) < 2:
        return None
    first, last = int(years[0]), int(years[-1])
    middle = int(years[np.searchsorted(np.cumsum(games), int(games.sum()) // 2, side="right")])  # the dated games' half
    since = min(max(middle if since is None else since, first + 1), last)
    return (first, since - 1), (since, last)


def era_name(first: int, last: int) -> str:
    """An era's name: its years."""
    return f"{first}-{last}" if last > first else f"{first}"


def compare_files(
    joseki: Path,
    sorted_sequences: Path,
    games: Path,
    a: Filters,
    b: Filters,
    least: int = LEAST_GAMES,
    orders: Path | None = None,
    year: np.ndarray | None = None,
) -> dict:
    """``compare`` on the files: joseki.parquet, sorted_sequences.parquet
    and games.parquet (and node_orders.parquet where move orders are
    merged: a node's sequences are then a range a member order; ``year``:
    the games' years, where read already)."""
    in_a, in_b = side_games(games, a, b, year=year)
    code, names = collections_of(games)
    tree = pq.ParquetFile(joseki).read()
    node, first, count = (numpy(tree.column(name)) for name in ("node", "first", "count"))
    game = numpy(read_columns(sorted_sequences, ["game"]).column("game"))
    # each side's sequences of each collection before each row of the sequences in trie order: a range's count
    # is a difference
    before = [
        np.r_[0, np.cumsum((side & (code == k))[game], dtype=np.int64)]
        for side in (in_a, in_b)
        for k in range(len(names))
    ]
    ranges: dict[int, list[tuple[int, int]]] = {
        n: [(lo, c)] for n, lo, c in zip(node.tolist(), first.tolist(), count.tolist())
    }
    came = ranges  # what reached a node from its parent's position: all of it, but where orders are merged
    if orders is not None:
        rows = pq.ParquetFile(orders).read()
        ranges, came = {n: [] for n in ranges}, {n: [] for n in ranges}
        for n, lo, c, through in zip(*(rows.column(k).to_pylist() for k in ("node", "first", "count", "through"))):
            ranges[n].append((lo, c))
            if through:
                came[n].append((lo, c))

    def counted(parts: list[tuple[int, int]]) -> list[int]:
        return [int(sum(side[lo + c] - side[lo] for lo, c in parts)) for side in before]

    shape = (-1, 2, len(names))
    reached = np.array([counted(came[n]) for n in node.tolist()], np.int64).reshape(shape)
    held = np.array([counted(ranges[n]) for n in node.tolist()], np.int64).reshape(shape)
    by = {name: (int((in_a & (code == k)).sum()), int((in_b & (code == k)).sum())) for k, name in enumerate(names)}
    return compared(tree, reached, held, (int(in_a.sum()), int(in_b.sum())), least, by)


def collections_of(games: Path) -> tuple[np.ndarray, list[str]]:
    """Each game's collection (an index of the names, sorted) of games.parquet."""
    names = read_columns(games, ["collection"]).column("collection").combine_chunks().dictionary_encode()
    listed = [str(n) for n in names.dictionary.to_pylist()]
    order = sorted(range(len(listed)), key=lambda i: listed[i])
    rank = np.empty(len(order), np.int64)
    rank[order] = np.arange(len(order))
    return (rank[numpy(names.indices)] if len(names) else np.zeros(0, np.int64)), [listed[i] for i in order]


@dataclass(frozen=True)
class _Sides:
    """The two sides' games: in all (``games``), and by collection
    (``names``, each one's games on each side in ``by_collection``; one
    nameless collection where ``told`` is False), with the collections that
    have games on both sides (``shared``: their indices)."""

    games: tuple[int, int]
    names: list[str]
    by_collection: list[tuple[int, int]]
    shared: list[int]
    told: bool

    @classmethod
    def of(cls, games: tuple[int, int], collections: dict[str, tuple[int, int]] | None) -> _Sides:
        names = list(collections or {"": games})
        by_collection = [collections[n] if collections else games for n in names]
        shared = [k for k, (ga, gb) in enumerate(by_collection) if ga and gb]
        return cls(games, names, by_collection, shared, bool(collections))


def compared(
    tree,
    reached: np.ndarray,
    held: np.ndarray,
    games: tuple[int, int],
    least: int = LEAST_GAMES,
    collections: dict[str, tuple[int, int]] | None = None,
) -> dict:
    """``compare`` of the pruned tree (joseki.parquet's table), given each
    node's sequences on each side: those that reached it from its parent's
    position (``reached``: a row a node, a column a side, a third axis a
    collection, of ``collections``' names in order, each with its games on
    each side; without it one collection) and those at its position
    (``held``), and each side's ``games``."""
    if reached.ndim == 2:  # one collection
        reached, held = reached[:, :, None], held[:, :, None]
    sides = _Sides.of(games, collections)
    changes, untested = _changes(tree, reached, held, sides, least)
    risers = sorted((c for c in changes if c["low"] > 0), key=lambda c: (-c["low"] * c["reach"], c["sequence"]))
    fallers = sorted((c for c in changes if c["high"] < 0), key=lambda c: (c["high"] * c["reach"], c["sequence"]))
    by_side = [{n: g[s] for n, g in zip(sides.names, sides.by_collection) if g[s]} for s in (0, 1)]
    return {
        "a": {"games": games[0], "collections": by_side[0]},
        "b": {"games": games[1], "collections": by_side[1]},
        "moves": len(changes),
        "within_collections": sides.told and bool(sides.shared),
        "untested": untested,
        "warnings": _warnings(sides, by_side),
        "risers": risers,
        "fallers": fallers,
    }


def _changes(tree, reached: np.ndarray, held: np.ndarray, sides: _Sides, least: int) -> tuple[list[dict], int]:
    """Every move of the tree whose position has at least ``least``
    sequences on both sides, tested (``_change``); and how many moves no
    collection on both sides could test."""
    node, parent = numpy(tree.column("node")), numpy(tree.column("parent"))
    moves = tree.column("move").to_pylist()
    kinds = tree.column("kind").to_pylist() if "kind" in tree.column_names else [None] * len(node)
    row_of = {n: i for i, n in enumerate(node.tolist())}
    total = (max(1, sides.games[0]), max(1, sides.games[1]))
    line: dict[int, list[str]] = {0: []}
    changes, untested = [], 0
    for i, n in enumerate(node.tolist()):
        p = int(parent[i])
        if p < 0:
            continue
        line[n] = line[p] + [moves[i]]
        x, at = reached[i], held[row_of[p]]
        (xa, xb), (na, nb) = x.sum(axis=1).tolist(), at.sum(axis=1).tolist()
        if min(na, nb) < least:
            continue
        sa, sb = _share(xa, na), _share(xb, nb)
        raw = _raw_test(sa, sb)
        within = _within(x[:, sides.shared], at[:, sides.shared]) if sides.shared else raw
        if within is None:
            untested += 1
            continue
        changes.append(
            {
                "sequence": _sequence(line[n]),
                "board": board_line(line[n]),
                "node": n,
                "kind": kinds[i],
                "tenuki": moves[i] == "",
                "a": sa,
                "b": sb,
                **within,
                "reach": max(na / total[0], nb / total[1]),
                "raw": raw,
                "collections": _by_collection(x, at, sides) if sides.told else {},
            }
        )
    return changes, untested


def _by_collection(x: np.ndarray, at: np.ndarray, sides: _Sides) -> dict[str, dict]:
    """A move's counts by collection on each side (``x``: its sequences,
    ``at``: its position's), the collections with sequences at its position."""
    return {
        name: {
            "a": {"count": int(x[0, k]), "of": int(at[0, k])},
            "b": {"count": int(x[1, k]), "of": int(at[1, k])},
        }
        for k, name in enumerate(sides.names)
        if at[0, k] or at[1, k]
    }


def _warnings(sides: _Sides, by_side: list[dict[str, int]]) -> list[str]:
    """What to mind in the sides' collections: their mixes
    (``strata.mix_warnings``), and sides that share no collection."""
    warnings = mix_warnings(*by_side, _short_names(sides.names)) if sides.told else []
    if sides.told and not sides.shared:
        warnings.append(
            "the two sides share no collection: no change can be told within collections, and the shares are "
            "compared raw (a change between collections, not within one)"
        )
    return warnings


def _short_names(names: list[str]) -> dict[str, str]:
    from joseki_miner.book.words import short_names

    return short_names(names)


def _raw_test(sa: dict, sb: dict) -> dict:
    """The two shares' own test: their difference, its 95% interval
    (Newcombe's, of the shares' Wilson intervals) and a two-proportion
    z-test."""
    xa, na, xb, nb = sa["count"], sa["of"], sb["count"], sb["of"]
    difference = sb["share"] - sa["share"]
    low = difference - math.hypot(sb["share"] - sb["low"], sa["high"] - sa["share"])
    high = difference + math.hypot(sb["high"] - sb["share"], sa["share"] - sa["low"])
    pooled = (xa + xb) / (na + nb)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
    z = difference / spread if spread else 0.0
    return {"difference": difference, "low": low, "high": high, "z": z, "p": math.erfc(abs(z) / math.sqrt(2))}


def _within(x: np.ndarray, at: np.ndarray) -> dict | None:
    """A change tested within the collections on both sides (``x``: the
    move's sequences, ``at``: its position's, a row a side, a column a
    collection): the stratified test where two or more collections have
    sequences at the position on both sides, the one collection's own test
    where one has, None where none has."""
    test = stratified(x[0], at[0], x[1], at[1])
    if not test["informative"]:
        return None
    if test["informative"] == 1:
        k = int(np.flatnonzero((at[0] > 0) & (at[1] > 0))[0])
        test = {**_raw_test(_share(int(x[0, k]), int(at[0, k])), _share(int(x[1, k]), int(at[1, k]))), "informative": 1}
    return test
