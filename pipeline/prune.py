"""Stage 4, prune: trie.parquet -> joseki.parquet (thesis phase 2, step 1),
with the kept nodes' games by year (node_years.parquet) and by collection
(node_sources.parquet), and example games (node_examples.parquet)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from joseki_miner.engines import prune


def run(trie_path: Path, years_path: Path, sources_path: Path, sorted_path: Path, games_path: Path,
        outputs: dict[str, Path], **options) -> dict:
    """Prune trie.parquet; ``outputs``: paths of "joseki", "years", "sources",
    "examples"; ``options``: those of ``prune.prune_files``."""
    return prune.prune_files(trie_path, years_path, sources_path, sorted_path, games_path, outputs, **options)


def run_arrays(arrays: dict[str, np.ndarray], names: list[str], sorted_path: Path, games_path: Path,
               outputs: dict[str, Path], **options) -> dict:
    """``run`` on the trie's arrays just counted, while trie.parquet is
    still being written: the same files."""
    return prune.prune_arrays(arrays, names, sorted_path, games_path, outputs, **options)
