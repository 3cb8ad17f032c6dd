"""The fast engine's one pass (``mine``): ingest, extract and build
together.  Phase 1 runs on each batch of accepted games while the next is
read, and the sequences go to the build in memory; the stage files and
manifests are those of running the stages one by one.

It serves a run of the pipeline (``run``: its catalog, config, options and
log, ``record`` and ``done`` to commit a stage, ``digested`` for the
inputs' key once they are read, ``memory`` for what prune takes from the
build)."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from joseki_miner.engines import build, extract, ingest
from joseki_miner.engines.params import floor_for, ingest_options, kind_rules, phase1_params
from joseki_miner.runs import store
from joseki_miner.runs.keys import stage_keys
from joseki_miner.runs.memory import peak_rss_mib, rss_mib


def ingest_to_build(run, pool: ThreadPoolExecutor, finish: list) -> set[str]:
    """Ingest, extract and build in one pass (``mine``, fast engine):
    phase 1 runs on each batch of accepted games while the next is read,
    and the sequences go to the build in memory.  Ingest and extract
    commit once their files are whole; trie.parquet is written in
    ``pool`` while prune (from the node arrays left in ``memory``) and
    emit run, and ``finish`` gets the step that waits for it and
    commits the build.  The stage files and manifests are those of
    running the stages one by one; returns the stages done."""
    catalog, config, staged = run.catalog, run.config, store.staged
    t0 = time.perf_counter()
    params = phase1_params(config)
    spilled = build.SortedRuns(catalog.runs, run.sort_bytes)
    stream = extract.Phase1Stream(staged(catalog.sequences), params, jobs=run.jobs,
                                  neutral=config.influence_neutral, runs=spilled)
    closing: list[Callable[[], None]] = []  # the last row groups of games.parquet and sequences.parquet
    try:
        try:
            figures = ingest.read(run.paths, staged(catalog.games), staged(catalog.rejects),
                                 include_handicap=config.include_handicap, dedupe=config.dedupe,
                                 strict=run.strict, jobs=run.jobs, progress=run.progress,
                                 on_games=stream.add, phase1=params, table_memory=run.table_bytes,
                                 finish=closing, exclude=run.own, walked=run.scanned.walked,
                                 digests=run.collected if run.inputs is None else None,
                                 **ingest_options(config))
        except BaseException:
            stream.abort()
            raise
        figures = {**figures, **run.digested()}
        inputs = run.inputs
        read = time.perf_counter()
        sequences = stream.close(finish=closing)
        extracted = time.perf_counter()
        rss = {"rss_mib": rss_mib(), "peak_rss_mib": peak_rss_mib()}  # when reading ended, and the peak so far
        floor = floor_for(figures["games_accepted"], config)
        names = stream.collections.names
        arrays, nodes = spilled.count(floor, stream.collections.years(), max(1, len(names)),
                                   staged(catalog.sorted_sequences))
    except BaseException:
        for wait in closing:  # the sinks' threads finish before their files are removed
            try:
                wait()
            except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                pass
        raise
    finally:
        spilled.close()
    run.memory.update(trie=arrays, floor=floor, names=names)

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
    run.done(run.record("ingest", keys["ingest"], figures, read - t0, inputs=inputs))
    run.done(run.record("extract", keys["extract"], sequences, extracted - read, streamed=True, **rss))
    run.log(f"ingest: done in {read - t0:.1f} s")
    run.log(f"extract: done alongside ingest, {extracted - read:.1f} s after it")
    run.log(f"build: done in {time.perf_counter() - extracted:.1f} s (trie.parquet is written alongside prune "
             "and emit)")

    def written(commit: bool = True) -> None:
        trie_figures, done = writing.result()  # the build's time ends with trie.parquet, not with prune and
        done = max(done, closed)  # emit after, nor before the files whose last row groups were written beside it
        if commit:
            run.done(run.record("build", stage_keys(config, inputs, floor)["build"], trie_figures,
                                  done - extracted, streamed=True, peak_rss_mib=peak_rss_mib()))

    finish.append(written)
    return {"extract", "build"}
