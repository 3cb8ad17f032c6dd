"""Each stage's cache key: its upstream key plus the parameters it reads.
A stage whose key is that of its manifest (and whose files are those the
manifest names) is up to date; anything else runs it again."""

from __future__ import annotations

import hashlib
import json

import joseki_miner
from joseki_miner.runs.config import Config

# the parameters ingest and extract read (what their files depend on besides the inputs)
INGEST_PARAMS = ("include_handicap", "dedupe", "limits.member_mb", "limits.field_kb", "collections.depth",
                 "filter.years", "filter.sources", "filter.result_known")
EXTRACT_PARAMS = ("distance.certain", "distance.maybe", "corner_stones", "max_length", "influence.reach")
# the future work's rules of phase 1 (5.2, 9): in the key only when they differ from the thesis, so a stage mined
# before they existed stays up to date
EXTRACT_RULES = {"distance.noise": False, "corner.start": 10}
# the filters of players, ranks and events: in the key only when set, so a stage mined before they existed stays
# up to date
INGEST_RULES = {"filter.players": None, "filter.min_rank": None, "filter.events": None, "filter.handicap": None,
                "dedupe.symmetric": False,
                "collections.ranks": None}
# how ingest reads games beyond its parameters: 2, a folder given names its games unless it holds several
# folders of them; 3 and 4, a game is looked for among the duplicates before the filters (4: the dask engine's
# partitions trace the first games the filters leave out apart)
READING = {"reading": 4}
POSITIONS = {"positions": 1}  # build writes the position index (trie_positions.parquet)
BUILD_PARAMS = ("kinds", "corner.region", "kinds.follow_up", "kinds.approach")  # the kinds of trie.parquet
PRUNE_RULES = {"prune.follow": None, "prune.min_share": 0.0, "prune.fold_tenuki": False, "prune.confidence": None,
               "prune.min_games": 1, "prune.merge_orders": False}
REPORT_RULES = {"report.changed": False, "report.since": None, "report.players": None}  # the page of what changed (not in the thesis)


def key(*parts) -> str:
    """A short digest of the package's version and ``parts``."""
    text = json.dumps([joseki_miner.__version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stage_keys(config: Config, inputs: str, floor: int = 2) -> dict[str, str]:
    """Each stage's cache key: its upstream key plus the parameters it reads
    (``floor``: the least count build stores, 1 only for a threshold of 1)."""
    keys = {}
    keys["ingest"] = key("ingest", inputs, config.section(*INGEST_PARAMS), *changed(config, INGEST_RULES), READING)
    keys["extract"] = key("extract", keys["ingest"], config.section(*EXTRACT_PARAMS), *changed(config, EXTRACT_RULES),
                          *handicap_rule(config))
    kinds = [config.section(*BUILD_PARAMS)] if config.kinds else []
    keys["build"] = key("build", keys["extract"], config.section("influence.neutral"), floor, *kinds, POSITIONS)
    keys["prune"] = key("prune", keys["build"],
                        config.section("prune.min_count", "prune.min_fraction", "min_length", "examples"),
                        *changed(config, PRUNE_RULES), *([TRANSPOSITIONS] if transpositions(config) else []))
    keys["emit"] = key("emit", keys["prune"], config.section("influence.share", "emit.counters"))
    keys["report"] = key("report", keys["prune"], config.section("influence.share"), *changed(config, REPORT_RULES))
    return keys


def partition_key(config: Config) -> str:
    """What a partition of the dask engine depends on besides its files."""
    return key("partition", config.section(*INGEST_PARAMS, *EXTRACT_PARAMS), *changed(config, EXTRACT_RULES),
               *changed(config, INGEST_RULES), READING, *handicap_rule(config))


TRANSPOSITIONS = {"kinds.transpositions": 1}  # prune writes node_transpositions.parquet


def transpositions(config: Config) -> bool:
    """Whether prune names each node's other move orders: with kinds, where
    orders are not merged (a merged node holds them all)."""
    return bool(config.kinds and config.kinds_transpositions and not config.prune_merge_orders)


def handicap_rule(config: Config) -> list[dict]:
    """Whether handicap stones open sequences: in phase 1's key only where
    handicap games are mined, so no key of an even-game run changes."""
    return [config.section("include_handicap.starts")] if config.include_handicap else []


def changed(config: Config, thesis: dict) -> list[dict]:
    """The rules of ``thesis`` (key: the thesis' value) that ``config``
    sets otherwise: nothing when it keeps them all."""
    rules = {k: v for k, v in config.section(*thesis).items() if v != thesis[k]}
    return [rules] if rules else []
