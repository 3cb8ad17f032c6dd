"""The dask engine's options, as the CLI takes them: light on purpose (the
CLI and a run's request read them without loading the cluster's client,
``client``, or dask)."""

from __future__ import annotations

from dataclasses import dataclass

PARTITION_MB = 8.0  # input a partition gathers, by default (a larger archive: in parts of its members)


@dataclass(frozen=True)
class Options:
    """``scheduler``: a dask scheduler's address (tcp://host:8786), or None
    for a LocalCluster of ``workers`` processes (0: one a core);
    ``partition_mb``: input bytes a partition gathers; ``trace``: where to
    write what each task did (``trace``)."""

    scheduler: str | None = None
    workers: int = 0
    partition_mb: float = PARTITION_MB
    trace: str | None = None  # a file for the run's tasks (``trace``), or None
