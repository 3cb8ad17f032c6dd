"""Where every dataset lives: one place for all paths (Kedro's catalog)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Catalog:
    work: Path  # interim stage outputs (data/interim)
    out: Path  # final outputs (data/processed)

    @property
    def games(self) -> Path:
        return self.work / "games.parquet"

    @property
    def rejects(self) -> Path:
        return self.work / "rejects.parquet"

    @property
    def sequences(self) -> Path:
        return self.work / "sequences.parquet"

    @property
    def trie(self) -> Path:
        return self.work / "trie.parquet"

    @property
    def runs(self) -> Path:
        """Sorted runs of sequences spilled while the trie is built (removed after)."""
        return self.work / "runs"

    @property
    def joseki(self) -> Path:
        return self.out / "joseki.parquet"

    @property
    def sgf(self) -> Path:
        return self.out / "joseki.sgf"

    @property
    def dot(self) -> Path:
        return self.out / "joseki.dot"

    @property
    def influence_dot(self) -> Path:
        return self.out / "influence.dot"

    @property
    def summary(self) -> Path:
        return self.out / "summary.json"

    def manifest(self, stage: str) -> Path:
        """The record of a stage's last run: its cache key and figures."""
        folder = self.out if stage in ("prune", "emit") else self.work
        return folder / f"{stage}.manifest.json"
