"""Stage 3, build: sequences.parquet -> trie.parquet.

Counts every normalized sequence into the trie, with the influence class of
each move per direction (section 8).  The ``fast`` engine (compiled trie)
and the ``reference`` engine (plain Python trie) write identical files."""

from __future__ import annotations

from pathlib import Path
from queue import Full, Queue
from threading import Event, Thread

import numpy as np
import pyarrow.parquet as pq
from tqdm import tqdm

from joseki_miner.fasttrie import StreamCounter, classes_of, cut, in_order, merge_sorted, sort_sequences, width_of
from joseki_miner.influence import classify
from joseki_miner.points import TENUKI, sgf_bytes_to_points
from joseki_miner.stop import check as check_stop
from joseki_miner.trie import COUNTER_COLUMNS, Trie, node_table

from .parquet import count_rows, string_bytes

NODE_ROWS = 1 << 20  # rows a trie.parquet row group
# How trie.parquet is encoded.  Columns of few values take a dictionary; the
# numbers (node, parent, counts) are delta-encoded and bit-packed, which
# holds them about as small as zstd does, so a fast codec (lz4) is enough:
# all data's trie writes in 0.12 s instead of 0.19 s and reads in 0.03 s
# instead of 0.16 s, for 6.1 MB instead of 4.7 MB.
DICTIONARY = ["depth", "color", "move"]
TRIE_FILE = {
    "compression": "lz4",
    "use_dictionary": DICTIONARY,
    "column_encoding": {name: "DELTA_BINARY_PACKED" for name in ("node", "parent", "count", *COUNTER_COLUMNS)},
}


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


SPILL_BLOCK = 1 << 15  # sequences a block of a run file, and a merge's step through a run
FAN_IN = 16  # run files merged at once; more are first merged into one
SORT_MEMORY = 1024  # MB of sequences held before they are spilled as a sorted run
# nodes the count's arrays start with, at most: reserved, not touched until
# written (74 bytes a node), so the arrays seldom grow, and growing copies
ROOM = 1 << 24


class SortedRuns:
    """The sequences counted into the trie, in sorted runs, in bounded memory.

    Each part added is sorted (``fasttrie.sort_sequences``).  Parts are held
    until they pass ``budget`` bytes; then they are merged into one sorted
    run in a file of ``folder``, and so are the files, ``FAN_IN`` at a time.
    ``count`` merges what is held and the files into one stream and counts
    it: memory is the budget, a block a run and the trie kept, however many
    the games.  Run files hold blocks: sequence and key numbers (int64),
    lengths (int16), keys (int16), packed classes (uint8)."""

    def __init__(self, folder: Path, budget: int = SORT_MEMORY << 20) -> None:
        self.folder, self.budget = folder, budget
        self.held: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        self.held_bytes = 0
        self.files: list[Path] = []
        self.max_depth = 0
        self.keys = 0
        self.figures = {"sequence_bytes": 0, "spilled_bytes": 0, "runs_spilled": 0}

    def add(self, offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray) -> None:
        """A part, sorted."""
        if len(offsets) > 1:
            self.max_depth = max(self.max_depth, int(np.diff(offsets).max()))
        part = (np.asarray(offsets, np.int64), np.asarray(keys, np.int16), np.asarray(classes, np.uint8))
        self.keys += len(part[1])
        size = sum(a.nbytes for a in part)
        self.held.append(part)
        self.held_bytes += size
        self.figures["sequence_bytes"] += size
        if self.held_bytes > self.budget:
            self._spill()

    def _spill(self) -> None:
        held, self.held, self.held_bytes = self.held, [], 0
        self._write([_blocks(p) for p in held])
        if len(self.files) >= FAN_IN:
            files, self.files = self.files, []
            self._write([_read(f) for f in files])
            for f in files:
                f.unlink()

    def _write(self, runs: list) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"run-{self.figures['runs_spilled']:05d}.bin"
        with open(path, "wb") as f:
            for merged in merge_sorted(runs, width_of(self.max_depth)):
                for offsets, keys, classes in _blocks(in_order(*merged)):
                    np.array([len(offsets) - 1, len(keys)], np.int64).tofile(f)
                    np.diff(offsets).astype(np.int16).tofile(f)
                    keys.tofile(f)
                    classes.tofile(f)
        self.files.append(path)
        self.figures["runs_spilled"] += 1
        self.figures["spilled_bytes"] += path.stat().st_size

    def count(self, floor: int = 2) -> tuple[dict, int]:
        """The trie's node arrays (the nodes counted at least ``floor`` times)
        and its number of nodes; the runs are then gone."""
        most = self.keys // max(1, floor)  # a node kept is counted at least floor times, a key a count
        counter = StreamCounter(self.max_depth, floor, room=ROOM, most=most)
        held, self.held, self.held_bytes = self.held, [], 0
        runs = [_read(f) for f in self.files] + [_blocks(p) for p in held]
        del held
        for block in _ahead(merge_sorted(runs, width_of(self.max_depth))):
            check_stop()
            counter.add(*block)
        self.close()
        return counter.finish()

    def close(self) -> None:
        """Remove the run files."""
        for f in self.files:
            f.unlink(missing_ok=True)
        self.files = []
        self.held = []


def _blocks(part):
    """A sorted part (offsets, keys, classes) as blocks of ``SPILL_BLOCK``."""
    for lo in range(0, len(part[0]) - 1, SPILL_BLOCK):
        yield cut(part, lo, min(len(part[0]) - 1, lo + SPILL_BLOCK))


def _ahead(blocks, depth: int = 2):
    """``blocks``, made in a thread of their own, ``depth`` ahead of the
    caller: the merge and the count (both compiled, GIL released) run on
    two cores.  If the caller stops early, so does the thread."""
    queue: Queue = Queue(maxsize=depth)
    done = object()
    stop = Event()

    def put(item) -> bool:
        while not stop.is_set():
            try:
                queue.put(item, timeout=0.1)
                return True
            except Full:
                pass
        return False

    def make() -> None:
        try:
            for block in blocks:
                if not put(block):
                    return
            put(done)
        except BaseException as exc:  # handed to the caller
            put(exc)

    thread = Thread(target=make, name="merge", daemon=True)
    thread.start()
    try:
        while (item := queue.get()) is not done:
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join()


def _read(path: Path):
    """The blocks of a run file, one at a time."""
    with open(path, "rb") as f:
        while True:
            head = np.fromfile(f, np.int64, 2)
            if len(head) < 2:
                return
            n, k = int(head[0]), int(head[1])
            lengths = np.fromfile(f, np.int16, n)
            offsets = np.zeros(n + 1, np.int64)
            np.cumsum(lengths, out=offsets[1:])
            yield offsets, np.fromfile(f, np.int16, k), np.fromfile(f, np.uint8, k)


def run(sequences_path: Path, trie_path: Path, *, neutral: int, floor: int = 2, engine: str = "fast",
        progress: bool = True, spill: Path | None = None, budget: int = SORT_MEMORY << 20) -> dict:
    """Count the sequences of sequences.parquet and store the trie (the fast
    engine spills sorted runs to ``spill``, by default beside the trie)."""
    trie = Trie() if engine == "reference" else None
    runs = SortedRuns(spill or trie_path.parent / "runs", budget)
    with tqdm(total=count_rows(sequences_path), desc="build", unit=" seqs", disable=not progress) as bar:
        for batch in pq.ParquetFile(sequences_path).iter_batches(batch_size=200_000, columns=["moves", "scores"]):
            check_stop()
            offsets, keys, scores = _columns(batch)
            if trie is not None:
                for i in range(len(offsets) - 1):
                    a, b = offsets[i], offsets[i + 1]
                    trie.insert(keys[a:b].tolist(), [[classify(int(s), neutral) for s in row] for row in scores[a:b]])
            else:
                runs.add(*sort_sequences(offsets, keys, classes_of(scores, neutral)))
            bar.update(batch.num_rows)
    if trie is not None:
        return write(trie_path, trie.to_arrays(floor), len(trie), floor)
    try:
        return write(trie_path, *runs.count(floor), floor)
    finally:
        runs.close()


def write(trie_path: Path, arrays: dict, nodes: int, floor: int) -> dict:
    """Store the nodes counted at least ``floor`` times (no pruning threshold
    above ``floor`` - 1 can keep the others); the stage's figures."""
    trie_path.parent.mkdir(parents=True, exist_ok=True)
    # a row group at a time: the same file as one write_table, without the
    # whole table's columns in memory at once (a large trie's are gigabytes)
    n = len(arrays["node"])
    with pq.ParquetWriter(trie_path, node_table(_rows(arrays, 0, 0)).schema, **TRIE_FILE) as writer:
        for lo in range(0, n, NODE_ROWS):
            check_stop()
            writer.write_table(node_table(_rows(arrays, lo, lo + NODE_ROWS)), row_group_size=NODE_ROWS)
    return {"nodes_before_prune": nodes, "nodes_stored": int(len(arrays["node"])), "floor": floor}


def _rows(arrays: dict, lo: int, hi: int) -> dict:
    return {name: a[lo:hi] for name, a in arrays.items()}
