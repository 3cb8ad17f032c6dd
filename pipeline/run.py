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

The engines do the stages' work (``runs.engine``: ``runners.local``, the
reference and fast engines; ``cluster.engine``, dask): each plans the
stages to run into steps and executes them, handing each stage a frozen
``Context`` and giving back what it ``Done``.  This module orders the
steps, keys and commits what the engines give back, and only it does; it
names no stage (``runs.stages`` declares them)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from joseki_miner.fast import compiling
from joseki_miner.runs import asked, checks, folders, lineage, remote, store
from joseki_miner.runs.catalog import PUBLISHED, WORK_STAGES, Catalog
from joseki_miner.runs.checks import check_paths
from joseki_miner.runs.config import Config
from joseki_miner.runs.context import Context, Done, RunOptions
from joseki_miner.runs.errors import StrictError, UsageError
from joseki_miner.runs.files import Walked
from joseki_miner.runs.inputs import Collections, Scan, scan
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.engine import Engine
from joseki_miner.runs.stages import READS_INPUTS, TREE, Stage, publishes_next
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.summary import summarize
from joseki_miner.stages.params import floor_for
from pipeline.request import Request

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


def _engine(request: Request, log: Callable[[str], None], started: float) -> Engine:
    """The engine the request asks for: dask (and on the other engines,
    --add: the dask engine's partitions, in this process), or this
    process's (the fast engine streams ingest to the build)."""
    if request.engine == "dask" or request.add:
        from joseki_miner.cluster.engine import Dask

        return Dask(request.cluster, log, started, in_process=request.engine != "dask")
    from joseki_miner.runners.local import Local

    return Local(streams=request.engine == "fast")


def _found(figures: dict) -> dict:
    """What a stage found, of its figures (not how the run went: ``RUN_FIGURES``)."""
    return {k: v for k, v in figures.items() if k not in RUN_FIGURES}


class _Run:
    """One run of the stages: what it has done so far, and what it has
    staged but not yet committed (``runs.engine.Run``: what an engine asks
    of it).  Its engine does the stages' work; this run keys and commits it."""

    def __init__(
        self,
        catalog: Catalog,
        config: Config,
        stages: Sequence[str],
        paths,
        request: Request,
        log: Callable[[str], None],
    ) -> None:
        self.catalog, self.config, self.asked, self.paths = catalog, config, tuple(stages), list(paths)
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
        self.done: set[str] = set()  # the stages this run has committed (or staged to publish)
        self.published: list[store.StageRecord] = []  # prune and emit, committed when the run ends
        self.started = time.perf_counter()
        self.own = (catalog.work, catalog.out)
        self.scanned: Scan | None = None  # the inputs walked, and their digests known (``inputs_known``)
        self.inputs: str | None = None  # their key, once known
        self.collected: dict = {}  # the digests the fast engine's readers take as they read
        self.given = list(paths)  # as given: URLs too (``paths`` reads their mirrors)
        self.compiling = compiling.Notice(log)
        self.engine = _engine(request, log, self.started)
        # the fast engine's readers take the inputs as walked, and their digests as they read them
        self.reads_walked = request.engine == "fast" and not request.add

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
        games = (self.known(READS_INPUTS) or {}).get("games_accepted")
        return floor_for(games, self.config) if games is not None else 2

    def context(self, stage: str) -> Context:
        """What ``stage``'s work is given: the figures of the stages before
        it (this run's, or their manifests'), the outputs staged and not
        yet committed, the trie just counted; the inputs walked (and their
        digests to take) where the fast engine reads them."""
        before = self.catalog.names[: self.catalog.names.index(stage)]
        figures = {name: found for name in before if (found := self.known(name)) is not None}
        scanned = self.scanned if self.reads_walked else None
        return Context(
            self.catalog,
            self.config,
            self.options,
            settings=self.catalog.stage(stage).settings.of(self.config),
            paths=tuple(self.paths),
            figures=figures,
            floor=self.floor(),
            staged=frozenset(p for r in self.published for p in r.outputs),
            walked=scanned.walked if scanned is not None else None,
            digests=self.collected if scanned is not None and self.inputs is None else None,
        )

    def fresh(self, stage: str, keys: dict[str, str]) -> bool:
        """Is the stage's last run that of these keys, its files whole (and
        a tree's record of its work folder this run's)?"""
        manifest = store.read_manifest(self.catalog.manifest(stage))
        return (
            manifest is not None
            and manifest.get("key") == keys[stage]
            and store.intact(manifest, self.catalog.manifest(stage).parent)
            and (stage != TREE or manifest.get("made_from") == lineage.made_from(keys, self.config))
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
        if stage == TREE:  # so what reads the tree reads its run's work stages
            # pruned alone: from the stages the work folder holds, whatever the config
            if not set(WORK_STAGES) & set(self.asked):
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

    def pruned_context(self, stage: str, built: dict, pruned: dict) -> Context:
        """``stage``'s context where the build's and prune's files are
        written, and maybe not yet committed (``built``, ``pruned``: their
        figures, as ``record`` keeps them)."""
        context = self.context(stage)
        made_from = self.catalog.stage(TREE).after  # the stage the tree is pruned from
        assert made_from is not None
        figures = {**context.figures, made_from: _found(built), TREE: _found(pruned)}
        return replace(context, figures=figures, staged=context.staged | frozenset(self.written(TREE)))

    def keys(self, inputs: str) -> dict[str, str]:
        """Every stage's key for these inputs; the build's (and those after
        it) with the floor of the games ingested, where they are known."""
        return stage_keys(self.config, inputs, self.floor(), self.catalog.stages)

    def key(self, stage: str) -> str:
        """A stage's key, the inputs' known."""
        return self.keys(self.inputs_key())[stage]

    def commit(self, done: Done, say: bool = True) -> None:
        """A stage an engine has done, keyed and committed (a published one
        kept for the end); the first's with the inputs' key, known once it
        has read them (``digested``).  ``say``: log it."""
        first = done.stage == READS_INPUTS
        if first:
            done = replace(done, figures={**done.figures, **self.digested()})
        inputs = self.inputs_key()
        keys = self.keys(inputs)
        record = self.record(
            done.stage, keys[done.stage], done.figures, done.seconds, keys, inputs=inputs if first else None, **done.run
        )
        self.settle(record)
        self.done.add(done.stage)
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
            self.engine.close()

    def _go(self) -> dict:
        """The inputs' key, then the stages from the first not up to date,
        a step at a time as the engine plans them, each stage it does
        committed (``commit``); the published ones and summary.json last."""
        if self.request.add:
            self.paths = self.added()
        self.given = list(self.paths)
        self.inputs = self.inputs_walked() if READS_INPUTS in self.asked else self.inputs_mined()
        if TREE not in self.asked and set(self.asked) & set(PUBLISHED):
            lineage.check(self.catalog)  # a tree's pages and files from its own run's games, or none
        try:
            for step in self.engine.plan(self.todo(), self):
                if set(step.names) <= self.done:
                    continue  # done in an earlier step (the dask engine's build and prune, beside the joins)
                if self.engine.here and any(stage.kernels for stage in step.stages):
                    self.compiling.install()  # say so if they compile
                check_stop()
                self.engine.execute(step, self)
            self.engine.finish(self)
        finally:
            self.engine.release()
        check_stop()  # the last moment a stop leaves the output folder as it was
        store.commit(self.published)
        return self.summary()

    def todo(self) -> list[Stage]:
        """The stages to run: from the first whose last run is not that of
        its key (all of them with --force, or where the inputs' key is known
        only once the games are read)."""
        stages = [self.catalog.stage(name) for name in self.asked]
        if self.inputs is None or self.request.force:
            return stages
        keys = self.keys(self.inputs)
        for i, stage in enumerate(self.asked):
            if not self.fresh(stage, keys):
                return stages[i:]
            self.log(f"{stage}: up to date, kept")
            if stage == READS_INPUTS and self.request.strict:
                self.strict_again()
        return []

    def inputs_walked(self) -> str | None:
        """The inputs checked, fetched where they are URLs, and walked:
        their key, where it is known before they are read (``inputs_known``)."""
        check_paths(self.paths, self.own)
        self.paths = [folders.fetched(p, self.catalog, self.log) if remote.is_url(p) else p for p in self.paths]
        mined = store.read_manifest(self.catalog.manifest(READS_INPUTS))
        request = self.request
        self.engine.prepare(
            request.force or request.add or mined is None or mined.get("paths") != [str(p) for p in self.given]
        )
        inputs = self.inputs_known(mined)
        sources = self.config.filter_sources
        if sources is not None:  # a collection asked for that the inputs do not hold: say so now
            names = Collections(self.paths, self.config.collections_depth)
            asked.check_sources(sources, sorted({names.of(f.path) for f in self.walked().files}))
        return inputs

    def inputs_mined(self) -> str:
        """The key of the inputs the work folder's games were read from."""
        manifest = store.read_manifest(self.catalog.manifest(READS_INPUTS))
        if manifest is None:
            raise UsageError(f"no ingested games in {self.catalog.work}: run `joseki {READS_INPUTS}` first")
        return manifest.get("inputs", "")

    def summary(self) -> dict:
        """summary.json, written where it describes the book beside it
        (or no book at all); with what waits to be published."""
        unpublished = self.unpublished()
        seconds = time.perf_counter() - self.started
        upto = None if unpublished is None and not self.publishes() else self.asked[-1]  # None: the tree, whole
        summary = summarize(self.catalog, seconds if self.figures else self.made_in(seconds), upto=upto)
        if not self.figures:  # every stage up to date: the seconds are those of the run that made the outputs
            summary["rerun_seconds"] = round(seconds, 3)  # a rerun of a few games takes milliseconds
        if unpublished is None or not unpublished["book"]:
            store.write_atomically(self.catalog.summary, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
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
        return any(self.catalog.stage(stage).published for stage in self.asked)

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
        return {"next": list(publishes_next(self.asked[-1], self.catalog.stages)), "book": book}

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
            and self.reads_walked
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

        rejected = self.stage_figures(READS_INPUTS).get("games_rejected", {})
        if any(bad_record(reason) for reason in rejected):
            import pyarrow.parquet as pq

            reasons = pq.read_table(self.catalog.rejects, columns=["reason"]).column("reason").to_pylist()
            at = next(i for i, reason in enumerate(reasons) if bad_record(reason))
            raise StrictError.of(**pq.read_table(self.catalog.rejects).slice(at, 1).to_pylist()[0])

    def added(self) -> list:
        """--add: the paths of the last run in the folder, then the new ones."""
        manifest = store.read_manifest(self.catalog.manifest(READS_INPUTS))
        old = manifest.get("paths") if manifest else None
        if not old:
            raise UsageError(f"--add adds games to those mined in {self.catalog.work}, and none are: mine some first")
        return [*old, *[p for p in self.paths if str(p) not in old]]
