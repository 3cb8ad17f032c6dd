"""How a run was asked for: the CLI's options as one value, handed to
``run.run_stages`` (kept apart from it, so the CLI reads it without
loading the stages)."""

from __future__ import annotations

from dataclasses import dataclass

from joseki_miner.cluster.options import Options
from joseki_miner.runs.config import SORT_MEMORY_MB, TABLE_MEMORY_MB


@dataclass(frozen=True)
class Request:
    """How a run was asked for (the CLI's options).  ``engine`` "fast"
    (compiled, over ``jobs`` threads, default all cores) and "reference"
    (plain Python) give identical files, and so does any ``sort_memory``
    (MB of sequences held for the trie before sorted runs are spilled to
    disk) and any ``table_memory`` (MB of duplicate fingerprints and kifu
    index lines held in memory, the rest mapped from files in the work
    folder).  "dask" mines partitions of the inputs on a dask cluster
    (``cluster``: a scheduler's address, or a LocalCluster of worker
    processes) and runs every stage on its workers, with the same files
    again; with ``add``, the paths are added to those of the last run in
    the folder, whose partitions are kept (only the new ones are read).
    ``force`` runs every stage; ``strict`` fails on the first rejected
    game.  When another run holds a folder, the run raises UsageError, or
    with ``wait`` waits for it (``command`` names this run in the lock)."""

    progress: bool = True
    strict: bool = False
    force: bool = False
    engine: str = "fast"
    jobs: int | None = None
    sort_memory: float = SORT_MEMORY_MB
    table_memory: float = TABLE_MEMORY_MB
    wait: bool = False
    command: str = "joseki"
    cluster: Options = Options()
    add: bool = False
