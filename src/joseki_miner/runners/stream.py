"""The fast engine's one-pass runner (``mine``): ingest, extract and
build together.  Phase 1 runs on each batch of accepted games while the
next is read, and the sequences go to the build in memory; the stage files
are those of running the stages one by one, and the run commits them as it
would theirs."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

from joseki_miner.fast.sorting import SortedRuns
from joseki_miner.runs import threads
from joseki_miner.runs.context import Context, CountedTrie, Done
from joseki_miner.runs.memory import peak_rss_mib, rss_mib
from joseki_miner.runs.stages import ONE_PASS
from joseki_miner.runs.store import staged
from joseki_miner.stages import build, extract, ingest
from joseki_miner.stages.params import Reading, floor_for, kind_rules, phase1_params


INGEST, EXTRACT, BUILD = ONE_PASS


@dataclass(frozen=True)
class Streamed:
    """What the one pass gives back: ingest and extract done (their files
    whole), the trie counted (for prune), and ``built``, the wait for
    trie.parquet, written in a thread while prune and emit run: the build
    done (or, failed, its error)."""

    ingest: Done
    extract: Done
    trie: CountedTrie
    counted_seconds: float  # from extract's end to the trie counted
    built: Callable[[], Done]


def ingest_to_build(context: Context, pool: ThreadPoolExecutor) -> Streamed:
    """Ingest, extract and build in one pass; trie.parquet is written in
    ``pool``."""
    catalog, config, options = context.catalog, context.config, context.options
    t0 = time.perf_counter()
    params = phase1_params(config)
    spilled = SortedRuns(catalog.runs, options.sort_bytes)
    stream = extract.Phase1Stream(
        staged(catalog.sequences), params, jobs=options.jobs, neutral=config.influence_neutral, runs=spilled
    )
    closing: list[Callable[[], None]] = []  # the last row groups of games.parquet and sequences.parquet
    try:
        try:
            figures = ingest.read(
                context.paths,
                staged(catalog.games),
                staged(catalog.rejects),
                Reading.of(config, options, context.own),
                hooks=ingest.Hooks(
                    on_games=stream.add, phase1=params, finish=closing, walked=context.walked, digests=context.digests
                ),
            )
        except BaseException:
            stream.abort()
            raise
        read = time.perf_counter()
        sequences = stream.close(finish=closing)
        extracted = time.perf_counter()
        rss = {"rss_mib": rss_mib(), "peak_rss_mib": peak_rss_mib()}  # when reading ended, and the peak so far
        floor = floor_for(figures["games_accepted"], config)
        names = stream.collections.names
        arrays, nodes = spilled.count(
            floor, stream.collections.years(), max(1, len(names)), staged(catalog.sorted_sequences)
        )
    except BaseException:
        for wait in closing:  # the sinks' threads finish before their files are removed
            try:
                wait()
            except BaseException:  # noqa: BLE001 - the run's own error is the one to report
                pass
        raise
    finally:
        spilled.close()

    writing, closed, found = _write_trie(context, pool, arrays, nodes, floor, names, closing)

    def built() -> Done:
        trie_figures, done = writing.result()  # the build's time ends with trie.parquet, not with prune and
        done = max(done, closed)  # emit after, nor before the files whose last row groups were written beside it
        return Done(BUILD, trie_figures, done - extracted, {"streamed": True, "peak_rss_mib": peak_rss_mib()})

    return Streamed(
        Done(INGEST, figures, read - t0),
        Done(EXTRACT, sequences, extracted - read, {"streamed": True, **rss}),
        CountedTrie(arrays, tuple(names), floor, lambda: found.result()[0], lambda: found.result()[1]),
        time.perf_counter() - extracted,
        built,
    )


def _write_trie(
    context: Context, pool: ThreadPoolExecutor, arrays: dict, nodes: int, floor: int, names: list, closing: list
) -> tuple[Future, float, Future]:
    """trie.parquet written in ``pool`` while the last row groups of
    games.parquet and sequences.parquet are (``closing``): its future, when
    those were, and the future of the position index and the nodes' kinds,
    computed once for the trie's files and for prune."""
    catalog, config = context.catalog, context.config
    found: Future = Future()

    def write_trie() -> tuple[dict, float]:
        index, codes = threads.settled(
            found, lambda: (build.position_index(arrays), build.kinds_of(arrays, kind_rules(config)))
        )
        paths = (staged(catalog.trie), staged(catalog.trie_years), staged(catalog.trie_sources))
        return build.write(paths, arrays, nodes, floor, names, kind_rules(config), index, codes), time.perf_counter()

    writing = pool.submit(write_trie)
    try:
        for wait in closing:
            wait()
    except BaseException:
        writing.exception()  # wait for the trie's thread, whatever it did
        raise
    return writing, time.perf_counter(), found
