"""What changed between two sides of the games mined (two eras, two sets
of collections, a player against the rest): every move of the pruned tree
with its share of the position's sequences on each side, and how sure the
difference is.

A side is a set of ``filter.*`` keys (``runs.inputs.Filters``) applied to
the games mined.  A move's share on a side is the share lookup and the
report give it (``words.share_of``), counted in that side's games alone:
its sequences over those at the position before it.  The difference of the two shares is tested with a
two-proportion z-test; its 95% interval is Newcombe's (from the two
shares' Wilson intervals).  A change is real when the interval leaves out
0.  The real changes are ranked by the least difference the interval
allows, weighed by how often the position arises (the larger of its
shares of each side's games): a change at a position nearly every game
reaches comes before one in a rare line, however large."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

from joseki_miner.book.words import board_line, share_of
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import read_columns
from joseki_miner.method.gameinfo import wilson
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.inputs import Collections, Filters

LEAST_GAMES = 30  # a side whose position has fewer sequences says too little of a move's share there


Eras = tuple[tuple[int, int], tuple[int, int]]  # the earlier and the later era's first and last year


@dataclass(frozen=True)
class EraCounts:
    """What the report's page of what changed counts, counted by the run
    that pruned the tree (the dask engine's shards, each its own
    sequences): each node's sequences in the earlier and the later era
    (``reached``: a row a node of joseki.parquet, in its order; a column
    an era), each era's games and the eras' years (first, last)."""

    reached: np.ndarray
    games: tuple[int, int]
    years: Eras

    @classmethod
    def of_games(cls, reached: np.ndarray, by_year: dict[int, int], years: Eras) -> EraCounts:
        """The counts ``reached`` of the eras ``years`` of games counted by
        year (``by_year``)."""
        a, b = (sum(n for year, n in by_year.items() if in_era(year, era)) for era in years)
        return cls(reached, (int(a), int(b)), years)

    def of(self, tree) -> dict:
        """``compared`` of the pruned tree (joseki.parquet's table), with
        the eras' names, as ``book.files.changes`` gives it: a node's
        sequences that reached it are those at its position (so only
        where move orders are not merged)."""
        if len(self.reached) != tree.num_rows:
            raise RuntimeError(f"the eras were counted for {len(self.reached)} nodes, the tree holds {tree.num_rows}")
        a, b = self.years
        changed = compared(tree, self.reached, self.reached, self.games)
        return {**changed, "before": era_name(*a), "after": era_name(*b)}


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
    table = read_columns(games, ["year", "winner", "collection", "handicap", *(Filters.PEOPLE if people else ())])
    year, winner = numpy(table.column("year")), numpy(table.column("winner"))
    handicap = numpy(table.column("handicap"))
    collection = table.column("collection").to_pylist()
    values = {k: [v or "" for v in table.column(k).to_pylist()] for k in Filters.PEOPLE} if people else None
    return [
        np.array(
            [r is None for r in side.reasons(year, winner, collection, Collections([]), values, handicap)], dtype=bool
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
    tree = pq.ParquetFile(joseki).read()
    node, first, count = (numpy(tree.column(name)) for name in ("node", "first", "count"))
    game = numpy(read_columns(sorted_sequences, ["game"]).column("game"))
    # each side's sequences before each row of the sequences in trie order: a range's count is a difference
    before = [np.r_[0, np.cumsum(side[game], dtype=np.int64)] for side in (in_a, in_b)]
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

    reached = np.array([counted(came[n]) for n in node.tolist()], np.int64).reshape(-1, 2)
    held = np.array([counted(ranges[n]) for n in node.tolist()], np.int64).reshape(-1, 2)
    return compared(tree, reached, held, (int(in_a.sum()), int(in_b.sum())), least)


def compared(tree, reached: np.ndarray, held: np.ndarray, games: tuple[int, int], least: int = LEAST_GAMES) -> dict:
    """``compare`` of the pruned tree (joseki.parquet's table), given each
    node's sequences on each side: those that reached it from its parent's
    position (``reached``: a row a node, a column a side) and those at its
    position (``held``), and each side's ``games``."""
    node, parent = numpy(tree.column("node")), numpy(tree.column("parent"))
    moves = tree.column("move").to_pylist()
    kinds = tree.column("kind").to_pylist() if "kind" in tree.column_names else [None] * len(node)
    row_of = {n: i for i, n in enumerate(node.tolist())}
    total = (max(1, games[0]), max(1, games[1]))
    line: dict[int, list[str]] = {0: []}
    changes = []
    for i, n in enumerate(node.tolist()):
        p = int(parent[i])
        if p < 0:
            continue
        line[n] = line[p] + [moves[i]]
        (xa, xb), (na, nb) = reached[i].tolist(), held[row_of[p]].tolist()
        if min(na, nb) < least:
            continue
        sa, sb = _share(xa, na), _share(xb, nb)
        difference = sb["share"] - sa["share"]
        low = difference - math.hypot(sb["share"] - sb["low"], sa["high"] - sa["share"])
        high = difference + math.hypot(sb["high"] - sb["share"], sa["share"] - sa["low"])
        pooled = (xa + xb) / (na + nb)
        spread = math.sqrt(pooled * (1 - pooled) * (1 / na + 1 / nb))
        z = difference / spread if spread else 0.0
        changes.append(
            {
                "sequence": _sequence(line[n]),
                "board": board_line(line[n]),
                "node": n,
                "kind": kinds[i],
                "tenuki": moves[i] == "",
                "a": sa,
                "b": sb,
                "difference": difference,
                "low": low,
                "high": high,
                "z": z,
                "p": math.erfc(abs(z) / math.sqrt(2)),
                "reach": max(na / total[0], nb / total[1]),
            }
        )
    risers = sorted((c for c in changes if c["low"] > 0), key=lambda c: (-c["low"] * c["reach"], c["sequence"]))
    fallers = sorted((c for c in changes if c["high"] < 0), key=lambda c: (c["high"] * c["reach"], c["sequence"]))
    return {
        "a": {"games": games[0]},
        "b": {"games": games[1]},
        "moves": len(changes),
        "risers": risers,
        "fallers": fallers,
    }
