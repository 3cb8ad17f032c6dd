"""Run the stages in order, skipping any whose inputs and parameters are
unchanged since its last run (its cache key is in its manifest), so that
whatever stops a run, the next one gives what a clean run would.

A run holds the lock of its work and output folders.  Every stage writes
under temporary names and commits (``store.commit``): the stages of the work
folder (ingest, extract, build) as each finishes, so a later failure keeps
them; the published ones (prune, emit) together with summary.json when the
run ends, so a run that fails or is stopped leaves the output folder as it
was.  What a stopped run left behind (temporary names, spilled runs) is
removed at the start of the next and at the end of a failed one.

The runners do the stages' work, each handed a frozen ``Context`` and
giving back what it ``Done`` (``runs.context``): ``runners.sequential`` (a
stage as one call), ``runners.stream`` (the fast engine's one pass of
ingest, extract and build) and ``cluster.runner`` (dask).  This module
keys and commits what they give back, and only it does."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from joseki_miner.fast import compiling
from joseki_miner.runners import sequential
from joseki_miner.runs import asked, checks, folders, lineage, remote, store
from joseki_miner.runs.catalog import PUBLISHED, WORK_STAGES, Catalog
from joseki_miner.runs.checks import check_paths
from joseki_miner.runs.config import Config
from joseki_miner.runs.context import Context, CountedTrie, Done, RunOptions
from joseki_miner.runs.errors import StrictError, UsageError
from joseki_miner.runs.files import Walked
from joseki_miner.runs.inputs import Collections, Scan, scan
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.stages import publishes_next
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.summary import summarize
from joseki_miner.stages.params import floor_for
from pipeline.request import Request

if TYPE_CHECKING:
    from joseki_miner.cluster.runner import Book, DaskRunner

# The compiled engine (the stages' work in joseki_miner.stages) is imported where it runs: the dask engine's
# driver plans and names the work without loading numba (its CPU is the serial part).  So are pyarrow, numpy
# and the stages' own modules: a run whose stages are all up to date walks its inputs, reads its manifests and
# loads little else.

# Figures of how a run went, not of what its stage found: they depend on the engine, the memory options and
# the moment, so a manifest keeps them apart (under "run"), and the rest of it is the same for the same games
# and config.
RUN_FIGURES = (
    "dedupe_bytes",
    "wheres_spilled_bytes",
    "table_memory_bytes",
    "tables_bytes",
    "tables_dropped",
    "tables_mapped_bytes",
    "sequence_bytes",
    "spilled_bytes",
    "runs_spilled",
    "input_files",
    "input_bytes",
    "files_hashed",
    "inputs_seconds",
    "hash_seconds",
)
# hashed before ingest, where the digests not cached are at most this share of the inputs' bytes (a file touched or
# added: hashing it may find ingest up to date); more, and ingest reads them once, taking their digests as it reads
HASH_AHEAD = 0.1


def run_stages(
    catalog: Catalog,
    config: Config,
    stages: Sequence[str],
    paths: Sequence[str | Path] = (),
    request: Request = Request(),
    log: Callable[[str], None] = lambda s: None,
) -> dict:
    """Run ``stages`` (a contiguous part of the catalog's) as ``request``
    asks and write summary.json (the figures of this and earlier stages;
    later stages' stale figures are left out).  A stage re-runs only when
    its cache key (inputs + parameters) changed, its files are not those
    its manifest names, or ``force``; otherwise its outputs from last time
    stand.  Returns the summary."""
    r = request
    request = replace(r, jobs=checks.check_options(r.engine, r.jobs, r.sort_memory, r.table_memory))
    checks.check_cwd()
    checks.check_writable(catalog.work, catalog.out)
    checks.check_outputs(catalog)
    locks = folders.locks(catalog, r.wait, log, r.command)
    try:
        folders.clean(catalog)
        try:
            summary = _Run(catalog, config, stages, paths, request, log).go()
        finally:
            folders.clean(catalog)  # a run that finished left nothing staged; one that failed may have
        if catalog.publish:
            folders.publish(catalog, log)
        return summary
    finally:
        for lock in reversed(locks):
            lock.release()


def _found(figures: dict) -> dict:
    """What a stage found, of its figures (not how the run went: ``RUN_FIGURES``)."""
    return {k: v for k, v in figures.items() if k not in RUN_FIGURES}


class _Run:
    """One run of the stages: what it has done so far, and what it has
    staged but not yet committed.  The runners do the stages' work
    (``runners.sequential``, ``runners.stream``, ``cluster.runner``), each
    handed a ``Context`` and giving back what it ``Done``; this run keys
    and commits it."""

    def __init__(
        self,
        catalog: Catalog,
        config: Config,
        stages: Sequence[str],
        paths,
        request: Request,
        log: Callable[[str], None],
    ) -> None:
        self.catalog, self.config, self.stages, self.paths = catalog, config, list(stages), list(paths)
        self.request, self.log = request, log
        # what a stage runs on (a dask worker: the fast engine), and its bars (a worker's would scramble the driver's)
        self.options = RunOptions(
            engine="fast" if request.engine == "dask" else request.engine,
            jobs=request.jobs or 1,  # run_stages has checked it: every core where none was asked
            strict=request.strict,
            progress=request.progress and request.engine != "dask",
            sort_bytes=int(request.sort_memory * 2**20),
            table_bytes=int(request.table_memory * 2**20),
        )
        self.figures: dict[str, dict] = {}  # of the stages this run has done
        self.published: list[store.StageRecord] = []  # prune and emit, committed when the run ends
        self.trie: CountedTrie | None = None  # the trie the one pass has just counted, for prune
        self.started = time.perf_counter()
        self.own = (catalog.work, catalog.out)
        self.scanned: Scan | None = None  # the inputs walked, and their digests known (``inputs_known``)
        self.inputs: str | None = None  # their key, once known
        self.collected: dict = {}  # the digests the fast engine's readers take as they read
        self.given = list(paths)  # as given: URLs too (``paths`` reads their mirrors)
        self.dask: DaskRunner | None = None  # the dask runner, for its runs
        self.compiling = compiling.Notice(log)
        if request.engine == "dask" or request.add:  # --add on the other engines: the dask runner's partitions, here
            from joseki_miner.cluster.runner import DaskRunner

            self.dask = DaskRunner(request.cluster, log, self.started, in_process=request.engine != "dask")

    # -- what earlier stages left --------------------------------------------------
    def known(self, stage: str) -> dict | None:
        """A stage's figures: this run's, or its manifest's (None: it has not run)."""
        if stage in self.figures:
            return self.figures[stage]
        manifest = store.read_manifest(self.catalog.manifest(stage))
        return manifest["figures"] if manifest is not None else None

    def stage_figures(self, stage: str) -> dict:
        figures = self.known(stage)
        if figures is None:
            raise UsageError(f"stage {stage} has not run in {self.catalog.manifest(stage).parent}")
        return figures

    def floor(self) -> int:
        """The least count the build stores, for the games ingested (2
        where none are known yet)."""
        games = (self.known("ingest") or {}).get("games_accepted")
        return floor_for(games, self.config) if games is not None else 2

    def context(self, stage: str) -> Context:
        """What ``stage``'s work is given: the figures of the stages before
        it (this run's, or their manifests'), the outputs staged and not
        yet committed, the trie just counted; the inputs walked (and their
        digests to take) where the fast engine reads them."""
        before = self.catalog.names[: self.catalog.names.index(stage)]
        figures = {name: found for name in before if (found := self.known(name)) is not None}
        scanned = self.scanned if self.dask is None and self.request.engine == "fast" else None
        return Context(
            self.catalog,
            self.config,
            self.options,
            paths=tuple(self.paths),
            figures=figures,
            floor=self.floor(),
            staged=frozenset(p for r in self.published for p in r.outputs),
            walked=scanned.walked if scanned is not None else None,
            digests=self.collected if scanned is not None and self.inputs is None else None,
            trie=self.trie,
        )

    def fresh(self, stage: str, keys: dict[str, str]) -> bool:
        """Is the stage's last run that of these keys, its files whole (and
        a tree's record of its work folder this run's)?"""
        manifest = store.read_manifest(self.catalog.manifest(stage))
        return (
            manifest is not None
            and manifest.get("key") == keys[stage]
            and store.intact(manifest, self.catalog.manifest(stage).parent)
            and (stage != "prune" or manifest.get("made_from") == lineage.made_from(keys, self.config))
        )

    def record(
        self,
        stage: str,
        key: str,
        figures: dict,
        seconds: float,
        keys: dict[str, str],
        inputs: str | None = None,
        **run,
    ) -> store.StageRecord:
        """A stage's commit: its manifest and the files it staged (files it
        may write but did not this time, an SVG without Graphviz, go).  The
        manifest's "figures" are what the stage found; "run" how this run
        went (``run``: seconds, memory, whether it streamed)."""
        found = _found(figures)
        run = {"seconds": round(seconds, 3), **{k: v for k, v in figures.items() if k in RUN_FIGURES}, **run}
        self.figures[stage] = found
        written = self.written(stage)
        gone = [p for p in self.catalog.outputs(stage) if p not in written]
        data = {"stage": stage, "key": key, "figures": found, "run": run}
        if inputs is not None:
            data["inputs"] = inputs  # so later stages can run alone
            data["paths"] = [str(p) for p in self.given]  # so a later run can --add to them
        if stage == "prune":  # so what reads the tree reads its run's work stages
            if "build" not in self.stages:  # pruned alone: from the stages the work folder holds, whatever the config
                keys = {**keys, **{k: v for k, v in lineage.held(self.catalog.work).items() if v}}
            data["made_from"] = lineage.made_from(keys, self.config)
            run["work"] = lineage.where(self.catalog.work)
        return store.StageRecord(self.catalog.manifest(stage), data, written, gone)

    def written(self, stage: str) -> list[Path]:
        """The outputs ``stage`` has staged this run."""
        return [p for p in self.catalog.outputs(stage) if store.staged(p).exists()]

    def settle(self, record: store.StageRecord) -> None:
        """Commit a work stage now; keep a published one for the end."""
        if not self.catalog.stage(record.record["stage"]).published:
            check_stop()
            store.commit([record])
        else:
            self.published.append(record)

    def book(self) -> Book | None:
        """Emit (with the report beside it) or the report alone, where the
        run asks for them after prune: the dask engine makes them as soon
        as prune's files are written."""
        from joseki_miner.cluster.runner import Book

        after = self.stages[self.stages.index("prune") + 1 :] if "prune" in self.stages else []
        if not after or after[0] not in ("emit", "report"):
            return None
        beside = self.catalog.stage("report") if after[:2] == ["emit", "report"] else None
        return Book(self.catalog.stage(after[0]), beside, partial(self.pruned_context, after[0]))

    def pruned_context(self, stage: str, built: dict, pruned: dict) -> Context:
        """``stage``'s context where the build's and prune's files are
        written, and maybe not yet committed (``built``, ``pruned``: their
        figures, as ``record`` keeps them)."""
        context = self.context(stage)
        figures = {**context.figures, "build": _found(built), "prune": _found(pruned)}
        return replace(context, figures=figures, staged=context.staged | frozenset(self.written("prune")))

    def keys(self, inputs: str) -> dict[str, str]:
        """Every stage's key for these inputs; the build's (and those after
        it) with the floor of the games ingested, where they are known."""
        return stage_keys(self.config, inputs, self.floor(), self.catalog.stages)

    def commit(self, done: Done, inputs: str, say: bool = True) -> None:
        """A stage a runner has done, keyed and committed (a published one
        kept for the end); ingest's with the inputs' key.  ``say``: log it."""
        keys = self.keys(inputs)
        self.settle(
            self.record(
                done.stage,
                keys[done.stage],
                done.figures,
                done.seconds,
                keys,
                inputs=inputs if done.stage == "ingest" else None,
                **done.run,
            )
        )
        if say:
            self.log(f"{done.stage}: done in {done.seconds:.1f} s")

    # -- the run ---------------------------------------------------------------------
    def go(self) -> dict:
        try:
            summary = self._go()
            if self.compiling.said:  # this machine's first run: what other inputs need too, so no later run compiles
                from joseki_miner.runners import kernels

                started = time.perf_counter()
                self.log("compiling the kernels other inputs need too (once) ...")
                try:
                    self.log(f"compiled {kernels.warm()} more kernels in {time.perf_counter() - started:.1f} s")
                except KeyboardInterrupt:  # the outputs are committed: a stop here costs the next run a compile
                    self.log("compiling stopped; the outputs are written, a later run compiles the rest")
            return summary
        finally:
            self.compiling.remove()
            if self.dask is not None:
                self.dask.close()

    def _go(self) -> dict:
        catalog, config = self.catalog, self.config
        if self.request.add:
            self.paths = self.added()
        self.given = list(self.paths)
        if "ingest" in self.stages:
            check_paths(self.paths, self.own)
            self.paths = [folders.fetched(p, catalog, self.log) if remote.is_url(p) else p for p in self.paths]
            mined = store.read_manifest(catalog.manifest("ingest"))
            if self.dask is not None and (
                self.request.force
                or self.request.add
                or mined is None
                or mined.get("paths") != [str(p) for p in self.given]
            ):
                # games to mine: the cluster starts (and warms) while the inputs are hashed; otherwise once a
                # stage needs it (every stage may be up to date: no cluster at all)
                self.dask.start_soon()
            inputs = self.inputs_known(mined)
            if config.filter_sources is not None:  # a collection asked for that the inputs do not hold: say so now
                names = Collections(self.paths, config.collections_depth)
                asked.check_sources(config.filter_sources, sorted({names.of(f.path) for f in self.walked().files}))
        else:
            manifest = store.read_manifest(catalog.manifest("ingest"))
            if manifest is None:
                raise UsageError(f"no ingested games in {catalog.work}: run `joseki ingest` first")
            inputs = manifest.get("inputs", "")
        if "prune" not in self.stages and set(self.stages) & {"emit", "report"}:
            lineage.check(catalog)  # a tree's pages and files from its own run's games, or none
        streamed = (
            self.dask is None and self.request.engine == "fast" and {"ingest", "extract", "build"} <= set(self.stages)
        )
        upstream_ran = False
        ran: set[str] = set()
        building: Callable[[], Done] | None = None  # the one pass's build, committed once trie.parquet is whole
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="write") as pool:
            try:
                for stage in self.stages:
                    if stage in ran:
                        continue
                    # inputs None: some files' digests come as ingest reads them, and ingest runs (inputs_known)
                    keys = self.keys(inputs) if inputs is not None else None
                    if keys is not None and not self.request.force and not upstream_ran and self.fresh(stage, keys):
                        self.log(f"{stage}: up to date, kept")
                        if stage == "ingest" and self.request.strict:
                            self.strict_again()
                        continue
                    upstream_ran = True
                    if stage in WORK_STAGES + ("prune",) and (self.dask is None or self.dask.in_process):
                        self.compiling.install()  # the stages with kernels, here: say so if they compile
                    check_stop()
                    if stage == "ingest" and streamed:
                        from joseki_miner.runners import stream

                        one_pass = stream.ingest_to_build(self.context(stage), pool)
                        self.trie, building = one_pass.trie, one_pass.built  # the trie: for prune only, then freed
                        ingested, extracted, counted = one_pass.ingest, one_pass.extract, one_pass.counted_seconds
                        del one_pass
                        ingested = replace(ingested, figures={**ingested.figures, **self.digested()})
                        inputs = self.inputs_key()
                        self.commit(ingested, inputs)
                        self.commit(extracted, inputs, say=False)
                        self.log(f"extract: done alongside ingest, {extracted.seconds:.1f} s after it")
                        self.log(f"build: done in {counted:.1f} s (trie.parquet is written alongside prune and emit)")
                        ran |= {"extract", "build"}
                        continue
                    if self.dask is not None and (stage == "ingest" or stage == "extract" and "ingest" in self.stages):
                        # extract alone (new distances) too: its partitions, mined on every worker, replace those
                        # of the old parameters, as they would in a clean run; the cluster starts while they are
                        # planned (its wait is in the stage's time, as on a first run)
                        self.dask.start_soon()
                        assert keys is not None and inputs is not None  # the dask engine hashes its inputs first
                        self.dask.partitioned(
                            self.context(stage),
                            self.digests(),
                            keys["extract"],
                            partial(self.commit, inputs=inputs, say=False),
                            ingest=stage == "ingest",
                            build="build" in self.stages,
                            prune={"build", "prune"} <= set(self.stages),
                            book=self.book(),
                        )
                        ran.add("extract")
                        continue
                    declared = catalog.stage(stage)
                    later = self.stages[self.stages.index(stage) + 1 :][:1]
                    beside = catalog.stage("report") if stage == "emit" and later == ["report"] else None
                    if self.dask is not None:
                        assert keys is not None
                        self.dask.cluster()  # started (where no stage needed it before) ahead of this stage's clock
                        dones = self.dask.stage(declared, self.context(stage), keys[stage], beside)
                    elif beside is not None:
                        dones = sequential.beside(declared, beside, self.context(stage))
                    else:
                        dones = [sequential.run(declared, self.context(stage))]
                    for done in dones:
                        if done.stage == "ingest":
                            done = replace(done, figures={**done.figures, **self.digested()})
                            inputs = self.inputs_key()
                        assert inputs is not None  # known before any stage but ingest runs
                        self.commit(done, inputs)
                        ran.add(done.stage)
                    if stage == "prune":
                        self.trie = None
                if building is not None:  # the build's commit, once trie.parquet is whole
                    waiting, building = building, None
                    self.commit(waiting(), self.inputs_key(), say=False)
                if (
                    self.dask is not None
                    and {"ingest", "extract"} <= set(self.stages)
                    and "extract" not in ran
                    and any(catalog.partitions.glob("*"))
                ):
                    self.dask.keep_partitions(self.context("ingest"), self.digests())
            finally:
                self.trie = None
                if building is not None:  # failed: wait for the thread still writing, commit nothing more
                    try:
                        building()
                    except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                        pass
        check_stop()  # the last moment a stop leaves the output folder as it was
        store.commit(self.published)
        unpublished = self.unpublished()
        seconds = time.perf_counter() - self.started
        upto = None if unpublished is None and not self.publishes() else self.stages[-1]  # None: the tree, whole
        summary = summarize(catalog, seconds if self.figures else self.made_in(seconds), upto=upto)
        if not self.figures:  # every stage up to date: the seconds are those of the run that made the outputs
            summary["rerun_seconds"] = round(seconds, 2)
        if unpublished is None or not unpublished["book"]:  # summary.json describes the book beside it, or none
            store.write_atomically(catalog.summary, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
        return summary if unpublished is None else {**summary, "unpublished": unpublished}

    def made_in(self, seconds: float) -> float:
        """The seconds of the run that made the outputs, as its summary.json
        says (``seconds``: this run's, where none does)."""
        try:
            made = json.loads(self.catalog.summary.read_bytes()).get("seconds")
        except (OSError, ValueError, AttributeError):
            return seconds
        return made if isinstance(made, (int, float)) and not isinstance(made, bool) else seconds

    def publishes(self) -> bool:
        """Does this run hold a published stage (then every one after it)?"""
        return any(self.catalog.stage(stage).published for stage in self.stages)

    def unpublished(self) -> dict | None:
        """Where this run published nothing (a work stage alone) and the
        output folder holds no tree made from what the work folder now
        holds: the commands that publish it (``next``), and whether the
        output folder holds a book from other stages meanwhile (``book``:
        its summary.json is left to it).  None: the output folder is whole."""
        if self.publishes():
            return None
        book = store.read_manifest(self.catalog.manifest(PUBLISHED[0])) is not None  # prune's: a tree published
        found = lineage.recorded(self.catalog.out)
        now = lineage.held(self.catalog.work)
        if book and found is not None and all(now[stage] == found.get(stage) for stage in WORK_STAGES):
            return None
        return {"next": list(publishes_next(self.stages[-1], self.catalog.stages)), "book": book}

    def inputs_key(self) -> str:
        """The inputs' key, known once ingest has read them (or up to date)."""
        assert self.inputs is not None
        return self.inputs

    def digests(self) -> dict:
        """The inputs' digests by path, as walked (none where ingest is up
        to date and they were not)."""
        return self.scanned.by_path() if self.scanned is not None else {}

    def inputs_known(self, mined: dict | None) -> str | None:
        """Walk the inputs and say their key where it can be known without
        reading them twice: every digest cached (an unchanged collection:
        nothing is read), or hashed now where few are not (a file touched or
        added) or where the engine cannot take them as it reads (dask and
        its partitions' keys, the reference engine).  Otherwise (the first
        run, or most of the inputs new) None: ingest must run, and the fast
        engine's readers take each file's digest as they read it."""
        catalog = self.catalog
        self.scanned = scan(self.paths, cache=catalog.digests, exclude=self.own, progress=self.request.progress)
        missing = self.scanned.missing
        if (
            missing
            and self.dask is None
            and self.request.engine == "fast"
            and (mined is None or self.request.force or self.scanned.bytes(missing) > HASH_AHEAD * self.scanned.bytes())
        ):
            self.log(
                f"inputs: {len(self.scanned.paths):,} files walked in {self.scanned.seconds:.1f} s; "
                f"{len(missing):,} to be hashed as they are read"
            )
            self.inputs = None
            return None
        self.scanned.hash_missing(self.options.jobs, self.request.progress)
        self.scanned.save(catalog.digests)
        self.log(
            f"inputs: {len(self.scanned.paths):,} files walked in {self.scanned.seconds:.1f} s"
            + (f"; {self.scanned.hashed:,} hashed in {self.scanned.hash_seconds:.1f} s" if self.scanned.hashed else "")
        )
        self.inputs = self.scanned.key()
        return self.inputs

    def digested(self) -> dict:
        """Once ingest has read the inputs: their key (the digests its
        readers took, ``collected``; any left unknown hashed now), the
        cache of digests written, and how the inputs were walked and hashed
        (the ingest stage's run figures)."""
        if self.inputs is None:
            assert self.scanned is not None  # the inputs were walked: ingest ran on them
            self.scanned.learn(self.collected)
            # a file the readers did not read whole, or never opened
            self.scanned.hash_missing(self.options.jobs, False)
            self.scanned.save(self.catalog.digests)
            self.inputs = self.scanned.key()
        return self.scanned.figures() if self.scanned is not None else {}

    def walked(self) -> Walked:
        """The inputs as walked (ingest runs or is checked against them)."""
        assert self.scanned is not None
        return self.scanned.walked

    def strict_again(self) -> None:
        """--strict on games ingested already: the first bad record stored
        fails the run as it would have when the games were read (a game the
        settings leave out does not: ``records.LEFT_OUT``)."""
        from joseki_miner.method.records import bad_record  # the records' module: only where --strict asks

        rejected = self.stage_figures("ingest").get("games_rejected", {})
        if any(bad_record(reason) for reason in rejected):
            import pyarrow.parquet as pq

            reasons = pq.read_table(self.catalog.rejects, columns=["reason"]).column("reason").to_pylist()
            at = next(i for i, reason in enumerate(reasons) if bad_record(reason))
            raise StrictError.of(**pq.read_table(self.catalog.rejects).slice(at, 1).to_pylist()[0])

    def added(self) -> list:
        """--add: the paths of the last run in the folder, then the new ones."""
        manifest = store.read_manifest(self.catalog.manifest("ingest"))
        old = manifest.get("paths") if manifest else None
        if not old:
            raise UsageError(f"--add adds games to those mined in {self.catalog.work}, and none are: mine some first")
        return [*old, *[p for p in self.paths if str(p) not in old]]
