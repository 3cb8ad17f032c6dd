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
from dataclasses import dataclass
from threading import Thread
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any


from joseki_miner.book import files as book_files
from joseki_miner.cluster import client as cluster_
from joseki_miner.cluster import partitions, tasks, trace
from joseki_miner.runs.context import Context, Done, RunOptions, do_work
from joseki_miner.runs.keys import partition_key
from joseki_miner.runs.progress import bar as progress_bar
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.stages import Stage
from joseki_miner.runs.store import remove, staged
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
        """Ingest and extract on the dask cluster: every partition of the
        inputs mined on a worker (or kept from an earlier run), then joined
        into games.parquet, rejects.parquet and sequences.parquet by three
        tasks at once (sequences.parquet alone when ingest is up to date:
        not ``ingest``; ``key``: extract's, in the tasks' names).  Ingest
        and extract go to ``commit`` as soon as
        the joins end; with ``build``, the trie is counted beside them,
        planned and written as shards (a task a count), and committed once
        they are; with ``prune`` (where move orders are not merged)
        pruned on the shards' candidates (``prune.prune_shards``) and
        committed once what the shards found is written, and the ``book``
        made then, while the shards' files may still be written (its
        stages' ``Done`` kept for ``stage``; the build commits once they
        end where they read its files)."""
        catalog, config = context.catalog, context.config
        t0 = time.perf_counter()
        settings, parts, skipped = self.plan(context, digests)
        folder = os.path.abspath(catalog.partitions)
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

            found = cluster.map(
                partitions.mine,
                parts,
                settings,
                folder,
                names=[f"mine-{p.key}-{self.token}" for p in parts],
                sizes=[p.size for p in parts],
                on_done=mined,
            )
        read = time.perf_counter()
        names = [p.key for p in parts]
        resolution = cluster.later(partitions.resolve, folder, names, config.dedupe, name=f"resolve-{key}-{self.token}")
        cluster.everywhere(resolution)
        paths = {
            "games": os.path.abspath(staged(catalog.games)),
            "rejects": os.path.abspath(staged(catalog.rejects)),
            "sequences": os.path.abspath(staged(catalog.sequences)),
        }
        parted = ["games", "sequences"] if ingest else ["sequences"]  # folders of a part a partition
        for what in parted:
            remove(Path(paths[what]))  # the folder holds this run's parts alone (``check_parts``)
            Path(paths[what]).mkdir(parents=True, exist_ok=True)
        if not names:
            partitions.no_partitions(paths["games"] if ingest else None, paths["sequences"])
        joins = ["rejects"] if ingest else []  # what each job writes
        jobs: list[Callable] = [
            partial(partitions.write_rejects, folder, names, path=paths["rejects"], strict=context.options.strict)
        ] * ingest
        task_names = [f"join-rejects-{key}-{self.token}"] * ingest
        first = [2**39 + 1] * ingest  # after the counts, before the shards' files (prune waits for them), longest first
        for what in parted:
            jobs += [partial(tasks.join_part, what, folder, names, p, paths[what]) for p in range(len(names))]
            task_names += [f"join-{what}-{name}-{key}-{self.token}" for name in names]
            first += [2**39 + {"games": 2, "sequences": 3}[what]] * len(names)
            joins += [what] * len(names)
        counted, shards_at, counts_at = None, len(jobs), []
        takes: list[int] = []  # the jobs given the results of those they wait for
        if build:  # the build counts the partitions' sequences while the joins write them
            counts: Counter[int] = Counter()
            for found_ in found:
                counts.update({int(k): n for k, n in found_["prefixes"].items()})
            ranges, sizes, folders, count = self.subtrees(dict(counts), context)
            floor = partial(floor_for, config=config)
            joined_ = partial(partitions.Joined, folder, tuple(names))
            jobs += [partial(count, r, f, floor, joined_) for r, f in zip(ranges, folders)]
            task_names += [f"build-count-{lo}-{hi}-{key}-{self.token}" for lo, hi in ranges]
            first += [2**40 + size for size in sizes]
            counts_at = list(range(len(joins), len(jobs)))
            shards_at = len(jobs)
            pruned = config if prune and not config.prune_merge_orders else None  # merged orders: the whole trie's
            built_jobs, built_tasks, built_first = self._shards(context, ranges, sizes, folders, floor, key, pruned)
            jobs += built_jobs
            task_names += built_tasks
            first += built_first
            counted = (ranges, folders)
            ended_at = len(jobs)
            takes.append(shards_at)  # the plan, given the counts'
            if pruned is not None:  # phase 2 on the shards' candidates, then the shards' search for what it kept
                prune_jobs, prune_tasks, prune_after = self._prune_shards(context, folders, key, ingest)
                jobs += prune_jobs
                task_names += prune_tasks
                first += [2**42] * len(prune_jobs)  # before the shards' files: the book waits for them, not for those
                takes += [ended_at, len(jobs) - 1]  # prune given the candidates, what the shards found their searches'
        kept = sum(1 for f in found if f.get(partitions.KEPT))
        joined: dict[int, Any] = {}
        built: dict[str, Any] = {}
        after: list[list[int]] = [[] for _ in jobs]
        if counted:  # the plan once the counts end, the shards once it does; prune once their candidates and joins do
            after[shards_at : shards_at + 1] = [counts_at]
            after[shards_at + 1 : ended_at] = [[shards_at]] * (ended_at - shards_at - 1)
            if pruned is not None:  # on the shards' candidates, not their files
                candidates = list(range(ended_at - len(ranges), ended_at))
                after[ended_at:] = [[*range(len(joins)), *candidates]] + [
                    [ended_at + a for a in w] for w in prune_after[1:]
                ]

        booked: dict[str, Any] = {}
        booking = book is not None and counted is not None and pruned is not None

        def on_done(i: int, result) -> list[cluster_.More]:
            """What each task's end does, and the book it adds (``more``)."""
            ended(i, result)
            return more(i, result)

        def ended(i: int, result) -> None:
            """Ingest and extract commit as soon as the joins end: a count
            that fails or is stopped after leaves them done."""
            if i >= len(jobs):  # the book's
                booked["ended"][i - len(jobs)] = time.perf_counter()
                return
            if i >= len(joins):
                if counted and i == shards_at:
                    built["figures"] = result
                elif counted and shards_at < i <= shards_at + len(ranges):  # a shard's files
                    built["ended"], built["files"] = time.perf_counter(), built.get("files", 0) + 1
                    build_done()
                elif counted and i < ended_at:  # a shard's candidates
                    built["kept"] = time.perf_counter()
                elif counted and i == ended_at:
                    built["pruned"] = result
                elif counted and i == len(jobs) - 1 and pruned is not None:  # what the shards found
                    built["found"] = time.perf_counter()
                    prune_done()
                return
            joined[i] = result
            if len(joined) == len(joins):
                joins_done()

        def joins_done() -> None:
            for what in parted:
                partitions.check_parts(paths[what], len(names))
            seconds = time.perf_counter() - read
            of = {what: [joined[j] for j in range(len(joins)) if joins[j] == what] for what in set(joins)}
            if ingest:
                games = partitions.games_figures(of.get("games", []))
                figures = partitions.ingest_figures(found, games, of["rejects"][0], skipped)
                built["accepted"] = figures["games_accepted"]
                commit(
                    Done(
                        "ingest",
                        figures,
                        read - t0,
                        {"partitions": len(parts), "partitions_read": len(parts) - kept, "workers": cluster.workers()},
                    )
                )
            commit(Done("extract", {"sequences": sum(part["sequences"] for part in of.get("sequences", []))}, seconds))
            partitions.clean(Path(folder), keep=set(names))
            self.log(
                f"{'ingest and ' * ingest}extract: {len(parts)} partition{'s' * (len(parts) != 1)} "
                f"({len(parts) - kept} read, {kept} "
                f"kept from an earlier run) in {read - t0:.1f} s, joined in {seconds:.1f} s"
            )

        def accepted() -> int:
            """The games ingest accepted: this run's, or its manifest's."""
            return built["accepted"] if "accepted" in built else context.found("ingest")["games_accepted"]

        def build_done() -> None:
            """The build commits once its shards' files are written, and
            the book (where the run makes one) reads none of them staged:
            a stop after leaves it done."""
            if built.get("files", 0) < len(ranges) or (booking and booked.get("reads", True)):
                return
            floor = floor_for(accepted(), config)
            if built["figures"]["floor"] != floor:
                raise RuntimeError(
                    f"the build counted with a floor of {built['figures']['floor']}, its key says {floor}"
                )
            self._shards_done(context, len(ranges))
            self._committed.add("build")
            self._say(commit, Done("build", built["figures"], built["ended"] - read))
            prune_done()

        def prune_done() -> None:
            """Prune commits (kept for the run's end) once what the shards
            found is written and the build has committed."""
            if "found" not in built or "build" not in self._committed or "prune" in self._committed:
                return
            if built["pruned"]["games"] != accepted():
                raise RuntimeError(f"prune ran on {built['pruned']['games']} games, ingest accepted another number")
            self._committed.add("prune")
            self._say(commit, Done("prune", built["pruned"]["figures"], built["found"] - built["kept"]))

        def more(i: int, result) -> list[cluster_.More]:
            """The book, once what the shards found is written: emit and
            the report read prune's files, and the build's sequences in
            trie order once the shards' files are written (each node's
            games by year and collection, the page of what changed)."""
            if not booking or i != len(jobs) - 1:
                return []
            assert book is not None
            shards = range(shards_at + 1, shards_at + 1 + len(ranges))
            booked["begun"] = time.perf_counter()
            context = book.context(built["figures"], built["pruned"]["figures"])
            book_jobs, book_names, reads = self._book_jobs(book.stage, context, key, book.beside)
            booked["ended"], booked["reads"] = [0.0] * len(book_jobs), any(reads)
            build_done()  # where the shards' files were written before
            waits = [(i, *(shards if read else ())) for read in reads]
            return [
                cluster_.More(partial(tasks.book_task, j), n, 2**43, w) for j, n, w in zip(book_jobs, book_names, waits)
            ]

        if not joins:  # extract of no partitions: its empty part is written
            joins_done()
        try:
            results = cluster.map(
                lambda job, res, *taken: job(res, *taken),
                jobs,
                resolution,
                names=task_names,
                sizes=first,
                after=after,
                on_done=on_done,
                takes=takes,
            )
        finally:  # the counts' folders, the plan and the kept nodes' folder, once no task reads them
            self._remove_later([*counted[1], *self._scratch(context)] if counted else [])
        if counted and "build" not in self._committed:  # the book read its files staged
            booked["reads"] = False
            build_done()
        if booking:
            assert book is not None
            failed = [r for r in results[len(jobs) :] if isinstance(r, tasks.Failed)]
            if failed:  # the build and prune are done: the book's first error is the run's
                raise failed[0].error from _Traceback(failed[0].trace)
            self._booked = _booked(book.stage.name, results[len(jobs) :], booked["begun"], booked["ended"])

    def stage(self, stage: Stage, context: Context, key: str, beside: Stage | None = None) -> list[Done]:
        """A stage on the dask cluster: the build by subtrees (one a
        worker) and the report in parts (``book_files.parts``),
        a task each; the other stages as one task.  Emit with the report
        ``beside`` it: both at once (neither reads the other's files)."""
        cluster = self.cluster()
        t0 = time.perf_counter()
        name = f"{stage.name}-{key}-{self.token}"
        if stage.name in self._committed:  # done and committed beside the joins of the partitions
            return []
        if stage.name == "build":
            return [Done("build", self._build(context, name), time.perf_counter() - t0)]
        if stage.name in ("emit", "report") and self._booked is not None:  # made beside the build's shards
            booked, self._booked = self._booked, None
            return booked
        if stage.name not in ("emit", "report"):
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
        jobs: list[Callable] = [partial(_work, stage, context)] if stage.name == "emit" else []
        names = [name] if stage.name == "emit" else []
        reads = [True] * len(jobs)
        if stage.name == "report" or beside is not None:
            folder = Path(os.path.abspath(staged(catalog.report)))
            book_files.start(folder)
            files = book_files.of_run(context)
            write = partial(book_files.write, folder=folder, share=config.influence_share, min_length=config.min_length)
            k = book_files.parts(context.found("prune")["nodes_after_prune"], self.cluster().workers())
            jobs += [partial(write, files, part=(i, k)) for i in range(k)]
            names += [f"{name}-report-{i}-of-{k}" if stage.name == "emit" else f"{name}-{i}-of-{k}" for i in range(k)]
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
        ranges, sizes, folders, count = self.subtrees(counts, context, fine=False)
        floor = context.floor
        try:
            counted = cluster.map(
                lambda i: count(ranges[i], folders[i], lambda games: floor, stored),
                range(len(ranges)),
                names=[f"{name}-count-{lo}-{hi}" for lo, hi in ranges],
                sizes=sizes,
            )
            jobs, names, first = self._shards(context, ranges, sizes, folders, lambda games: floor, name)
            jobs[0] = partial(jobs[0], counted=counted)  # the plan, given the counts
            figures = cluster.map(
                lambda job: job(None), jobs, names=names, sizes=first, after=[[]] + [[0]] * (len(jobs) - 1)
            )[0]
            self._shards_done(context, len(ranges))
            return figures
        finally:
            self._remove_later([*folders, *self._scratch(context)])

    def _shards(
        self,
        context: Context,
        ranges: list[tuple[int, int]],
        sizes: list[int],
        folders: list[Path],
        floor_of: Callable[[int], int],
        key: str,
        pruned: Config | None = None,
    ) -> tuple[list[Callable], list[str], list[int]]:
        """The tasks that make the trie of the subtrees counted in
        ``folders``: its plan (``build.plan_shards``, given the counts'
        results; its own result is the build's figures), then a shard a count, each writing its part of
        the build's files (folders of parts, made empty here); each task
        takes the resolution (None: from the stage files).  Given the
        ``pruned`` run's config, a task a shard more keeps what phase 2
        may keep of it for ``tasks.prune_shards``, apart from its files (prune
        waits for these alone)."""
        catalog = context.catalog
        paths = [os.path.abspath(staged(p)) for p in catalog.shards()]
        for path in paths:
            remove(Path(path))  # the folder holds this run's parts alone (``check_parts``)
            Path(path).mkdir(parents=True, exist_ok=True)
        plan = os.path.abspath(Path(folders[0]).with_name(f"shards-{self.token}"))
        jobs: list[Callable] = [partial(tasks.plan_shards, ranges, floor_of, plan)]
        kinds = kind_rules(context.config)
        jobs += [partial(tasks.write_shard, f, j, plan, paths, kinds) for j, f in enumerate(folders)]
        names = [f"build-plan-{key}-{self.token}"]
        names += [f"build-shard-{lo}-{hi}-{key}-{self.token}" for lo, hi in ranges]
        first = [2**41, *sizes]  # the plan before any count left, the shards largest first
        if pruned is not None:  # and before them, what prune waits for
            jobs += [partial(tasks.keep_candidates, f, j, plan, kinds, pruned) for j, f in enumerate(folders)]
            names += [f"build-candidates-{lo}-{hi}-{key}-{self.token}" for lo, hi in ranges]
            first += [2**40 + size for size in sizes]
        return jobs, names, first

    def _prune_shards(
        self, context: Context, folders: list[Path], key: str, parted: bool
    ) -> tuple[list[Callable], list[str], list[list[int]]]:
        """Prune's tasks on the trie's shards: phase 2 on their candidates
        (``prune.prune_shards``), then each shard's search for the kept
        nodes' example games (and, where node_transpositions.parquet is
        asked, for their positions), and the files of what they found; the
        tasks each waits for, by index among them."""
        catalog, config = context.catalog, context.config
        outputs = {name: os.path.abspath(path) for name, path in prune_outputs(catalog, config).items()}
        plan = os.path.abspath(Path(folders[0]).with_name(f"shards-{self.token}"))
        wanted = os.path.abspath(Path(folders[0]).with_name(f"kept-{self.token}"))
        sorted_path = os.path.abspath(staged(catalog.sorted_sequences))
        files = (sorted_path, os.path.abspath(catalog.games), outputs)
        jobs: list[Callable] = [partial(tasks.prune_shards, len(folders), plan, files, config, wanted)]
        names = [f"prune-shards-{key}-{self.token}"]
        transposed = "transpositions" in outputs
        jobs += [partial(tasks.search_shard, f, j, plan, wanted, transposed) for j, f in enumerate(folders)]
        names += [f"prune-search-{j}-{key}-{self.token}" for j in range(len(folders))]
        jobs.append(partial(tasks.write_found, wanted, files[1], outputs, parted))
        names.append(f"prune-found-{key}-{self.token}")
        after = [[], *[[0]] * len(folders), list(range(1, len(folders) + 1))]
        return jobs, names, after

    def _shards_done(self, context: Context, count: int) -> None:
        """That each of the build's folders holds a part a shard, before it commits."""
        for path in context.catalog.shards():
            partitions.check_parts(os.path.abspath(staged(path)), count)

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

    def subtrees(
        self, counts: dict[int, int], context: Context, fine: bool = True
    ) -> tuple[list[tuple[int, int]], list[int], list[Path], Callable]:
        """The build on the dask engine: the ranges of openings whose
        subtrees are counted apart (``partitions.ranges_for`` where
        ``fine``, the counts reading their range alone; else one a worker;
        ``counts``: the openings sampled, ``build.sampled``), their
        sequences, a scratch folder for each, and the count of one
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
            ranges,
            sizes,
            folders,
            partial(
                tasks.count,
                neutral=context.config.influence_neutral,
                budget=context.options.sort_bytes // min(len(ranges), workers),
            ),
        )


def _booked(stage: str, results: list, begun: float, ended: list[float]) -> list[Done]:
    """The ``Done`` of emit and of the report (``_book_jobs``' results, in
    order, begun at ``begun`` and each ended at ``ended``)."""
    emitted = [Done("emit", results[0], ended[0] - begun)] if stage == "emit" else []
    parts = results[len(emitted) :]
    if not parts:
        return emitted
    return [*emitted, Done("report", book_files.figures(parts), max(ended[len(emitted) :]) - begun)]


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
