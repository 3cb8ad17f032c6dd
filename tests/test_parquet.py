"""The stages' Parquet sink: files that do not depend on how rows arrive,
nor on whether a background thread writes them; a folder of parts read
as the file of their rows."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from joseki_miner.fast.parquet import (
    RowGroups,
    TableSink,
    count_rows,
    groups_where,
    iter_batches,
    read_columns,
    row_range,
    rows_at,
)
from joseki_miner.fast.tables import EXAMPLE_INFO, TRIE_FILE
from joseki_miner.runs.catalog import part_name, parts_of

SCHEMA = pa.schema([("n", pa.int64()), ("text", pa.string())])


def _table(lo: int, hi: int) -> pa.Table:
    return pa.table({"n": list(range(lo, hi)), "text": [f"row {i}" for i in range(lo, hi)]}, schema=SCHEMA)


def _write(path, cuts, background: bool) -> bytes:
    sink = TableSink(path, SCHEMA, rows=100, background=background)
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        sink.add(_table(lo, hi))
    sink.close()
    return path.read_bytes()


def test_a_folder_of_parts_reads_as_the_file_of_their_rows_end_to_end(tmp_path):
    """The dask engine's sequences.parquet (a part a partition, some empty)
    and the others' one file: the same rows in the same order, by batch
    and by the row groups a query picks by their first column."""
    whole, folder = tmp_path / "whole.parquet", tmp_path / "parts.parquet"
    pq.write_table(_table(0, 1000), whole, row_group_size=100)
    folder.mkdir()
    bounds = [0, 0, 130, 130, *range(200, 1000, 70), 1000]  # 16 parts: named to sort past part 9
    for i, (lo, hi) in enumerate(zip(bounds[:-1], bounds[1:])):
        pq.write_table(_table(lo, hi), folder / part_name(i), row_group_size=30)
    assert [p.name for p in parts_of(folder)] == [part_name(i) for i in range(len(bounds) - 1)]
    assert parts_of(whole) == [whole]
    for path in (whole, folder):
        assert count_rows(path) == 1000
        batches = list(iter_batches(path, 64, ["n"]))
        assert max(b.num_rows for b in batches) <= 64
        assert pa.Table.from_batches(batches).column("n").to_pylist() == list(range(1000))
        picked = groups_where(path, lambda least, most: least <= 412 and most >= 405, ["n", "text"])
        n = picked.column("n").to_pylist()
        assert set(range(405, 413)) <= set(n) and len(n) < 200 and n == sorted(n)
        assert picked.column("text").to_pylist() == [f"row {i}" for i in n]
        assert groups_where(path, lambda least, most: False, ["n"]).num_rows == 0
        assert read_columns(path, ["n"]).column("n").to_pylist() == list(range(1000))
        # rows by number (a game's is its row), in the order asked, across parts and row groups
        asked = np.array([999, 0, 131, 130, 129, 500, 131, 200])
        assert rows_at(path, asked, ["text", "n"]).column("n").to_pylist() == asked.tolist()
        assert rows_at(path, np.zeros(0, np.int64), ["n"]).schema.names == ["n"]
        assert row_range(path, 125, 275, ["n"]).column("n").to_pylist() == list(range(125, 275))
        assert row_range(path, 5, 5, ["n"]).num_rows == 0
    # given each part's rows (the run knows them), only the parts that hold the rows asked are opened
    sizes = [hi - lo for lo, hi in zip(bounds[:-1], bounds[1:])]
    assert rows_at(folder, asked, ["text", "n"], sizes).equals(rows_at(folder, asked, ["text", "n"]))
    assert rows_at(folder, np.zeros(0, np.int64), ["n"], sizes).schema.names == ["n"]
    (folder / part_name(9)).rename(tmp_path / "aside")  # a part no row asked is in (550 to 619): never opened
    (folder / part_name(9)).write_bytes(b"not parquet")
    assert rows_at(folder, np.array([5, 999]), ["n"], sizes).column("n").to_pylist() == [5, 999]
    (tmp_path / "aside").replace(folder / part_name(9))
    with pytest.raises(RuntimeError, match="holds 16 parts, not 15"):
        rows_at(folder, asked, ["n"], sizes[1:])
    with pytest.raises(RuntimeError, match="past its 1000"):
        rows_at(folder, np.array([5, 1000]), ["n"], sizes)
    with pytest.raises(RuntimeError, match="holds 30 rows, not 31"):  # a part of other rows than the run's
        rows_at(folder, np.array([999]), ["n"], sizes[:-1] + [31])


def test_rows_by_number_keep_no_part_open(tmp_path):
    """A query of a folder of thousands of parts opens a part only to read
    its groups: the limit of open files (often 1,024) is never reached."""
    import os

    folder = tmp_path / "games.parquet"
    folder.mkdir()
    for i in range(60):
        pq.write_table(_table(10 * i, 10 * i + 10), folder / part_name(i))
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    groups = RowGroups(folder)
    assert groups.rows_at(np.array([599, 0, 305]), ["n"]).column("n").to_pylist() == [599, 0, 305]
    if before is None:
        pytest.skip("no /proc/self/fd here to count open files")
    assert len(os.listdir("/proc/self/fd")) - before < 5


def test_a_folder_without_parts_is_no_file(tmp_path):
    (tmp_path / "sequences.parquet").mkdir()
    with pytest.raises(FileNotFoundError, match="holds no part"):
        parts_of(tmp_path / "sequences.parquet")


@pytest.mark.parametrize("background", [False, True])
def test_the_file_does_not_depend_on_how_rows_arrive(tmp_path, background):
    one = _write(tmp_path / "one.parquet", [0, 1000], background=False)
    assert _write(tmp_path / "many.parquet", [0, 3, 150, 151, 420, 999, 1000], background) == one
    assert _write(tmp_path / "rows.parquet", list(range(0, 1001, 7)) + [1000], background) == one


@pytest.mark.parametrize("background", [False, True])
def test_a_sink_closing_in_its_thread_writes_the_file_close_writes(tmp_path, background):
    """``closing`` hands back the closing (the last row group and the
    footer) as a future: the file is whole, and the same, once it is done."""
    one = _write(tmp_path / "one.parquet", [0, 1000], background=False)
    sink = TableSink(tmp_path / "later.parquet", SCHEMA, rows=100, background=background)
    for lo, hi in [(0, 450), (450, 1000)]:
        sink.add(_table(lo, hi))
    closing = sink.closing()
    closing.result()
    assert (tmp_path / "later.parquet").read_bytes() == one
    assert not (tmp_path / "later.parquet.tmp").exists()

    finish: list = []  # close(finish): the wait is handed to the caller
    sink = TableSink(tmp_path / "handed.parquet", SCHEMA, rows=100, background=background)
    sink.add(_table(0, 1000))
    sink.close(finish)
    assert len(finish) == 1
    finish[0]()
    assert (tmp_path / "handed.parquet").read_bytes() == one


def test_a_background_write_that_fails_fails_the_caller(tmp_path):
    sink = TableSink(tmp_path / "bad.parquet", SCHEMA, rows=10, background=True)
    wrong = pa.table({"other": [1] * 20})
    with pytest.raises((ValueError, pa.ArrowInvalid)):
        sink.add(wrong)
        for _ in range(5):  # the error surfaces at a later add, or at close
            sink.add(_table(0, 20))
        sink.close()


def _random_trie(seed: int, sequences: int, longest: int, keys: int) -> tuple[dict, int]:
    """The counted trie (every node) of random sequences with random classes."""
    import numpy as np

    from joseki_miner.fast.fasttrie import count_sequences, pack_classes

    rng = np.random.default_rng(seed)
    offsets = np.r_[0, np.cumsum(rng.integers(1, longest, sequences))].astype(np.int64)
    classes = pack_classes(rng.integers(0, 3, (offsets[-1], 4)))
    return count_sequences(offsets, rng.integers(0, keys, offsets[-1]).astype(np.int16), classes, min_count=1)


def test_the_trie_written_a_row_group_at_a_time_is_one_write(tmp_path, monkeypatch):
    """build.write writes trie.parquet in slices of NODE_ROWS nodes; the file
    is byte for byte the one a single write_table of the whole would give."""
    import pyarrow.parquet as pq

    from joseki_miner.stages import build
    from joseki_miner.fast.tables import node_table

    arrays, nodes = _random_trie(7, 200, 8, 6)
    monkeypatch.setattr(build, "NODE_ROWS", 16)
    assert len(arrays["node"]) > 3 * build.NODE_ROWS  # several row groups
    build.write(
        (tmp_path / "trie.parquet", tmp_path / "years.parquet", tmp_path / "sources.parquet"),
        arrays,
        nodes,
        floor=1,
        names=["demo"],
    )
    pq.write_table(node_table(arrays), tmp_path / "whole.parquet", row_group_size=16, **TRIE_FILE)
    assert (tmp_path / "trie.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()


@pytest.mark.parametrize("threshold,min_length", [(1, 1), (3, 2), (5, 3)])
def test_prune_from_the_node_arrays_writes_the_files_prune_from_the_build_files_does(
    tmp_path, monkeypatch, threshold, min_length
):
    """``mine`` prunes the trie it has just counted while trie.parquet is
    still being written (prune.prune_arrays); joseki.parquet and the kept
    nodes' years, collections and examples are byte for byte the ones
    pruning the build's files gives, a trie of several row groups too."""
    from joseki_miner.stages import build
    from joseki_miner.fast.fasttrie import pack_classes, plain_payload
    from joseki_miner.fast.sorting import SortedRuns
    from joseki_miner.stages import prune

    rng = np.random.default_rng(11)
    offsets = np.r_[0, np.cumsum(rng.integers(1, 9, 300))].astype(np.int64)
    keys = rng.integers(0, 5, offsets[-1]).astype(np.int16)
    classes = pack_classes(rng.integers(0, 3, (offsets[-1], 4)))
    payload = plain_payload(300)
    payload["game"] = np.arange(300) // 3  # three sequences a game
    payload["sequence"] = np.arange(300) % 3
    payload["shared"] = -1  # (no shared keys: good enough for the files)
    payload["year"] = 2000 + rng.integers(0, 4, 300)
    payload["source"] = rng.integers(0, 2, 300)
    work = tmp_path / "work"
    work.mkdir()
    games = pa.table(
        {
            "source": ["s"] * 100,
            "location": [f"g{i}" for i in range(100)],
            "collection": ["a" if i % 2 else "b" for i in range(100)],
            "day": pa.array([20000101 + (i * 7919) % 500 for i in range(100)], pa.int32()),
            "winner": pa.array([(i % 3) - 1 for i in range(100)], pa.int8()),  # (what merging move orders reads)
            "year": pa.array([2000 + i % 4 for i in range(100)], pa.int16()),
            **{name: [f"{name}{i}" for i in range(100)] for name in EXAMPLE_INFO},
        }
    )
    pq.write_table(games, work / "games.parquet")
    runs = SortedRuns(work / "runs")
    runs.add(*build.sort_sequences(offsets, keys, classes, payload))
    arrays, nodes = runs.count(1, (2000, 4), 2, work / "sorted.parquet")
    monkeypatch.setattr(build, "NODE_ROWS", 32)
    build.write(
        (work / "trie.parquet", work / "years.parquet", work / "sources.parquet"),
        arrays,
        nodes,
        floor=1,
        names=["a", "b"],
    )
    files, memory = (
        {name: tmp_path / f"{name}-{kind}.parquet" for name in ("joseki", "years", "sources", "examples")}
        for kind in ("files", "memory")
    )
    pruning = prune.Pruning(threshold, min_length, examples=3)
    from_files = prune.prune_files(
        work / "trie.parquet",
        work / "years.parquet",
        work / "sources.parquet",
        prune.PruneFiles(work / "sorted.parquet", work / "games.parquet", files),
        pruning,
    )
    trie = prune.TrieArrays(arrays, ["a", "b"])
    from_arrays = prune.prune_arrays(
        trie, prune.PruneFiles(work / "sorted.parquet", work / "games.parquet", memory), pruning
    )
    assert from_arrays == from_files and from_files["nodes_after_prune"] > 1
    for name in files:
        assert files[name].read_bytes() == memory[name].read_bytes(), name
    assert pq.read_table(files["examples"]).num_rows > 0
    # the dask engine's trie join prunes without games.parquet: the examples later, from the segments
    later = {name: tmp_path / f"{name}-later.parquet" for name in files}
    figures = prune.prune_arrays(trie, prune.PruneFiles(work / "sorted.parquet", None, later), pruning)
    assert not later["examples"].exists()
    prune.write_examples(figures.pop("segments"), work / "sorted.parquet", work / "games.parquet", later["examples"], 3)
    assert figures == from_files
    for name in files:
        assert later[name].read_bytes() == files[name].read_bytes(), name
    # with kinds: the codes the build computed once (build.kinds_of, for trie.parquet) are those prune writes
    from joseki_miner.method.kinds import KINDS, KindRules

    kinded = prune.Pruning(threshold, min_length, examples=3, kinds=KindRules())
    own, given, marked = (
        {name: tmp_path / f"{name}-{kind}.parquet" for name in files} for kind in ("own", "given", "marked")
    )
    codes = build.kinds_of(arrays, KindRules())
    for out, kinds in ((own, None), (given, lambda: codes), (marked, lambda: np.full(len(codes), 3, np.int8))):
        prune.prune_arrays(
            prune.TrieArrays(arrays, ["a", "b"], kinds=kinds),
            prune.PruneFiles(work / "sorted.parquet", work / "games.parquet", out),
            kinded,
        )
    for name in files:
        assert own[name].read_bytes() == given[name].read_bytes(), name
    assert set(pq.read_table(marked["joseki"]).column("kind").to_pylist()) == {KINDS[3]}  # given: not computed again
    # where move orders are merged prune's nodes are others: it computes their kinds, whatever it is given
    merging = prune.Pruning(threshold, min_length, examples=3, kinds=KindRules(), merge_orders=True)
    own, marked = ({name: tmp_path / f"{name}-merged-{kind}.parquet" for name in files} for kind in ("own", "marked"))
    for out, kinds in ((own, None), (marked, lambda: np.full(len(codes), 3, np.int8))):
        out["orders"] = tmp_path / f"orders-{id(out)}.parquet"
        prune.prune_arrays(
            prune.TrieArrays(arrays, ["a", "b"], kinds=kinds),
            prune.PruneFiles(work / "sorted.parquet", work / "games.parquet", out),
            merging,
        )
    assert own["joseki"].read_bytes() == marked["joseki"].read_bytes()
    # a task of a run that has ended writes nothing
    from joseki_miner.runs import stop

    ended = {name: tmp_path / f"{name}-ended.parquet" for name in files}
    stop.end("ended-run")
    with stop.task_of("ended-run"), pytest.raises(stop.Stopped):
        prune.prune_arrays(trie, prune.PruneFiles(work / "sorted.parquet", None, ended), pruning)
    assert not any(path.exists() for path in ended.values())
