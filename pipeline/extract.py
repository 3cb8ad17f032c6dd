"""Stage 2, extract: games.parquet -> sequences.parquet.

Phase 1 of the thesis for every game: its corner sequences in normal form,
with the influence scores each move saw (section 8).  The work is
``joseki_miner.engines.extract``'s."""

from __future__ import annotations

from pathlib import Path

from joseki_miner.engines import extract
from joseki_miner.method.sequences import Phase1Params


def run(games_path: Path, sequences_path: Path, params: Phase1Params, **options) -> dict:
    """The sequences of every game of games.parquet; the stage's figures
    (``options``: engine, jobs, progress)."""
    return extract.from_games(games_path, sequences_path, params, **options)
