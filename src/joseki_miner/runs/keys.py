"""Each stage's cache key: its upstream key plus the parameters it reads.
A stage whose key is that of its manifest (and whose files are those the
manifest names) is up to date; anything else runs it again."""

from __future__ import annotations

import hashlib
import json

import joseki_miner
from joseki_miner.runs.config import Config
from joseki_miner.runs.stages import (
    EXTRACT_PARAMS,
    EXTRACT_RULES,
    INGEST_PARAMS,
    INGEST_RULES,
    READING,
    STAGES,
    Stage,
    handicap_rule,
)


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
        keys[stage.name] = key(
            stage.name,
            keys[stage.after] if stage.after else inputs,
            config.section(*stage.params),
            *changed(config, stage.rules),
            *stage.extra(config, floor),
        )
    return keys


def partition_key(config: Config) -> str:
    """What a partition of the dask engine depends on besides its files."""
    return key(
        "partition",
        config.section(*INGEST_PARAMS, *EXTRACT_PARAMS),
        *changed(config, EXTRACT_RULES),
        *changed(config, INGEST_RULES),
        READING,
        *handicap_rule(config),
    )


def changed(config: Config, thesis: dict) -> list[dict]:
    """The rules of ``thesis`` (key: the thesis' value) that ``config``
    sets otherwise: nothing when it keeps them all."""
    rules = {k: v for k, v in config.section(*thesis).items() if v != thesis[k]}
    return [rules] if rules else []
