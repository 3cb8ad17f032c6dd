"""The node table (the ``trie.parquet``/``joseki.parquet`` layout) as
Arrow columns, from a trie's node arrays: what both engines write."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from joseki_miner.fast.arrow import column, strings
from joseki_miner.method.kinds import KINDS
from joseki_miner.method.points import TENUKI
from joseki_miner.method.trie import COLOR_NAMES, COUNTER_COLUMNS, MOVE_NAMES, STAT_COLUMNS, Trie

if TYPE_CHECKING:
    import pandas as pd

_BLOCK = 1 << 16


def numbered(ids: np.ndarray) -> np.ndarray:
    """0, 1, 2... within each run of equal ids: a row's place in its game
    (the sequences) or its node (the example games)."""
    if not len(ids):
        return np.zeros(0, dtype=np.int32)
    starts = np.r_[0, np.flatnonzero(np.diff(ids)) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(ids)]))
    return (np.arange(len(ids)) - run_start).astype(np.int32)


def node_table(a: dict[str, np.ndarray]) -> pa.Table:
    """The node table (trie.parquet / joseki.parquet layout) of node arrays;
    both the reference and the fast path write through here.  With a
    "kind" array (codes of ``kinds.KINDS``) the table says each node's kind
    after its move; with "tenuki" (``prune.tenuki_counts``), how often its
    line went on elsewhere, after its count."""
    depth = np.asarray(a["depth"], dtype=np.int64)
    keys = np.where(depth == 0, TENUKI, np.asarray(a["key"], dtype=np.int64))
    columns = {
        "node": column(a["node"], np.int64),
        "parent": column(a["parent"], np.int64),
        "depth": column(depth),
        "color": strings(list(COLOR_NAMES)).take(column(np.where(depth == 0, 0, 2 - depth % 2))),
        "move": strings(list(MOVE_NAMES)).take(column(keys)),
    }
    if "kind" in a:
        columns["kind"] = strings(list(KINDS)).take(column(a["kind"], np.int8))
    columns["count"] = column(a["count"], np.int64)
    if "tenuki" in a:
        columns["tenuki"] = column(a["tenuki"], np.int64)
    if "through" in a:  # where move orders are merged: what of the count came from the parent's position
        columns["through"] = column(a["through"], np.int64)
    counters = np.asarray(a["counters"]).reshape(-1, 12)
    by_column = np.empty((12, len(counters)), dtype=np.int64)
    for start in range(0, len(counters), _BLOCK):  # in blocks that stay in cache: a column-by-column
        by_column[:, start : start + _BLOCK] = counters[start : start + _BLOCK].T  # copy is 5x slower
    for i, name in enumerate(COUNTER_COLUMNS):
        columns[name] = column(by_column[i])
    for name in STAT_COLUMNS:
        columns[name] = column(a[name], np.int16 if name.endswith("_year") else np.int64)
    return pa.Table.from_arrays(list(columns.values()), names=list(columns))


def trie_table(trie: Trie) -> pd.DataFrame:
    """The trie as a table in canonical order (node ids renumbered)."""
    return node_table(trie.to_arrays()).to_pandas()
