"""The counted trie of normalized sequences (thesis 4.1 and section 8).

One node per distinct normalized prefix; the root is the empty board.  A
node's children are keyed by point or TENUKI; colours alternate with depth
(depth 1 is black), so a key is enough.  Every node counts the sequences that
pass through it and, per direction (up, right, down, left), how often the
influence there was black, white or neutral.  Tries built from parts of a
collection merge by adding counts, which is how work is split across
processes or machines.

Knows trie keys and influence classes; nothing of boards, games or files.
The table form (``to_table``) is the ``trie.parquet``/``joseki.parquet``
layout: node, parent, depth, color, move, count and the twelve counters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrow import column, strings
from .influence import INF_BLACK, INF_WHITE
from .points import DIRECTIONS, NPOINTS, TENUKI, from_sgf, to_sgf

if TYPE_CHECKING:  # pandas loads only when a table is made
    import pandas as pd

CLASSES = ("black", "white", "neutral")
COUNTER_COLUMNS = tuple(f"{d}_{k}" for d in DIRECTIONS for k in CLASSES)
COLUMNS = ("node", "parent", "depth", "color", "move", "count", *COUNTER_COLUMNS)
MOVE_NAMES = [to_sgf(k) for k in range(NPOINTS)] + [""]  # by key; "" = tenuki
COLOR_NAMES = ["", "B", "W"]


def _slot(cls: int) -> int:
    return 0 if cls == INF_BLACK else 1 if cls == INF_WHITE else 2


class Trie:
    """A mergeable counted trie; node 0 is the root."""

    def __init__(self) -> None:
        self.parent: list[int] = [-1]
        self.key: list[int] = [-1]
        self.depth: list[int] = [0]
        self.count: list[int] = [0]
        self.counters: list[list[int]] = [[0] * 12]
        self.child: dict[tuple[int, int], int] = {}

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
        return found

    def insert(self, keys: Sequence[int], classes: Sequence[Sequence[int]], times: int = 1) -> None:
        """Add one normalized sequence: its keys and, per key, the influence
        class (INF_BLACK/INF_NEUTRAL/INF_WHITE) in each of the 4 directions."""
        node = 0
        self.count[0] += times
        for key, cls in zip(keys, classes):
            node = self._child(node, key)
            self.count[node] += times
            row = self.counters[node]
            for d in range(4):
                row[3 * d + _slot(cls[d])] += times

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

    def to_arrays(self, min_count: int = 1) -> dict[str, np.ndarray]:
        """The nodes counted at least ``min_count`` times (and the root) in
        canonical order, renumbered: node, parent, depth, key, count and the
        (n, 12) counters (as fasttrie.count_sequences)."""
        order = [n for n in self.canonical_order() if n == 0 or self.count[n] >= min_count]
        new_id = {old: i for i, old in enumerate(order)}
        return {
            "node": np.arange(len(order), dtype=np.int64),
            "parent": np.array([new_id.get(self.parent[o], -1) for o in order], dtype=np.int64),
            "depth": np.array([self.depth[o] for o in order], dtype=np.int64),
            "key": np.array([self.key[o] for o in order], dtype=np.int16),
            "count": np.array([self.count[o] for o in order], dtype=np.int64),
            "counters": np.array([self.counters[o] for o in order], dtype=np.int64).reshape(-1, 12),
        }

    def to_table(self) -> pd.DataFrame:
        """The trie as a table in canonical order (node ids renumbered)."""
        return node_table(self.to_arrays()).to_pandas()

    @classmethod
    def from_table(cls, table: pd.DataFrame) -> "Trie":
        """The trie of a table written by ``to_table`` (or pruned from one)."""
        trie = cls()
        ids = {}
        counters = table[list(COUNTER_COLUMNS)].to_numpy().tolist()
        for i, (node, parent, move, count) in enumerate(
            zip(table["node"], table["parent"], table["move"], table["count"])
        ):
            if parent < 0:
                ids[node] = 0
                trie.count[0] = int(count)
                trie.counters[0] = counters[i]
                continue
            key = from_sgf(move) if move else TENUKI
            n = trie._child(ids[parent], key)
            ids[node] = n
            trie.count[n] = int(count)
            trie.counters[n] = counters[i]
        return trie


def node_table(a: dict[str, np.ndarray]) -> pa.Table:
    """The node table (trie.parquet / joseki.parquet layout) of node arrays;
    both the reference and the fast path write through here."""
    depth = np.asarray(a["depth"], dtype=np.int64)
    keys = np.where(depth == 0, TENUKI, np.asarray(a["key"], dtype=np.int64))
    columns = {
        "node": column(a["node"], np.int64),
        "parent": column(a["parent"], np.int64),
        "depth": column(depth),
        "color": pc.take(strings(list(COLOR_NAMES)), column(np.where(depth == 0, 0, 2 - depth % 2))),
        "move": pc.take(strings(list(MOVE_NAMES)), column(keys)),
        "count": column(a["count"], np.int64),
    }
    counters = np.asarray(a["counters"]).reshape(-1, 12)
    by_column = np.empty((12, len(counters)), dtype=np.int64)
    for start in range(0, len(counters), _BLOCK):  # in blocks that stay in cache: a column-by-column
        by_column[:, start:start + _BLOCK] = counters[start:start + _BLOCK].T  # copy is 5x slower
    for i, name in enumerate(COUNTER_COLUMNS):
        columns[name] = column(by_column[i])
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


_BLOCK = 1 << 16


def build(sequences: Iterable[tuple[Sequence[int], Sequence[Sequence[int]]]]) -> Trie:
    """A trie of (keys, classes) pairs."""
    trie = Trie()
    for keys, classes in sequences:
        trie.insert(keys, classes)
    return trie
