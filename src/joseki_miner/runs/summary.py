"""summary.json: what a run found, from the manifests of its stages."""

from __future__ import annotations

from joseki_miner.runs import store
from joseki_miner.runs.catalog import Catalog


def summarize(catalog: Catalog, seconds: float, upto: str | None = None) -> dict:
    """The run report: the figures of every stage up to ``upto`` (by
    default the last) that has run."""
    figures: dict = {}
    names = catalog.names
    for stage in names[: names.index(upto) + 1 if upto else len(names)]:
        manifest = store.read_manifest(catalog.manifest(stage))
        if manifest:
            figures.update(manifest["figures"])
    rejected = figures.get("games_rejected", {})
    filtered = figures.get("games_filtered", {})
    return {
        "games_read": figures.get("games_read", 0),
        "games_accepted": figures.get("games_accepted", 0),
        "games_rejected": rejected,
        "games_rejected_total": sum(rejected.values()),
        "games_filtered": filtered,
        "games_filtered_total": sum(filtered.values()),
        "games_by_year": figures.get("games_by_year", {}),
        "games_by_collection": figures.get("games_by_collection", {}),
        "files_skipped": figures.get("files_skipped", {}),
        "sequences": figures.get("sequences", 0),
        "nodes_before_prune": figures.get("nodes_before_prune", 0),
        "threshold": figures.get("threshold", 0),
        **{k: figures[k] for k in ("threshold_on",) if k in figures},  # games, where the threshold counts them
        "nodes_after_prune": figures.get("nodes_after_prune", 0),
        "leaves": figures.get("leaves", 0),
        **{k: figures[k] for k in ("joseki", "follow_ups", "fuseki_shapes") if k in figures},  # mined with kinds
        "deepest": figures.get("deepest", 0),
        **{k: figures[k] for k in ("svg_skipped",) if k in figures},  # a tree too large to draw in seconds
        "seconds": round(seconds, 2),
    }
