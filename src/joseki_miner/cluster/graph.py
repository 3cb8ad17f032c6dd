"""The graph of the partitions' tasks on the dask cluster: each task named
(its dask key: the trace and ``make scale`` read it), waiting for others by
name, and started, of those ready, by its phase and then its size.  A
planner a phase makes its tasks: the joins, the build's counts, its shards,
prune on the shards, the book."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import IntEnum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from joseki_miner.cluster import client as cluster_
from joseki_miner.cluster import joins, tasks

if TYPE_CHECKING:
    from joseki_miner.method.context import Tree
    from joseki_miner.stages.context import Piece
    from joseki_miner.method.kinds import KindRules
    from joseki_miner.runs.config import Config


class Phase(IntEnum):
    """What a task does, in the order the scheduler favours the tasks ready
    (``priority``): the shards' files last (the build's commit and the book
    wait for them, no other task), the joins before them, then the counts
    and the candidates prune waits for, the plan before any count left,
    prune, and the book first; the context stage's tasks are a graph of
    their own."""

    SHARD = 0  # a shard's part of the build's files
    JOIN = 1  # rejects.parquet, or a partition's part of games.parquet or sequences.parquet
    COUNT = 2  # a range of openings' subtrees counted
    CANDIDATES = 3  # what phase 2 may keep of a shard
    PLAN = 4  # the plan of the trie's shards
    PRUNE = 5  # phase 2 on the shards' candidates
    SEARCH = 6  # a shard's search for what prune kept
    FOUND = 7  # the files of what the searches found
    BOOK = 8  # emit and the report's parts
    CONTEXT = 9  # a piece of sequences.parquet walked down the pruned tree, and the file of their sum


_LEVELS = {
    Phase.SHARD: 0,
    Phase.JOIN: 2**39,
    Phase.COUNT: 2**40,
    Phase.CANDIDATES: 2**40,
    Phase.PLAN: 2**41,
    Phase.PRUNE: 2**42,
    Phase.SEARCH: 2**42,
    Phase.FOUND: 2**42,
    Phase.BOOK: 2**43,
    Phase.CONTEXT: 2**43,
}


def priority(phase: Phase, size: int = 0) -> int:
    """A task's priority on the scheduler: its phase's level, then its size
    (the largest first; sizes stay below 2**39, a level apart)."""
    return _LEVELS[phase] + size


@dataclass(frozen=True)
class Task:
    """A task of the graph: ``fn(resolution)`` once the tasks it ``needs``
    (by name) have ended; ``fn(resolution, results)`` where it ``takes``
    their results (a list, in the graph's order)."""

    name: str
    fn: Callable
    needs: tuple[str, ...]
    phase: Phase
    size: int = 0
    takes: bool = False


class Graph:
    """Tasks in their order (of equal priority, the first starts first),
    each found by name; each needs only tasks before it (so never a
    cycle).  The map takes on more as it runs (``more``)."""

    def __init__(self, tasks: Sequence[Task]) -> None:
        self.tasks: list[Task] = []
        self.at: dict[str, int] = {}
        for task in tasks:
            self._add(task)

    def _add(self, task: Task) -> None:
        if task.name in self.at:
            raise ValueError(f"two tasks are named {task.name}")
        if missing := [n for n in task.needs if n not in self.at]:
            raise ValueError(f"task {task.name} needs tasks before it that are not: {missing}")
        self.at[task.name] = len(self.tasks)
        self.tasks.append(task)

    def of(self, phase: Phase) -> list[Task]:
        """The tasks of ``phase``, in order."""
        return [t for t in self.tasks if t.phase is phase]

    def more(self, tasks: Sequence[Task]) -> list[cluster_.More]:
        """``tasks`` after the graph's, as the map takes them on (they take
        no results)."""
        if any(t.takes for t in tasks):
            raise ValueError("a task the map takes on as it runs is given no results")
        more = []
        for task in tasks:
            self._add(task)
            more.append(cluster_.More(task.fn, task.name, priority(task.phase, task.size), self.needed(task)))
        return more

    def needed(self, task: Task) -> tuple[int, ...]:
        """The indices of the tasks ``task`` needs."""
        return tuple(self.at[n] for n in task.needs)

    def map(
        self,
        cluster: cluster_.Cluster | cluster_.InProcess,
        resolution: Any,
        on_done: Callable[[Task, Any], Sequence[Task]] = lambda task, result: (),
    ) -> dict[str, Any]:
        """Every task on ``cluster``, given ``resolution`` (a future of it,
        or None); ``on_done(task, result)`` as each ends: the tasks the map
        takes on (``more``).  Their results by name."""
        results = cluster.map(
            _run,
            [t.fn for t in self.tasks],
            resolution,
            names=[t.name for t in self.tasks],
            sizes=[priority(t.phase, t.size) for t in self.tasks],
            after=[self.needed(t) for t in self.tasks],
            on_done=lambda i, result: self.more(on_done(self.tasks[i], result)),
            takes=[i for i, t in enumerate(self.tasks) if t.takes],
        )
        return {t.name: r for t, r in zip(self.tasks, results)}


def _run(fn: Callable, resolution: Any, *taken: Any) -> Any:
    """A task's function on a worker, given the resolution and the results it takes."""
    return fn(resolution, *taken)


@dataclass(frozen=True)
class Names:
    """How a run's tasks are named: what each does, then the stage's key
    and the run's token."""

    key: str
    token: str

    def of(self, what: str) -> str:
        return f"{what}-{self.key}-{self.token}"


@dataclass(frozen=True)
class Subtrees:
    """The build's ranges of openings, a count each: the range, its size
    (the largest starts first) and the folder it is counted into."""

    ranges: list[tuple[int, int]]
    sizes: list[int]
    folders: list[Path]


def join_tasks(what: str, folder: str, keys: list[str], into: str, names: Names, strict: bool) -> list[Task]:
    """The joins of the partitions ``keys`` that write ``what`` to
    ``into``: rejects.parquet in one task; games.parquet or
    sequences.parquet a part a partition (the longest first: the
    sequences, the games, the rejects)."""
    if what == "rejects":
        write = partial(joins.write_rejects, folder, keys, path=into, strict=strict)
        return [Task(names.of("join-rejects"), write, (), Phase.JOIN, 1)]
    size = {"games": 2, "sequences": 3}[what]
    return [
        Task(
            names.of(f"join-{what}-{name}"),
            partial(tasks.join_part, what, folder, keys, p, into),
            (),
            Phase.JOIN,
            size,
        )
        for p, name in enumerate(keys)
    ]


def count_tasks(
    subtrees: Subtrees, count: Callable, floor_of: Callable[[int], int], source: Any, *, names: Names
) -> list[Task]:
    """The build's counts, a range of openings each, into its folder, from
    ``source`` (``tasks.count``), the largest first."""

    def counted(j: int, folder: Path) -> Callable:
        return partial(count, subtrees.ranges[j], folder, floor_of, source)

    return _a_task_a_range(subtrees, names, "build-count", Phase.COUNT, (), counted)


def _a_task_a_range(
    subtrees: Subtrees, names: Names, what: str, phase: Phase, needs: tuple[str, ...], work: Callable
) -> list[Task]:
    """A task for each range of ``subtrees``, ``work(j, folder)`` of the
    j-th, named ``what`` and the range, as large as its range."""
    return [
        Task(names.of(f"{what}-{lo}-{hi}"), work(j, folder), needs, phase, size)
        for j, ((lo, hi), folder, size) in enumerate(zip(subtrees.ranges, subtrees.folders, subtrees.sizes))
    ]


def shard_tasks(
    subtrees: Subtrees,
    plan: str,
    *,
    floor_of: Callable[[int], int],
    paths: list[str],
    kinds: KindRules | None,
    names: Names,
    counts: tuple[str, ...] = (),
    pruned: Config | None = None,
) -> list[Task]:
    """The trie of the ``subtrees`` counted: its plan, kept in the file
    ``plan`` (given the results of the ``counts`` it waits for; its own,
    the build's figures), then a shard a count writing its part of the
    build's files (``paths``), the largest first; given the ``pruned``
    run's config, what phase 2 may keep of each shard too (prune waits for
    these alone, not the shards' files)."""
    planned = names.of("build-plan")
    planning = partial(tasks.plan_shards, subtrees.ranges, floor_of, plan)
    made = [Task(planned, planning, counts, Phase.PLAN, takes=bool(counts))]

    def written(j: int, folder: Path) -> Callable:
        return partial(tasks.write_shard, folder, j, plan, paths, kinds)

    def kept(j: int, folder: Path) -> Callable:
        return partial(tasks.keep_candidates, folder, j, plan, kinds, pruned)

    made += _a_task_a_range(subtrees, names, "build-shard", Phase.SHARD, (planned,), written)
    if pruned is not None:
        made += _a_task_a_range(subtrees, names, "build-candidates", Phase.CANDIDATES, (planned,), kept)
    return made


def prune_tasks(
    folders: list[Path],
    plan: str,
    wanted: str,
    files: tuple[str, str, dict[str, str]],
    config: Config,
    *,
    parted: bool,
    names: Names,
    needs: tuple[str, ...],
) -> list[Task]:
    """Prune on the trie's shards: phase 2 on their candidates, once the
    tasks it ``needs`` end (the joins, then the candidates: it takes the
    last a shard), then each shard's search for the kept nodes' example
    games (and positions, where node_transpositions.parquet is asked), and
    the files of what they found (``parted``: games.parquet in parts)."""
    pruned = names.of("prune-shards")
    _, games, outputs = files
    transposed = "transpositions" in outputs
    searches = [
        Task(
            names.of(f"prune-search-{j}"),
            partial(tasks.search_shard, f, j, plan, wanted, transposed),
            (pruned,),
            Phase.SEARCH,
        )
        for j, f in enumerate(folders)
    ]
    return [
        Task(
            pruned,
            partial(tasks.prune_shards, len(folders), plan, files, config, wanted),
            needs,
            Phase.PRUNE,
            takes=True,
        ),
        *searches,
        Task(
            names.of("prune-found"),
            partial(tasks.write_found, wanted, games, outputs, parted),
            tuple(s.name for s in searches),
            Phase.FOUND,
            takes=True,
        ),
    ]


def book_tasks(
    jobs: list[Callable], names: list[str], reads: list[bool], found: str, shards: tuple[str, ...]
) -> list[Task]:
    """The book's tasks once what the shards ``found`` is written; those
    that read the build's files once its ``shards`` are written too."""
    return [
        Task(name, partial(tasks.book_task, job), (found, *(shards if read else ())), Phase.BOOK)
        for job, name, read in zip(jobs, names, reads)
    ]


def context_tasks(tree: Tree, pieces: list[Piece], write: Callable, names: Names) -> list[Task]:
    """The context stage: each piece of sequences.parquet walked down the
    pruned ``tree`` (the largest first), then node_context.parquet
    written from their sum (``write``, given the walks)."""
    walks = [
        Task(names.of(f"context-walk-{i}"), partial(tasks.walk_piece, tree, piece), (), Phase.CONTEXT, piece.rows)
        for i, piece in enumerate(pieces)
    ]
    return [*walks, Task(names.of("context-written"), write, tuple(w.name for w in walks), Phase.CONTEXT, takes=True)]
