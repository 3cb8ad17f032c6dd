"""What the method's rules are for a stage's settings (``runs.settings``)
or, where a runner plans with them, a run's config: phase 1's parameters,
the kinds, the pruning rules and threshold, how ingest reads.  The
method's modules load only when a stage runs: a run whose stages are all
up to date does not import them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.config import TABLE_MEMORY_MB, Config
from joseki_miner.runs.context import RunOptions
from joseki_miner.runs.inputs import Filters
from joseki_miner.runs.settings import (
    BuildSettings,
    ContextSettings,
    ExtractSettings,
    IngestSettings,
    PruneSettings,
    transpositions,
)
from joseki_miner.runs.store import staged

if TYPE_CHECKING:
    from joseki_miner.method import prune
    from joseki_miner.method.context import BoardRules
    from joseki_miner.method.kinds import KindRules
    from joseki_miner.method.sequences import Phase1Params


def phase1_params(config: ExtractSettings | Config) -> Phase1Params:
    """Phase 1's distances, corner and influence parameters (4.2, 5.2, 8)."""
    from joseki_miner.method.sequences import Phase1Params

    return Phase1Params(
        certain=config.distance_certain,
        maybe=config.distance_maybe,
        corner_stones=config.corner_stones,
        max_length=config.max_length,
        reach=config.influence_reach,
        start=config.corner_start,
        noise=config.distance_noise,
        handicap=config.include_handicap and config.include_handicap_starts,
    )


def kind_rules(config: BuildSettings | PruneSettings | Config) -> KindRules | None:
    """The rules of the nodes' kinds, or None where the config asks for the
    thesis' tree without them."""
    from joseki_miner.method.kinds import KindRules

    return KindRules(config.corner_region, config.kinds_follow_up, config.kinds_approach) if config.kinds else None


def board_rules(config: ContextSettings | Config) -> BoardRules | None:
    """The rules of the board's kinds (issue 65), or None where the config
    asks for a tree without kinds."""
    from joseki_miner.method.context import BoardRules

    if not config.kinds:
        return None
    return BoardRules(config.kinds_situational, config.kinds_late, config.kinds_doubtful, side=config.kinds_side)


def prune_rules(config: PruneSettings | Config, games: int = 0) -> prune.PruneRules:
    """The future work's rules of phase 2 (section 9), for ``games``
    accepted: an opening family is a first move of ``prune.family`` of
    them, where the threshold is a share of the games (not
    ``prune.min_count``)."""
    from joseki_miner.method import prune

    family = config.prune_family is not None and config.prune_min_count is None
    return prune.PruneRules(
        config.prune_follow,
        config.prune_min_share,
        config.prune_fold_tenuki,
        config.prune_min_games,
        threshold_on_games(config),
        family_games=max(1, math.ceil(config.prune_family * games - 1e-9)) if family else 0,
        family_fraction=config.prune_family_fraction,
        family_confidence=config.prune_confidence,
        position_share=config.prune_position_share or 0.0,
        position_games=config.prune_position_games,
        position_confidence=config.prune_confidence,
    )


def threshold_on_games(config: PruneSettings | Config) -> bool:
    """Whether the threshold counts a node's games (the evidence threshold,
    ``prune.confidence``) rather than its sequences (the thesis)."""
    return config.prune_min_count is None and config.prune_confidence is not None


def threshold_for(games: int, config: PruneSettings | Config) -> int:
    """The pruning threshold for ``games`` accepted (4.2): sequences, or
    games where ``on_games``."""
    from joseki_miner.method.threshold import threshold

    return threshold(games, config.prune_min_count, config.prune_min_fraction, config.prune_confidence)


def floor_for(games: int, config: PruneSettings | Config) -> int:
    """The least count the build stores, for ``games`` accepted: 2, unless
    the pruning threshold is 1 (and a node of one game may be kept)."""
    return 1 if max(threshold_for(games, config), config.prune_min_games) <= 1 else 2


@dataclass(frozen=True)
class Reading:
    """How ingest reads and checks games: the config's parameters
    (``of``) and how the run goes.  The tables that grow with the games
    (the fast engine's duplicate fingerprints, the kifu index lines) hold
    ``table_memory`` bytes in memory, the rest in mapped files beside
    games.parquet (``mapped``).  Folders in ``exclude`` (the run's own) are
    never read.  ``member_bytes`` and ``field_bytes`` bound what one
    archive member (or file) and one field may hold (limits.member_mb and
    limits.field_kb; see ``readers``).  Each game's collection is named
    from the paths (``inputs.Collections``, ``collections_depth``), and
    their players' rank where the records carry none is the one a
    collection declares (``ranks``); ``filters`` leave games out as they
    are read, counted by reason."""

    include_handicap: bool = False
    dedupe: bool = True
    strict: bool = False
    engine: str = "fast"
    jobs: int = 1
    progress: bool = False
    table_memory: int = int(TABLE_MEMORY_MB * 2**20)
    exclude: tuple[str | Path, ...] = ()
    member_bytes: int = Config.limits_member_mb << 20
    field_bytes: int = Config.limits_field_kb << 10
    collections_depth: int = 1
    ranks: tuple[tuple[str, str], ...] = ()
    filters: Filters = Filters()
    symmetric: bool = False

    @classmethod
    def of(
        cls, config: IngestSettings | Config, options: RunOptions = RunOptions(), exclude: Sequence[str | Path] = ()
    ) -> Reading:
        """The reading ingest's settings and a run's options ask for."""
        c = config
        return cls(
            include_handicap=c.include_handicap,
            dedupe=c.dedupe,
            strict=options.strict,
            engine=options.engine,
            jobs=options.jobs,
            progress=options.progress,
            table_memory=options.table_bytes,
            exclude=tuple(exclude),
            member_bytes=c.limits_member_mb << 20,
            field_bytes=c.limits_field_kb << 10,
            collections_depth=c.collections_depth,
            ranks=tuple(c.collections_ranks or ()),
            filters=Filters.of(c),
            symmetric=c.dedupe_symmetric,
        )


def prune_outputs(catalog: Catalog, config: PruneSettings | Config) -> dict[str, Path]:
    """The files prune writes, staged until the stage commits."""
    outputs = {
        "joseki": staged(catalog.joseki),
        "years": staged(catalog.node_years),
        "sources": staged(catalog.node_sources),
        "examples": staged(catalog.node_examples),
        "orders": staged(catalog.node_orders),
    }
    if transpositions(config):
        outputs["transpositions"] = staged(catalog.node_transpositions)
    return outputs
