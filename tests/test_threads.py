"""threads: pools that run in the caller's thread inside ``one_thread()``."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from joseki_miner.runs import threads


def test_inside_one_thread_a_pool_runs_each_call_at_once_in_the_callers_thread():
    seen = []
    with threads.one_thread():
        pool = threads.pool(4, "x", initializer=lambda: seen.append("initializer"))
        future = pool.submit(lambda a, b=0: (threading.get_ident(), a + b), 1, b=2)
        assert future.done() and future.result() == (threading.get_ident(), 3)
        failed = pool.submit(lambda: 1 / 0)
        with pytest.raises(ZeroDivisionError):
            failed.result()
        with threads.one_thread():
            pass
        assert isinstance(threads.pool(), threads.Inline)  # a nested block leaves the outer one as it was
        pool.shutdown(wait=False, cancel_futures=True)
    assert seen == []  # an initializer is for a thread of the pool's own


def test_one_thread_holds_for_the_thread_that_entered_it_only():
    """A dask worker of several threads runs tasks side by side: one task's
    block leaves the others' pools as they were."""
    with threads.one_thread(), ThreadPoolExecutor(1) as other:
        assert threads.alone()
        assert other.submit(threads.alone).result() is False
        assert other.submit(lambda: isinstance(threads.pool(), ThreadPoolExecutor)).result()
    assert not threads.alone()


def test_outside_a_pool_has_threads_of_its_own():
    with threads.pool(1, "own") as pool:
        assert isinstance(pool, ThreadPoolExecutor)
        assert pool.submit(threading.get_ident).result() != threading.get_ident()


def test_a_partition_mined_in_one_thread_gives_the_files_of_one_mined_with_threads(demo_games, tmp_path):
    """The dask engine's workers mine with no thread of their own: the
    partition's folder holds the same bytes, and no thread was started."""
    from joseki_miner.cluster import partitions
    from joseki_miner.runs.config import load
    from joseki_miner.stages.params import Reading, phase1_params

    config = load(None, [])
    settings = partitions.Settings(
        named_from=(str(demo_games),), reading=Reading(table_memory=1 << 20), phase1=phase1_params(config), key="test"
    )
    part = partitions.plan([demo_games], settings, {})[0]
    partitions.mine(part, settings, str(tmp_path / "threads"))
    before = threading.active_count()
    started = []
    original = threading.Thread.start
    threading.Thread.start = lambda self: (started.append(self.name), original(self))[1]
    try:
        with threads.one_thread():
            partitions.mine(part, settings, str(tmp_path / "alone"))
    finally:
        threading.Thread.start = original
    assert started == [] and threading.active_count() == before
    for name in partitions.FILES:
        assert (tmp_path / "alone" / part.key / name).read_bytes() == (
            tmp_path / "threads" / part.key / name
        ).read_bytes(), name


def test_a_value_settled_for_another_thread_is_its_result_or_its_error():
    """``settled``: the thread that computes a value hands it, or its error,
    to the one that waits (the trie's writing thread and prune)."""
    from concurrent.futures import Future

    from joseki_miner.runs.threads import settled

    given: Future = Future()
    assert settled(given, lambda: 42) == 42 and given.result() == 42
    failed: Future = Future()
    with pytest.raises(ZeroDivisionError):
        settled(failed, lambda: 1 // 0)
    with pytest.raises(ZeroDivisionError):
        failed.result(timeout=0)
