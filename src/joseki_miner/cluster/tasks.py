"""The dask engine's tasks, as they run on a worker: the joins' parts, the
build's counts, plan and shards, prune's on the shards, and the book's
(each given the resolution of the partitions, or None where it reads the
stage files).  The compiled engine loads here, where a task runs: the
driver plans and names the work without numba."""

from __future__ import annotations

import itertools
import os
import pickle
import struct
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from joseki_miner.cluster import joins

if TYPE_CHECKING:
    from joseki_miner.fast.joining import Counted
    from joseki_miner.method.context import Tally, Tree
    from joseki_miner.method.kinds import KindRules
    from joseki_miner.runs.config import Config
    from joseki_miner.runs.context import Context
    from joseki_miner.stages.context import Piece, Pruned


@dataclass(frozen=True)
class Failed:
    """A task of the book that raised ``error`` (``trace``: its traceback
    where it ran): the map goes on, so the build commits once its shards'
    files are written, and the run raises it then."""

    error: Exception
    trace: str


def book_task(job: Callable[[], Any], resolution: joins.Resolution | None = None) -> Any:
    """A task of the book in the map of the partitions (it takes nothing of
    it): its result, or its error as ``Failed``."""
    import traceback

    try:
        return job()
    except Exception as error:  # noqa: BLE001 - raised by the driver once the build has committed
        return Failed(error, traceback.format_exc())


def walk_piece(tree: Tree, piece: Piece, resolution: None = None) -> Tally:
    """A piece of sequences.parquet walked down the pruned ``tree`` (the
    context stage's task a piece)."""
    from joseki_miner.stages.context import walked

    return walked(tree, [piece])


def write_context(context: Context, pruned: Pruned, resolution: None, walks: list[Tally]) -> dict:
    """node_context.parquet from the sum of the pieces' ``walks``."""
    from joseki_miner.method.context import Tally
    from joseki_miner.stages.context import written

    return written(context, pruned, Tally.summed(walks, pruned.tree.n))


def join_part(what: str, folder: str, keys: list[str], p: int, into: str, resolution: joins.Resolution) -> dict:
    """Partition ``p``'s part of games.parquet or sequences.parquet (a task)."""
    write = joins.write_games if what == "games" else joins.write_sequences
    return write(folder, keys, resolution, p, into)


def _source(source, resolution=None):
    """What a build task on a worker counts: the partitions as joined
    (``source``: ``joins.Joined`` but for the resolution, a task's
    last argument), or the stage files (sequences.parquet and games.parquet,
    as ``build.Stored``)."""
    from joseki_miner.stages import build

    if callable(source):
        return source(resolution)
    return build.Stored(*map(Path, source))


def prefix_counts(stored: tuple[str, str]) -> dict[int, int]:
    """The openings of the stage files' sequences, sampled (a task)."""
    from joseki_miner.cluster import shards

    return shards.prefix_counts(_source(stored))


def count(
    key_range: tuple[int, int],
    folder: Path,
    floor_of: Callable[[int], int],
    source,
    resolution: joins.Resolution | None = None,
    *,
    neutral: int,
    budget: int,
) -> Counted:
    """The subtrees of ``key_range`` counted (a task): from the partitions,
    the games kept and their sequences as the joins write them, or from
    the stage files; ``floor_of`` the games kept."""
    from joseki_miner.cluster.shards import count_subtrees

    counted = _source(source, resolution)
    return count_subtrees(
        key_range,
        counted,
        folder,
        neutral=neutral,
        budget=budget,
        floor=floor_of(resolution.accepted if resolution is not None else 0),
    )


def plan_shards(
    ranges: list[tuple[int, int]],
    floor_of: Callable[[int], int],
    path: str,
    resolution: joins.Resolution | None = None,
    counted: list[Counted] | None = None,
) -> dict:
    """The plan of the trie's shards (a task, once the counts end, given
    what they ``counted``), kept in the file ``path`` for the shards'
    tasks, each shard's apart (``Shards.of``: the whole plan grows with the
    number of counts): their count and where each ends, then each
    pickled; the build's figures."""
    from joseki_miner.cluster import shards as trie

    if counted is None:
        raise TypeError("the plan of the shards is given the counts' results")
    shards = trie.plan_shards(
        counted, floor=floor_of(resolution.accepted if resolution is not None else 0), key_ranges=ranges
    )
    n = len(counted)
    writing = Path(f"{path}.{uuid.uuid4().hex}.tmp")  # a copy of this task (a worker's fault) writes its own
    try:
        with open(writing, "wb") as out:
            out.write(bytes(8 * (n + 1)))  # the index, once the plans are written
            ends = list(itertools.accumulate(out.write(pickle.dumps(shards.of(j))) for j in range(n)))
            out.seek(0)
            out.write(struct.pack(f"<{n + 1}q", n, *ends))
        _publish(writing, Path(path))
    finally:
        writing.unlink(missing_ok=True)
    return shards.figures()


def _publish(writing: Path, path: Path) -> None:
    """``writing`` as ``path`` unless a copy of its task got there first:
    a link, which never replaces a file a shard on another host may hold
    open (a rename would, and shared storage may then fail its reads);
    a rename where the storage has no links (the copies' files are alike)."""
    try:
        os.link(writing, path)
    except FileExistsError:
        pass
    except OSError:
        os.replace(writing, path)


def _shard_plan(plan: str, j: int):
    """Shard ``j``'s plan (``plan_shards``), reading its bytes alone;
    every shard's names the collections and the floor."""
    with open(plan, "rb") as f:
        (n,) = struct.unpack("<q", f.read(8))
        ends = struct.unpack(f"<{n}q", f.read(8 * n))  # of at most RANGES counts: 32 KB
        lo = ends[j - 1] if j else 0
        f.seek(8 * (n + 1) + lo)
        return pickle.loads(f.read(ends[j] - lo))


def write_shard(
    folder: Path,
    j: int,
    plan: str,
    paths: list[str],
    kinds: KindRules | None,
    resolution: joins.Resolution | None = None,
) -> int:
    """Shard ``j`` of the trie's files (a task, once the plan is made)."""
    from joseki_miner.cluster import shards

    return shards.write_shard(folder, _shard_plan(plan, j), j, tuple(Path(p) for p in paths), kinds)


def keep_candidates(
    folder: Path,
    j: int,
    plan: str,
    kinds: KindRules | None,
    pruned: Config,
    resolution: joins.Resolution | None = None,
) -> dict:
    """What phase 2 may keep of shard ``j`` (a task, once the plan is
    made), given the run's config: prune waits for these, not for the
    shards' files, and is handed them through the driver (a few dozen
    nodes a shard)."""
    from joseki_miner.cluster import shards as trie
    from joseki_miner.method.prune import Cut
    from joseki_miner.stages.prune import pruning_for

    shards = _shard_plan(plan, j)
    pruning = pruning_for(pruned, resolution.accepted if resolution is not None else 0, shards.floor)
    return trie.keep_candidates(folder, shards, j, kinds, Cut(pruning.threshold, pruning.min_length, pruning.rules))


def prune_shards(
    shards_count: int,
    plan: str,
    files: tuple[str, str, dict[str, str]],
    config: Config,
    wanted: str,
    resolution: joins.Resolution | None = None,
    waited: list | None = None,
) -> dict:
    """Phase 2 on the trie's shards' candidates (a task, once the joins and
    the shards' candidates end, given their results in order: the
    candidates, ``keep_candidates``', are the last ``shards_count``)."""
    from joseki_miner.stages import prune

    if waited is None:
        raise TypeError("prune on the shards is given their candidates")
    shards = _shard_plan(plan, 0)
    games = resolution.accepted if resolution is not None else 0
    sorted_path, _, outputs = files
    figures = prune.prune_shards(
        waited[len(waited) - shards_count :],
        shards.names,
        prune.PruneFiles(Path(sorted_path), None, {k: Path(v) for k, v in outputs.items()}),  # games: the shards
        prune.pruning_for(config, games, shards.floor),
        Path(wanted),
    )
    return {"figures": figures, "games": games}


def search_shard(
    folder: Path,
    j: int,
    plan: str,
    wanted: str,
    transposed: bool,
    resolution: joins.Resolution | None = None,
) -> dict[str, dict | None]:
    """Shard ``j``'s candidates for the kept nodes' example games and,
    where ``transposed``, its nodes on the kept nodes' positions (a task,
    given the resolution: how many games are kept): a few hundred rows,
    handed to ``write_found`` through the driver, as the counts' are to
    the plan (it reads no file a shard)."""
    from joseki_miner.cluster.shards import transposed_of_shard
    from joseki_miner.stages import prune

    if resolution is None:
        raise TypeError("a shard's search is given the resolution")
    shards = _shard_plan(plan, j)
    games = resolution.accepted
    return {
        "examples": prune.examples_of_shard(folder, shards.plan.parts[j].ranked, Path(wanted), games),
        "transposed": transposed_of_shard(folder, shards, j, Path(wanted)) if transposed else None,
    }


def write_found(
    wanted: str,
    games: str,
    outputs: dict[str, str],
    parted: bool,
    resolution: joins.Resolution | None = None,
    searched: list[dict] | None = None,
) -> None:
    """node_examples.parquet (and node_transpositions.parquet, where asked)
    of what the shards found (a task, given their searches' results,
    ``search_shard``'s, in order; ``parted``: games.parquet written by
    this run's joins, a part a partition)."""
    from joseki_miner.stages import prune

    if searched is None:
        raise TypeError("the files of what the shards found are given their searches' results")
    part_rows = [int(keep.sum()) for keep in resolution.keep] if parted and resolution is not None else None
    prune.write_found(
        [s["examples"] for s in searched],
        Path(wanted),
        Path(games),
        {k: Path(v) for k, v in outputs.items()},
        part_rows,
        [s["transposed"] for s in searched if s["transposed"] is not None],
    )
