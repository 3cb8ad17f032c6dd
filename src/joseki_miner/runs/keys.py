"""Each stage's cache key: its upstream key plus the parameters it reads.
A stage whose key is that of its manifest (and whose files are those the
manifest names) is up to date; anything else runs it again."""

from __future__ import annotations

import hashlib
import json

import joseki_miner
from joseki_miner.runs.config import Config
from joseki_miner.runs.settings import ExtractSettings, IngestSettings
from joseki_miner.runs.stages import STAGES, Stage


def key(*parts) -> str:
    """A short digest of the package's version and ``parts``."""
    text = json.dumps([joseki_miner.__version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def stage_keys(config: Config, inputs: str, floor: int = 2, stages: tuple[Stage, ...] = STAGES) -> dict[str, str]:
    """Each stage's cache key (``stages``: the key of the stage it comes
    after, its parameters, its rules set otherwise than the thesis, its
    other parts; ``floor``: the least count build stores, 1 only for a
    threshold of 1)."""
    keys: dict[str, str] = {}
    for stage in stages:
        upstream = keys[stage.after] if stage.after else inputs
        keys[stage.name] = key(stage.name, upstream, *stage.settings.of(config).key(floor))
    return keys


def partition_key(config: Config) -> str:
    """What a partition of the dask engine depends on besides its files."""
    ingest, extract = IngestSettings.of(config), ExtractSettings.of(config)
    rules = [r for r in (extract.rules(changed=True), ingest.rules(changed=True)) if r]
    return key("partition", {**ingest.params(), **extract.params()}, *rules, IngestSettings.FORMAT, *extract.handicap())
