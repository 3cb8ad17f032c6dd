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

The engines' own work is in the package: ``engines.stream`` (the fast
engine's one pass of ingest, extract and build) and ``engines.dask``."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from joseki_miner.engines import cluster as cluster_
from joseki_miner.fast import compiling
from joseki_miner.engines.params import (
    floor_for,
    ingest_options,
    kind_rules,
    phase1_params,
    prune_rules,
    threshold_for,
)
from joseki_miner.runs import asked, checks, folders, lineage, remote, store
from joseki_miner.runs.catalog import PUBLISHED, WORK_STAGES, Catalog
from joseki_miner.runs.checks import check_paths
from joseki_miner.runs.config import SORT_MEMORY_MB, TABLE_MEMORY_MB, Config
from joseki_miner.runs.errors import StrictError, UsageError
from joseki_miner.runs.inputs import Collections, Scan, scan
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.stages import transpositions
from joseki_miner.runs.stop import check as check_stop
from joseki_miner.runs.summary import summarize

if TYPE_CHECKING:
    from joseki_miner.book.files import BookFiles

# The compiled engine (the stages' work in joseki_miner.engines) is imported where it runs: the dask engine's
# driver plans and names the work without loading numba (its CPU is the serial part).  So are pyarrow, numpy
# and the stages' own modules: a run whose stages are all up to date walks its inputs, reads its manifests and
# loads little else.

# Figures of how a run went, not of what its stage found: they depend on the engine, the memory options and
# the moment, so a manifest keeps them apart (under "run"), and the rest of it is the same for the same games
# and config.
RUN_FIGURES = ("dedupe_bytes", "wheres_spilled_bytes", "table_memory_bytes", "tables_bytes", "tables_dropped",
               "tables_mapped_bytes", "sequence_bytes", "spilled_bytes", "runs_spilled", "input_files", "input_bytes",
               "files_hashed", "inputs_seconds", "hash_seconds")
# hashed before ingest, where the digests not cached are at most this share of the inputs' bytes (a file touched or
# added: hashing it may find ingest up to date); more, and ingest reads them once, taking their digests as it reads
HASH_AHEAD = 0.1


def run_stages(
    catalog: Catalog,
    config: Config,
    stages: Sequence[str],
    paths: Sequence[str | Path] = (),
    *,
    progress: bool = True,
    strict: bool = False,
    force: bool = False,
    engine: str = "fast",
    jobs: int | None = None,
    sort_memory: float = SORT_MEMORY_MB,
    table_memory: float = TABLE_MEMORY_MB,
    log: Callable[[str], None] = lambda s: None,
    wait: bool = False,
    command: str = "joseki",
    cluster: cluster_.Options = cluster_.Options(),
    add: bool = False,
) -> dict:
    """Run ``stages`` (a contiguous part of STAGES) and write summary.json
    (the figures of this and earlier stages; later stages' stale figures are
    left out).

    A stage re-runs only when its cache key (inputs + parameters) changed,
    its files are not those its manifest names, or ``force``; otherwise its
    outputs from last time stand.  ``engine`` "fast" (compiled, over
    ``jobs`` threads, default all cores) and "reference" (plain Python) give
    identical files, and so does any ``sort_memory`` (MB of sequences held
    for the trie before sorted runs are spilled to disk) and any
    ``table_memory`` (MB of duplicate fingerprints and kifu index lines held
    in memory, the rest mapped from files in the work folder).  "dask" mines
    partitions of the inputs on a dask cluster (``cluster``: a scheduler's
    address, or a LocalCluster of worker processes) and runs every stage
    on its workers, with the same files again; with ``add``, ``paths`` are
    added to those of the last run in the folder, whose partitions are
    kept (only the new ones are read).  When another
    run holds a folder, raise UsageError, or with ``wait`` wait for it
    (``command`` names this run in the lock).  Returns the summary."""
    jobs = checks.check_options(engine, jobs, sort_memory, table_memory)
    checks.check_cwd()
    checks.check_writable(catalog.work, catalog.out)
    checks.check_outputs(catalog)
    locks = folders.locks(catalog, wait, log, command)
    try:
        folders.clean(catalog)
        try:
            summary = _Run(catalog, config, stages, paths, progress=progress, strict=strict, force=force,
                           engine=engine, jobs=jobs, sort_bytes=int(sort_memory * 2**20),
                           table_bytes=int(table_memory * 2**20), log=log, cluster=cluster, add=add).go()
        finally:
            folders.clean(catalog)  # a run that finished left nothing staged; one that failed may have
        if catalog.publish:
            folders.publish(catalog, log)
        return summary
    finally:
        for lock in reversed(locks):
            lock.release()


class _Run:
    """One run of the stages: what it has done so far, and what it has
    staged but not yet committed.  The engines' own work is theirs
    (``engines.stream``: the fast engine's one pass; ``engines.dask``)."""

    def __init__(self, catalog: Catalog, config: Config, stages: Sequence[str], paths, *, progress: bool,
                 strict: bool, force: bool, engine: str, jobs: int, sort_bytes: int, table_bytes: int,
                 log: Callable[[str], None], cluster: cluster_.Options = cluster_.Options(),
                 add: bool = False) -> None:
        self.catalog, self.config, self.stages, self.paths = catalog, config, list(stages), list(paths)
        self.progress, self.strict, self.force, self.engine, self.jobs = progress, strict, force, engine, jobs
        self.sort_bytes, self.table_bytes, self.log = sort_bytes, table_bytes, log
        self.figures: dict[str, dict] = {}  # of the stages this run has done
        self.published: list[store.StageRecord] = []  # prune and emit, committed when the run ends
        self.memory: dict = {}  # the trie mine has just counted, for prune
        self.started = time.perf_counter()
        self.own = (catalog.work, catalog.out)
        self.local_engine = "fast" if engine == "dask" else engine  # what a stage runs on a dask worker
        self.stage_progress = progress and engine != "dask"  # a worker's bars would only scramble the driver's
        self.scanned: Scan | None = None  # the inputs walked, and their digests known (``inputs_known``)
        self.inputs: str | None = None  # their key, once known
        self.collected: dict = {}  # the digests the fast engine's readers take as they read
        self.begun: dict[str, float] = {}  # stages the dask engine began within an earlier one's tasks: when
        self.ended: dict[str, float] = {}  # stages the dask engine ended within another's tasks: when
        self.add = add
        self.given = list(paths)  # as given: URLs too (``paths`` reads their mirrors)
        self.dask = None  # the dask engine, for its runs
        self.compiling = compiling.Notice(log)
        if engine == "dask" or add:  # --add on the other engines: the dask engine's partitions, in this process
            from joseki_miner.engines.dask import DaskEngine

            self.dask = DaskEngine(self, cluster, in_process=engine != "dask")

    # -- what earlier stages left --------------------------------------------------
    def stage_figures(self, stage: str) -> dict:
        if stage in self.figures:
            return self.figures[stage]
        manifest = store.read_manifest(self.catalog.manifest(stage))
        if manifest is None:
            raise UsageError(f"stage {stage} has not run in {self.catalog.manifest(stage).parent}")
        return manifest["figures"]

    def current(self, path: Path) -> Path:
        """Where a dataset is to be read now: staged, if this run wrote it
        and has not committed it yet."""
        staged = store.staged(path)
        return staged if any(path in r.outputs for r in self.published) else path

    def floor(self) -> int:
        return floor_for(self.stage_figures("ingest")["games_accepted"], self.config)

    def fresh(self, stage: str, keys: dict[str, str]) -> bool:
        """Is the stage's last run that of these keys, its files whole (and
        a tree's record of its work folder this run's)?"""
        manifest = store.read_manifest(self.catalog.manifest(stage))
        return (manifest is not None and manifest.get("key") == keys[stage]
                and store.intact(manifest, self.catalog.manifest(stage).parent)
                and (stage != "prune" or manifest.get("made_from") == lineage.made_from(keys, self.config)))

    def record(self, stage: str, key: str, figures: dict, seconds: float, inputs: str | None = None,
               keys: dict[str, str] | None = None, **run) -> store.StageRecord:
        """A stage's commit: its manifest and the files it staged (files it
        may write but did not this time, an SVG without Graphviz, go).  The
        manifest's "figures" are what the stage found; "run" how this run
        went (``run``: seconds, memory, whether it streamed)."""
        found = {k: v for k, v in figures.items() if k not in RUN_FIGURES}
        run = {"seconds": round(seconds, 3), **{k: v for k, v in figures.items() if k in RUN_FIGURES}, **run}
        self.figures[stage] = found
        written = [p for p in self.catalog.outputs(stage) if store.staged(p).exists()]
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

    def done(self, record: store.StageRecord) -> None:
        """Commit a work stage now; keep a published one for the end."""
        if record.record["stage"] in WORK_STAGES:
            check_stop()
            store.commit([record])
        else:
            self.published.append(record)

    # -- the run ---------------------------------------------------------------------
    def go(self) -> dict:
        try:
            return self._go()
        finally:
            self.compiling.remove()
            if self.dask is not None:
                self.dask.close()

    def _go(self) -> dict:
        catalog, config = self.catalog, self.config
        if self.add:
            self.paths = self.added()
        self.given = list(self.paths)
        if "ingest" in self.stages:
            check_paths(self.paths, self.own)
            self.paths = [folders.fetched(p, catalog, self.log) if remote.is_url(p) else p for p in self.paths]
            mined = store.read_manifest(catalog.manifest("ingest"))
            if self.dask is not None and (self.force or self.add or mined is None
                                          or mined.get("paths") != [str(p) for p in self.given]):
                # games to mine: the cluster starts (and warms) while the inputs are hashed; otherwise once a
                # stage needs it (every stage may be up to date: no cluster at all)
                self.dask.start_soon()
            inputs = self.inputs_known(mined)
            if config.filter_sources is not None:  # a collection asked for that the inputs do not hold: say so now
                names = Collections(self.paths, config.collections_depth)
                asked.check_sources(config.filter_sources, sorted({names.of(f.path)
                                                                   for f in self.scanned.walked.files}))
        else:
            manifest = store.read_manifest(catalog.manifest("ingest"))
            if manifest is None:
                raise UsageError(f"no ingested games in {catalog.work}: run `joseki ingest` first")
            inputs = manifest.get("inputs", "")
        if "prune" not in self.stages and set(self.stages) & {"emit", "report"}:
            lineage.check(catalog)  # a tree's pages and files from its own run's games, or none
        streamed = self.dask is None and self.engine == "fast" and {"ingest", "extract", "build"} <= set(self.stages)
        upstream_ran = False
        ran: set[str] = set()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="write") as pool:
            finish: list[Callable[[], None]] = []
            try:
                for stage in self.stages:
                    if stage in ran:
                        continue
                    # inputs None: some files' digests come as ingest reads them, and ingest runs (inputs_known)
                    keys = (stage_keys(config, inputs, self.floor() if stage in PUBLISHED + ("build",) else 2)
                            if inputs is not None else None)
                    if keys is not None and not self.force and not upstream_ran and self.fresh(stage, keys):
                        self.log(f"{stage}: up to date, kept")
                        if stage == "ingest" and self.strict:
                            self.strict_again()
                        continue
                    upstream_ran = True
                    if stage in WORK_STAGES + ("prune",):  # the stages with kernels: say so if they compile
                        self.compiling.install()
                    check_stop()
                    if stage == "ingest" and streamed:
                        from joseki_miner.engines import stream

                        ran |= stream.ingest_to_build(self, pool, finish)
                        inputs = self.inputs
                        continue
                    if self.dask is not None and (stage == "ingest" or stage == "extract" and "ingest" in self.stages):
                        # extract alone (new distances) too: its partitions, mined on every worker, replace those
                        # of the old parameters, as they would in a clean run; the cluster starts while they are
                        # planned (its wait is in the stage's time, as on a first run)
                        self.dask.start_soon()
                        ran |= self.dask.partitioned(inputs, ingest=stage == "ingest")
                        continue
                    if self.dask is not None:
                        self.dask.cluster()  # started (where no stage needed it before) ahead of this stage's clock
                    if self.dask is None and stage == "emit" and self.stages[self.stages.index(stage) + 1:][:1] == [
                            "report"]:
                        ran |= self.emit_beside_report(keys)
                        continue
                    t0 = time.perf_counter()
                    if self.dask is not None:
                        figures = self.dask.on_cluster(stage, keys[stage])
                        t0 = self.begun.pop(stage, t0)  # begun beside an earlier stage (the build, beside the joins)
                    else:
                        figures = self.action(stage)()
                    if stage == "ingest":
                        figures = {**figures, **self.digested()}
                        inputs = self.inputs
                        keys = stage_keys(config, inputs)
                    seconds = self.ended.pop(stage, time.perf_counter()) - t0  # emit ends before the report beside it
                    self.done(self.record(stage, keys[stage], figures, seconds,
                                          inputs=inputs if stage == "ingest" else None, keys=keys))
                    self.log(f"{stage}: done in {seconds:.1f} s")
                for step in finish:  # the build's commit, once trie.parquet is whole
                    step()
                finish.clear()
                if (self.dask is not None and {"ingest", "extract"} <= set(self.stages) and "extract" not in ran
                        and any(catalog.partitions.glob("*"))):
                    self.dask.keep_partitions()
            finally:
                self.memory.clear()
                for step in finish:  # failed: wait for the threads still writing, commit nothing more
                    try:
                        step(commit=False)
                    except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                        pass
        check_stop()  # the last moment a stop leaves the output folder as it was
        store.commit(self.published)
        summary = summarize(catalog, time.perf_counter() - self.started, upto=self.stages[-1])
        store.write_atomically(catalog.summary, (json.dumps(summary, indent=2) + "\n").encode("utf-8"))
        return summary

    def emit_beside_report(self, keys: dict[str, str]) -> set[str]:
        """Emit and the report at once (neither reads the other's files):
        emit's drawings run in Graphviz's processes while the report's
        pages are made; each stage recorded with its own time."""
        def timed(work: Callable[[], dict]) -> tuple[dict, float]:
            return work(), time.perf_counter()

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="emit") as side:
            emitted = side.submit(timed, self.action("emit", progress=False))
            reported, report_end = timed(self.action("report"))
            emit_figures, emit_end = emitted.result()
        for stage, figures, end in (("emit", emit_figures, emit_end), ("report", reported, report_end)):
            self.done(self.record(stage, keys[stage], figures, end - t0))
            self.log(f"{stage}: done in {end - t0:.1f} s")
        return {"emit", "report"}

    def inputs_known(self, mined: dict | None) -> str | None:
        """Walk the inputs and say their key where it can be known without
        reading them twice: every digest cached (an unchanged collection:
        nothing is read), or hashed now where few are not (a file touched or
        added) or where the engine cannot take them as it reads (dask and
        its partitions' keys, the reference engine).  Otherwise (the first
        run, or most of the inputs new) None: ingest must run, and the fast
        engine's readers take each file's digest as they read it."""
        catalog = self.catalog
        self.scanned = scan(self.paths, cache=catalog.digests, exclude=self.own, progress=self.progress)
        missing = self.scanned.missing
        if missing and self.dask is None and self.engine == "fast" and (mined is None or self.force or
                                                  self.scanned.bytes(missing) > HASH_AHEAD * self.scanned.bytes()):
            self.log(f"inputs: {len(self.scanned.paths):,} files walked in {self.scanned.seconds:.1f} s; "
                     f"{len(missing):,} to be hashed as they are read")
            self.inputs = None
            return None
        self.scanned.hash_missing(self.jobs, self.progress)
        self.scanned.save(catalog.digests)
        self.log(f"inputs: {len(self.scanned.paths):,} files walked in {self.scanned.seconds:.1f} s"
                 + (f"; {self.scanned.hashed:,} hashed in {self.scanned.hash_seconds:.1f} s" if self.scanned.hashed
                    else ""))
        self.inputs = self.scanned.key()
        return self.inputs

    def digested(self) -> dict:
        """Once ingest has read the inputs: their key (the digests its
        readers took, ``collected``; any left unknown hashed now), the
        cache of digests written, and how the inputs were walked and hashed
        (the ingest stage's run figures)."""
        if self.inputs is None:
            self.scanned.learn(self.collected)
            self.scanned.hash_missing(self.jobs, False)  # a file the readers did not read whole, or never opened
            self.scanned.save(self.catalog.digests)
            self.inputs = self.scanned.key()
        return self.scanned.figures() if self.scanned is not None else {}

    def strict_again(self) -> None:
        """--strict on games ingested already: the first reject stored fails
        the run as it would have when the games were read."""
        if sum(self.stage_figures("ingest").get("games_rejected", {}).values()):
            import pyarrow.parquet as pq

            first = pq.ParquetFile(self.catalog.rejects).read_row_group(0).slice(0, 1).to_pylist()[0]
            raise StrictError.of(**first)

    def action(self, stage: str, progress: bool | None = None) -> Callable[[], dict]:
        """The stage's work, as a call of a stage's function with its
        arguments (so the dask engine can send it to a worker); ``progress``
        (by default the run's) for emit's bar."""
        catalog, config, staged = self.catalog, self.config, store.staged
        if stage == "ingest":
            from . import ingest as ingest_stage

            read_once = {"walked": self.scanned.walked, "digests": self.collected if self.inputs is None else None} \
                if self.dask is None and self.engine == "fast" and self.scanned is not None else {}
            return partial(ingest_stage.run,
                           self.paths, staged(catalog.games), staged(catalog.rejects),
                           include_handicap=config.include_handicap, dedupe=config.dedupe, strict=self.strict,
                           engine=self.local_engine, jobs=self.jobs, progress=self.stage_progress,
                           table_memory=self.table_bytes,
                           exclude=self.own, **ingest_options(config), **read_once)
        if stage == "extract":
            from . import extract as extract_stage

            return partial(extract_stage.run, catalog.games, staged(catalog.sequences), phase1_params(config),
                           engine=self.local_engine, jobs=self.jobs, progress=self.stage_progress)
        if stage == "build":
            from . import build as build_stage

            return partial(build_stage.run, catalog.sequences, catalog.games, staged(catalog.trie),
                           staged(catalog.trie_years), staged(catalog.trie_sources),
                           staged(catalog.sorted_sequences), neutral=config.influence_neutral,
                           floor=self.floor(), engine=self.local_engine, progress=self.stage_progress,
                           kinds=kind_rules(config),
                           spill=catalog.runs, budget=self.sort_bytes)
        if stage == "prune":
            return self.prune()
        from . import emit, report  # noqa: F811 - the stages' modules, loaded where a stage runs

        if stage == "emit":
            return partial(emit.run,
                           self.book_files(), staged(catalog.sgf), staged(catalog.dot), staged(catalog.influence_dot),
                           share=config.influence_share, min_length=config.min_length, counters=config.emit_counters,
                           svg_paths=(staged(catalog.svg), staged(catalog.influence_svg)),
                           progress=self.stage_progress if progress is None else progress)
        return partial(report.run, self.book_files(), staged(catalog.report), share=config.influence_share,
                       min_length=config.min_length, progress=self.stage_progress)

    def book_files(self) -> BookFiles:
        """The pruned tree's tables as this run has them, the figures of
        the games it was mined from, and what the page of what changed
        reads (the sequences in trie order: staged while ``mine``'s build
        is still being committed)."""
        from joseki_miner.book.files import BookFiles

        catalog, config = self.catalog, self.config
        figures = {**self.stage_figures("ingest"), **self.stage_figures("prune")}
        in_order = store.staged(catalog.sorted_sequences)
        in_order = in_order if in_order.exists() else catalog.sorted_sequences
        return BookFiles(self.current(catalog.joseki), self.current(catalog.node_years),
                         self.current(catalog.node_sources), self.current(catalog.node_examples),
                         catalog.games, figures, in_order if config.report_changed else None, config.report_since,
                         catalog.sequences, config.report_players or (),
                         self.current(catalog.node_orders) if config.prune_merge_orders else None,
                         self.current(catalog.node_transpositions) if transpositions(config) else None)

    def prune(self) -> Callable[[], dict]:
        from . import prune

        catalog, config, staged = self.catalog, self.config, store.staged
        threshold = threshold_for(self.stage_figures("ingest")["games_accepted"], config)
        floor = self.memory["floor"] if "trie" in self.memory else self.stage_figures("build").get("floor", 1)
        if floor > max(threshold, config.prune_min_games):
            raise UsageError(f"a threshold of {threshold} needs every trie node: run `joseki build` again first")
        outputs = {"joseki": staged(catalog.joseki), "years": staged(catalog.node_years),
                   "sources": staged(catalog.node_sources), "examples": staged(catalog.node_examples),
                   "orders": staged(catalog.node_orders)}
        if transpositions(config):
            outputs["transpositions"] = staged(catalog.node_transpositions)
        options = {"threshold": threshold, "min_length": config.min_length, "examples": config.examples,
                   "rules": prune_rules(config), "kinds": kind_rules(config), "merge_orders": config.prune_merge_orders,
                   "progress": self.stage_progress}
        if "trie" in self.memory:  # mine: the trie just counted, its files still being written
            return partial(prune.run_arrays, self.memory.pop("trie"), self.memory["names"],
                           staged(catalog.sorted_sequences), catalog.games, outputs, **options)
        return partial(prune.run, catalog.trie, catalog.trie_years, catalog.trie_sources, catalog.sorted_sequences,
                       catalog.games, outputs, **options)

    def added(self) -> list:
        """--add: the paths of the last run in the folder, then the new ones."""
        manifest = store.read_manifest(self.catalog.manifest("ingest"))
        old = manifest.get("paths") if manifest else None
        if not old:
            raise UsageError(f"--add adds games to those mined in {self.catalog.work}, and none are: "
                             "mine some first")
        return [*old, *[p for p in self.paths if str(p) not in old]]
