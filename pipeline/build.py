"""Stage 3, build: sequences.parquet -> trie.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8).  The ``fast`` engine (compiled trie)
and the ``reference`` engine (plain Python trie) write identical files."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from tqdm import tqdm

from joseki_miner.fasttrie import FastTrie, classes_of, union_arrays
from joseki_miner.influence import classify
from joseki_miner.points import TENUKI, sgf_bytes_to_points
from joseki_miner.trie import Trie, node_table

from .parquet import count_rows, string_bytes


def decode_keys(data: np.ndarray) -> np.ndarray:
    """Trie keys of 2-byte SGF points ("--" is a tenuki)."""
    data = np.asarray(data, dtype=np.uint8)
    keys = sgf_bytes_to_points(data.tobytes()) if len(data) else np.zeros(0, dtype=np.int16)
    keys[data[0::2] == ord("-")] = TENUKI
    return keys


def _columns(batch):
    offsets, data = string_bytes(batch.column("moves"))
    flat = batch.column("scores").flatten().to_numpy(zero_copy_only=False).reshape(-1, 4)
    return offsets // 2, decode_keys(data), flat


def _parts_of_first_moves(first: np.ndarray, jobs: int) -> np.ndarray:
    """A part (0..jobs-1) for every first move, balancing the sequences of
    a sample greedily (heaviest first move to the lightest part)."""
    counts = np.bincount(first, minlength=TENUKI + 1)
    part = np.zeros(TENUKI + 1, dtype=np.int64)
    load = np.zeros(jobs, dtype=np.int64)
    for key in np.argsort(-counts, kind="stable"):
        j = int(np.argmin(load))
        part[key] = j
        load[j] += counts[key]
    return part


def _select(offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, chosen: np.ndarray):
    """The sequences ``chosen`` (indices) as their own offsets/keys/classes."""
    lengths = np.diff(offsets)[chosen]
    starts = offsets[:-1][chosen]
    rel = np.arange(int(lengths.sum())) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    idx = np.repeat(starts, lengths) + rel
    return np.r_[0, np.cumsum(lengths)], keys[idx], classes[idx]


def run(sequences_path: Path, trie_path: Path, *, neutral: int, floor: int = 2, engine: str = "fast",
        jobs: int = 1, progress: bool = True) -> dict:
    """Count the sequences; store the nodes counted at least ``floor`` times
    (no pruning threshold above ``floor`` - 1 can keep the others).  The
    fast engine splits the sequences by first move over ``jobs`` tries
    filled in parallel; their union is the same trie."""
    if engine == "reference":
        trie = Trie()
    else:
        tries = [FastTrie() for _ in range(max(1, jobs))]
        parts = None
        pool = ThreadPoolExecutor(max_workers=len(tries))
    with tqdm(total=count_rows(sequences_path), desc="build", unit=" seqs", disable=not progress) as bar:
        for batch in pq.ParquetFile(sequences_path).iter_batches(batch_size=200_000, columns=["moves", "scores"]):
            offsets, keys, scores = _columns(batch)
            if engine == "reference":
                for i in range(len(offsets) - 1):
                    a, b = offsets[i], offsets[i + 1]
                    trie.insert(keys[a:b].tolist(), [[classify(int(s), neutral) for s in row] for row in scores[a:b]])
            else:
                classes = classes_of(scores, neutral)
                first = keys[offsets[:-1]].astype(np.int64)
                if parts is None:
                    parts = _parts_of_first_moves(first, len(tries))
                chunks = [_select(offsets, keys, classes, np.flatnonzero(parts[first] == j)) for j in range(len(tries))]
                list(pool.map(lambda tc: tc[0].insert_many(*tc[1]), zip(tries, chunks)))
            bar.update(batch.num_rows)
    if engine == "reference":
        arrays, nodes = trie.to_arrays(floor), len(trie)
    else:
        pool.shutdown()
        arrays, nodes = union_arrays(tries, floor), 1 + sum(len(t) - 1 for t in tries)
    trie_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = trie_path.with_suffix(".parquet.tmp")
    pq.write_table(node_table(arrays), tmp, compression="zstd", row_group_size=1 << 20)
    tmp.replace(trie_path)
    return {"nodes_before_prune": nodes, "nodes_stored": int(len(arrays["node"])), "floor": floor}
