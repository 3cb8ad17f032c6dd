"""What a runner hands a stage, and what it takes back: a frozen
``Context`` down (the stage's settings, the catalog, how the run goes, what
the stages before it found), the stage's work done with it (``do_work``), and
a ``Done`` up (the stage's figures and time).
The runners (``runners``, ``cluster.runner``) only order and execute; the
run (pipeline/run.py) keys and commits what they give back."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from importlib import import_module
from pathlib import Path
from typing import Any

from joseki_miner.runs import store
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import SORT_MEMORY_MB, TABLE_MEMORY_MB, Config
from joseki_miner.runs.errors import UsageError
from joseki_miner.runs.files import Walked
from joseki_miner.runs.settings import Settings
from joseki_miner.runs.stages import Stage


@dataclass(frozen=True)
class RunOptions:
    """How a run goes, as it was asked: none of it changes a file it writes."""

    engine: str = "fast"  # what runs a stage's work: "fast" (compiled) or "reference" (a dask worker: "fast")
    jobs: int = 1  # threads of a stage
    strict: bool = False  # the first rejected game fails the run
    progress: bool = False  # a stage's bars
    sort_bytes: int = int(SORT_MEMORY_MB * 2**20)  # sequences held for the trie before sorted runs spill
    table_bytes: int = int(TABLE_MEMORY_MB * 2**20)  # duplicate fingerprints and index lines held in memory


@dataclass(frozen=True)
class CountedTrie:
    """The trie the one-pass runner has just counted, for prune, while
    trie.parquet is still being written: its node arrays, the collections
    by number and the least count it stored."""

    arrays: Mapping[str, Any]
    names: tuple[str, ...]
    floor: int
    positions: Callable[[], dict] | None = None  # its position index (``build.position_index``), once computed
    kinds: Callable[[], Any] | None = None  # its nodes' kind codes (``build.kinds_of``), once computed


@dataclass(frozen=True)
class Context:
    """What a stage's work is given (``do_work``): its ``settings``, made
    from ``config`` (which the engines read: they plan with it, and run
    some stages' work their own way)."""

    catalog: Catalog
    config: Config
    options: RunOptions = RunOptions()
    paths: tuple[str | Path, ...] = ()  # the inputs (ingest's)
    figures: Mapping[str, dict] = field(default_factory=dict)  # what the stages before it found
    floor: int = 2  # the least count the build stores (``stages.params.floor_for``)
    staged: frozenset[Path] = frozenset()  # outputs this run wrote and has not committed yet
    walked: Walked | None = None  # the inputs walked already (the fast engine reads them without walking again)
    digests: dict | None = None  # gets each input's digest as ingest reads it (the fast engine, inputs not hashed)
    trie: CountedTrie | None = None  # the trie just counted, for prune (the one-pass runner's)
    settings: Any = Settings()  # what the stage reads of the config (its ``Stage.settings``, set by ``do_work``)

    @property
    def own(self) -> tuple[Path, Path]:
        """The run's own folders, never read as inputs."""
        return self.catalog.work, self.catalog.out

    def found(self, stage: str) -> dict:
        """The figures of a stage before this one."""
        if stage not in self.figures:
            raise UsageError(f"stage {stage} has not run in {self.catalog.manifest(stage).parent}")
        return self.figures[stage]

    def current(self, path: Path) -> Path:
        """Where a dataset is to be read now: staged, if this run wrote it
        and has not committed it yet."""
        return store.staged(path) if path in self.staged else path

    def quiet(self) -> Context:
        """The same, without bars (a stage run beside another)."""
        return replace(self, options=replace(self.options, progress=False))


def do_work(stage: Stage, context: Context) -> dict:
    """Do ``stage``'s work (its module, ``Stage.work``, loaded now) with
    ``context`` and the settings it declares; its figures."""
    return import_module(stage.work).run(with_settings(stage, context))


def with_settings(stage: Stage, context: Context) -> Context:
    """``context`` with the settings ``stage`` declares (``Stage.settings``)."""
    return replace(context, settings=stage.settings.of(context.config))


@dataclass(frozen=True)
class Done:
    """A stage a runner has done: what it found, how long it took, and how
    the run went (``run``: whether it streamed, its memory) apart."""

    stage: str
    figures: dict
    seconds: float
    run: Mapping[str, Any] = field(default_factory=dict)
