"""Run the stages in order, skipping any whose inputs and parameters are
unchanged since its last run (its cache key is in its manifest)."""

from __future__ import annotations

import hashlib
import json
import os
import resource
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import joseki_miner
from joseki_miner import prune as prune_method
from joseki_miner.config import Config
from joseki_miner.mapped import BUDGET
from joseki_miner.readers import iter_files
from joseki_miner.sequences import Phase1Params

from . import build, emit, extract, ingest, prune
from .catalog import Catalog

STAGES = ("ingest", "extract", "build", "prune", "emit")
ENGINES = ("fast", "reference")
TABLE_MEMORY = BUDGET / 2**20  # MB


class UsageError(Exception):
    """An invocation that cannot run (missing path, unwritable folder, stale
    inputs for a single stage); the CLI prints it as one line."""


def _key(*parts) -> str:
    text = json.dumps([joseki_miner.__version__, *parts], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def input_key(paths: Sequence[str | Path]) -> str:
    """Identity of the raw inputs: every file's path, size and mtime."""
    files = []
    for f in iter_files(paths):
        st = f.stat()
        files.append((str(f.resolve()), st.st_size, st.st_mtime_ns))
    return _key("inputs", files)


def phase1_params(config: Config) -> Phase1Params:
    return Phase1Params(
        certain=config.distance_certain,
        maybe=config.distance_maybe,
        corner_stones=config.corner_stones,
        max_length=config.max_length,
        reach=config.influence_reach,
    )


def stage_keys(config: Config, inputs: str, floor: int = 2) -> dict[str, str]:
    """Each stage's cache key: its upstream key plus the parameters it reads
    (``floor``: the least count build stores, 1 only for a threshold of 1)."""
    keys = {}
    keys["ingest"] = _key("ingest", inputs, config.section("include_handicap", "dedupe", "limits.member_mb",
                                                          "limits.field_kb"))
    keys["extract"] = _key(
        "extract", keys["ingest"],
        config.section("distance.certain", "distance.maybe", "corner_stones", "max_length", "influence.reach"),
    )
    keys["build"] = _key("build", keys["extract"], config.section("influence.neutral"), floor)
    keys["prune"] = _key("prune", keys["build"], config.section("prune.min_count", "prune.min_fraction", "min_length"))
    keys["emit"] = _key("emit", keys["prune"], config.section("influence.share"))
    return keys


def threshold_for(catalog: Catalog, config: Config) -> int:
    """The pruning threshold for the games the ingest stage accepted."""
    return _threshold(_figures(catalog, "ingest")["games_accepted"], config)


def _threshold(games: int, config: Config) -> int:
    return prune_method.threshold(games, config.prune_min_count, config.prune_min_fraction)


def read_manifest(catalog: Catalog, stage: str) -> dict | None:
    path = catalog.manifest(stage)
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def write_manifest(catalog: Catalog, stage: str, key: str, figures: dict, seconds: float, **extra) -> None:
    path = catalog.manifest(stage)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {"stage": stage, "key": key, "figures": figures, "seconds": round(seconds, 3), **extra}
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def check_paths(paths: Sequence[str | Path]) -> None:
    if not paths:
        raise UsageError("no game collection given")
    for p in paths:
        if not Path(p).exists():
            raise UsageError(f"no such path: {p}")


def check_writable(*folders: Path) -> None:
    for folder in folders:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(f"output folder not writable: {folder} ({exc.strerror})") from exc
        if not os.access(folder, os.W_OK):
            raise UsageError(f"output folder not writable: {folder}")


def _stage_actions(catalog: Catalog, config: Config, paths, progress: bool, strict: bool, engine: str,
                   jobs: int, memory: dict, sort_bytes: int, table_bytes: int) -> dict[str, Callable[[], dict]]:
    """Each stage's work; ``memory`` holds the trie ``mine`` has just counted
    ("trie": node arrays, "floor"), which prune takes from there."""
    def do_prune() -> dict:
        threshold = threshold_for(catalog, config)
        floor = memory["floor"] if "trie" in memory else _figures(catalog, "build").get("floor", 1)
        if floor > threshold:
            raise UsageError(f"a threshold of {threshold} needs every trie node: run `joseki build` again first")
        if "trie" in memory:
            return prune.run_arrays(memory.pop("trie"), catalog.joseki, threshold=threshold,
                                    min_length=config.min_length)
        return prune.run(catalog.trie, catalog.joseki, threshold=threshold, min_length=config.min_length)

    def do_build() -> dict:
        return build.run(catalog.sequences, catalog.trie, neutral=config.influence_neutral,
                         floor=_floor(catalog, config), engine=engine, progress=progress, spill=catalog.runs,
                         budget=sort_bytes)

    return {
        "ingest": lambda: ingest.run(
            paths, catalog.games, catalog.rejects,
            include_handicap=config.include_handicap, dedupe=config.dedupe, strict=strict, engine=engine,
            jobs=jobs, progress=progress, table_memory=table_bytes,
            member_bytes=config.limits_member_mb << 20, field_bytes=config.limits_field_kb << 10,
        ),
        "extract": lambda: extract.run(
            catalog.games, catalog.sequences, phase1_params(config), engine=engine, jobs=jobs, progress=progress
        ),
        "build": do_build,
        "prune": do_prune,
        "emit": lambda: emit.run(
            catalog.joseki, catalog.sgf, catalog.dot, catalog.influence_dot,
            share=config.influence_share, title="Joseki tree (joseki-miner)",
        ),
    }


def _ingest_to_build(catalog: Catalog, config: Config, paths, inputs: str, progress: bool, strict: bool,
                     jobs: int, log: Callable[[str], None], memory: dict, pool: ThreadPoolExecutor,
                     finish: list[Callable[[], None]], sort_bytes: int, table_bytes: int) -> set[str]:
    """Ingest, extract and build in one pass (``mine``, fast engine): phase 1
    runs on each batch of accepted games while the next is read, and the
    sequences go to the build in memory.  trie.parquet is written in
    ``pool`` while prune (from the node arrays left in ``memory``) and emit
    run; ``finish`` gets what waits for it and writes the build manifest.
    The stage files and manifests are those of running the stages one by
    one; returns the stages done."""
    t0 = time.perf_counter()
    params = phase1_params(config)
    runs = build.SortedRuns(catalog.runs, sort_bytes)
    stream = extract.Phase1Stream(catalog.sequences, params, jobs=jobs, neutral=config.influence_neutral, runs=runs)
    closing: list[Callable[[], None]] = []  # the last row groups of games.parquet and sequences.parquet, beside the count
    try:
        figures = ingest.run(paths, catalog.games, catalog.rejects, include_handicap=config.include_handicap,
                             dedupe=config.dedupe, strict=strict, jobs=jobs, progress=progress, on_games=stream.add,
                             phase1=params, table_memory=table_bytes, finish=closing,
                             member_bytes=config.limits_member_mb << 20, field_bytes=config.limits_field_kb << 10)
    finally:
        read = time.perf_counter()
        try:
            sequences = stream.close(finish=closing)
        except BaseException:
            runs.close()
            raise
    extracted = time.perf_counter()
    rss = {"rss_mib": rss_mib(), "peak_rss_mib": peak_rss_mib()}  # when reading ended, and the peak so far
    floor = floor_for(figures["games_accepted"], config)
    try:
        arrays, nodes = runs.count(floor)
    finally:
        runs.close()
    memory.update(trie=arrays, floor=floor)

    def write_trie() -> tuple[dict, float]:
        return build.write(catalog.trie, arrays, nodes, floor), time.perf_counter()

    writing = pool.submit(write_trie)
    for wait in closing:
        wait()
    closed = time.perf_counter()
    keys = stage_keys(config, inputs)  # a stage's manifest once its files are whole
    write_manifest(catalog, "ingest", keys["ingest"], figures, read - t0, inputs=inputs)
    write_manifest(catalog, "extract", keys["extract"], sequences, extracted - read, streamed=True, **rss)
    log(f"ingest: done in {read - t0:.1f} s")
    log(f"extract: done alongside ingest, {extracted - read:.1f} s after it")
    log(f"build: done in {time.perf_counter() - extracted:.1f} s (trie.parquet is written alongside prune and emit)")

    def written() -> None:
        figures, done = writing.result()  # the build's time ends with trie.parquet, not with prune and emit after,
        done = max(done, closed)  # nor before the stage files whose last row groups were written beside the count
        write_manifest(catalog, "build", stage_keys(config, inputs, floor)["build"], figures, done - extracted,
                       streamed=True, peak_rss_mib=peak_rss_mib())

    finish.append(written)
    return {"extract", "build"}


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


def floor_for(games: int, config: Config) -> int:
    """The least count the build stores, for ``games`` accepted: 2, unless
    the pruning threshold is 1."""
    return 1 if _threshold(games, config) <= 1 else 2


def _floor(catalog: Catalog, config: Config) -> int:
    return floor_for(_figures(catalog, "ingest")["games_accepted"], config)


def _figures(catalog: Catalog, stage: str) -> dict:
    manifest = read_manifest(catalog, stage)
    if manifest is None:
        raise UsageError(f"stage {stage} has not run in {catalog.manifest(stage).parent}")
    return manifest["figures"]


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
    sort_memory: float = build.SORT_MEMORY,
    table_memory: float = TABLE_MEMORY,
    log: Callable[[str], None] = lambda s: None,
) -> dict:
    """Run ``stages`` (a contiguous part of STAGES) and write summary.json
    (the figures of this and earlier stages; later stages' stale figures are
    left out).

    A stage re-runs only when its cache key (inputs + parameters) changed or
    ``force``; otherwise its outputs from last time stand.  ``engine``
    "fast" (compiled, over ``jobs`` threads, default all cores) and
    "reference" (plain Python) give identical files, and so does any
    ``sort_memory`` (MB of sequences held for the trie before sorted runs
    are spilled to disk) and any ``table_memory`` (MB of duplicate
    fingerprints and kifu index lines held in memory, the rest mapped from
    files in the work folder).  Returns the summary."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}: choose one of {', '.join(ENGINES)}")
    jobs = jobs or os.cpu_count() or 1
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if sort_memory <= 0:
        raise UsageError("--sort-memory must be a positive number of MB")
    sort_bytes = int(sort_memory * 2**20)
    if table_memory < 0:
        raise UsageError("--table-memory must be a number of MB, 0 or more")
    table_bytes = int(table_memory * 2**20)
    started = time.perf_counter()
    check_writable(catalog.work, catalog.out)
    if "ingest" in stages:
        check_paths(paths)
        inputs = input_key(paths)
    else:
        manifest = read_manifest(catalog, "ingest")
        if manifest is None:
            raise UsageError(f"no ingested games in {catalog.work}: run `joseki ingest` first")
        inputs = manifest.get("inputs", "")
    keys = stage_keys(config, inputs)
    memory: dict = {}
    finish: list[Callable[[], None]] = []
    actions = _stage_actions(catalog, config, paths, progress, strict, engine, jobs, memory, sort_bytes, table_bytes)
    streamed = engine == "fast" and {"ingest", "extract", "build"} <= set(stages)
    upstream_ran = False
    done: set[str] = set()
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="write") as pool:
        try:
            for stage in stages:
                if stage in done:
                    continue
                if stage in ("build", "prune", "emit"):  # the floor needs the games accepted
                    keys = stage_keys(config, inputs, _floor(catalog, config))
                manifest = read_manifest(catalog, stage)
                fresh = manifest is not None and manifest.get("key") == keys[stage] and not force and not upstream_ran
                if fresh:
                    log(f"{stage}: up to date, kept")
                    continue
                upstream_ran = True
                if stage == "ingest" and streamed:
                    done |= _ingest_to_build(catalog, config, paths, inputs, progress, strict, jobs, log, memory,
                                             pool, finish, sort_bytes, table_bytes)
                    continue
                t0 = time.perf_counter()
                figures = actions[stage]()
                extra = {"inputs": inputs} if stage == "ingest" else {}  # so later stages can run alone
                write_manifest(catalog, stage, keys[stage], figures, time.perf_counter() - t0, **extra)
                log(f"{stage}: done in {time.perf_counter() - t0:.1f} s")
        finally:
            memory.clear()
            for step in finish:
                step()
    summary = summarize(catalog, time.perf_counter() - started, upto=stages[-1])
    catalog.summary.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    return summary


def summarize(catalog: Catalog, seconds: float, upto: str = STAGES[-1]) -> dict:
    """The run report: the figures of every stage up to ``upto`` that has run."""
    figures: dict = {}
    for stage in STAGES[: STAGES.index(upto) + 1]:
        manifest = read_manifest(catalog, stage)
        if manifest:
            figures.update(manifest["figures"])
    rejected = figures.get("games_rejected", {})
    return {
        "games_read": figures.get("games_read", 0),
        "games_accepted": figures.get("games_accepted", 0),
        "games_rejected": rejected,
        "games_rejected_total": sum(rejected.values()),
        "files_skipped": figures.get("files_skipped", {}),
        "sequences": figures.get("sequences", 0),
        "nodes_before_prune": figures.get("nodes_before_prune", 0),
        "threshold": figures.get("threshold", 0),
        "nodes_after_prune": figures.get("nodes_after_prune", 0),
        "leaves": figures.get("leaves", 0),
        "deepest": figures.get("deepest", 0),
        "seconds": round(seconds, 2),
    }
