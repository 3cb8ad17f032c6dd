"""Stage 4, prune: trie.parquet -> joseki.parquet (thesis phase 2, step 1)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner import prune as method
from joseki_miner.arrow import column, numpy
from joseki_miner.trie import node_table


def run(trie_path: Path, joseki_path: Path, *, threshold: int, min_length: int) -> dict:
    table = pq.ParquetFile(trie_path).read()
    node = numpy(table.column("node"))
    parent = numpy(table.column("parent"))
    depth = numpy(table.column("depth"))
    keep, new_node, new_parent = method.survivors(node, parent, depth, numpy(table.column("count")), threshold,
                                                  min_length)
    pruned = table.filter(column(keep))
    pruned = pruned.set_column(0, "node", column(new_node)).set_column(1, "parent", column(new_parent))
    return _write(pruned, joseki_path, threshold, depth[keep], new_parent)


def run_arrays(arrays: dict[str, np.ndarray], joseki_path: Path, *, threshold: int, min_length: int) -> dict:
    """``run`` on the trie's node arrays in memory (``build.SortedRuns.count``), while
    trie.parquet is still being written: the same joseki.parquet."""
    node, parent, depth = arrays["node"], arrays["parent"], arrays["depth"]
    keep, new_node, new_parent = method.survivors(node, parent, depth, arrays["count"], threshold, min_length)
    pruned = node_table({**{name: a[keep] for name, a in arrays.items()}, "node": new_node, "parent": new_parent})
    return _write(pruned, joseki_path, threshold, depth[keep], new_parent)


def _write(pruned: pa.Table, joseki_path: Path, threshold: int, kept_depth: np.ndarray, new_parent: np.ndarray) -> dict:
    joseki_path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pruned, joseki_path, compression="zstd")
    is_leaf = np.ones(len(new_parent), dtype=bool)
    is_leaf[new_parent[new_parent >= 0]] = False
    is_leaf &= kept_depth > 0
    return {
        "threshold": threshold,
        "nodes_after_prune": int(len(new_parent)),
        "leaves": int(is_leaf.sum()),
        "deepest": int(kept_depth[is_leaf].max()) if is_leaf.any() else 0,
    }
