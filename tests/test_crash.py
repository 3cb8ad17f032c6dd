"""The crash harness's short version (``make crashtest`` runs the long one
on all of ../shared/data): on about 4,000 real games from every collection,
runs stopped by SIGKILL and SIGINT at moments spread over the run, killed at
steps of their commits, failed by --strict and by a full disk; after each,
a run with the default settings gives a clean run's outputs.  Once with the
fast engine, once with the dask engine on two worker processes (a stop can
then come while workers mine partitions, count subtrees or write parts of
the report)."""

from __future__ import annotations

import pytest

import crashtest


@pytest.mark.shared_data
@pytest.mark.parametrize("engine", [[], ["--engine", "dask", "--workers", "2"]], ids=["fast", "dask"])
def test_no_stop_leaves_anything_the_next_run_trusts(real_subset, tmp_path, engine):
    if engine:
        pytest.importorskip("distributed", reason="the dask engine needs dask's distributed (make setup installs it)")
    harness = crashtest.run([real_subset], tmp_path, moments=2, quick=True, log=lambda line: None, engine=engine)
    assert [(case, problem) for case, problem in harness.results if problem] == []
    assert len(harness.results) >= 12
