"""The count's external sort: the sequences counted into the trie, held
sorted in bounded memory and spilled past it as sorted runs in files, then
merged into one stream and counted (``SortedRuns``).

The stages hand it their sequences a part at a time (``add``), sorted
by ``fasttrie.sort_sequences``; ``count`` gives the trie's node arrays,
and the sequences in trie order go to sorted_sequences.parquet on the
way.  Its run files are its own and gone once counted; the dask engine's
partitions keep theirs in another layout, one a count slices in place
(``sortedrun``).  Knows nothing of games beyond the payload's numbers."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from queue import Full, Queue
from threading import Event, Thread

import numpy as np
import pyarrow as pa

from joseki_miner.fast.arrow import put_array
from joseki_miner.fast.fasttrie import PAYLOAD, StreamCounter, cut, in_order, merge_sorted, width_of
from joseki_miner.fast.parquet import TableSink
from joseki_miner.fast.tables import SORTED_FILE, SORTED_ROWS, SORTED_SCHEMA, sorted_table
from joseki_miner.runs import threads
from joseki_miner.runs.config import SORT_MEMORY_MB
from joseki_miner.runs.stop import check as check_stop

SPILL_BLOCK = 1 << 15  # sequences a block of a run file, and a merge's step through a run
FAN_IN = 16  # run files merged at once; more are first merged into one
SORT_MEMORY = SORT_MEMORY_MB  # MB of sequences held before they are spilled as a sorted run
# nodes the count's arrays start with, at most: reserved, not touched until
# written (74 bytes a node), so the arrays seldom grow, and growing copies
ROOM = 1 << 24


class SortedRuns:
    """The sequences counted into the trie, in sorted runs, in bounded memory.

    Each part added is sorted (``fasttrie.sort_sequences``).  Parts are held
    until they pass ``budget`` bytes; then they are merged into one sorted
    run in a file of ``folder``, and so are the files, ``FAN_IN`` at a time.
    ``count`` merges what is held and the files into one stream and counts
    it: memory is the budget, a block a file and the trie kept, however
    many the games.  Run files hold blocks: sequence and key numbers (int64),
    lengths (int16), keys (int16), packed classes (uint8), payload rows."""

    def __init__(self, folder: Path, budget: int = SORT_MEMORY << 20) -> None:
        self.folder, self.budget = folder, budget
        self.held: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.held_bytes = 0
        self.files: list[Path] = []
        self.max_depth = 0
        self.keys = 0
        self.figures = {"sequence_bytes": 0, "spilled_bytes": 0, "runs_spilled": 0}

    def add(self, offsets: np.ndarray, keys: np.ndarray, classes: np.ndarray, payload: np.ndarray) -> None:
        """A part, sorted."""
        if len(offsets) > 1:
            self.max_depth = max(self.max_depth, int(np.diff(offsets).max()))
        part = (
            np.asarray(offsets, np.int64),
            np.asarray(keys, np.int16),
            np.asarray(classes, np.uint8),
            np.asarray(payload, PAYLOAD),
        )
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
                for offsets, keys, classes, payload in _blocks(in_order(*merged)):
                    put_array(f, np.array([len(offsets) - 1, len(keys)], np.int64))
                    put_array(f, np.diff(offsets).astype(np.int16))
                    for a in (keys, classes, payload):
                        put_array(f, a)
        self.files.append(path)
        self.figures["runs_spilled"] += 1
        self.figures["spilled_bytes"] += path.stat().st_size

    def count(
        self,
        floor: int = 2,
        years: tuple[int, int] = (0, 0),
        sources: int = 1,
        sorted_path: Path | None = None,
        sink=None,
        edges: tuple[list[int], list[int]] | None = None,
    ) -> tuple[dict, int]:
        """The trie's node arrays (the nodes counted at least ``floor`` times,
        and their statistics: ``StreamCounter``, with ``years`` and
        ``sources``) and its number of nodes; given ``sorted_path``, the
        sequences in trie order go there (``SORTED_SCHEMA``), or to ``sink``
        (a ``TableSink``'s add, close and abort); ``edges``: the paths whose
        nodes are kept whatever their count (``StreamCounter``).  The runs
        are then gone."""
        most = self.keys // max(1, floor)  # a node kept is counted at least floor times, a key a count
        counter = StreamCounter(self.max_depth, floor, room=ROOM, most=most, years=years, sources=sources, edges=edges)
        held, self.held, self.held_bytes = self.held, [], 0
        runs = [_read(f) for f in self.files] + [_blocks(p) for p in held]
        del held
        if sorted_path is not None:
            sink = TableSink(sorted_path, SORTED_SCHEMA, SORTED_ROWS, background=True, **SORTED_FILE)
        try:
            for block in _ahead(merge_sorted(runs, width_of(self.max_depth))):
                check_stop()
                counter.add(*block)
                if sink is not None:  # the sequences put in order and written in the sink's thread
                    sink.add(partial(_sorted_rows, block))
            if sink is not None:
                sink.close()
        except BaseException:
            if sink is not None:
                sink.abort()
            raise
        self.close()
        return counter.finish()

    def close(self) -> None:
        """Remove the run files."""
        for f in self.files:
            f.unlink(missing_ok=True)
        self.files = []
        self.held = []


def _blocks(part) -> list:
    """A sorted part (offsets, keys, classes) as blocks of ``SPILL_BLOCK``
    (views of it): a list, whose last block ``merge_sorted`` knows."""
    return [cut(part, lo, min(len(part[0]) - 1, lo + SPILL_BLOCK)) for lo in range(0, len(part[0]) - 1, SPILL_BLOCK)]


def _ahead(blocks, depth: int = 2):
    """``blocks``, made in a thread of their own, ``depth`` ahead of the
    caller: the merge and the count (both compiled, GIL released) run on
    two cores.  If the caller stops early, so does the thread."""
    if threads.alone():  # a dask worker's task: one core, no thread of its own
        yield from blocks
        return
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
            yield offsets, np.fromfile(f, np.int16, k), np.fromfile(f, np.uint8, k), np.fromfile(f, PAYLOAD, n)


def _sorted_rows(block) -> pa.Table:
    """sorted_sequences.parquet's rows of a block of the merged stream."""
    payload, order = block[3], block[4]
    return sorted_table(payload, order)
