"""Stage 3, build: sequences.parquet -> trie.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8).  The ``fast`` engine (compiled trie)
and the ``reference`` engine (plain Python trie) write identical files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from tqdm import tqdm

from joseki_miner.fasttrie import FastTrie, classes_of
from joseki_miner.influence import classify
from joseki_miner.points import TENUKI, sgf_bytes_to_points
from joseki_miner.trie import Trie, node_table

from .parquet import count_rows


def decode_keys(data: np.ndarray) -> np.ndarray:
    """Trie keys of 2-byte SGF points ("--" is a tenuki)."""
    data = np.asarray(data, dtype=np.uint8)
    keys = sgf_bytes_to_points(data.tobytes()) if len(data) else np.zeros(0, dtype=np.int16)
    keys[data[0::2] == ord("-")] = TENUKI
    return keys


def _columns(batch):
    moves, scores = batch.column("moves"), batch.column("scores")
    offsets = np.frombuffer(moves.buffers()[1], dtype=np.int32)[moves.offset : moves.offset + len(moves) + 1]
    data = np.frombuffer(moves.buffers()[2], dtype=np.uint8)[offsets[0] : offsets[-1]]
    flat = scores.flatten().to_numpy(zero_copy_only=False).reshape(-1, 4)
    return (offsets - offsets[0]) // 2, decode_keys(data), flat


def run(sequences_path: Path, trie_path: Path, *, neutral: int, floor: int = 2, engine: str = "fast",
        progress: bool = True) -> dict:
    """Count the sequences; store the nodes counted at least ``floor`` times
    (no pruning threshold above ``floor`` - 1 can keep the others)."""
    trie = Trie() if engine == "reference" else FastTrie()
    with tqdm(total=count_rows(sequences_path), desc="build", unit=" seqs", disable=not progress) as bar:
        for batch in pq.ParquetFile(sequences_path).iter_batches(batch_size=200_000, columns=["moves", "scores"]):
            offsets, keys, scores = _columns(batch)
            if engine == "reference":
                for i in range(len(offsets) - 1):
                    a, b = offsets[i], offsets[i + 1]
                    trie.insert(keys[a:b].tolist(), [[classify(int(s), neutral) for s in row] for row in scores[a:b]])
            else:
                trie.insert_many(offsets, keys, classes_of(scores, neutral))
            bar.update(batch.num_rows)
    arrays = trie.to_arrays(floor) if engine == "reference" else trie.arrays(floor)
    trie_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = trie_path.with_suffix(".parquet.tmp")
    pq.write_table(node_table(arrays), tmp, compression="zstd", row_group_size=1 << 20)
    tmp.replace(trie_path)
    return {"nodes_before_prune": len(trie), "nodes_stored": int(len(arrays["node"])), "floor": floor}
