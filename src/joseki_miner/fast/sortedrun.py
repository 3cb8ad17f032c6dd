"""A partition's sequences in trie order, as a file a count slices cheaply.

On the dask engine every count of the build reads its range of deep codes
from every partition's sorted run, so a run is opened once per count: at
100 million games, tens of thousands of partitions a count.  An Arrow file
cost 0.6-0.9 ms to open and slice (its reader, its schema, a batch
inflated whole for the few hundred rows a count wants); this layout costs
about 0.2 ms, so a count's reads grow a quarter as fast with the
partitions (benchmarks/history/17-2026-11-28-a-partitions-sorted-run-sliced-in-place.md).

The file: a magic line, the header's length and the header (JSON: how
many sequences it holds and a block holds, and where each column lies),
then each per-sequence column raw, mapped and sliced in place, then the
moves (keys, 2 bytes a move, and scores, 8) lz4 in blocks of
``BLOCK_ROWS`` sequences, a block's keys then its scores: a count
inflates the one or two blocks its rows meet.  The per-sequence columns
are ``COLUMNS``' and "offsets" (where each sequence's moves start, from
0, and the last end) and "blocks" (where each block of moves ends).
Knows nothing of games beyond these numbers.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
from pathlib import Path

import numpy as np
import pyarrow as pa

from joseki_miner.fast.fasttrie import deep_rank

MAGIC = b"joseki sorted run 1\n"
BLOCK_ROWS = 1 << 10  # sequences a block of moves: a count's rows of a partition meet one or two
# the per-sequence columns, in order, with their types (those a count's payload takes, then the deep codes)
COLUMNS = {
    "game": "<i8",
    "sequence": "<i4",
    "start": "<i4",
    "transform": "i1",
    "swapped": "?",
    "shared": "<i2",
    "winner": "i1",
    "year": "<i2",
    "collection": "<i4",
    "day": "<i4",
    "code": "<i8",
    "deep": "<i8",
}
FIELDS = tuple(COLUMNS)[:-2]  # what a read gives of each sequence besides its moves
_CODEC = pa.Codec("lz4")


def write(
    path: Path, offsets: np.ndarray, keys: np.ndarray, scores: np.ndarray, columns: dict[str, np.ndarray]
) -> None:
    """Sequences in trie order into ``path``: ``offsets`` (n + 1, from 0:
    where each one's moves start in ``keys``, int16 a move, and ``scores``,
    uint64 a move) and ``columns`` (``COLUMNS``, n each, of their types).
    Written through Python's file: a full disk raises ENOSPC, which the
    run reports in one line."""
    n = len(offsets) - 1
    offsets = np.asarray(offsets, "<i8")
    if len(keys) != offsets[-1] or len(scores) != offsets[-1]:
        raise ValueError(f"{path}: {offsets[-1]} moves, but {len(keys)} keys and {len(scores)} scores")
    arrays = {"offsets": offsets}
    for name, dtype in COLUMNS.items():
        a = np.ascontiguousarray(columns[name])
        if a.dtype != np.dtype(dtype) or len(a) != n:  # a column misread would misalign every row after
            raise ValueError(f"{path}: {name} is {len(a)} of {a.dtype}, not {n} of {np.dtype(dtype)}")
        arrays[name] = a
    moves, block = [], BLOCK_ROWS
    for lo in range(0, n, block):
        first, end = int(offsets[lo]), int(offsets[min(n, lo + block)])
        raw = (
            np.ascontiguousarray(keys[first:end], "<i2").tobytes()
            + np.ascontiguousarray(scores[first:end], "<u8").tobytes()
        )
        moves.append(_CODEC.compress(raw, asbytes=True))
    arrays["blocks"] = np.cumsum([len(m) for m in moves], dtype="<i8")
    where, at = {}, 0
    for name, a in arrays.items():
        where[name] = [a.dtype.str, at, len(a)]
        at += -(-a.nbytes // 8) * 8  # each column 8-byte aligned
    header = json.dumps({"rows": n, "block_rows": block, "columns": where, "moves": at}).encode()
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<q", len(header)) + header)
        f.write(bytes(-(len(MAGIC) + 8 + len(header)) % 8))
        for a in arrays.values():
            if a.size:  # (a view of no bytes cannot be cast)
                f.write(memoryview(a).cast("B"))
            f.write(bytes(-a.nbytes % 8))
        for m in moves:
            f.write(m)


def read(path: Path, key_range: tuple[int, int]) -> tuple | None:
    """The sequences of the run in ``path`` whose deep codes are in
    ``key_range`` (lo, hi), in trie order: offsets (from 0), keys (int16),
    scores (int16, 4 a move) and ``FIELDS``, arrays of their own; None if
    there are none.  A file cut short or of another format is named."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size > len(MAGIC) + 8 else b""
    try:
        if mapped[: len(MAGIC)] != MAGIC:
            raise ValueError("another format")
        (length,) = struct.unpack_from("<q", mapped, len(MAGIC))
        start = len(MAGIC) + 8 + length
        header = json.loads(mapped[len(MAGIC) + 8 : start])
        base = start + (-start % 8)
        rows, where, block_rows = header["rows"], header["columns"], header["block_rows"]
        moves_at = base + header["moves"]
        ends = np.frombuffer(mapped, "<i8", where["blocks"][2], base + where["blocks"][1])
        if size < moves_at + (int(ends[-1]) if len(ends) else 0):
            raise ValueError("cut short")
    except (ValueError, KeyError, TypeError, IndexError, struct.error) as e:
        raise RuntimeError(f"{path} is not a whole sorted run of this version ({e})") from None

    def column(name: str) -> np.ndarray:
        dtype, at, n = where[name]
        return np.frombuffer(mapped, dtype, n, base + at)

    code, deep = column("code"), column("deep")
    a, b = deep_rank(code, deep, key_range[0]), deep_rank(code, deep, key_range[1])
    if a >= b:
        return None
    offsets = column("offsets")
    start_move, end_move = int(offsets[a]), int(offsets[b])
    keys, scores = [], []
    for block in range(a // block_rows, (b - 1) // block_rows + 1):
        lo, hi = int(offsets[block * block_rows]), int(offsets[min(rows, (block + 1) * block_rows)])
        begin = int(ends[block - 1]) if block else 0
        raw = _CODEC.decompress(
            mapped[moves_at + begin : moves_at + int(ends[block])], decompressed_size=10 * (hi - lo), asbytes=True
        )
        wanted = slice(max(lo, start_move) - lo, min(hi, end_move) - lo)  # the range's moves alone are kept
        keys.append(np.frombuffer(raw, "<i2", hi - lo)[wanted])
        scores.append(np.frombuffer(raw, "<u8", hi - lo, 2 * (hi - lo))[wanted])
    fields = {name: column(name)[a:b].copy() for name in FIELDS}
    return (
        offsets[a : b + 1] - start_move,
        np.concatenate(keys),
        np.concatenate(scores).view("<i2").reshape(-1, 4),
        fields,
    )
