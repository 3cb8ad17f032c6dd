"""Stage 3, build: sequences.parquet (and games.parquet) -> trie.parquet,
trie_years.parquet, trie_sources.parquet, sorted_sequences.parquet.

Counts every normalized sequence into the trie (sections 5 and 8).  The
work is ``joseki_miner.engines.build``'s; on the dask engine, ``partitions.subtrees``
cuts the first moves into ranges that ``build.count_subtrees`` counts on the
workers and ``build.join_subtrees`` joins into the same files."""

from __future__ import annotations

from pathlib import Path

from joseki_miner.engines import build


def run(sequences_path: Path, games_path: Path, trie_path: Path, years_path: Path, sources_path: Path,
        sorted_path: Path, **options) -> dict:
    """The trie of the sequences; the stage's figures (``options``: those of
    ``build.count``)."""
    return build.count(sequences_path, games_path, trie_path, years_path, sources_path, sorted_path, **options)
