"""Stage 4, prune: trie.parquet -> joseki.parquet (thesis phase 2, step 1)."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq

from joseki_miner import prune as method

from .parquet import write_frame


def run(trie_path: Path, joseki_path: Path, *, threshold: int, min_length: int) -> dict:
    table = pq.read_table(trie_path).to_pandas()
    pruned = method.prune(table, threshold, min_length)
    write_frame(pruned, joseki_path)
    leaves = method.leaves(pruned)
    return {
        "threshold": threshold,
        "nodes_after_prune": len(pruned),
        "leaves": len(leaves),
        "deepest": int(leaves["depth"].max()) if len(leaves) else 0,
    }
