"""Move orders merged on the stage files (prune.merge_orders): the trie's
node arrays, their positions read (``method.positions``) and merged into
one node a position (``method.orders``), each merged node counting what
its members count.

Counts and influence counters add up.  Games, wins, years and collections
do not where a node has several members (one game may reach the position
in two corners by two orders): they are counted again from the members'
sequences (sorted_sequences.parquet: each member's are a range of its
rows) and their games (games.parquet), a game counting once at a node, by
its first sequence there, as the build counts them.  Each merged node's
sequences are its members' ranges (``Segments``): the example games and
the page of what changed read them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from joseki_miner.stages.build import Collections, game_columns
from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import read_columns
from joseki_miner.method import orders
from joseki_miner.method.positions import position_keys
from joseki_miner.method.prune import first_keys, parent_rows
from joseki_miner.method.points import TENUKI


@dataclass(frozen=True)
class Segments:
    """Each merged node's sequences: rows ``first`` .. ``first + count`` of
    sorted_sequences.parquet, one range a member (``node`` ascending; a
    member's ``opening``: the first key of its own line)."""

    node: np.ndarray
    first: np.ndarray
    count: np.ndarray
    opening: np.ndarray
    through: np.ndarray | None = None  # whether the member's line comes from its node's parent's position

    def of(self, keep: np.ndarray, new_id: np.ndarray) -> Segments:
        """The segments of the nodes ``keep`` marks, renumbered by ``new_id``."""
        mine = keep[self.node]
        return Segments(
            new_id[self.node[mine]],
            self.first[mine],
            self.count[mine],
            self.opening[mine],
            None if self.through is None else self.through[mine],
        )


def merged(arrays: dict, sorted_path: Path, games_path: Path) -> tuple[dict, Segments]:
    """The merged tree's arrays (``arrays``' layout: node arrays, "years" and
    "sources" rows) of a trie's ``arrays`` (parents first, in a depth-first
    walk), and its nodes' segments."""
    node, parent, depth = (np.asarray(arrays[k], np.int64) for k in ("node", "parent", "depth"))
    key = np.where(depth == 0, TENUKI, np.asarray(arrays["key"], np.int64))
    prow = parent_rows(node, parent)
    count = np.asarray(arrays["count"], np.int64)
    m = orders.merge(prow, count, key, *position_keys(prow, depth, key))
    rows, starts = m.members()
    size = len(m.parent)
    out = {
        "node": np.arange(size, dtype=np.int64),
        "parent": m.parent,
        "depth": m.depth,
        "key": m.key.astype(np.asarray(arrays["key"]).dtype),
    }
    out["count"] = np.zeros(size, np.int64)
    np.add.at(out["count"], m.group, count)
    # the sequences that came to a node from its parent's position: its share of the moves played there
    through = np.r_[True, m.group[prow[1:]] == m.parent[m.group[1:]]]
    out["through"] = np.zeros(size, np.int64)
    np.add.at(out["through"], m.group[through], count[through])
    counters = np.zeros((size, 12), np.int64)
    np.add.at(counters, m.group, orders.turn_counters(np.asarray(arrays["counters"]).reshape(-1, 12), m.frame))
    out["counters"] = counters
    out["first"] = np.asarray(arrays["first"], np.int64)[m.representative]
    members = np.diff(starts)
    single = members == 1
    for name in ("games", "black_wins", "white_wins", "first_year", "last_year"):
        a = np.asarray(arrays[name])
        out[name] = np.zeros(size, a.dtype)
        out[name][single] = a[rows[starts[:-1][single]]]
    years, sources = _rows_of(arrays["years"], m.group, single), _rows_of(arrays["sources"], m.group, single)
    several = np.flatnonzero(~single)
    if len(several):
        extra = _counted_again(
            several, rows, starts, np.asarray(arrays["first"], np.int64), count, sorted_path, games_path
        )
        for name in ("games", "black_wins", "white_wins", "first_year", "last_year"):
            out[name][several] = extra[name].astype(out[name].dtype)
        years = _joined(years, extra["years"])
        sources = _joined(sources, extra["sources"])
    out["years"], out["sources"] = years, sources
    opening = first_keys(prow, key)  # ``rows``: by node, each node's by row
    return out, Segments(
        m.group[rows], np.asarray(arrays["first"], np.int64)[rows], count[rows], opening[rows], through[rows]
    )


def _rows_of(rows: dict, group: np.ndarray, single: np.ndarray) -> dict:
    """The "years" or "sources" rows of the merged nodes of one member:
    their member's rows, renumbered."""
    node = np.asarray(rows["node"], np.int64)
    mine = single[group[node]]
    return {
        "node": group[node[mine]],
        "index": np.asarray(rows["index"])[mine],
        "games": np.asarray(rows["games"])[mine],
    }


def _joined(a: dict, b: dict) -> dict:
    """Two sets of rows as one, ordered by node then index."""
    node = np.r_[a["node"], b["node"]].astype(np.int64)
    index = np.r_[a["index"], b["index"]].astype(np.asarray(a["index"]).dtype)
    games = np.r_[a["games"], b["games"]].astype(np.asarray(a["games"]).dtype)
    order = np.lexsort((index, node))
    return {"node": node[order], "index": index[order], "games": games[order]}


def _counted_again(
    several: np.ndarray,
    rows: np.ndarray,
    starts: np.ndarray,
    first: np.ndarray,
    count: np.ndarray,
    sorted_path: Path,
    games_path: Path,
) -> dict:
    """Games, wins, first and last year, and the rows of games by year and
    by collection of the merged nodes ``several``, from their members'
    sequences."""
    member = np.concatenate([rows[starts[g] : starts[g + 1]] for g in several.tolist()])
    owner = np.repeat(np.arange(len(several)), np.diff(starts)[several])
    lengths = count[member]
    at = np.repeat(first[member] - np.r_[0, np.cumsum(lengths)[:-1]], lengths) + np.arange(int(lengths.sum()))
    who = np.repeat(owner, lengths)
    order = read_columns(sorted_path, ["game", "sequence", "orientation"])
    game = numpy(order.column("game"))[at]
    sequence = numpy(order.column("sequence"))[at]
    swapped = numpy(order.column("orientation"))[at] >= 8
    winner, year, source = game_columns(read_columns(games_path, ["winner", "year", "collection"]), Collections())
    # a game counts once at a node, by its first sequence there (its colours: the tree's Black after a swap)
    pick = np.lexsort((sequence, game, who))
    head = np.r_[True, (who[pick][1:] != who[pick][:-1]) | (game[pick][1:] != game[pick][:-1])]
    chosen = pick[head]
    g, node = game[chosen], who[chosen]
    won = np.asarray(winner, np.int8)[g]
    won = np.where(swapped[chosen], -won, won)
    y = np.asarray(year)[g]
    k = len(several)
    out = {
        "games": np.bincount(node, minlength=k),
        "black_wins": np.bincount(node[won < 0], minlength=k),
        "white_wins": np.bincount(node[won > 0], minlength=k),
    }
    known = y > 0
    first_year = np.zeros(k, np.int64)
    last_year = np.zeros(k, np.int64)
    if known.any():
        first_year[:] = np.iinfo(np.int64).max
        np.minimum.at(first_year, node[known], y[known])
        np.maximum.at(last_year, node[known], y[known])
        first_year[first_year == np.iinfo(np.int64).max] = 0
    out["first_year"], out["last_year"] = first_year, last_year
    for name, value, where in (("years", y, known), ("sources", np.asarray(source)[g], np.ones(len(g), bool))):
        pair = several[node[where]] * 65536 + value[where].astype(np.int64)  # a year, a collection: under 2**16
        pairs, games = np.unique(pair, return_counts=True)
        out[name] = {"node": pairs // 65536, "index": pairs % 65536, "games": games}
    return out


__all__ = ["Segments", "merged"]
