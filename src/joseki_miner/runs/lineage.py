"""Which run made an output folder, so that whatever reads it answers from
that run or refuses.

The tree in an output folder is pruned from the stages of a work folder
(ingest, extract, build); the queries (lookup, games, trend, compare,
repertoire) and the stages run alone on a tree (emit, report) read that
work folder's files beside the tree's.  Two runs may share a work folder:
the second replaces the first's stages there, and the first's tree no
longer matches them.  So prune's manifest records where its tree came from
(``made_from``: the keys of its three stages and the parameters of
phase 1 they were mined with; and, under ``run`` with what else differs
between two runs of the same games, the work folder), and a reader checks the work
folder it is given still holds those stages (``check``), before and after
it reads (``Steady``: a run committing there meanwhile is caught too).

Knows manifests and folders; nothing of Go.
"""

from __future__ import annotations

import os
from pathlib import Path

from joseki_miner.runs import store
from joseki_miner.runs.catalog import WORK_STAGES, Catalog
from joseki_miner.runs.config import Config
from joseki_miner.runs.errors import UsageError
from joseki_miner.runs.settings import ExtractSettings
from joseki_miner.runs.stages import TREE


class OtherRun(UsageError):
    """The work folder does not hold the stages the tree was made from."""


def made_from(keys: dict[str, str], config: Config) -> dict:
    """What prune's manifest records of the stages its tree came from."""
    return {**{stage: keys[stage] for stage in WORK_STAGES}, "phase1": phase1(config)}


def where(work: Path) -> str:
    """The work folder as prune's manifest records it (under ``run``)."""
    return os.path.realpath(work)


def phase1(config: Config) -> dict:
    """The parameters the sequences were read with (a player's own games
    read otherwise are not comparable with the tree's); where handicap
    games were mined, whether their stones opened sequences."""
    handicap = config.section("include_handicap", "include_handicap.starts") if config.include_handicap else {}
    extract = ExtractSettings.of(config)
    return {**extract.params(), **extract.rules(), **handicap}


def recorded(out: Path) -> dict | None:
    """The record of the run that made the tree in ``out`` (None: no tree,
    or one pruned before trees recorded it)."""
    manifest = store.read_manifest(Catalog(work=out, out=out).manifest(TREE))
    found = manifest.get("made_from") if manifest else None
    if not isinstance(found, dict):
        return None
    run = manifest.get("run")
    return {**found, "work": run.get("work") if isinstance(run, dict) else None}


def work_for(out: Path, default: Path) -> Path:
    """The work folder to read the tree in ``out`` with, where none is
    given: the one it records, or ``default`` (the output folder's own, as
    for a copied output folder), whichever holds the stages the tree was
    made from; else the one it records, for ``check`` to refuse."""
    found = recorded(out)
    work = found.get("work") if found else None
    places = [Path(work)] if isinstance(work, str) and os.path.isdir(work) else []
    places.append(default)
    for place in places:
        now = held(place)
        if found is None or all(now[stage] == found.get(stage) for stage in WORK_STAGES):
            return place
    return places[0]


def held(work: Path) -> dict[str, str | None]:
    """The key of each stage the work folder holds whole (None: no stage,
    or files that are not those its manifest names: a run is writing it)."""
    out = {}
    for stage in WORK_STAGES:
        path = Catalog(work=work, out=work).manifest(stage)
        manifest = store.read_manifest(path)
        ok = manifest is not None and store.intact(manifest, path.parent)
        out[stage] = manifest.get("key") if ok else None
    return out


def check(catalog: Catalog) -> dict[str, str | None]:
    """Refuse (``OtherRun``) a work folder that does not hold the stages
    the tree in the output folder was made from; returns the stages it
    holds.  A tree that records nothing is not checked."""
    found = recorded(catalog.out)
    now = held(catalog.work)
    if found is None:
        return now
    if all(now[stage] == found.get(stage) for stage in WORK_STAGES):
        return now
    made = found.get("work")
    where = (
        ""
        if not isinstance(made, str) or made == os.path.realpath(catalog.work)
        else f" (it was mined with --work {made})"
    )
    if not any(now.values()):
        why = f"{catalog.work} holds no mined games now"
    elif None in now.values():
        why = f"a run is writing {catalog.work} (or stopped while it did)"
    else:
        why = f"{catalog.work} now holds another run's games or parameters"
    raise OtherRun(
        f"the tree in {catalog.out} was not mined from what {catalog.work} holds: {why}{where}; "
        f"mine again with --out {catalog.out} --work {catalog.work}, or give the work folder it was "
        "mined with"
    )


class Steady:
    """A reading of an output folder and its work folder that no run
    changed: ``check`` before, and the same stages held after."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.before = check(catalog)

    def confirm(self) -> None:
        if held(self.catalog.work) != self.before:
            raise OtherRun(f"a run changed {self.catalog.work} while it was read: ask again once it has ended")
