"""Counting in bounded memory (joseki_miner.fast.sorting.SortedRuns): sorted runs held,
spilled to disk and merged give the trie of sorting everything at once."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_fasttrie import arrays_of, assert_same, seq_st

from joseki_miner.cluster import partitions
from joseki_miner.cluster.shards import (
    count_subtrees,
    days_of,
    keep_candidates,
    plan_shards,
    prefix_counts,
    sampled,
    transposed_of_shard,
    write_shard,
)
from joseki_miner.method.points import DEEP_SHIFT, PREFIX
from joseki_miner.fast import sorting
from joseki_miner.stages import build
from joseki_miner.fast.fasttrie import count_sequences, plain_payload, sort_sequences


@settings(max_examples=60, deadline=None)
@given(
    seqs=st.lists(seq_st, max_size=60),
    cuts=st.lists(st.integers(0, 60), max_size=8),
    budget=st.integers(1, 400),
    min_count=st.integers(1, 3),
)
def test_spilled_runs_count_as_one_sort(tmp_path_factory, seqs, cuts, budget, min_count):
    """Parts spilled whenever ``budget`` bytes are held, in blocks of three
    sequences, run files merged two at a time: the trie of one sort."""
    folder = tmp_path_factory.mktemp("runs")
    whole, total = count_sequences(*arrays_of(seqs), min_count=min_count)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sorting, "SPILL_BLOCK", 3)
        patch.setattr(sorting, "FAN_IN", 2)
        runs = sorting.SortedRuns(folder, budget)
        bounds = sorted({0, len(seqs), *[c for c in cuts if c <= len(seqs)]})
        for a, b in zip(bounds[:-1], bounds[1:]):
            runs.add(*sort_sequences(*arrays_of(seqs[a:b])))
        spilled = runs.figures["runs_spilled"]
        counted, counted_total = runs.count(min_count)
    assert counted_total == total
    assert_same(counted, whole)
    assert list(folder.iterdir()) == []
    if spilled:
        assert runs.figures["spilled_bytes"] > 0


def test_parts_past_the_budget_go_to_disk_and_fan_in_bounds_the_files(tmp_path, monkeypatch):
    monkeypatch.setattr(sorting, "FAN_IN", 3)
    rng = np.random.default_rng(7)
    runs = sorting.SortedRuns(tmp_path, budget=1)  # every part is spilled as it comes
    for _ in range(10):
        lengths = rng.integers(1, 30, 50)
        offsets = np.r_[0, np.cumsum(lengths)]
        runs.add(
            *sort_sequences(
                offsets,
                rng.integers(0, 5, offsets[-1]).astype(np.int16),
                np.full(offsets[-1], 0b10101010, np.uint8),
                plain_payload(50),
            )
        )
        assert len(list(tmp_path.iterdir())) < 3 and runs.held_bytes == 0
    # ten parts spilled, and four merges of three run files into one
    assert runs.figures["runs_spilled"] == 14
    arrays, _ = runs.count(2)
    assert arrays["count"][0] == 500
    assert list(tmp_path.iterdir()) == []


def test_a_count_that_stops_early_stops_its_merge_thread(tmp_path):
    """The merge runs ahead in a thread (sorting._ahead); a count that fails
    part way must not leave it blocked on a full queue."""
    import threading

    made = []

    def blocks():
        for i in range(100):
            made.append(i)
            yield i

    ahead = sorting._ahead(blocks(), depth=2)
    assert next(ahead) == 0
    ahead.close()  # the caller gives up
    assert not any(t.name == "merge" and t.is_alive() for t in threading.enumerate())
    assert len(made) < 10


def test_a_merge_that_fails_fails_the_count():
    def blocks():
        yield 1
        raise OSError("run file cut short")

    with pytest.raises(OSError, match="cut short"):
        list(sorting._ahead(blocks()))


@pytest.mark.shared_data
def test_the_sorted_sequences_are_the_same_bytes_streamed_or_built_alone(real_subset, tmp_path):
    """`mine` sorts the sequences as batches of games come (in the order the
    threads finish them, spilled in small runs); `build` alone reads
    sequences.parquet, which `extract` alone writes in its own order.  Equal sequences sort by game and number, so both give
    the same file (a run stopped after its ingest extracts and builds the
    second way)."""
    from joseki_miner.runs.config import load
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.runs.catalog import STAGES
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=tmp_path / "w", out=tmp_path / "o")
    run_stages(
        catalog,
        load(None, []),
        STAGES,
        [real_subset],
        Request(progress=False, jobs=2, sort_memory=1),
        log=lambda s: None,
    )
    streamed = catalog.sorted_sequences.read_bytes()
    run_stages(
        catalog, load(None, []), ["extract", "build"], [], Request(progress=False, force=True), log=lambda s: None
    )
    assert catalog.sorted_sequences.read_bytes() == streamed


@settings(max_examples=200, deadline=None)
@given(codes=st.lists(st.integers(0, 2**62), max_size=300), most=st.integers(1, 40))
def test_openings_sampled_keep_every_sequence_and_their_order(codes, most):
    """At most ``most`` openings, each one of the sequences', the
    sequences from one to the next counted with it: every sequence once,
    and a range cut at a sample holds what its samples say, but for
    sequences of the cut's own opening before it was sampled."""
    codes = np.sort(np.array(codes, np.int64))
    sample = sampled(codes, most)
    assert len(sample) <= most and sum(sample.values()) == len(codes) and set(sample) <= set(codes.tolist())
    for cut in sample:
        assert int((codes < cut).sum()) <= sum(n for k, n in sample.items() if k < cut) <= int((codes <= cut).sum())
    assert sampled(codes, None) == {int(k): int(n) for k, n in zip(*np.unique(codes, return_counts=True))}


@pytest.mark.shared_data
def test_subtrees_counted_apart_give_the_files_of_one_build(real_subset, tmp_path):
    """Real games' sequences counted in 1, 3, 7 and 64 ranges of openings
    (the dask engine's build, a task a range; at 64 the common first moves
    cut between their children), then planned and written as shards: the
    parts of trie.parquet, trie_years.parquet, trie_sources.parquet and
    sorted_sequences.parquet, laid end to end, are the rows `build`
    writes, and those of the position index, sorted by position; no range
    held every sequence.  Pruned on the shards' candidates, with each
    shard's nodes on the kept positions: the bytes of every file prune
    writes of the whole trie."""
    import pyarrow.parquet as pq

    from joseki_miner.fast.parquet import read_columns
    from joseki_miner.runs.config import load
    from joseki_miner.method.prune import Cut
    from joseki_miner.runs.catalog import Catalog
    from joseki_miner.stages import prune
    from joseki_miner.runs.store import TMP
    from joseki_miner.stages.params import kind_rules, prune_outputs
    from pipeline.run import Request, run_stages

    catalog = Catalog(work=tmp_path / "w", out=tmp_path / "o")
    run_stages(
        catalog,
        load(None, []),
        ["ingest", "extract", "build", "prune"],
        [real_subset],
        Request(progress=False),
        log=lambda s: None,
    )
    files = catalog.shards()
    config = load(None, [])
    games = json.loads(catalog.manifest("ingest").read_text())["figures"]["games_accepted"]
    outputs = {
        name: path.with_name(path.name.removesuffix(TMP)) for name, path in prune_outputs(catalog, config).items()
    }
    assert outputs["joseki"] == catalog.joseki and "transpositions" in outputs
    figures = json.loads(catalog.manifest("build").read_text())["figures"]
    floor = figures["floor"]
    stored = build.Stored(catalog.sequences, catalog.games)
    counts = prefix_counts(stored)
    for parts in (1, 3, 7, 64):
        ranges = partitions.subtrees(counts, parts)
        if parts > 1:
            assert max(sum(n for k, n in counts.items() if lo <= k < hi) for lo, hi in ranges) < sum(counts.values())
        if parts == 64:  # the common first moves' subtrees cut between their children, and below a line's first keys
            assert len({(lo >> DEEP_SHIFT) // PREFIX for lo, _ in ranges}) < len(ranges)
            assert any(lo % (1 << DEEP_SHIFT) for lo, _ in ranges)
        counted = [
            count_subtrees(
                r, stored, tmp_path / f"part-{i}", neutral=load(None, []).influence_neutral, floor=floor, budget=1 << 16
            )  # spills
            for i, r in enumerate(ranges)
        ]
        folders = [count.folder for count in counted]
        out = [tmp_path / f"{parts}-{f.name}" for f in files]
        for folder in out:
            folder.mkdir()
        shards = plan_shards(counted, floor=floor, key_ranges=ranges)
        assert shards.figures() == {k: figures[k] for k in ("nodes_before_prune", "nodes_stored", "floor")}
        pruning = prune.pruning_for(config, games, floor)
        candidates = []
        for j, folder in enumerate(folders):
            cut = Cut(pruning.threshold, pruning.min_length, pruning.rules)
            write_shard(folder, shards.of(j), j, tuple(out), kind_rules(config))  # its plan alone
            candidates.append(keep_candidates(folder, shards.of(j), j, kind_rules(config), cut))
        for mine, theirs in zip(out[:3] + out[4:], files[:3] + files[4:]):
            assert len(list(mine.iterdir())) == len(ranges)
            assert read_columns(mine).equals(pq.read_table(theirs)), (parts, theirs.name)
        whole, sharded = prune.read_index(files[3]), prune.read_index(out[3])
        assert all(np.array_equal(whole[k], sharded[k]) for k in whole), parts
        for part in out[3].iterdir():  # each part sorted alike: a search reads a key's nodes in node order
            index = pq.read_table(part)
            hi, lo, node = (index.column(c).to_numpy() for c in ("hi", "lo", "node"))
            assert np.array_equal(np.lexsort((node, lo, hi)), np.arange(len(hi))), (parts, part.name)
        pruned = {name: tmp_path / f"{parts}-{path.name}" for name, path in outputs.items()}
        wanted = tmp_path / f"{parts}-kept"
        prune.prune_shards(candidates, shards.names, prune.PruneFiles(out[4], None, pruned), pruning, wanted)
        found = [  # each shard searched for the kept nodes' games and positions
            prune.examples_of_shard(folder, shards.plan.parts[j].ranked, wanted, games)
            for j, folder in enumerate(folders)
        ]
        transposed = [transposed_of_shard(folder, shards.of(j), j, wanted) for j, folder in enumerate(folders)]
        prune.write_found(found, wanted, catalog.games, pruned, transposed=transposed)
        for name, path in outputs.items():
            if name != "orders":  # (move orders merged alone)
                assert pruned[name].read_bytes() == path.read_bytes(), (parts, name)
    with pytest.raises(RuntimeError, match="kept the nodes counted"):  # counted with another floor
        plan_shards(counted, floor=floor + 1)
    with pytest.raises(RuntimeError, match="counted the range"):  # counts handed in another order
        plan_shards(counted[::-1], floor=floor, key_ranges=ranges)
    with pytest.raises(RuntimeError, match="counted the range"):  # a shard's folder another count wrote
        write_shard(folders[1], shards.of(0), 0, tuple(out), kind_rules(config))


def test_a_spill_to_a_full_disk_says_so(tmp_path, monkeypatch):
    """A sorted run spilled to a full disk raises ENOSPC (the run's one
    line), not numpy's bare "requested and written" (a traceback)."""
    import builtins
    import errno
    import os

    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here to fill a disk")
    runs = sorting.SortedRuns(tmp_path, budget=1)  # every part is spilled as it comes
    monkeypatch.setattr(sorting, "open", lambda path, mode: builtins.open("/dev/full", mode), raising=False)
    offsets = np.arange(0, 2 * 4096 + 1, 2)
    part = (offsets, np.ones(offsets[-1], np.int16), np.zeros(offsets[-1], np.uint8), plain_payload(4096))
    with pytest.raises(OSError) as raised:
        runs.add(*sort_sequences(*part))
    assert raised.value.errno == errno.ENOSPC


def test_a_count_keeps_each_of_its_games_once_with_the_day_it_was_played():
    """What a shard's search ranks its example games by (``days_of``): the
    games of a count's sequences, each once and in order, whatever parts
    they came in, with their day; none of a count of no sequences."""
    played = [
        (np.array([5, 2, 5], np.int64), np.array([20100101, 20090200, 20100101], np.int32)),
        (np.array([9, 2], np.int64), np.array([0, 20090200], np.int32)),
    ]
    days = days_of(played)
    assert days["game"].tolist() == [2, 5, 9] and days["day"].tolist() == [20090200, 20100101, 0]
    none = days_of([])
    assert len(none["game"]) == len(none["day"]) == 0
