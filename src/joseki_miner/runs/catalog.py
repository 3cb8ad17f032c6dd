"""The stages, and where every dataset lives: one place for all paths
(Kedro's catalog)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from joseki_miner.runs import stages as declared
from joseki_miner.runs.stages import NAMES as STAGES, PUBLISHED, WORK_STAGES, Stage  # noqa: F401 - the stages' names


def part_name(number: int) -> str:
    """The name of a folder's part ``number``: they sort in order."""
    return f"part-{number:05d}.parquet"


def parts_of(path: Path) -> list[Path]:
    """What a reader reads in turn: a Parquet file, or the parts of a
    folder of them (``part_name``), in order: their rows laid end to end
    are the file's."""
    if path.is_dir():
        parts = sorted(path.glob("part-*.parquet"))
        if not parts:
            raise FileNotFoundError(f"{path} holds no part-*.parquet")
        return parts
    return [path]


def positions_of(trie: Path) -> Path:
    """The position index written beside a trie file, staged or committed
    alike (trie.parquet: trie_positions.parquet)."""
    return trie.with_name(trie.name.replace("trie", "trie_positions", 1))


@dataclass(frozen=True)
class Catalog:
    work: Path  # interim stage outputs (data/interim)
    out: Path  # final outputs (data/processed)
    publish: str | None = None  # an output folder at a URL: ``out`` is its local copy, published as a run ends
    stages: tuple[Stage, ...] = declared.STAGES  # the stages run (``runs.stages``; a test adds one of its own)

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
    def trie_years(self) -> Path:
        """Every stored node's games by year (node, year, games)."""
        return self.work / "trie_years.parquet"

    @property
    def trie_sources(self) -> Path:
        """Every stored node's games by collection (node, source, games)."""
        return self.work / "trie_sources.parquet"

    @property
    def trie_positions(self) -> Path:
        """Every stored node's position key (``joseki position``'s index)."""
        return positions_of(self.trie)

    @property
    def sorted_sequences(self) -> Path:
        """The sequences in trie order: a node's are a range of rows."""
        return self.work / "sorted_sequences.parquet"

    @property
    def runs(self) -> Path:
        """Sorted runs of sequences spilled while the trie is built (removed after)."""
        return self.work / "runs"

    @property
    def partitions(self) -> Path:
        """The dask engine's partitions, each mined into a folder named by
        its key and kept for the next run (``--add``)."""
        return self.work / "partitions"

    @property
    def digests(self) -> Path:
        """The inputs' content digests, cached by their files' stat identity."""
        return self.work / "input-digests.bin"

    @property
    def joseki(self) -> Path:
        return self.out / "joseki.parquet"

    @property
    def node_years(self) -> Path:
        return self.out / "node_years.parquet"

    @property
    def node_sources(self) -> Path:
        return self.out / "node_sources.parquet"

    @property
    def node_examples(self) -> Path:
        return self.out / "node_examples.parquet"

    @property
    def node_orders(self) -> Path:
        """Where orders are merged (prune.merge_orders): each node's
        sequences, one range of sorted_sequences.parquet a move order."""
        return self.out / "node_orders.parquet"

    @property
    def node_transpositions(self) -> Path:
        """Each node's other move orders to its position (with kinds:
        ``kinds.transpositions``)."""
        return self.out / "node_transpositions.parquet"

    @property
    def node_context(self) -> Path:
        """Each node's games on their whole board (``stages.context``)."""
        return self.out / "node_context.parquet"

    @property
    def sgf(self) -> Path:
        return self.out / "joseki.sgf"

    @property
    def dot(self) -> Path:
        return self.out / "joseki.dot"

    @property
    def svg(self) -> Path:
        return self.out / "joseki.svg"

    @property
    def influence_dot(self) -> Path:
        return self.out / "influence.dot"

    @property
    def influence_svg(self) -> Path:
        return self.out / "influence.svg"

    @property
    def report(self) -> Path:
        """The joseki book in HTML: a folder of pages that open from disk."""
        return self.out / "report"

    @property
    def summary(self) -> Path:
        return self.out / "summary.json"

    @property
    def names(self) -> tuple[str, ...]:
        """The stages' names, in their order."""
        return tuple(s.name for s in self.stages)

    def stage(self, name: str) -> Stage:
        return next(s for s in self.stages if s.name == name)

    def manifest(self, stage: str) -> Path:
        """The record of a stage's last run: its cache key, figures and files."""
        return self._folder(stage) / f"{stage}.manifest.json"

    def outputs(self, stage: str) -> list[Path]:
        """The files a stage may write (its declaration's: emit's SVGs only
        where Graphviz is).  A dataset the catalog does not name is
        NAME.parquet in its stage's folder."""
        return [
            getattr(self, name) if hasattr(type(self), name) else self._folder(stage) / f"{name}.parquet"
            for name in self.stage(stage).writes
        ]

    def _folder(self, stage: str) -> Path:
        return self.out if self.stage(stage).published else self.work

    def folders(self) -> list[Path]:
        """The outputs that are folders, not files."""
        return [self.report]

    def shards(self) -> list[Path]:
        """The build's files the dask engine writes a part a shard of the
        trie (a count's node range), in the order ``shards.write_shard``
        takes them."""
        return [self.trie, self.trie_years, self.trie_sources, self.trie_positions, self.sorted_sequences]

    def datasets(self) -> list[Path]:
        """The outputs that are a file or a folder of its parts (the dask
        engine writes games.parquet and sequences.parquet a part a
        partition, the build's files a part a shard)."""
        return [self.games, self.sequences, *self.shards()]

    def scratch(self) -> list[Path]:
        """What a run keeps only while it runs (a stopped run may leave them;
        the next one removes them): the spilled runs, the log of where
        each game was read."""
        return [self.runs, self.games.with_name(self.games.name + ".tmp.wheres")]
