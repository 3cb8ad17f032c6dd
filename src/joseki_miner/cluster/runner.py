"""The dask runner: ingest and extract a partition of the inputs a task,
their parts of the stage files a task each; the build by ranges of
openings, a count each, written as shards of the trie (a task a count)
and pruned on the shards' candidates; emit and the report's parts at
once; every other stage as one task.  The published files are those of
the fast engine, byte for byte; the stage files hold its rows (folders of
parts, their cut the partitions' and the counts').

It is handed a run's ``Context`` and gives back each stage ``Done`` (to
``commit``, as soon as it is, where a later task may still fail); the run
keys and commits them.  Task names and scratch folders carry the run's
token: a stopped run's task still running on a cluster of one's own is
never taken for this run's."""

from __future__ import annotations

import bisect
import itertools
import os
import time
import uuid
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from threading import Thread
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any


from joseki_miner.book import files as book_files
from joseki_miner.cluster import client as cluster_
from joseki_miner.cluster import graph, joins, partitions, tasks, trace
from joseki_miner.cluster.graph import Phase
from joseki_miner.runs.context import Context, Done, RunOptions, do_work, with_settings
from joseki_miner.runs.keys import partition_key
from joseki_miner.runs.progress import bar as progress_bar
from joseki_miner.runs.settings import ReportSettings
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.stages import BUILD, CONTEXT, EMIT, EXTRACT, INGEST, PRUNE, REPORT, Stage
from joseki_miner.runs.store import remove, staged
from joseki_miner.stages import context as stage_context
from joseki_miner.stages.params import Reading, floor_for, kind_rules, phase1_params, prune_outputs

if TYPE_CHECKING:
    from joseki_miner.runs.config import Config


@dataclass(frozen=True)
class Book:
    """The book's stages a run asks after prune: emit (with the report
    ``beside`` it) or the report alone, and ``context``: its context
    given the build's and prune's figures (their files written, not yet
    committed).  Where prune runs on the build's shards, they start as
    soon as prune's files are written, while the shards' files still are."""

    stage: Stage
    beside: Stage | None
    context: Callable[[dict, dict], Context]


class DaskRunner:
    """The stages of one run on a dask cluster, started (or connected to)
    once, in a thread of its own while the inputs are walked (``log``: the
    run's; ``started``: when the run began)."""

    def __init__(
        self, options: cluster_.Options, log: Callable[[str], None], started: float, in_process: bool = False
    ) -> None:
        self.options, self.log, self.started, self.in_process = options, log, started, in_process
        self._cluster: cluster_.Cluster | cluster_.InProcess | None = None
        self._starting: Future | None = None
        self._committed: set[str] = set()  # the build and prune, done and committed beside the joins
        self._booked: list[Done] | None = None  # emit and the report, done beside the build's shards
        self.token = uuid.uuid4().hex[:8]  # names this run's dask tasks and scratch folders
        self._removing: list[Thread] = []  # scratch folders being removed (``_remove_later``)

    def close(self) -> None:
        """Wait for a cluster still starting; say the CPU it used and close
        it; then wait for the build's scratch folders to be removed."""
        if self._starting is not None:
            self._starting.exception()  # started or failed: either way, nothing is left starting
        try:
            self._close()
        finally:
            for removing in self._removing:  # a stop while they run leaves the rest to the run's clean
                removing.join()

    def _close(self) -> None:
        """Say the CPU the cluster used, close it, and write the trace."""
        stream: list[dict] = []
        recorder = None
        if self._cluster is not None:
            try:
                if self._cluster.cpu_line():
                    self.log(self._cluster.cpu_line())
                stream = self._cluster.traced()
            finally:
                recorder = self._cluster.recorder
                self._cluster.close()
                self._cluster = None
        if self.options.trace:  # a run whose stages were all up to date ran no task: its trace says so
            wall = time.perf_counter() - self.started
            tasks = trace.record(stream, recorder or trace.Recorder(), began=time.time() - wall)
            try:
                trace.write(self.options.trace, wall, tasks)
            except OSError as exc:  # the run's outputs stand: only its trace is lost
                self.log(f"dask: the trace could not be written to {self.options.trace}: {exc}")
            else:
                self.log(f"dask: {len(tasks)} tasks traced to {self.options.trace}")

    def keep_partitions(self, context: Context, digests: dict[str, str]) -> None:
        """Ingest and extract were up to date: the partitions a stopped or
        failed run mined with other parameters or inputs go, and the
        folder holds what a clean run leaves."""
        partitions.clean(context.catalog.partitions, keep={p.key for p in self.plan(context, digests)[1]})

    def start_soon(self) -> None:
        """Start (or connect to) the dask cluster in a thread of its own,
        unless it is started or starting: ``cluster`` waits for it."""
        if self._cluster is None and self._starting is None:
            # imported before the thread: dask's imports there and this thread's (numba's where kernels run here,
            # tqdm's for the bars) reach them, and two threads that import a package at once can meet on its
            # module locks (CPython's _DeadlockError)
            import importlib.metadata  # noqa: F401
            import importlib.resources  # noqa: F401

            starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cluster")
            self._starting = starter.submit(self._start)
            starter.shutdown(wait=False)

    def cluster(self) -> cluster_.Cluster | cluster_.InProcess:
        """The dask cluster of this run, connected (or started) once."""
        try:
            if self._starting is not None:
                starting, self._starting = self._starting, None
                starting.result()  # its error, if it failed
            if self._cluster is None:
                self._start()
        except Exception:
            check_stop()  # Ctrl-C reaches the processes it starts too: the stop, not their failure to start
            raise
        assert self._cluster is not None
        return self._cluster

    def _start(self) -> None:
        if self.in_process:
            self.log("add: the partitions mined in this process (those of an earlier run kept)")
            self._cluster = cluster_.InProcess(self.options, log=self.log)
            return
        self.log(
            "dask: "
            + (f"connecting to {self.options.scheduler}" if self.options.scheduler else "starting a local cluster")
        )
        self._cluster = cluster_.Cluster(self.options, log=self.log)
        workers = self._cluster.workers()
        into = time.perf_counter() - self.started
        self.log(f"dask: {workers} worker{'s' * (workers != 1)} ready, {into:.1f} s into the run")

    def plan(
        self, context: Context, digests: dict[str, str]
    ) -> tuple[partitions.Settings, list[partitions.Partition], Counter[str]]:
        """The partitions of the inputs (``digests``: their content digests
        by path), what mining them needs, and the files skipped as they
        were planned (by why)."""
        config = context.config
        reading = Reading.of(
            config,
            RunOptions(table_bytes=context.options.table_bytes),
            exclude=tuple(os.path.abspath(f) for f in context.own),
        )
        settings = partitions.Settings(
            named_from=tuple(str(p) for p in context.paths),
            reading=reading,
            phase1=phase1_params(config),
            key=partition_key(config),
        )
        skipped: Counter[str] = Counter()
        parts = partitions.plan(
            list(context.paths),
            settings,
            digests,
            target_bytes=int(self.options.partition_mb * 2**20),
            on_skip=lambda source, location, why: skipped.update([why]),
        )
        return settings, parts, skipped

    def partitioned(
        self,
        context: Context,
        digests: dict[str, str],
        key: str,
        commit: Callable[[Done], None],
        *,
        ingest: bool = True,
        build: bool = False,
        prune: bool = False,
        book: Book | None = None,
    ) -> None:
        """Ingest and extract on the dask cluster: every partition mined on
        a worker (or kept from an earlier run), then joined into
        games.parquet, rejects.parquet and sequences.parquet (sequences
        alone where ingest is up to date: not ``ingest``; ``key``:
        extract's, in the tasks' names).  With ``build``, the trie is
        counted and written as shards beside the joins; with ``prune``
        (move orders not merged), pruned on the shards' candidates, and the
        ``book`` made once prune's files are written (its ``Done`` kept for
        ``stage``).  Each stage goes to ``commit`` as it is done
        (``_Commits``)."""
        config = context.config
        t0 = time.perf_counter()
        settings, parts, skipped = self.plan(context, digests)
        folder = os.path.abspath(context.catalog.partitions)
        cluster = self.cluster()
        found = self._mine(context, settings, parts, folder)
        mined = _Mined(parts, found, skipped, t0, time.perf_counter())
        keys = [p.key for p in parts]
        names = graph.Names(key, self.token)
        resolution = cluster.later(joins.resolve, folder, keys, config.dedupe, name=names.of("resolve"))
        cluster.everywhere(resolution)
        paths = self._join_paths(context, ingest, keys)
        strict = context.options.strict
        joining = {what: graph.join_tasks(what, folder, keys, into, names, strict) for what, into in paths.items()}
        made = [task for tasks_ in joining.values() for task in tasks_]
        counted: list[Path] = []  # the counts' folders
        if build:
            pruned = config if prune and not config.prune_merge_orders else None  # merged orders: the whole trie's
            joined = tuple(t.name for t in made)
            beside, counted = self._build_beside(context, keys, found, folder, names, pruned, joined, ingest)
            made += beside
        planned = graph.Graph(made)
        files = {what: (paths[what], [t.name for t in joining[what]]) for what in paths}
        commits = _Commits(self, context, commit, mined, planned, files, book, key)
        if not any(joining.values()):  # extract of no partitions: its empty part is written
            commits.joins_done()
        try:
            results = planned.map(cluster, resolution, commits.ended)
        finally:  # the counts' folders, the plan and the kept nodes' folder, once no task reads them
            self._remove_later([*counted, *self._scratch(context)] if build else [])
        commits.finish(results)

    def _mine(
        self, context: Context, settings: partitions.Settings, parts: list[partitions.Partition], folder: str
    ) -> list[dict]:
        """Every partition mined on a worker (or kept from an earlier run): what each found."""
        cluster = self.cluster()
        with progress_bar(
            context.options.progress,
            total=sum(p.size for p in parts),
            desc="mine partitions",
            unit="B",
            unit_scale=True,
        ) as bar:

            def mined(i: int, _) -> None:
                bar.update(parts[i].size)

            return cluster.map(
                partitions.mine,
                parts,
                settings,
                folder,
                names=[f"mine-{p.key}-{self.token}" for p in parts],
                sizes=[p.size for p in parts],
                on_done=mined,
            )

    def _join_paths(self, context: Context, ingest: bool, keys: list[str]) -> dict[str, str]:
        """The staged files the joins write, in the joins' order: rejects,
        games and sequences (sequences alone without ``ingest``); the
        folders of a part a partition made empty."""
        catalog = context.catalog
        paths = {
            "games": os.path.abspath(staged(catalog.games)),
            "rejects": os.path.abspath(staged(catalog.rejects)),
            "sequences": os.path.abspath(staged(catalog.sequences)),
        }
        parted = ["games", "sequences"] if ingest else ["sequences"]  # folders of a part a partition
        for what in parted:
            remove(Path(paths[what]))  # the folder holds this run's parts alone (``check_parts``)
            Path(paths[what]).mkdir(parents=True, exist_ok=True)
        if not keys:
            joins.no_partitions(paths["games"] if ingest else None, paths["sequences"])
        return {what: paths[what] for what in (["rejects"] if ingest else []) + parted}

    def _build_beside(
        self,
        context: Context,
        keys: list[str],
        found: list[dict],
        folder: str,
        names: graph.Names,
        pruned: Config | None,
        join_names: tuple[str, ...],
        ingest: bool,
    ) -> tuple[list[graph.Task], list[Path]]:
        """The build beside the joins: the openings the partitions sampled
        (``found``) counted by ranges, from the partitions as the joins
        write them, then the shards; given the ``pruned`` run's config,
        prune on the shards' candidates once the joins (``join_names``) end too (games.parquet
        in parts where they write it: ``ingest``).  And the counts' folders."""
        counts: Counter[int] = Counter()
        for found_ in found:
            counts.update({int(k): n for k, n in found_["prefixes"].items()})
        subtrees, count = self.subtrees(dict(counts), context)
        floor = partial(floor_for, config=context.config)
        joined = partial(joins.Joined, folder, tuple(keys))
        made = graph.count_tasks(subtrees, count, floor, joined, names=names)
        made += self._shard_tasks(context, subtrees, floor, names, tuple(t.name for t in made), pruned)
        if pruned is not None:
            candidates = tuple(t.name for t in made if t.phase is Phase.CANDIDATES)
            made += self._prune_tasks(context, subtrees.folders, names, ingest, (*join_names, *candidates))
        return made, subtrees.folders

    def stage(self, stage: Stage, context: Context, key: str, beside: Stage | None = None) -> list[Done]:
        """A stage on the dask cluster: the build by subtrees (one a
        worker), the context by pieces of sequences.parquet and the report
        in parts (``book_files.parts``), a task each; the other stages as
        one task.  Emit with the report
        ``beside`` it: both at once (neither reads the other's files)."""
        cluster = self.cluster()
        t0 = time.perf_counter()
        name = f"{stage.name}-{key}-{self.token}"
        if stage.name in self._committed:  # done and committed beside the joins of the partitions
            return []
        if stage.name == BUILD:
            return [Done(BUILD, self._build(context, name), time.perf_counter() - t0)]
        if stage.name == CONTEXT:
            found = self._context(stage, context, graph.Names(key, self.token))
            return [Done(CONTEXT, found, time.perf_counter() - t0)]
        if stage.name in (EMIT, REPORT) and self._booked is not None:  # made beside the build's shards
            booked, self._booked = self._booked, None
            return booked
        if stage.name not in (EMIT, REPORT):
            return [Done(stage.name, cluster.call(partial(_work, stage, context), name=name), time.perf_counter() - t0)]
        jobs, names, _ = self._book_jobs(stage, context, key, beside)
        ended = [0.0] * len(jobs)
        results = cluster.map(
            lambda job: job(), jobs, names=names, on_done=lambda i, _: ended.__setitem__(i, time.perf_counter())
        )
        return _booked(stage.name, results, t0, ended)

    def _book_jobs(
        self, stage: Stage, context: Context, key: str, beside: Stage | None
    ) -> tuple[list[Callable], list[str], list[bool]]:
        """Emit and the report's parts (``book_files.parts``), a task each,
        all at once (neither reads the other's files): emit alone, the
        report alone, or emit with the report ``beside`` it.  With each,
        whether it reads the build's files: each does (the nodes' games by
        year and collection, and the page of what changed, are counted
        from sorted_sequences.parquet)."""
        catalog, config = context.catalog, context.config
        name = f"{stage.name}-{key}-{self.token}"
        jobs: list[Callable] = [partial(_work, stage, context)] if stage.name == EMIT else []
        names = [name] if stage.name == EMIT else []
        reads = [True] * len(jobs)
        if stage.name == REPORT or beside is not None:
            folder = Path(os.path.abspath(staged(catalog.report)))
            book_files.start(folder)
            files = book_files.of_run(replace(context, settings=ReportSettings.of(config)))
            write = partial(book_files.write, folder=folder, share=config.influence_share, min_length=config.min_length)
            k = book_files.parts(context.found(PRUNE)["nodes_after_prune"], self.cluster().workers())
            jobs += [partial(write, files, part=(i, k)) for i in range(k)]
            names += [f"{name}-report-{i}-of-{k}" if stage.name == EMIT else f"{name}-{i}-of-{k}" for i in range(k)]
            reads += [True] * k
        return jobs, names, reads

    def _build(self, context: Context, name: str) -> dict:
        """The build from the stage files: the openings counted, then
        the subtrees (a task each; one a worker, as each reads every
        sequence of sequences.parquet), then planned and written as
        shards."""
        catalog, cluster = context.catalog, self.cluster()
        stored = (os.path.abspath(catalog.sequences), os.path.abspath(catalog.games))
        counts = cluster.call(tasks.prefix_counts, stored, name=f"{name}-prefixes")
        subtrees, count = self.subtrees(counts, context, fine=False)
        ranges, folders, floor = subtrees.ranges, subtrees.folders, context.floor
        try:
            counted = cluster.map(
                lambda i: count(ranges[i], folders[i], lambda games: floor, stored),
                range(len(ranges)),
                names=[f"{name}-count-{lo}-{hi}" for lo, hi in ranges],
                sizes=subtrees.sizes,
            )
            names = graph.Names(name, self.token)
            plan, *shards = self._shard_tasks(context, subtrees, lambda games: floor, names)
            plan = replace(plan, fn=partial(plan.fn, counted=counted))  # the plan, given the counts
            figures = graph.Graph([plan, *shards]).map(cluster, None)[plan.name]
            self._shards_done(context, len(ranges))
            return figures
        finally:
            self._remove_later([*folders, *self._scratch(context)])

    def _context(self, stage: Stage, context: Context, names: graph.Names) -> dict:
        """The context stage by pieces of sequences.parquet, each walked
        down the pruned tree on a worker, then written from their sum."""
        context = with_settings(stage, context)
        catalog = context.catalog
        pruned = stage_context.Pruned.read(context.current(catalog.joseki))
        pieces = stage_context.pieces(Path(os.path.abspath(context.current(catalog.sequences))))
        write = partial(tasks.write_context, context, pruned)
        planned = graph.context_tasks(pruned.tree, pieces, write, names)
        return graph.Graph(planned).map(self.cluster(), None)[planned[-1].name]

    def _shard_tasks(
        self,
        context: Context,
        subtrees: graph.Subtrees,
        floor_of: Callable[[int], int],
        names: graph.Names,
        counts: tuple[str, ...] = (),
        pruned: Config | None = None,
    ) -> list[graph.Task]:
        """The tasks that make the trie of the ``subtrees`` counted
        (``graph.shard_tasks``), the build's folders of parts made empty;
        each takes the resolution (None: from the stage files)."""
        paths = [os.path.abspath(staged(p)) for p in context.catalog.shards()]
        for path in paths:
            remove(Path(path))  # the folder holds this run's parts alone (``check_parts``)
            Path(path).mkdir(parents=True, exist_ok=True)
        _, plan = self._scratch(context)
        kinds = kind_rules(context.config)
        return graph.shard_tasks(
            subtrees,
            str(plan),
            floor_of=floor_of,
            paths=paths,
            kinds=kinds,
            names=names,
            counts=counts,
            pruned=pruned,
        )

    def _prune_tasks(
        self, context: Context, folders: list[Path], names: graph.Names, parted: bool, needs: tuple[str, ...]
    ) -> list[graph.Task]:
        """Prune's tasks on the trie's shards (``graph.prune_tasks``), once
        the tasks it ``needs`` end."""
        catalog, config = context.catalog, context.config
        outputs = {name: os.path.abspath(path) for name, path in prune_outputs(catalog, config).items()}
        wanted, plan = (str(path) for path in self._scratch(context))
        files = (os.path.abspath(staged(catalog.sorted_sequences)), os.path.abspath(catalog.games), outputs)
        return graph.prune_tasks(folders, plan, wanted, files, config, parted=parted, names=names, needs=needs)

    def _shards_done(self, context: Context, count: int) -> None:
        """That each of the build's folders holds a part a shard, before it commits."""
        for path in context.catalog.shards():
            joins.check_parts(os.path.abspath(staged(path)), count)

    def _scratch(self, context: Context) -> list[Path]:
        """The plan of the shards and the kept nodes' folder of this run."""
        scratch = Path(os.path.abspath(context.catalog.runs))
        return [scratch / f"kept-{self.token}", scratch / f"shards-{self.token}"]

    def _say(self, commit: Callable[[Done], None], done: Done) -> None:
        """A stage done beside the joins, committed and said."""
        commit(done)
        self.log(f"{done.stage}: done in {done.seconds:.1f} s")

    def _remove_later(self, folders: list[Path]) -> None:
        """Remove the build's scratch ``folders`` in a thread, while the
        run goes on (thousands of files: not on the driver's serial path);
        ``close`` waits for it.  A run stopped before leaves them to its
        clean (``folders.clean``)."""
        if folders:
            removing = Thread(target=_remove_each, args=(list(folders),), name="remove", daemon=True)
            removing.start()
            self._removing.append(removing)

    def subtrees(self, counts: dict[int, int], context: Context, fine: bool = True) -> tuple[graph.Subtrees, Callable]:
        """The build on the dask engine: the ranges of openings whose
        subtrees are counted apart (``partitions.ranges_for`` where
        ``fine``, the counts reading their range alone; else one a worker;
        ``counts``: the openings sampled, ``build.sampled``), with their
        sequences and a scratch folder each, and the count of one
        (``tasks.count`` but for its range, its folder, the floor of the games
        kept and what it counts)."""
        workers = self.cluster().workers()
        total = sum(counts.values())
        ranges = partitions.subtrees(counts, partitions.ranges_for(total, workers) if fine else workers)
        keys = sorted(counts)
        held = list(itertools.accumulate((counts[k] for k in keys), initial=0))
        sizes = [held[bisect.bisect_left(keys, hi)] - held[bisect.bisect_left(keys, lo)] for lo, hi in ranges]
        scratch = Path(os.path.abspath(context.catalog.runs))
        folders = [scratch / f"subtrees-{self.token}-{lo}-{hi}" for lo, hi in ranges]
        return (
            graph.Subtrees(ranges, sizes, folders),
            partial(
                tasks.count,
                neutral=context.config.influence_neutral,
                budget=context.options.sort_bytes // min(len(ranges), workers),
            ),
        )


@dataclass(frozen=True)
class _Mined:
    """The partitions mined: what each ``found``, the files ``skipped`` as
    they were planned (by why), when mining ``began`` and when every
    partition was ``read``."""

    parts: list[partitions.Partition]
    found: list[dict]
    skipped: Counter[str]
    began: float
    read: float


class _Commits:
    """The stages the partitions' graph makes, committed as its tasks end
    (by the ended task's phase): ingest and extract once the joins end (a
    count that fails after leaves them done); the build once its shards'
    files are written and the joins have committed; prune once what the
    shards found is written and the build has committed.  The book is
    taken on once what the shards found is written (``more``); where it
    reads the build's files, the build and prune commit after it
    (``finish``)."""

    def __init__(
        self,
        runner: DaskRunner,
        context: Context,
        commit: Callable[[Done], None],
        mined: _Mined,
        planned: graph.Graph,
        joins: dict[str, tuple[str, list[str]]],
        book: Book | None,
        key: str,
    ) -> None:
        self.runner, self.context, self.commit, self.mined, self.key = runner, context, commit, mined, key
        self.joins = joins  # each file the joins write: its path, and the joins' names
        self.shards = tuple(t.name for t in planned.of(Phase.SHARD))
        self.book = book if planned.of(Phase.FOUND) else None  # made beside the shards where prune runs on them
        self.joined: dict[str, Any] = {}
        self.joins_committed = False  # ingest (where the run has it) and extract
        self.games_accepted: int | None = None  # the games this run's ingest accepted
        self.figures: dict | None = None  # the build's, once its plan is made
        self.files, self.files_ended = 0, 0.0  # the shards' files written, and when the last was
        self.kept = 0.0  # when the last shard's candidates were
        self.pruned: dict | None = None  # prune's figures and games
        self.found: float | None = None  # when the files of what the shards found were written
        self.reads = self.book is not None  # the book reads the build's files staged: the build waits for it
        self.begun = 0.0  # when the book was taken on
        self.booked: dict[str, float] = {}  # when each task of the book ended

    def ended(self, task: graph.Task, result: Any) -> list[graph.Task]:
        """What a task's end does, and the tasks it adds (the book's)."""
        phase = task.phase
        if phase is Phase.JOIN:
            self.joined[task.name] = result
            if len(self.joined) == sum(len(names) for _, names in self.joins.values()):
                self.joins_done()
        elif phase is Phase.PLAN:
            self.figures = result
        elif phase is Phase.SHARD:
            self.files_ended, self.files = time.perf_counter(), self.files + 1
            self.build_done()
        elif phase is Phase.CANDIDATES:
            self.kept = time.perf_counter()
        elif phase is Phase.PRUNE:
            self.pruned = result
        elif phase is Phase.FOUND:
            self.found = time.perf_counter()
            self.prune_done()
            return self.more(task)
        elif phase is Phase.BOOK:
            self.booked[task.name] = time.perf_counter()
        return []

    def joins_done(self) -> None:
        """Ingest (where the run has it) and extract, committed."""
        mined, runner, ingest = self.mined, self.runner, "rejects" in self.joins
        keys = [p.key for p in mined.parts]
        for what, (path, _) in self.joins.items():
            if what != "rejects":  # folders of a part a partition
                joins.check_parts(path, len(keys))
        seconds = time.perf_counter() - mined.read
        of = {what: [self.joined[n] for n in names] for what, (_, names) in self.joins.items()}
        kept = sum(1 for f in mined.found if f.get(partitions.KEPT))
        if ingest:
            games = joins.games_figures(of.get("games", []))
            figures = joins.ingest_figures(mined.found, games, of["rejects"][0], mined.skipped)
            self.games_accepted = figures["games_accepted"]
            read = {"partitions": len(keys), "partitions_read": len(keys) - kept, "workers": runner.cluster().workers()}
            self.commit(Done(INGEST, figures, mined.read - mined.began, read))
        sequences = sum(part["sequences"] for part in of.get("sequences", []))
        self.commit(Done(EXTRACT, {"sequences": sequences}, seconds))
        partitions.clean(Path(os.path.abspath(self.context.catalog.partitions)), keep=set(keys))
        runner.log(
            f"{'ingest and ' * ingest}extract: {len(keys)} partition{'s' * (len(keys) != 1)} "
            f"({len(keys) - kept} read, {kept} "
            f"kept from an earlier run) in {mined.read - mined.began:.1f} s, joined in {seconds:.1f} s"
        )
        self.joins_committed = True
        self.build_done()  # where the shards' files were written before

    def accepted(self) -> int:
        """The games ingest accepted: this run's, or its manifest's."""
        if self.games_accepted is not None:
            return self.games_accepted
        return self.context.found(INGEST)["games_accepted"]

    def build_done(self) -> None:
        """The build commits once its shards' files are written, the joins
        have committed (it follows ingest and extract, and checks its floor
        against ingest's games), and the book (where the run makes one)
        reads none of its files staged: a stop after leaves it done."""
        if not self.joins_committed or self.files < len(self.shards) or self.reads or self.figures is None:
            return
        if BUILD in self.runner._committed:
            return
        floor = floor_for(self.accepted(), self.context.config)
        if self.figures["floor"] != floor:
            raise RuntimeError(f"the build counted with a floor of {self.figures['floor']}, its key says {floor}")
        self.runner._shards_done(self.context, len(self.shards))
        self.runner._committed.add(BUILD)
        self.runner._say(self.commit, Done(BUILD, self.figures, self.files_ended - self.mined.read))
        self.prune_done()

    def prune_done(self) -> None:
        """Prune commits (kept for the run's end) once what the shards
        found is written and the build has committed."""
        committed = self.runner._committed
        if self.found is None or BUILD not in committed or PRUNE in committed:
            return
        assert self.pruned is not None
        if self.pruned["games"] != self.accepted():
            raise RuntimeError(f"prune ran on {self.pruned['games']} games, ingest accepted another number")
        committed.add(PRUNE)
        self.runner._say(self.commit, Done(PRUNE, self.pruned["figures"], self.found - self.kept))

    def more(self, found: graph.Task) -> list[graph.Task]:
        """The book, once what the shards ``found`` is written: emit and the
        report read prune's files, and the build's sequences in trie order
        once the shards' files are written (each node's games by year and
        collection, the page of what changed)."""
        if self.book is None:
            return []
        assert self.figures is not None and self.pruned is not None
        self.begun = time.perf_counter()
        context = self.book.context(self.figures, self.pruned["figures"])
        jobs, names, reads = self.runner._book_jobs(self.book.stage, context, self.key, self.book.beside)
        self.reads = any(reads)
        self.build_done()  # where the shards' files were written before
        return graph.book_tasks(jobs, names, reads, found.name, self.shards)

    def finish(self, results: dict[str, Any]) -> None:
        """Once every task has ended: the build, if the book read its files
        staged, and the book's ``Done`` kept for ``stage`` (or its first
        error raised)."""
        if self.shards and BUILD not in self.runner._committed:  # the book read its files staged
            self.reads = False
            self.build_done()
        if self.book is None:
            return
        names = [n for n in results if n in self.booked]
        failed = [results[n] for n in names if isinstance(results[n], tasks.Failed)]
        if failed:  # the build and prune are done: the book's first error is the run's
            raise failed[0].error from _Traceback(failed[0].trace)
        ended = [self.booked[n] for n in names]
        self.runner._booked = _booked(self.book.stage.name, [results[n] for n in names], self.begun, ended)


def _booked(stage: str, results: list, begun: float, ended: list[float]) -> list[Done]:
    """The ``Done`` of emit and of the report (``_book_jobs``' results, in
    order, begun at ``begun`` and each ended at ``ended``)."""
    emitted = [Done(EMIT, results[0], ended[0] - begun)] if stage == EMIT else []
    parts = results[len(emitted) :]
    if not parts:
        return emitted
    return [*emitted, Done(REPORT, book_files.figures(parts), max(ended[len(emitted) :]) - begun)]


class _Traceback(Exception):
    """Where a task of the book failed, on its worker (the cause of its error)."""

    def __str__(self) -> str:
        return f"\n{self.args[0]}"


def _remove_each(paths: list[Path]) -> None:
    for path in paths:
        remove(path)


def _work(stage: Stage, context: Context) -> dict:
    """A stage's work as one task."""
    return do_work(stage, context)
