"""Stage 1, ingest: game collections -> games.parquet + rejects.parquet.

Every game read is accepted (a row of games.parquet) or rejected with its
reason and location (a row of rejects.parquet).  The work is
``joseki_miner.engines.ingest``'s; on the dask engine, ``joseki_miner.engines.partitions``
mines the inputs a partition a task and joins them into the same files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from joseki_miner.engines import ingest


def run(paths: Sequence[str | Path], games_path: Path, rejects_path: Path, **options) -> dict:
    """Read, validate and store every game of ``paths``; the stage's
    figures (``options``: those of ``ingest.read``)."""
    return ingest.read(paths, games_path, rejects_path, **options)
