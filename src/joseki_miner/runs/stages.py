"""The stages, each declared once: its name, what it does, the datasets it
reads and writes (``Catalog``'s names), whether it publishes, the parts of
its cache key, and its work: a module of ``joseki_miner.stages`` whose
``run(context)`` does it (named, not imported: what keeps runs trusted sits
below the stages, and a run loads only the stages it runs; ``context.do_work``
runs it).  The catalog's
outputs, the cache keys (``keys``), the CLI's commands and the docs' table
of stages read this list; the runners run the stages it names, in its
order, and pipeline/run.py keys and commits what they did.

A cache key is the key of the stage it comes after (the inputs' for the
first), the values of its ``params``, those of its ``rules`` that differ
from the values given (the thesis', or "unset": a folder mined before a rule
existed stays up to date), and its ``extra`` parts."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from joseki_miner.runs.config import Config


def _no_extra(config: Config, floor: int) -> list:
    return []


@dataclass(frozen=True)
class Stage:
    """One stage of a run (module docstring)."""

    name: str
    does: str  # a line for the CLI's help and the docs
    reads: tuple[str, ...]  # datasets of the stages before it
    writes: tuple[str, ...]  # datasets it writes (it may leave some out: an SVG without Graphviz)
    after: str | None = None  # the stage whose key its own key extends (None: the inputs')
    params: tuple[str, ...] = ()  # config keys always in its key
    rules: Mapping[str, Any] = field(default_factory=dict)  # config keys in its key where they differ from these
    extra: Callable[[Config, int], list] = _no_extra  # other parts of its key (``floor``: the least count stored)
    published: bool = False  # in the output folder, committed with summary.json as the run ends
    work: str = ""  # the module whose ``run(context) -> figures`` does the stage's work (``context.do_work``)
    kernels: bool = False  # its work runs the compiled kernels (a first run on a machine compiles them)


# the parameters ingest reads (what its files depend on besides the inputs)
INGEST_PARAMS = (
    "include_handicap",
    "dedupe",
    "limits.member_mb",
    "limits.field_kb",
    "collections.depth",
    "filter.years",
    "filter.sources",
    "filter.result_known",
)
# the filters of players, ranks and events: in the key only when set, so a stage mined before they existed stays
# up to date
INGEST_RULES = {
    "filter.players": None,
    "filter.min_rank": None,
    "filter.events": None,
    "filter.handicap": None,
    "filter.sample": None,
    "dedupe.symmetric": False,
    "collections.ranks": None,
}
# how ingest reads games beyond its parameters: 2, a folder given names its games unless it holds several
# folders of them; 3 and 4, a game is looked for among the duplicates before the filters (4: the dask engine's
# partitions trace the first games the filters leave out apart); 5, setup stones that are not a handicap's reject
# their game; 6, a collection is cut at a root written without its ';' too
READING = {"reading": 6}
EXTRACT_PARAMS = ("distance.certain", "distance.maybe", "corner_stones", "max_length", "influence.reach")
# the future work's rules of phase 1 (5.2, 9): in the key only when they differ from the thesis
EXTRACT_RULES = {"distance.noise": False, "corner.start": 10}
# what extract writes beyond its parameters: 2, each move's move number and whether it was near another
# sequence (sequences.parquet's numbers and near)
SEQUENCES = {"sequences": 2}
BUILD_PARAMS = ("kinds", "corner.region", "kinds.follow_up", "kinds.approach")  # the kinds of trie.parquet
POSITIONS = {"positions": 1}  # build writes the position index (trie_positions.parquet)
PRUNE_RULES = {
    "prune.follow": None,
    "prune.min_share": 0.0,
    "prune.fold_tenuki": False,
    "prune.confidence": None,
    "prune.min_games": 1,
    "prune.merge_orders": False,
    "prune.family": None,
    "prune.family_fraction": 0.1,
    "prune.position_share": None,
    "prune.position_games": 100,
}
TRANSPOSITIONS = {"kinds.transpositions": 1}  # prune writes node_transpositions.parquet
CONTEXT = {"context": 1}  # the format of node_context.parquet
# the board's kinds (issue 65): in the key where they differ from off
CONTEXT_RULES = {
    "kinds.situational": None,
    "kinds.late": None,
    "kinds.doubtful": None,
    "kinds.side": None,
    "kinds.strong": ("ai",),
}
REPORT_RULES = {"report.changed": False, "report.since": None, "report.players": None}  # not in the thesis


def handicap_rule(config: Config) -> list[dict]:
    """Whether handicap stones open sequences: in phase 1's key only where
    handicap games are mined, so no key of an even-game run changes."""
    return [config.section("include_handicap.starts")] if config.include_handicap else []


def transpositions(config: Config) -> bool:
    """Whether prune names each node's other move orders: with kinds, where
    orders are not merged (a merged node holds them all)."""
    return bool(config.kinds and config.kinds_transpositions and not config.prune_merge_orders)


def _reading(config: Config, floor: int) -> list:
    return [READING]


def _extract_extra(config: Config, floor: int) -> list:
    return [*handicap_rule(config), SEQUENCES]


def _prune_extra(config: Config, floor: int) -> list:
    return [TRANSPOSITIONS] if transpositions(config) else []


def _context_extra(config: Config, floor: int) -> list:
    return [CONTEXT]


def _build_extra(config: Config, floor: int) -> list:
    return [floor, *([config.section(*BUILD_PARAMS)] if config.kinds else []), POSITIONS]


STAGES: tuple[Stage, ...] = (
    Stage(
        "ingest",
        "read and validate games into games.parquet and rejects.parquet",
        (),
        ("games", "rejects"),
        work="joseki_miner.stages.ingest",
        kernels=True,
        params=INGEST_PARAMS,
        rules=INGEST_RULES,
        extra=_reading,
    ),
    Stage(
        "extract",
        "phase 1, corner sequences in normal form -> sequences.parquet",
        ("games",),
        ("sequences",),
        work="joseki_miner.stages.extract",
        kernels=True,
        after="ingest",
        params=EXTRACT_PARAMS,
        rules=EXTRACT_RULES,
        extra=_extract_extra,
    ),
    Stage(
        "build",
        "count sequences in the trie with influence -> trie.parquet",
        ("sequences", "games"),
        ("trie", "trie_years", "trie_sources", "trie_positions", "sorted_sequences"),
        work="joseki_miner.stages.build",
        kernels=True,
        after="extract",
        params=("influence.neutral",),
        extra=_build_extra,
    ),
    Stage(
        "prune",
        "phase 2, prune by threshold and length -> joseki.parquet",
        ("trie", "trie_years", "trie_sources", "trie_positions", "sorted_sequences", "games"),
        ("joseki", "node_years", "node_sources", "node_examples", "node_orders", "node_transpositions"),
        work="joseki_miner.stages.prune",
        kernels=True,
        after="build",
        params=("prune.min_count", "prune.min_fraction", "min_length", "examples"),
        rules=PRUNE_RULES,
        extra=_prune_extra,
        published=True,
    ),
    Stage(
        "context",
        "each node's games on their whole board: another stone near, the move number -> node_context.parquet",
        ("joseki", "node_sources", "sequences"),
        ("node_context",),
        work="joseki_miner.stages.context",
        after="prune",
        params=("kinds",),
        rules=CONTEXT_RULES,
        extra=_context_extra,
        published=True,
    ),
    Stage(
        "emit",
        "write joseki.sgf, joseki.dot, influence.dot (and SVG)",
        # games and sorted_sequences: each node's games by year and collection (its most popular year within them)
        (
            "joseki",
            "node_years",
            "node_sources",
            "node_examples",
            "node_orders",
            "node_transpositions",
            "node_context",
            "games",
            "sorted_sequences",
        ),
        ("sgf", "dot", "influence_dot", "svg", "influence_svg"),
        work="joseki_miner.stages.emit",
        after="context",
        params=("influence.share", "emit.counters"),
        published=True,
    ),
    Stage(
        "report",
        "write the joseki book in HTML -> OUT/report/ (open report/index.html)",
        (
            "joseki",
            "node_years",
            "node_sources",
            "node_examples",
            "node_orders",
            "node_transpositions",
            "node_context",
            "games",
            "sorted_sequences",
            "sequences",
        ),
        ("report",),
        work="joseki_miner.stages.report",
        after="context",
        params=("influence.share",),
        rules=REPORT_RULES,
        published=True,
    ),
)
BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}
NAMES = tuple(s.name for s in STAGES)
WORK_STAGES = tuple(s.name for s in STAGES if not s.published)  # in the work folder, committed as each finishes
PUBLISHED = tuple(s.name for s in STAGES if s.published)  # in the output folder, committed as the run ends
READS_INPUTS = NAMES[0]  # the stage that reads the games (its key is the inputs'; every other stage's extends it)
TREE = PUBLISHED[0]  # the stage that publishes the tree: its manifest names the work stages it was made from
# how the engines join stages into one step: the fast engine's one pass (ingest's accepted games to phase 1, its
# sequences to the counter in memory), the dask engine's partitions (each mined and phase 1 run on one worker), and
# two stages run at once where neither reads the other's files
ONE_PASS = ("ingest", "extract", "build")
PARTITIONED = ("ingest", "extract")
BESIDE = ("emit", "report")


def alone(name: str, stages: tuple[Stage, ...] = STAGES) -> tuple[str, ...]:
    """What ``joseki NAME`` runs: the stage, and where it publishes, every
    published stage after it, committed together, so the output folder
    holds one tree (joseki.parquet, joseki.sgf, the SVGs, the report and
    summary.json from the same prune).  A work stage runs alone: its files
    wait in the work folder for ``joseki prune`` (or ``joseki mine``) to
    publish them (``publishes_next``)."""
    names = [s.name for s in stages]
    if not stages[names.index(name)].published:
        return (name,)
    return (name, *(s.name for s in stages[names.index(name) + 1 :] if s.published))


def publishes_next(name: str, stages: tuple[Stage, ...] = STAGES) -> tuple[str, ...]:
    """The commands that publish what a work stage run alone wrote, in
    turn: the work stages after it, then the first published stage (which
    runs every published one after it)."""
    later = stages[[s.name for s in stages].index(name) + 1 :]
    work = tuple(s.name for s in later if not s.published)
    return (*work, *tuple(s.name for s in stages if s.published)[:1])


__all__ = [
    "Stage",
    "STAGES",
    "BY_NAME",
    "NAMES",
    "WORK_STAGES",
    "PUBLISHED",
    "READS_INPUTS",
    "TREE",
    "ONE_PASS",
    "PARTITIONED",
    "BESIDE",
    "alone",
    "publishes_next",
    "handicap_rule",
    "transpositions",
]
