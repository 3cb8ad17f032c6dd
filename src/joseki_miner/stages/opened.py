"""The sequences a handicap stone opened (``include_handicap.starts``):
those that start at move 0.  Prune counts them a kept node
(``prune.handicap_counts``), of the rows of sorted_sequences.parquet, or
of what each shard's candidates' task (``shards.keep_candidates``) found
among its own rows and saved beside its count, so that prune reads no
part of the shards' files."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from joseki_miner.fast.arrow import numpy
from joseki_miner.fast.parquet import RowGroups
from joseki_miner.stages.saved import read_saved, write_saved


def opened_among(start: np.ndarray, first_row: int) -> np.ndarray:
    """The rows (from ``first_row``) of sequences starting at ``start``
    that a handicap stone opened: those that start at move 0."""
    return np.flatnonzero(start == 0) + first_row


def opened_rows(sorted_path: Path) -> np.ndarray:
    """The rows of sorted_sequences.parquet whose sequence a handicap stone
    opened (those that start at move 0: ``include_handicap.starts``).
    Reads the row groups whose statistics allow a start at 0: none, in a
    tree of even games."""
    groups = RowGroups(sorted_path)
    zeros = []
    for g in groups.picked(lambda least, _: least <= 0, on="start"):  # the groups that may hold a start at 0
        zeros.append(opened_among(numpy(groups.read([g], ["start"]).column(0)), int(groups.starts[g])))
    return np.concatenate(zeros) if zeros else np.zeros(0, np.int64)


OPENED = "opened"  # a count's saved rows that a handicap stone opened, where its shard has any


def save_opened(folder: Path, rows: np.ndarray) -> None:
    """The rows a handicap stone opened of a count's shard, saved in its
    ``folder`` for ``opened_in`` (where there are any)."""
    if len(rows):
        write_saved(folder / OPENED, {"rows": rows})


def opened_in(folders: list[str]) -> np.ndarray:
    """The rows that a handicap stone opened which the shards' candidates'
    tasks saved in ``folders`` (``save_opened``; their "opened_in", in
    shard order), ascending."""
    return np.concatenate([np.zeros(0, np.int64), *(read_saved(Path(f) / OPENED)["rows"] for f in folders)])
