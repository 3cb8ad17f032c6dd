"""The counted trie of normalized sequences (thesis 4.1 and section 8).

One node per distinct normalized prefix; the root is the empty board.  A
node's children are keyed by point or TENUKI; colours alternate with depth
(depth 1 is black), so a key is enough.  Every node counts the sequences that
pass through it and, per direction (up, right, down, left), how often the
influence there was black, white or neutral.  Beyond the thesis, each node
counts the games that reach it (a game that plays the shape in two corners
counts once), how many of them the tree's Black and White won, and its
games by year and by collection.  Tries built from parts of a collection
merge by adding counts, which is how work is split across processes or
machines.

Knows trie keys, influence classes and what a game adds (``GameStats``);
nothing of boards, game records or files.  Its arrays (``to_arrays``) are
the columns of the ``trie.parquet``/``joseki.parquet`` layout: node, parent, depth, color,
move, count, the twelve counters, and the statistics (``STAT_COLUMNS``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from joseki_miner.method.influence import INF_BLACK, INF_WHITE
from joseki_miner.method.points import DIRECTIONS, NPOINTS, TENUKI, from_sgf, to_sgf

if TYPE_CHECKING:  # pandas loads only when a table is made
    import pandas as pd

CLASSES = ("black", "white", "neutral")
COUNTER_COLUMNS = tuple(f"{d}_{k}" for d in DIRECTIONS for k in CLASSES)
# first: the node's first sequence in trie order (its sequences are the next
# ``count``); games: distinct games through it; wins in the tree's colours;
# the first and last year of its games (0: none known)
STAT_COLUMNS = ("first", "games", "black_wins", "white_wins", "first_year", "last_year")
COLUMNS = ("node", "parent", "depth", "color", "move", "count", *COUNTER_COLUMNS, *STAT_COLUMNS)
MOVE_NAMES = [to_sgf(k) for k in range(NPOINTS)] + [""]  # by key; "" = tenuki
COLOR_NAMES = ["", "B", "W"]


def _slot(cls: int) -> int:
    return 0 if cls == INF_BLACK else 1 if cls == INF_WHITE else 2


class GameStats(NamedTuple):
    """What a game adds to the nodes it reaches: its id, its winner in the
    tree's colours of the sequence (-1 black, +1 white, 0 none), its year
    (0 unknown) and its collection's index."""

    game: int
    winner: int = 0
    year: int = 0
    source: int = 0


class Trie:
    """A mergeable counted trie; node 0 is the root."""

    def __init__(self) -> None:
        self.parent: list[int] = [-1]
        self.key: list[int] = [-1]
        self.depth: list[int] = [0]
        self.count: list[int] = [0]
        self.counters: list[list[int]] = [[0] * 12]
        self.child: dict[tuple[int, int], int] = {}
        self.last_game: list[int] = [-1]  # the game a node counted last (a game's sequences come together)
        self.games: list[list[int]] = [[0, 0, 0]]  # games, black wins, white wins
        self.span: list[list[int]] = [[0, 0]]  # the first and last year of its games (0: none known)
        self.years: list[Counter] = [Counter()]
        self.sources: list[Counter] = [Counter()]
        self.anonymous = -1  # ids of the games of sequences inserted without one (each a game of its own)

    def __len__(self) -> int:
        return len(self.parent)

    def _child(self, node: int, key: int) -> int:
        found = self.child.get((node, key))
        if found is None:
            found = len(self.parent)
            self.child[(node, key)] = found
            self.parent.append(node)
            self.key.append(key)
            self.depth.append(self.depth[node] + 1)
            self.count.append(0)
            self.counters.append([0] * 12)
            self.last_game.append(-1)
            self.games.append([0, 0, 0])
            self.span.append([0, 0])
            self.years.append(Counter())
            self.sources.append(Counter())
        return found

    def insert(
        self, keys: Sequence[int], classes: Sequence[Sequence[int]], times: int = 1, game: GameStats | None = None
    ) -> None:
        """Add one normalized sequence: its keys and, per key, the influence
        class (INF_BLACK/INF_NEUTRAL/INF_WHITE) in each of the 4 directions.
        ``game``: the game it comes from (by default ``times`` games of their
        own, with no winner or year known); a game counts once at a node, by
        the first of its sequences inserted there, so insert a game's
        sequences together, in the order the game started them."""
        for _ in range(times if game is None else 1):
            self._insert(keys, classes, times if game is not None else 1, game)

    def _insert(self, keys, classes, times: int, game: GameStats | None) -> None:
        node = 0
        if game is None:
            self.anonymous -= 1
            game = GameStats(self.anonymous)
        self._add_game(0, game)
        self.count[0] += times
        for key, cls in zip(keys, classes):
            node = self._child(node, key)
            self.count[node] += times
            row = self.counters[node]
            for d in range(4):
                row[3 * d + _slot(cls[d])] += times
            self._add_game(node, game)

    def _add_game(self, node: int, game: GameStats) -> None:
        if self.last_game[node] == game.game:
            return
        self.last_game[node] = game.game
        row = self.games[node]
        row[0] += 1
        if game.winner:
            row[1 if game.winner < 0 else 2] += 1
        if game.year:
            self.years[node][game.year] += 1
            span = self.span[node]
            span[0] = min(span[0] or game.year, game.year)
            span[1] = max(span[1], game.year)
        self.sources[node][game.source] += 1

    def merge(self, other: "Trie") -> "Trie":
        """Add the counts of ``other`` into this trie (in place) and return it."""
        mapping = {0: 0}
        self.count[0] += other.count[0]
        for n in range(1, len(other)):  # parents come before children
            mine = self._child(mapping[other.parent[n]], other.key[n])
            mapping[n] = mine
            self.count[mine] += other.count[n]
            row, add = self.counters[mine], other.counters[n]
            for i in range(12):
                row[i] += add[i]
        for n, mine in mapping.items():
            self.games[mine] = [a + b for a, b in zip(self.games[mine], other.games[n])]
            self.years[mine] += other.years[n]
            self.sources[mine] += other.sources[n]
            known = [y for y in (*self.span[mine], *other.span[n]) if y]
            self.span[mine] = [min(known), max(known)] if known else [0, 0]
        return self

    def paths(self) -> dict[tuple[int, ...], int]:
        """Every node as (keys from the root) -> count; handy for comparing."""
        out: dict[tuple[int, ...], int] = {}
        keys: dict[int, tuple[int, ...]] = {0: ()}
        for n in range(len(self)):
            if n:
                keys[n] = keys[self.parent[n]] + (self.key[n],)
            out[keys[n]] = self.count[n]
        return out

    def canonical_order(self) -> list[int]:
        """Node ids in depth-first pre-order, children by key: an order that
        does not depend on the order sequences were inserted in."""
        kids: dict[int, list[int]] = {}
        for (parent, key), n in self.child.items():
            kids.setdefault(parent, []).append(n)
        order, stack = [], [0]
        while stack:
            n = stack.pop()
            order.append(n)
            stack.extend(sorted(kids.get(n, ()), key=lambda m: self.key[m], reverse=True))
        return order

    def firsts(self) -> dict[int, int]:
        """Per node, the rank of its first sequence in trie order (sequences
        sorted by keys, a prefix first): its sequences are the next
        ``count``.  The sequences that end at a node come before its
        children's, which come in key order."""
        kids: dict[int, list[int]] = {}
        for (parent, _), n in self.child.items():
            kids.setdefault(parent, []).append(n)
        first = {0: 0}
        for n in self.canonical_order():
            children = sorted(kids.get(n, ()), key=lambda m: self.key[m])
            at = first[n] + self.count[n] - sum(self.count[c] for c in children)
            for c in children:
                first[c] = at
                at += self.count[c]
        return first

    def to_arrays(self, min_count: int = 1) -> dict[str, np.ndarray]:
        """The nodes counted at least ``min_count`` times (and the root) in
        canonical order, renumbered: node, parent, depth, key, count, the
        (n, 12) counters, the statistics (``STAT_COLUMNS``), and rows (node,
        year, games) and (node, source, games) ordered by node (as
        fasttrie.count_sequences)."""
        order = [n for n in self.canonical_order() if n == 0 or self.count[n] >= min_count]
        new_id = {old: i for i, old in enumerate(order)}
        first = self.firsts()
        years = [(new_id[o], y, c) for o in order for y, c in sorted(self.years[o].items())]
        sources = [(new_id[o], k, c) for o in order for k, c in sorted(self.sources[o].items())]
        return {
            "node": np.arange(len(order), dtype=np.int64),
            "parent": np.array([new_id.get(self.parent[o], -1) for o in order], dtype=np.int64),
            "depth": np.array([self.depth[o] for o in order], dtype=np.int64),
            "key": np.array([self.key[o] for o in order], dtype=np.int16),
            "count": np.array([self.count[o] for o in order], dtype=np.int64),
            "counters": np.array([self.counters[o] for o in order], dtype=np.int64).reshape(-1, 12),
            "first": np.array([first[o] for o in order], dtype=np.int64),
            "games": np.array([self.games[o][0] for o in order], dtype=np.int64),
            "black_wins": np.array([self.games[o][1] for o in order], dtype=np.int64),
            "white_wins": np.array([self.games[o][2] for o in order], dtype=np.int64),
            "first_year": np.array([self.span[o][0] for o in order], dtype=np.int16),
            "last_year": np.array([self.span[o][1] for o in order], dtype=np.int16),
            "years": _rows(years),
            "sources": _rows(sources),
        }

    @classmethod
    def from_table(cls, table: pd.DataFrame) -> "Trie":
        """The trie of a node table (``fast.tables.trie_table``, or pruned from one):
        its nodes, counts, counters and statistics (not the rows of years
        and collections, which are tables of their own)."""
        trie = cls()
        ids = {}
        counters = table[list(COUNTER_COLUMNS)].to_numpy().tolist()
        stats = (
            table[["games", "black_wins", "white_wins", "first_year", "last_year"]].to_numpy().tolist()
            if "games" in table
            else [[0, 0, 0, 0, 0]] * len(table)
        )
        for i, (node, parent, move, count) in enumerate(
            zip(table["node"], table["parent"], table["move"], table["count"])
        ):
            if parent < 0:
                n = ids[node] = 0
            else:
                n = ids[node] = trie._child(ids[parent], from_sgf(move) if move else TENUKI)
            trie.count[n] = int(count)
            trie.counters[n] = counters[i]
            trie.games[n] = [int(v) for v in stats[i][:3]]
            trie.span[n] = [int(v) for v in stats[i][3:]]
        return trie


def _rows(rows: list[tuple[int, int, int]]) -> dict[str, np.ndarray]:
    """Rows (node, index, games) as columns, as ``fasttrie`` gives them."""
    a = np.array(rows, dtype=np.int64).reshape(-1, 3)
    return {"node": a[:, 0].copy(), "index": a[:, 1].astype(np.int16), "games": a[:, 2].astype(np.int32)}


NODE_ARRAYS = ("node", "parent", "depth", "key", "count", "counters", *STAT_COLUMNS)  # one row a node
EXTRA_ARRAYS = ("kind", "tenuki")  # one row a node, where a table has them
ROW_ARRAYS = ("years", "sources")  # rows (node, year or source, games)


def node_arrays(a: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The arrays of ``a`` that hold one row a node."""
    return {name: a[name] for name in (*NODE_ARRAYS, *EXTRA_ARRAYS) if name in a}


def build(sequences: Iterable[tuple[Sequence[int], Sequence[Sequence[int]]]]) -> Trie:
    """A trie of (keys, classes) pairs."""
    trie = Trie()
    for keys, classes in sequences:
        trie.insert(keys, classes)
    return trie
