"""Run the stages in order, skipping any whose inputs and parameters are
unchanged since its last run (its cache key is in its manifest), so that
whatever stops a run, the next one gives what a clean run would.

A run holds the lock of its work and output folders.  Every stage writes
under temporary names and commits (``store.commit``): the stages of the work
folder (ingest, extract, build) as each finishes, so a later failure keeps
them; the published ones (prune, emit) together with summary.json when the
run ends, so a run that fails or is stopped leaves the output folder as it
was.  What a stopped run left behind (temporary names, spilled runs) is
removed at the start of the next and at the end of a failed one."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import shutil
import time
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from pathlib import Path

from typing import TYPE_CHECKING

import joseki_miner
from joseki_miner import remote, store
from joseki_miner import cluster as cluster_
from joseki_miner.config import SORT_MEMORY_MB, TABLE_MEMORY_MB, Config
from joseki_miner.errors import PublishError, StrictError, UsageError
from joseki_miner.inputs import Filters, Scan, scan
from joseki_miner.progress import bar as progress_bar
from joseki_miner.stop import check as check_stop

from .catalog import (  # the published stages commit together when the run ends
    PUBLISHED,
    Catalog,
)

if TYPE_CHECKING:
    from joseki_miner import partitions
    from joseki_miner import prune as prune_method
    from joseki_miner.kinds import Rules as KindRules
    from joseki_miner.sequences import Phase1Params

    from . import emit

# The compiled engine (joseki_miner's build, extract, ingest and the stages
# that call them) is imported where it runs: the dask engine's driver plans
# and names the work without loading numba (its CPU is the serial part).
# So are pyarrow, numpy and the stages' own modules: a run whose stages are
# all up to date walks its inputs, reads its manifests and loads little else.
STAGES = ("ingest", "extract", "build", "prune", "emit", "report")
WORK_STAGES = ("ingest", "extract", "build")  # committed as each finishes
ENGINES = ("fast", "reference", "dask")
# Figures of how a run went, not of what its stage found: they depend on the
# engine, the memory options and the moment, so a manifest keeps them apart
# (under "run"), and the rest of it is the same for the same games and config.
RUN_FIGURES = ("dedupe_bytes", "wheres_spilled_bytes", "table_memory_bytes", "tables_bytes", "tables_dropped",
               "tables_mapped_bytes", "sequence_bytes", "spilled_bytes", "runs_spilled", "input_files", "input_bytes",
               "files_hashed", "inputs_seconds", "hash_seconds")
TABLE_MEMORY = TABLE_MEMORY_MB
MAX_JOBS = 1024
# hashed before ingest, where the digests not cached are at most this share of the inputs' bytes (a file touched or
# added: hashing it may find ingest up to date); more, and ingest reads them once, taking their digests as it reads
HASH_AHEAD = 0.1


def _key(*parts) -> str:
    text = json.dumps([joseki_miner.__version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def phase1_params(config: Config) -> Phase1Params:
    from joseki_miner.sequences import Phase1Params  # the method's modules: not for a run that is up to date

    return Phase1Params(
        certain=config.distance_certain,
        maybe=config.distance_maybe,
        corner_stones=config.corner_stones,
        max_length=config.max_length,
        reach=config.influence_reach,
        start=config.corner_start,
        noise=config.distance_noise,
    )


# the parameters ingest and extract read (what their files depend on besides the inputs)
INGEST_PARAMS = ("include_handicap", "dedupe", "limits.member_mb", "limits.field_kb", "collections.depth",
                 "filter.years", "filter.sources", "filter.result_known")
EXTRACT_PARAMS = ("distance.certain", "distance.maybe", "corner_stones", "max_length", "influence.reach")
# the future work's rules of phase 1 (5.2, 9): in the key only when they differ from the thesis, so a stage mined
# before they existed stays up to date
EXTRACT_RULES = {"distance.noise": False, "corner.start": 10}
BUILD_PARAMS = ("kinds", "corner.region")  # the kinds of trie.parquet
PRUNE_RULES = {"prune.follow": None, "prune.min_share": 0.0, "prune.fold_tenuki": False}


def stage_keys(config: Config, inputs: str, floor: int = 2) -> dict[str, str]:
    """Each stage's cache key: its upstream key plus the parameters it reads
    (``floor``: the least count build stores, 1 only for a threshold of 1)."""
    keys = {}
    keys["ingest"] = _key("ingest", inputs, config.section(*INGEST_PARAMS))
    keys["extract"] = _key("extract", keys["ingest"], config.section(*EXTRACT_PARAMS), *_rules(config, EXTRACT_RULES))
    kinds = [config.section(*BUILD_PARAMS)] if config.kinds else []
    keys["build"] = _key("build", keys["extract"], config.section("influence.neutral"), floor, *kinds)
    keys["prune"] = _key("prune", keys["build"],
                         config.section("prune.min_count", "prune.min_fraction", "min_length", "examples"),
                         *_rules(config, PRUNE_RULES))
    keys["emit"] = _key("emit", keys["prune"], config.section("influence.share", "emit.counters"))
    keys["report"] = _key("report", keys["prune"], config.section("influence.share"))
    return keys


def _rules(config: Config, thesis: dict) -> list[dict]:
    """The rules of ``thesis`` (key: the thesis' value) that ``config``
    sets otherwise: nothing when it keeps them all."""
    changed = {k: v for k, v in config.section(*thesis).items() if v != thesis[k]}
    return [changed] if changed else []


def kind_rules(config: Config) -> KindRules | None:
    """The rules of the nodes' kinds, or None where the config asks for the
    thesis' tree without them."""
    from joseki_miner.kinds import Rules as KindRules

    return KindRules(config.corner_region) if config.kinds else None


def prune_rules(config: Config) -> prune_method.Rules:
    """The future work's rules of phase 2 (section 9)."""
    from joseki_miner import prune as prune_method

    return prune_method.Rules(config.prune_follow, config.prune_min_share, config.prune_fold_tenuki)


def _threshold(games: int, config: Config) -> int:
    from joseki_miner.threshold import threshold

    return threshold(games, config.prune_min_count, config.prune_min_fraction)


def floor_for(games: int, config: Config) -> int:
    """The least count the build stores, for ``games`` accepted: 2, unless
    the pruning threshold is 1."""
    return 1 if _threshold(games, config) <= 1 else 2


def peak_rss_mib() -> float:
    """This process's peak resident memory so far (MiB), for the manifests:
    at the end of reading, and once the trie is counted and stored."""
    return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)


def rss_mib() -> float | None:
    """This process's resident memory now (MiB; Linux only): at the end of
    reading, what the run still holds, against the transient peaks."""
    try:
        pages = int(Path("/proc/self/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return round(pages * os.sysconf("SC_PAGE_SIZE") / 2**20, 1)


# -- checks before a run ------------------------------------------------------------


def check_paths(paths: Sequence[str | Path], own: Sequence[Path]) -> None:
    """Every input exists and none lies inside the run's own folders."""
    if not paths:
        raise UsageError("no game collection given")
    folders = [os.path.realpath(f) for f in own]
    for p in paths:
        if remote.is_url(p):
            continue
        if not os.path.lexists(p):
            raise UsageError(f"no such path: {p}")
        real = os.path.realpath(p)
        for folder in folders:
            if real == folder or real.startswith(folder + os.sep):
                raise UsageError(f"{p} is inside this run's own work or output folder: give the games, not the outputs")


def check_writable(*folders: Path) -> None:
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"output folder not writable: {folder} ({exc.strerror})") from exc
        if not os.access(folder, os.W_OK):
            raise UsageError(f"output folder not writable: {folder}")


def check_outputs(catalog: Catalog) -> None:
    """No output of the run's is in the way as something else: a folder
    where a file goes, a file where the report's folder goes."""
    paths = [p for stage in STAGES for p in catalog.outputs(stage)]
    paths += [catalog.manifest(stage) for stage in STAGES] + [catalog.summary, catalog.digests]
    for path in paths:
        folder = path in catalog.folders()
        for candidate in (path, store.staged(path)):
            if candidate.exists() and (candidate.is_dir() != folder or candidate.is_symlink()):
                what = "not a folder" if folder else "not a file (a folder?)"
                raise UsageError(f"cannot write {candidate}: something that is {what} is in the way")


def _check_options(engine: str, jobs: int | None, sort_memory: float, table_memory: float) -> int:
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    if jobs is not None and not 0 <= jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be between 1 and {MAX_JOBS} (0: every core)")
    if not sort_memory > 0:
        raise UsageError("--sort-memory must be a positive number of MB")
    if not table_memory >= 0:
        raise UsageError("--table-memory must be a number of MB, 0 or more")
    return jobs or os.cpu_count() or 1


def clean(catalog: Catalog) -> None:
    """Remove what a stopped or failed run left: staged files, spilled runs,
    the where-log, unlinked-at-birth table files caught before unlinking."""
    store.remove_staged([p for stage in STAGES for p in catalog.outputs(stage)]
                        + [catalog.manifest(stage) for stage in STAGES] + [catalog.summary, catalog.digests])
    for path in catalog.scratch():
        store.remove(path)
    for path in catalog.work.glob("table-*.mapped"):
        path.unlink(missing_ok=True)
    if catalog.partitions.exists():  # half-written ones: a stopped run's, a killed worker's
        from joseki_miner import partitions

        partitions.clean(catalog.partitions)


def publish(catalog: Catalog, log: Callable[[str], None]) -> None:
    """The output folder's local copy sent to its URL (``remote.publish``),
    the work folder and the lock left out; PublishError if it cannot be."""
    try:
        sent, files = remote.publish(catalog.out, catalog.publish, skip=(store.LOCK_NAME,), leave_out=catalog.work)
    except Exception as exc:  # noqa: BLE001 - fsspec's file systems raise their own kinds
        why = " ".join(str(exc).split()) or type(exc).__name__
        raise PublishError(f"could not publish {catalog.out} to {catalog.publish}: {why}") from None
    log(f"published to {catalog.publish}: {sent} of {files} files sent")


def _locks(catalog: Catalog, wait: bool, log: Callable[[str], None], command: str) -> list[store.FolderLock]:
    """The locks of the run's folders, taken in a fixed order (no two runs
    can each wait for the other)."""
    holder = store.holder_text(command)
    folders = sorted({os.path.realpath(catalog.work), os.path.realpath(catalog.out)})
    taken: list[store.FolderLock] = []
    try:
        for folder in folders:
            lock = store.FolderLock(Path(folder), holder)
            lock.acquire(wait=wait, on_wait=log)
            taken.append(lock)
    except store.Busy as exc:
        for lock in taken:
            lock.release()
        raise UsageError(str(exc)) from None
    except BaseException:
        for lock in taken:
            lock.release()
        raise
    return taken


# -- the run ---------------------------------------------------------------------------


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
    table_memory: float = TABLE_MEMORY,
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
    jobs = _check_options(engine, jobs, sort_memory, table_memory)
    if add and engine != "dask":
        raise UsageError("--add keeps the partitions of the dask engine: give --engine dask too")
    try:
        os.getcwd()
    except OSError:
        raise UsageError("the current folder no longer exists: change to one that does") from None
    check_writable(catalog.work, catalog.out)
    check_outputs(catalog)
    locks = _locks(catalog, wait, log, command)
    try:
        clean(catalog)
        try:
            summary = _Run(catalog, config, stages, paths, progress=progress, strict=strict, force=force,
                           engine=engine, jobs=jobs, sort_bytes=int(sort_memory * 2**20),
                           table_bytes=int(table_memory * 2**20), log=log, cluster=cluster, add=add).go()
        finally:
            clean(catalog)  # a run that finished left nothing staged; one that failed may have
        if catalog.publish:
            publish(catalog, log)
        return summary
    finally:
        for lock in reversed(locks):
            lock.release()


class _Run:
    """One run of the stages: what it has done so far, and what it has
    staged but not yet committed."""

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
        self.cluster_options = cluster
        self._cluster: cluster_.Cluster | None = None
        self.scanned: Scan | None = None  # the inputs walked, and their digests known (``inputs_known``)
        self.inputs: str | None = None  # their key, once known
        self.collected: dict = {}  # the digests the fast engine's readers take as they read
        self.begun: dict[str, float] = {}  # stages the dask engine began within an earlier one's tasks: when
        self.ended: dict[str, float] = {}  # stages the dask engine ended within another's tasks: when
        self.token = uuid.uuid4().hex[:8]  # names this run's dask tasks and scratch folders
        self.add = add
        self.given = list(paths)  # as given: URLs too (``paths`` reads their mirrors)
        self._starting: Future | None = None

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

    def fresh(self, stage: str, key: str) -> bool:
        manifest = store.read_manifest(self.catalog.manifest(stage))
        return (manifest is not None and manifest.get("key") == key
                and store.intact(manifest, self.catalog.manifest(stage).parent))

    def record(self, stage: str, key: str, figures: dict, seconds: float, inputs: str | None = None,
               **run) -> store.StageRecord:
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
            if self._starting is not None:
                self._starting.exception()  # started or failed: either way, nothing is left starting
            if self._cluster is not None:
                try:
                    self.log(self._cluster.cpu_line())
                finally:
                    self._cluster.close()
                    self._cluster = None

    def _go(self) -> dict:
        catalog, config = self.catalog, self.config
        if self.add:
            self.paths = self.added()
        self.given = list(self.paths)
        if "ingest" in self.stages:
            check_paths(self.paths, self.own)
            self.paths = [self.fetched(p) if remote.is_url(p) else p for p in self.paths]
            mined = store.read_manifest(catalog.manifest("ingest"))
            if self.engine == "dask" and (self.force or self.add or mined is None
                                          or mined.get("paths") != [str(p) for p in self.given]):
                # games to mine: the cluster starts (and warms) while the inputs are hashed; otherwise once a
                # stage needs it (every stage may be up to date: no cluster at all)
                self.start_soon()
            inputs = self.inputs_known(mined)
        else:
            manifest = store.read_manifest(catalog.manifest("ingest"))
            if manifest is None:
                raise UsageError(f"no ingested games in {catalog.work}: run `joseki ingest` first")
            inputs = manifest.get("inputs", "")
        streamed = self.engine == "fast" and {"ingest", "extract", "build"} <= set(self.stages)
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
                    if keys is not None and not self.force and not upstream_ran and self.fresh(stage, keys[stage]):
                        self.log(f"{stage}: up to date, kept")
                        if stage == "ingest" and self.strict:
                            self.strict_again()
                        continue
                    upstream_ran = True
                    check_stop()
                    if stage == "ingest" and streamed:
                        ran |= self.ingest_to_build(pool, finish)
                        inputs = self.inputs
                        continue
                    if self.engine == "dask" and (stage == "ingest" or stage == "extract" and "ingest" in self.stages):
                        # extract alone (new distances) too: its partitions, mined on every worker, replace those
                        # of the old parameters, as they would in a clean run; the cluster starts while they are
                        # planned (its wait is in the stage's time, as on a first run)
                        self.start_soon()
                        ran |= self.partitioned(inputs, ingest=stage == "ingest")
                        continue
                    if self.engine == "dask":
                        self.cluster()  # started (where no stage needed it before) ahead of this stage's clock
                    t0 = time.perf_counter()
                    if self.engine == "dask":
                        figures = self.on_cluster(stage, keys[stage])
                        t0 = self.begun.pop(stage, t0)  # begun beside an earlier stage (the build, beside the joins)
                    else:
                        figures = self.action(stage)()
                    if stage == "ingest":
                        figures = {**figures, **self.digested()}
                        inputs = self.inputs
                        keys = stage_keys(config, inputs)
                    seconds = self.ended.pop(stage, time.perf_counter()) - t0  # emit ends before the report beside it
                    self.done(self.record(stage, keys[stage], figures, seconds,
                                          inputs=inputs if stage == "ingest" else None))
                    self.log(f"{stage}: done in {seconds:.1f} s")
                for step in finish:  # the build's commit, once trie.parquet is whole
                    step()
                finish.clear()
                if (self.engine == "dask" and {"ingest", "extract"} <= set(self.stages) and "extract" not in ran
                        and any(catalog.partitions.glob("*"))):
                    # ingest and extract were up to date: the partitions a stopped or failed run mined with other
                    # parameters or inputs go, and the folder holds what a clean run leaves
                    from joseki_miner import partitions

                    partitions.clean(catalog.partitions, keep={p.key for p in self.plan()[1]})
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
        if missing and self.engine == "fast" and (mined is None or self.force or
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

    def action(self, stage: str) -> Callable[[], dict]:
        """The stage's work, as a call of a stage's function with its
        arguments (so the dask engine can send it to a worker)."""
        catalog, config, staged = self.catalog, self.config, store.staged
        if stage == "ingest":
            from . import ingest as ingest_stage

            read_once = {"walked": self.scanned.walked, "digests": self.collected if self.inputs is None else None} \
                if self.engine == "fast" and self.scanned is not None else {}
            return partial(ingest_stage.run,
                           self.paths, staged(catalog.games), staged(catalog.rejects),
                           include_handicap=config.include_handicap, dedupe=config.dedupe, strict=self.strict,
                           engine=self.local_engine, jobs=self.jobs, progress=self.stage_progress,
                           table_memory=self.table_bytes,
                           exclude=self.own, **self.ingest_options(), **read_once)
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
        from . import emit, report

        if stage == "emit":
            return partial(emit.run,
                           self.book_files(), staged(catalog.sgf), staged(catalog.dot), staged(catalog.influence_dot),
                           share=config.influence_share, min_length=config.min_length, counters=config.emit_counters,
                           svg_paths=(staged(catalog.svg), staged(catalog.influence_svg)))
        return partial(report.run, self.book_files(), staged(catalog.report), share=config.influence_share,
                       min_length=config.min_length)

    def on_cluster(self, stage: str, key: str) -> dict:
        """A stage on the dask cluster: the build by subtrees (one a
        worker) and the report in parts (one a worker: each loads the book),
        a task each; the other stages as one task.  Task names and scratch
        folders carry the run's token: a stopped run's task still running on
        a cluster of one's own is never taken for this run's."""
        from . import report

        catalog, config, cluster = self.catalog, self.config, self.cluster()
        workers = cluster.workers()
        name = f"{stage}-{key}-{self.token}"
        if stage == "build":
            if "built" in self.memory:  # counted and joined beside the joins of the partitions
                figures = self.memory.pop("built")
                if figures["floor"] != self.floor():
                    raise RuntimeError(f"the build counted with a floor of {figures['floor']}, its key says "
                                       f"{self.floor()}")
                return figures
            stored = (os.path.abspath(catalog.sequences), os.path.abspath(catalog.games))
            counts = cluster.call(_first_keys, stored, name=f"{name}-first-keys")
            ranges, sizes, folders, count = self.subtrees(counts)
            floor = self.floor()
            try:
                cluster.map(lambda i: count(ranges[i], folders[i], lambda games: floor, stored), range(len(ranges)),
                            names=[f"{name}-count-{lo}-{hi}" for lo, hi in ranges], sizes=sizes)
                trie_paths = [os.path.abspath(store.staged(p)) for p in (catalog.trie, catalog.trie_years,
                                                                       catalog.trie_sources)]
                trie = partial(_join_subtrees, folders, ranges, lambda games: floor, trie_paths, kind_rules(config),
                               stored)
                in_order = partial(_join_sorted, folders, os.path.abspath(store.staged(catalog.sorted_sequences)))
                figures, _ = cluster.map(lambda join: join(), [trie, in_order], names=[f"{name}-join-trie",
                                                                                        f"{name}-join-sorted"])
                return figures
            finally:
                for folder in folders:
                    shutil.rmtree(folder, ignore_errors=True)
        if stage == "report" and "reported" in self.memory:  # written beside emit
            return self.memory.pop("reported")
        if stage not in ("emit", "report"):
            return cluster.call(self.action(stage), name=name)
        # emit and the report's parts (one a worker: each loads the book) at once: neither reads the other's files
        jobs = [self.action("emit")] if stage == "emit" else []
        names = [name] if stage == "emit" else []
        together = stage == "report" or self.stages[self.stages.index(stage) + 1:][:1] == ["report"]
        if together:
            folder = Path(os.path.abspath(store.staged(catalog.report)))
            report.start(folder)
            write = partial(report.write, self.book_files(), folder, share=config.influence_share,
                            min_length=config.min_length)
            jobs += [partial(write, part=(i, workers)) for i in range(workers)]
            names += [f"{name}-report-{i}-of-{workers}" if stage == "emit" else f"{name}-{i}-of-{workers}"
                      for i in range(workers)]
        begun, ended = time.perf_counter(), {}
        results = cluster.map(lambda job: job(), jobs, names=names,
                              on_done=lambda i, _: ended.update({i: time.perf_counter()}))
        if stage == "report":
            return report.figures(results)
        if together:
            self.memory["reported"] = report.figures(results[1:])
            self.begun["report"] = begun
            self.ended["emit"] = ended[0]
        return results[0]

    def subtrees(self, counts: dict[int, int]) -> tuple[list[tuple[int, int]], list[int], list[Path], Callable]:
        """The build on the dask engine: the ranges of first keys (one a
        worker, ``counts``: sequences by first key) whose subtrees are
        counted apart, their sequences, a scratch folder for each, and the
        count of one (``_count`` but for its range, its folder, the floor
        of the games kept and what it counts)."""
        from joseki_miner import partitions

        workers = self.cluster().workers()
        ranges = partitions.subtrees(counts, workers)
        sizes = [sum(n for k, n in counts.items() if lo <= k < hi) for lo, hi in ranges]
        scratch = Path(os.path.abspath(self.catalog.runs))
        folders = [scratch / f"subtrees-{self.token}-{lo}-{hi}" for lo, hi in ranges]
        return ranges, sizes, folders, partial(_count, neutral=self.config.influence_neutral,
                                               budget=self.sort_bytes // min(len(ranges), workers))

    def book_files(self) -> emit.BookFiles:
        """The pruned tree's tables as this run has them, and the figures of
        the games it was mined from."""
        from . import emit

        catalog = self.catalog
        figures = {**self.stage_figures("ingest"), **self.stage_figures("prune")}
        return emit.BookFiles(self.current(catalog.joseki), self.current(catalog.node_years),
                              self.current(catalog.node_sources), self.current(catalog.node_examples),
                              catalog.games, figures)

    def ingest_options(self) -> dict:
        """The ingest stage's parameters: what one archive member (or file)
        and one field may hold, how collections are named, the filters."""
        c = self.config
        return {"member_bytes": c.limits_member_mb << 20, "field_bytes": c.limits_field_kb << 10,
                "collections_depth": c.collections_depth,
                "filters": Filters(c.filter_years, c.filter_sources, c.filter_result_known)}

    def prune(self) -> Callable[[], dict]:
        from . import prune

        catalog, config, staged = self.catalog, self.config, store.staged
        threshold = _threshold(self.stage_figures("ingest")["games_accepted"], config)
        floor = self.memory["floor"] if "trie" in self.memory else self.stage_figures("build").get("floor", 1)
        if floor > threshold:
            raise UsageError(f"a threshold of {threshold} needs every trie node: run `joseki build` again first")
        outputs = {"joseki": staged(catalog.joseki), "years": staged(catalog.node_years),
                   "sources": staged(catalog.node_sources), "examples": staged(catalog.node_examples)}
        options = {"threshold": threshold, "min_length": config.min_length, "examples": config.examples,
                   "rules": prune_rules(config), "kinds": kind_rules(config)}
        if "trie" in self.memory:  # mine: the trie just counted, its files still being written
            return partial(prune.run_arrays, self.memory.pop("trie"), self.memory["names"],
                           staged(catalog.sorted_sequences), catalog.games, outputs, **options)
        return partial(prune.run, catalog.trie, catalog.trie_years, catalog.trie_sources, catalog.sorted_sequences,
                       catalog.games, outputs, **options)

    def fetched(self, url: str) -> Path:
        """The mirror of a collection at an fsspec URL, brought up to date."""
        try:
            return remote.fetch(str(url), self.catalog.work / "fetched",
                                on_fetched=lambda n, files: self.log(f"{url}: {n:,} of its {files:,} files fetched"))
        except ImportError as exc:
            raise UsageError(f"cannot read {url}: {exc} (install the fsspec package for its protocol)") from None
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot fetch {url}: {exc}") from None

    def added(self) -> list:
        """--add: the paths of the last run in the folder, then the new ones."""
        manifest = store.read_manifest(self.catalog.manifest("ingest"))
        old = manifest.get("paths") if manifest else None
        if not old:
            raise UsageError(f"--add adds games to those mined in {self.catalog.work}, and none are: "
                             "mine some first")
        return [*old, *[p for p in self.paths if str(p) not in old]]

    def start_soon(self) -> None:
        """Start (or connect to) the dask cluster in a thread of its own,
        unless it is started or starting: ``cluster`` waits for it."""
        if self._cluster is None and self._starting is None:
            starter = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cluster")
            self._starting = starter.submit(self._start)
            starter.shutdown(wait=False)

    def cluster(self) -> cluster_.Cluster:
        """The dask cluster of this run, connected (or started) once."""
        if self._starting is not None:
            starting, self._starting = self._starting, None
            starting.result()  # its error, if it failed
        if self._cluster is None:
            self._start()
        return self._cluster

    def say_if_compiling(self) -> None:
        """A first run on this machine compiles the kernels: say so, or its
        first games look slow."""
        from joseki_miner import kernel

        if not kernel.compiled():
            self.log("compiling the fast engine's kernels for this machine (once, about half a minute; later runs "
                     "load them)")

    def _start(self) -> None:
        self.log("dask: " + (f"connecting to {self.cluster_options.scheduler}" if self.cluster_options.scheduler
                             else "starting a local cluster"))
        self._cluster = cluster_.Cluster(self.cluster_options, log=self.log)
        workers = self._cluster.workers()
        self.log(f"dask: {workers} worker{'s' * (workers != 1)} ready, {time.perf_counter() - self.started:.1f} s "
                 "into the run")

    def plan(self) -> tuple[partitions.Settings, list[partitions.Partition], Counter[str]]:
        """The partitions of the inputs for the dask engine, what mining
        them needs, and the files skipped as they were planned (by why)."""
        from joseki_miner import partitions

        config = self.config
        settings = partitions.Settings(
            named_from=tuple(str(p) for p in self.paths), include_handicap=config.include_handicap,
            dedupe=config.dedupe, phase1=phase1_params(config), options=self.ingest_options(),
            table_memory=self.table_bytes, exclude=tuple(os.path.abspath(f) for f in self.own),
            key=_key("partition", config.section(*INGEST_PARAMS, *EXTRACT_PARAMS), *_rules(config, EXTRACT_RULES)))
        skipped: Counter[str] = Counter()
        digests = self.scanned.by_path() if self.scanned is not None else {}
        parts = partitions.plan(self.paths, settings, digests,
                                target_bytes=int(self.cluster_options.partition_mb * 2**20),
                                on_skip=lambda source, location, why: skipped.update([why]))
        return settings, parts, skipped

    def partitioned(self, inputs: str, ingest: bool = True) -> set[str]:
        """Ingest and extract on the dask cluster: every partition of the
        inputs mined on a worker (or kept from an earlier run), then joined
        into games.parquet, rejects.parquet and sequences.parquet by three
        tasks at once (sequences.parquet alone when ingest is up to date:
        not ``ingest``).  Commits the stages, as the other engines would;
        returns the stages done."""
        from joseki_miner import partitions

        catalog, config, staged = self.catalog, self.config, store.staged
        t0 = time.perf_counter()
        keys = stage_keys(config, inputs)
        settings, parts, skipped = self.plan()
        folder = os.path.abspath(catalog.partitions)
        cluster = self.cluster()
        with progress_bar(self.progress, total=sum(p.size for p in parts), desc="mine partitions", unit="B",
                          unit_scale=True) as bar:
            found = cluster.map(partitions.mine, parts, settings, folder, names=[f"mine-{p.key}-{self.token}" for p in parts],
                                sizes=[p.size for p in parts], on_done=lambda i, _: bar.update(parts[i].size))
        read = time.perf_counter()
        names = [p.key for p in parts]
        resolution = cluster.later(partitions.resolve, folder, names, config.dedupe,
                                   name=f"resolve-{keys['extract']}-{self.token}")
        cluster.everywhere(resolution)
        paths = {"games": os.path.abspath(staged(catalog.games)), "rejects": os.path.abspath(staged(catalog.rejects)),
                 "sequences": os.path.abspath(staged(catalog.sequences))}
        joins = ["games", "rejects", "sequences"] if ingest else ["sequences"]
        jobs = [partial(_join, what, folder, names, strict=self.strict, paths=paths) for what in joins]
        tasks = [f"join-{what}-{keys['extract']}-{self.token}" for what in joins]
        first = [{"sequences": 3, "games": 2, "rejects": 1}[what] for what in joins]  # after the counts, the longest first
        counted, trie_at = None, len(jobs)
        if "build" in self.stages:  # the build counts the partitions' sequences while the joins write them
            counts: Counter[int] = Counter()
            for found_ in found:
                counts.update({int(k): n for k, n in found_["first_keys"].items()})
            ranges, sizes, folders, count = self.subtrees(dict(counts))
            floor = partial(floor_for, config=config)
            joined_ = partial(partitions.Joined, folder, tuple(names))
            jobs += [partial(count, r, f, floor, joined_) for r, f in zip(ranges, folders)]
            tasks += [f"build-count-{lo}-{hi}-{keys['extract']}-{self.token}" for lo, hi in ranges]
            first += [2 ** 40 + size for size in sizes]
            # the subtrees joined once they are counted, on the first worker free, beside the joins still writing
            counts_at = list(range(len(joins), len(jobs)))
            trie_at = len(jobs)
            trie_paths = [os.path.abspath(staged(p)) for p in (catalog.trie, catalog.trie_years, catalog.trie_sources)]
            jobs += [partial(_join_subtrees, folders, ranges, floor, trie_paths, kind_rules(config), joined_),
                     partial(_join_sorted, folders, os.path.abspath(staged(catalog.sorted_sequences)))]
            tasks += [f"build-join-{what}-{keys['extract']}-{self.token}" for what in ("trie", "sorted")]
            first += [0, -1]  # after the joins of the partitions: ingest and extract commit first
            counted = (ranges, folders)
        kept = sum(1 for f in found if f.get(partitions.KEPT))
        joined: dict[int, object] = {}
        built: dict[str, dict] = {}
        after = [counts_at if counted and i >= trie_at else [] for i in range(len(jobs))]

        def on_done(i: int, result) -> None:
            """Ingest and extract commit as soon as the joins end: a count
            that fails or is stopped after leaves them done."""
            if i >= len(joins):
                if counted and i == trie_at:
                    built["figures"] = result
                return
            joined[i] = result
            if len(joined) < len(joins):
                return
            seconds = time.perf_counter() - read
            if ingest:
                figures = partitions.ingest_figures(found, joined[0], joined[1], skipped)
                self.done(self.record("ingest", keys["ingest"], figures, read - t0, inputs=inputs,
                                      partitions=len(parts), partitions_read=len(parts) - kept,
                                      workers=cluster.workers()))
            self.done(self.record("extract", keys["extract"], joined[len(joins) - 1], seconds))
            partitions.clean(Path(folder), keep=set(names))
            self.log(f"{'ingest and ' * ingest}extract: {len(parts)} partition{'s' * (len(parts) != 1)} "
                     f"({len(parts) - kept} read, {kept} "
                     f"kept from an earlier run) in {read - t0:.1f} s, joined in {seconds:.1f} s")

        try:
            cluster.map(lambda job, res: job(res), jobs, resolution, names=tasks, sizes=first, after=after,
                        on_done=on_done)
        finally:
            for f in counted[1] if counted else []:
                shutil.rmtree(f, ignore_errors=True)
        if counted:
            self.memory["built"] = built["figures"]
            self.begun["build"] = read
        return {"extract"}

    def ingest_to_build(self, pool: ThreadPoolExecutor, finish: list) -> set[str]:
        """Ingest, extract and build in one pass (``mine``, fast engine):
        phase 1 runs on each batch of accepted games while the next is read,
        and the sequences go to the build in memory.  Ingest and extract
        commit once their files are whole; trie.parquet is written in
        ``pool`` while prune (from the node arrays left in ``memory``) and
        emit run, and ``finish`` gets the step that waits for it and
        commits the build.  The stage files and manifests are those of
        running the stages one by one; returns the stages done."""
        from joseki_miner import build, extract, ingest

        catalog, config, staged = self.catalog, self.config, store.staged
        t0 = time.perf_counter()
        self.say_if_compiling()
        params = phase1_params(config)
        runs = build.SortedRuns(catalog.runs, self.sort_bytes)
        stream = extract.Phase1Stream(staged(catalog.sequences), params, jobs=self.jobs,
                                      neutral=config.influence_neutral, runs=runs)
        closing: list[Callable[[], None]] = []  # the last row groups of games.parquet and sequences.parquet
        try:
            try:
                figures = ingest.read(self.paths, staged(catalog.games), staged(catalog.rejects),
                                     include_handicap=config.include_handicap, dedupe=config.dedupe,
                                     strict=self.strict, jobs=self.jobs, progress=self.progress,
                                     on_games=stream.add, phase1=params, table_memory=self.table_bytes,
                                     finish=closing, exclude=self.own, walked=self.scanned.walked,
                                     digests=self.collected if self.inputs is None else None,
                                     **self.ingest_options())
            except BaseException:
                stream.abort()
                raise
            figures = {**figures, **self.digested()}
            inputs = self.inputs
            read = time.perf_counter()
            sequences = stream.close(finish=closing)
            extracted = time.perf_counter()
            rss = {"rss_mib": rss_mib(), "peak_rss_mib": peak_rss_mib()}  # when reading ended, and the peak so far
            floor = floor_for(figures["games_accepted"], config)
            names = stream.collections.names
            arrays, nodes = runs.count(floor, stream.collections.years(), max(1, len(names)),
                                       staged(catalog.sorted_sequences))
        except BaseException:
            for wait in closing:  # the sinks' threads finish before their files are removed
                try:
                    wait()
                except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                    pass
            raise
        finally:
            runs.close()
        self.memory.update(trie=arrays, floor=floor, names=names)

        def write_trie() -> tuple[dict, float]:
            return build.write(staged(catalog.trie), staged(catalog.trie_years), staged(catalog.trie_sources), arrays,
                               nodes, floor, names, kind_rules(config)), time.perf_counter()

        writing = pool.submit(write_trie)
        try:
            for wait in closing:
                wait()
        except BaseException:
            writing.exception()  # wait for the trie's thread, whatever it did
            raise
        closed = time.perf_counter()
        keys = stage_keys(config, inputs)  # a stage's manifest once its files are whole
        self.done(self.record("ingest", keys["ingest"], figures, read - t0, inputs=inputs))
        self.done(self.record("extract", keys["extract"], sequences, extracted - read, streamed=True, **rss))
        self.log(f"ingest: done in {read - t0:.1f} s")
        self.log(f"extract: done alongside ingest, {extracted - read:.1f} s after it")
        self.log(f"build: done in {time.perf_counter() - extracted:.1f} s (trie.parquet is written alongside prune "
                 "and emit)")

        def written(commit: bool = True) -> None:
            trie_figures, done = writing.result()  # the build's time ends with trie.parquet, not with prune and
            done = max(done, closed)  # emit after, nor before the files whose last row groups were written beside it
            if commit:
                self.done(self.record("build", stage_keys(config, inputs, floor)["build"], trie_figures,
                                      done - extracted, streamed=True, peak_rss_mib=peak_rss_mib()))

        finish.append(written)
        return {"extract", "build"}


def _join(what: str, folder: str, keys: list[str], resolution: partitions.Resolution, *, strict: bool,
          paths: dict) -> dict:
    """One of the three files the partitions are joined into (a task)."""
    from joseki_miner import partitions

    if what == "games":
        return partitions.write_games(folder, keys, resolution, paths["games"])
    if what == "rejects":
        return partitions.write_rejects(folder, keys, resolution, paths["rejects"], strict)
    return partitions.write_sequences(folder, keys, resolution, paths["sequences"])


def _source(source, resolution=None):
    """What a build task on a worker counts: the partitions as joined
    (``source``: ``partitions.Joined`` but for the resolution, a task's
    last argument), or the stage files (sequences.parquet and games.parquet,
    as ``build.Stored``)."""
    if callable(source):
        return source(resolution)
    from joseki_miner import build

    return build.Stored(*map(Path, source))


def _first_keys(stored: tuple[str, str]) -> dict[int, int]:
    """How many sequences of the stage files start with each key (a task)."""
    from joseki_miner import build

    return build.first_keys(_source(stored))


def _count(key_range: tuple[int, int], folder: Path, floor_of: Callable[[int], int], source,
           resolution: partitions.Resolution | None = None, *, neutral: int, budget: int) -> Path:
    """The subtrees of ``key_range`` counted (a task): from the partitions,
    the games kept and their sequences as the joins write them, or from
    the stage files; ``floor_of`` the games kept."""
    from joseki_miner import build

    counted = _source(source, resolution)
    return build.count_subtrees(key_range, counted, folder, neutral=neutral, budget=budget,
                                floor=floor_of(resolution.accepted if resolution is not None else 0))


def _join_subtrees(folders: list[Path], ranges: list[tuple[int, int]], floor_of: Callable[[int], int],
                   paths: list[str], kinds: KindRules | None, source,
                   resolution: partitions.Resolution | None = None) -> dict:
    """The build's files of the subtrees counted (a task, once they all are)."""
    from joseki_miner import build

    return build.join_subtrees(folders, _source(source, resolution), *map(Path, paths),
                               floor=floor_of(resolution.accepted if resolution is not None else 0),
                               key_ranges=ranges, kinds=kinds)


def _join_sorted(folders: list[Path], path: str, resolution: partitions.Resolution | None = None) -> None:
    """sorted_sequences.parquet of the subtrees counted (a task)."""
    from joseki_miner import build

    build.join_sorted(folders, Path(path))


def summarize(catalog: Catalog, seconds: float, upto: str = STAGES[-1]) -> dict:
    """The run report: the figures of every stage up to ``upto`` that has run."""
    figures: dict = {}
    for stage in STAGES[: STAGES.index(upto) + 1]:
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
        "nodes_after_prune": figures.get("nodes_after_prune", 0),
        "leaves": figures.get("leaves", 0),
        **{k: figures[k] for k in ("joseki", "fuseki_shapes") if k in figures},  # a tree mined with kinds
        "deepest": figures.get("deepest", 0),
        "seconds": round(seconds, 2),
    }
