"""A partition's sorted run: what a count reads of a range is what was
written of it, whatever the range and the blocks of moves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from joseki_miner.fast import sortedrun
from joseki_miner.method.points import DEEP_SHIFT


def _run(lengths: list[int], codes: list[tuple[int, int]], seed: int) -> tuple:
    """Sequences of ``lengths`` moves with deep codes ``codes`` (first
    keys', next keys'), in trie order, random moves and fields."""
    rng = np.random.default_rng(seed)
    order = sorted(range(len(codes)), key=lambda i: codes[i])
    offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    keys = rng.integers(-(2**15), 2**15, offsets[-1], dtype=np.int16)
    scores = rng.integers(0, 2**63, offsets[-1], dtype=np.uint64)
    columns = {
        name: rng.integers(0, 2 if dtype == "?" else 100, len(lengths)).astype(dtype)
        for name, dtype in sortedrun.COLUMNS.items()
    }
    columns["code"] = np.array([codes[i][0] for i in order], np.int64)
    columns["deep"] = np.array([codes[i][1] for i in order], np.int64)
    return offsets, keys, scores, columns


def _held_alone(array: np.ndarray) -> bool:
    """That an array's bytes are its own: no view of the mapped file, nor
    of the whole blocks inflated (a count holds thousands of these)."""
    root = array
    while isinstance(root.base, np.ndarray):
        root = root.base
    return root.base is None and root.nbytes == array.nbytes


@settings(max_examples=60, deadline=None)
@given(
    rows=st.lists(st.tuples(st.integers(1, 12), st.integers(0, 6), st.integers(0, 6)), min_size=0, max_size=60),
    cut=st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(0, 7), st.integers(0, 7)),
    block=st.sampled_from([1, 2, 7, 1024]),
    seed=st.integers(0, 2**16),
)
def test_a_range_reads_back_the_sequences_written_with_their_moves_and_fields(tmp_path_factory, rows, cut, block, seed):
    """The rows of a range of deep codes, their moves (over one block or
    many) and every field, as written; None where the range holds none."""
    path = tmp_path_factory.mktemp("run") / "sorted.run"
    lengths = [n for n, _, _ in rows]
    codes = [(c, d) for _, c, d in rows]
    offsets, keys, scores, columns = _run(lengths, codes, seed)
    old = sortedrun.BLOCK_ROWS
    sortedrun.BLOCK_ROWS = block
    try:
        sortedrun.write(path, offsets, keys, scores, columns)
    finally:
        sortedrun.BLOCK_ROWS = old
    lo, hi = sorted([cut[0] << DEEP_SHIFT | cut[1], cut[2] << DEEP_SHIFT | cut[3]])
    deep = [c << DEEP_SHIFT | d for c, d in zip(columns["code"].tolist(), columns["deep"].tolist())]
    wanted = [i for i, k in enumerate(deep) if lo <= k < hi]
    got = sortedrun.read(path, (lo, hi))
    if not wanted:
        assert got is None
        return
    a, b = wanted[0], wanted[-1] + 1
    assert wanted == list(range(a, b))  # in trie order: a range is a slice
    got_offsets, got_keys, got_scores, fields = got
    for array, dtype in ((got_offsets, np.int64), (got_keys, np.int16), (got_scores, np.int16)):
        assert array.dtype == dtype and array.flags.writeable and _held_alone(array)
    assert got_scores.shape == (offsets[b] - offsets[a], 4)
    assert got_offsets.tolist() == (offsets[a : b + 1] - offsets[a]).tolist()
    assert got_keys.tolist() == keys[offsets[a] : offsets[b]].tolist()
    assert got_scores.tolist() == scores[offsets[a] : offsets[b]].view("<i2").reshape(-1, 4).tolist()
    assert set(fields) == set(sortedrun.FIELDS)
    for name in sortedrun.FIELDS:
        assert fields[name].dtype == np.dtype(sortedrun.COLUMNS[name])
        assert fields[name].tolist() == columns[name][a:b].tolist() and _held_alone(fields[name])


def test_a_file_cut_short_or_of_another_format_is_named_not_misread(tmp_path):
    """A run written by another version (an Arrow file), an empty one, or
    one cut short in its header or its moves stops the count with its
    path, never read as numbers."""
    whole = tmp_path / "whole.run"
    offsets, keys, scores, columns = _run([3] * 50, [(i % 5, i % 3) for i in range(50)], 1)
    sortedrun.write(whole, offsets, keys, scores, columns)
    every = (0, 9 << DEEP_SHIFT)
    assert len(sortedrun.read(whole, every)[0]) == 51
    data = whole.read_bytes()
    for name, body in (
        ("arrow", b"ARROW1" + bytes(64)),
        ("empty", b""),
        ("header", data[: len(sortedrun.MAGIC) + 20]),
        ("moves", data[:-5]),
    ):
        path = tmp_path / f"{name}.run"
        path.write_bytes(body)
        with pytest.raises(RuntimeError, match=f"{name}.run is not a whole sorted run"):
            sortedrun.read(path, every)


def test_a_column_of_another_type_or_length_is_refused_when_written(tmp_path):
    """A column that would be cast, or is short of a row, is refused: it
    would misalign every row read after it."""
    offsets, keys, scores, columns = _run([2] * 4, [(1, i) for i in range(4)], 2)
    for name, value in (("day", columns["day"].astype(np.int64)), ("year", columns["year"][:3])):
        with pytest.raises(ValueError, match=name):
            sortedrun.write(tmp_path / "x.run", offsets, keys, scores, {**columns, name: value})
    with pytest.raises(ValueError, match="moves"):
        sortedrun.write(tmp_path / "x.run", offsets, keys[:-1], scores, columns)
