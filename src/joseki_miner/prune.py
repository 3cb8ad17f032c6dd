"""Phase 2, step 1 (thesis 4.2 and 7.3): cut the trie down to joseki.

Every subtree whose count is below the threshold goes; then every joseki
(root-to-leaf path) shorter than ``min_length`` goes.  A node's count is at
least any child's, so the result for a higher threshold is a subtree of the
result for a lower one, with the same counts (thesis section 6).

Works on node tables (see ``trie``); knows nothing of games or files.
"""

from __future__ import annotations

import math

import pandas as pd


def threshold(games: int, min_count: int | None, min_fraction: float) -> int:
    """The pruning threshold: ``min_count`` when set, else ``min_fraction``
    of the games mined, rounded up, and never below 1."""
    if min_count is not None:
        return max(1, int(min_count))
    return max(1, math.ceil(min_fraction * games - 1e-9))


def prune(table: pd.DataFrame, threshold: int, min_length: int) -> pd.DataFrame:
    """The nodes that survive phase 2, renumbered 0.. in table order (the
    root always survives).  ``table`` lists parents before children."""
    nodes = table["node"].tolist()
    parents = table["parent"].tolist()
    depths = table["depth"].tolist()
    counts = table["count"].tolist()
    row_of = {n: i for i, n in enumerate(nodes)}
    alive = [c >= threshold or p < 0 for c, p in zip(counts, parents)]
    # the deepest surviving node below (or at) each node
    deepest = [d if a else -1 for d, a in zip(depths, alive)]
    for i in range(len(nodes) - 1, 0, -1):
        if alive[i]:
            j = row_of[parents[i]]
            deepest[j] = max(deepest[j], deepest[i])
    keep = [a and (p < 0 or deepest[i] >= min_length) for i, (a, p) in enumerate(zip(alive, parents))]
    kept = table[keep].copy()
    new_id = {old: i for i, old in enumerate(kept["node"].tolist())}
    kept["node"] = kept["node"].map(new_id).astype("int64")
    kept["parent"] = kept["parent"].map(lambda p: new_id.get(p, -1)).astype("int64")
    return kept.reset_index(drop=True)


def leaves(table: pd.DataFrame) -> pd.DataFrame:
    """The rows below the root that have no children: the joseki."""
    has_child = set(table["parent"].tolist())
    return table[~table["node"].isin(has_child) & (table["depth"] > 0)]
