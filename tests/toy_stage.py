"""A toy stage (tests/test_stages.py): the games of the tree's first moves,
one Parquet file.  Everything it takes to add a stage is this file (its
work and its settings) and one line declaring it."""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa
import pyarrow.parquet as pq

from joseki_miner.runs.context import Context
from joseki_miner.runs.settings import Settings, param
from joseki_miner.runs.store import staged


@dataclass(frozen=True)
class ToySettings(Settings):
    """What the toy stage reads of the config: a key of its own would be
    a field here (tests/test_settings.py); this one is the package's."""

    influence_share: float = param()


def run(context: Context) -> dict:
    """The pruned tree's first moves and their games, most played first."""
    tree = pq.read_table(context.current(context.catalog.joseki), columns=["depth", "move", "games"]).to_pylist()
    first = sorted(((r["games"], r["move"]) for r in tree if r["depth"] == 1), key=lambda g: (-g[0], g[1]))
    (path,) = context.catalog.outputs("toy")
    pq.write_table(pa.table({"move": [m for _, m in first], "games": [g for g, _ in first]}), staged(path))
    return {"first_moves": len(first), "games_seen": context.found("ingest")["games_accepted"]}
