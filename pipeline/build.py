"""Stage 3, build: sequences.parquet -> trie.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8).  The ``fast`` engine (compiled trie)
and the ``reference`` engine (plain Python trie) write identical files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
from tqdm import tqdm

from joseki_miner.fasttrie import classes_of, count_sequences
from joseki_miner.influence import classify
from joseki_miner.points import TENUKI, sgf_bytes_to_points
from joseki_miner.trie import Trie, node_table

from .parquet import count_rows, string_bytes

NODE_ROWS = 1 << 20  # rows a trie.parquet row group


def decode_keys(data: np.ndarray) -> np.ndarray:
    """Trie keys of 2-byte SGF points ("--" is a tenuki)."""
    data = np.asarray(data, dtype=np.uint8)
    keys = sgf_bytes_to_points(data.tobytes()) if len(data) else np.zeros(0, dtype=np.int16)
    keys[data[0::2] == ord("-")] = TENUKI
    return keys


def _columns(batch):
    offsets, data = string_bytes(batch.column("moves"))
    _, raw = string_bytes(batch.column("scores"))
    flat = raw.view("<i2").reshape(-1, 4)
    return offsets // 2, decode_keys(data), flat


def run(sequences_path: Path, trie_path: Path, *, neutral: int, floor: int = 2, engine: str = "fast",
        progress: bool = True) -> dict:
    """Count the sequences of sequences.parquet and store the trie."""
    trie = Trie() if engine == "reference" else None
    parts: list[tuple] = []
    with tqdm(total=count_rows(sequences_path), desc="build", unit=" seqs", disable=not progress) as bar:
        for batch in pq.ParquetFile(sequences_path).iter_batches(batch_size=200_000, columns=["moves", "scores"]):
            offsets, keys, scores = _columns(batch)
            if trie is not None:
                for i in range(len(offsets) - 1):
                    a, b = offsets[i], offsets[i + 1]
                    trie.insert(keys[a:b].tolist(), [[classify(int(s), neutral) for s in row] for row in scores[a:b]])
            else:
                parts.append((offsets, keys, classes_of(scores, neutral)))
            bar.update(batch.num_rows)
    if trie is not None:
        return write(trie_path, trie.to_arrays(floor), len(trie), floor)
    return run_arrays(parts, trie_path, floor=floor)


def run_arrays(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], trie_path: Path, *, floor: int = 2,
               sorted_parts: bool = False) -> dict:
    """The build stage on sequences already in memory (see ``count``)."""
    return write(trie_path, *count(parts, floor=floor, sorted_parts=sorted_parts), floor)


def count(parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]], *, floor: int = 2,
          sorted_parts: bool = False) -> tuple[dict, int]:
    """The trie's node arrays (nodes counted at least ``floor`` times) and
    its number of nodes, of sequences in memory (offsets, keys and packed
    influence classes per part): counted by sorting (``fasttrie``), or, for
    parts each already sorted (``fasttrie.sort_sequences``), by merging
    them.  Empties ``parts`` as it goes."""
    runs = np.cumsum([0] + [len(o) - 1 for o, _, _ in parts[:-1]]) if sorted_parts and parts else None
    offsets, keys, classes = _joined(parts)
    return count_sequences(offsets, keys, classes, min_count=floor, runs=runs)


def write(trie_path: Path, arrays: dict, nodes: int, floor: int) -> dict:
    """Store the nodes counted at least ``floor`` times (no pruning threshold
    above ``floor`` - 1 can keep the others); the stage's figures."""
    trie_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = trie_path.with_suffix(".parquet.tmp")
    # a row group at a time: the same file as one write_table, without the
    # whole table's columns in memory at once (a large trie's are gigabytes)
    n = len(arrays["node"])
    with pq.ParquetWriter(tmp, node_table(_rows(arrays, 0, 0)).schema, compression="zstd") as writer:
        for lo in range(0, n, NODE_ROWS):
            writer.write_table(node_table(_rows(arrays, lo, lo + NODE_ROWS)), row_group_size=NODE_ROWS)
    tmp.replace(trie_path)
    return {"nodes_before_prune": nodes, "nodes_stored": int(len(arrays["node"])), "floor": floor}


def _rows(arrays: dict, lo: int, hi: int) -> dict:
    return {name: a[lo:hi] for name, a in arrays.items()}


def _joined(parts: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One offsets/keys/classes triple of the parts' triples.  The list is
    emptied part by part as they are copied, so the parts and the joined
    arrays are never all held at once (a large collection's sequences are
    gigabytes)."""
    n_sequences = sum(len(o) - 1 for o, _, _ in parts)
    n_keys = sum(len(k) for _, k, _ in parts)
    offsets = np.zeros(n_sequences + 1, np.int64)
    keys = np.empty(n_keys, np.int16)
    classes = np.empty(n_keys, np.uint8)
    s = k = 0
    for i in range(len(parts)):
        o, part_keys, part_classes = parts[i]
        parts[i] = None  # the caller's reference too: the list is the caller's
        m = len(o) - 1
        offsets[s + 1:s + m + 1] = np.asarray(o[1:], np.int64) + k
        keys[k:k + len(part_keys)] = part_keys
        classes[k:k + len(part_keys)] = part_classes
        s, k = s + m, k + len(part_keys)
        del o, part_keys, part_classes
    parts.clear()
    return offsets, keys, classes
