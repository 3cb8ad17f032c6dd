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
first) and the parts its ``settings`` give (``runs.settings``): what the
stage reads of the config, and the format of what it writes."""

from __future__ import annotations

from dataclasses import dataclass

from joseki_miner.runs.settings import (
    BuildSettings,
    ContextSettings,
    EmitSettings,
    ExtractSettings,
    IngestSettings,
    PruneSettings,
    ReportSettings,
    Settings,
)


@dataclass(frozen=True)
class Stage:
    """One stage of a run (module docstring)."""

    name: str
    does: str  # a line for the CLI's help and the docs
    reads: tuple[str, ...]  # datasets of the stages before it
    writes: tuple[str, ...]  # datasets it writes (it may leave some out: an SVG without Graphviz)
    after: str | None = None  # the stage whose key its own key extends (None: the inputs')
    settings: type[Settings] = Settings  # what it reads of the config, and so the parts of its key
    published: bool = False  # in the output folder, committed with summary.json as the run ends
    work: str = ""  # the module whose ``run(context) -> figures`` does the stage's work (``context.do_work``)
    kernels: bool = False  # its work runs the compiled kernels (a first run on a machine compiles them)


STAGES: tuple[Stage, ...] = (
    Stage(
        "ingest",
        "read and validate games into games.parquet and rejects.parquet",
        (),
        ("games", "rejects"),
        work="joseki_miner.stages.ingest",
        kernels=True,
        settings=IngestSettings,
    ),
    Stage(
        "extract",
        "phase 1, corner sequences in normal form -> sequences.parquet",
        ("games",),
        ("sequences",),
        work="joseki_miner.stages.extract",
        kernels=True,
        after="ingest",
        settings=ExtractSettings,
    ),
    Stage(
        "build",
        "count sequences in the trie with influence -> trie.parquet",
        ("sequences", "games"),
        ("trie", "trie_years", "trie_sources", "trie_positions", "sorted_sequences"),
        work="joseki_miner.stages.build",
        kernels=True,
        after="extract",
        settings=BuildSettings,
    ),
    Stage(
        "prune",
        "phase 2, prune by threshold and length -> joseki.parquet",
        ("trie", "trie_years", "trie_sources", "trie_positions", "sorted_sequences", "games"),
        ("joseki", "node_years", "node_sources", "node_examples", "node_orders", "node_transpositions"),
        work="joseki_miner.stages.prune",
        kernels=True,
        after="build",
        settings=PruneSettings,
        published=True,
    ),
    Stage(
        "context",
        "each node's games on their whole board: another stone near, the move number -> node_context.parquet",
        ("joseki", "node_sources", "sequences"),
        ("node_context",),
        work="joseki_miner.stages.context",
        after="prune",
        settings=ContextSettings,
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
        settings=EmitSettings,
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
        settings=ReportSettings,
        published=True,
    ),
)
BY_NAME: dict[str, Stage] = {s.name: s for s in STAGES}
NAMES = tuple(s.name for s in STAGES)
# each stage's name, for the engines that run some stages their own way (the one pass, the dask engine's build by
# shards and report in parts): a stage renamed here is renamed there
INGEST, EXTRACT, BUILD, PRUNE, CONTEXT, EMIT, REPORT = NAMES
WORK_STAGES = tuple(s.name for s in STAGES if not s.published)  # in the work folder, committed as each finishes
PUBLISHED = tuple(s.name for s in STAGES if s.published)  # in the output folder, committed as the run ends
READS_INPUTS = NAMES[0]  # the stage that reads the games (its key is the inputs'; every other stage's extends it)
TREE = PUBLISHED[0]  # the stage that publishes the tree: its manifest names the work stages it was made from
# how the engines join stages into one step: the fast engine's one pass (ingest's accepted games to phase 1, its
# sequences to the counter in memory), the dask engine's partitions (each mined and phase 1 run on one worker), and
# two stages run at once where neither reads the other's files
ONE_PASS = (INGEST, EXTRACT, BUILD)
PARTITIONED = (INGEST, EXTRACT)
BESIDE = (EMIT, REPORT)


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
    "INGEST",
    "EXTRACT",
    "BUILD",
    "PRUNE",
    "CONTEXT",
    "EMIT",
    "REPORT",
    "WORK_STAGES",
    "PUBLISHED",
    "READS_INPUTS",
    "TREE",
    "ONE_PASS",
    "PARTITIONED",
    "BESIDE",
    "alone",
    "publishes_next",
]
