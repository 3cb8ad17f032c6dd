"""Arrays that grow with the games, within a memory budget.

Two tables of a run grow with the number of games read rather than with the
trie: the fingerprints that find duplicate games, and the index lines of
the kifu dumps, joined to their games as these are read.  An ``Arena``
gives them their arrays: in memory while all it gave stays within half its
budget, past it in files of the work directory, mapped.  Of the mapped
arrays the process keeps at most the other half resident: the callers say
how many bytes an access may have touched (``touched``), and once that
adds up to half the budget the arena tells the kernel to drop their pages
(``madvise(MADV_DONTNEED)``).  The pages stay in the page cache, or go to
the file when memory is short, and are read back at the next access.

So a run holds about the budget of such tables in memory whatever the
number of games, at the price of page faults once they are larger than
half of it.  The files are unlinked as soon as they are made:
their disk space lives as long as their mapping, and nothing is left
behind, whatever ends the run.

Knows nothing of games or files beyond its folder.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
from pathlib import Path

import numpy as np

from joseki_miner.runs.config import TABLE_MEMORY_MB

PAGE = mmap.PAGESIZE
BUDGET = TABLE_MEMORY_MB * 2**20  # bytes; ``--table-memory`` sets it
COPY_STEP = 256 * PAGE  # the least an array is copied to its file by


class Arena:
    """Gives arrays in memory up to half of ``budget`` bytes, then mapped
    from files in ``folder``, of which it keeps the other half resident
    (with no folder, always in memory: no bound)."""

    def __init__(self, folder: Path | str | None = None, budget: int = BUDGET) -> None:
        self.folder = None if folder is None else Path(folder)
        self.budget = budget
        self.half = budget // 2
        self.held = 0  # bytes of the arrays given in memory, still in use
        self.mapped: dict[int, mmap.mmap] = {}  # by id of the array given
        self.mapped_bytes = 0  # of the mapped arrays still in use
        self.most_mapped = 0  # the largest mapped_bytes was
        self.most = 0  # the largest held + mapped_bytes was: the tables' size
        self.drops = 0  # times the mapped pages were dropped
        self._since = 0  # bytes touched since the last drop, at most
        self._lock = threading.Lock()

    def zeros(self, shape: int | tuple[int, ...], dtype) -> np.ndarray:
        """A new array of zeros (a mapped file is zeros until written)."""
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if self._hold(nbytes):
            return np.zeros(shape, dtype)
        return self._mapped(shape, dtype, nbytes)

    def keep(self, array: np.ndarray) -> np.ndarray:
        """``array`` as an array of this arena: itself while half the budget
        holds it, else copied to a mapped file a block at a time (so the
        copy stays within the budget too)."""
        if self._hold(array.nbytes):
            return array
        out = self._mapped(array.shape, array.dtype, array.nbytes)
        flat, src = out.reshape(-1), np.ascontiguousarray(array).reshape(-1)
        step = max(self.half // 4, COPY_STEP) // max(1, array.itemsize)
        for lo in range(0, len(flat), step):
            flat[lo : lo + step] = src[lo : lo + step]
            self.touched(min(step, len(flat) - lo) * array.itemsize)
        return out

    def _hold(self, nbytes: int) -> bool:
        """Can ``nbytes`` more be held in memory (within half the budget, or
        with no folder)?  If so, they are counted as held."""
        with self._lock:
            if self.folder is not None and self.held + nbytes > self.half:
                return False
            self.held += nbytes
            self.most = max(self.most, self.held + self.mapped_bytes)
            return True

    def _mapped(self, shape, dtype: np.dtype, nbytes: int) -> np.ndarray:
        self.folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix="table-", suffix=".mapped", dir=self.folder)
        try:
            os.unlink(name)  # the space lives while mapped, and no file is left behind
            size = max(nbytes, 1)
            os.ftruncate(fd, size)
            view = mmap.mmap(fd, size)  # shared: pages dropped are kept by the file
        finally:
            os.close(fd)
        array = np.frombuffer(view, dtype, count=nbytes // dtype.itemsize).reshape(shape)
        with self._lock:
            self.mapped[id(array)] = view
            self.mapped_bytes += nbytes
            self.most_mapped = max(self.most_mapped, self.mapped_bytes)
            self.most = max(self.most, self.held + self.mapped_bytes)
        return array

    def free(self, array: np.ndarray) -> None:
        """``array`` is no longer used (its memory or mapping goes with it)."""
        with self._lock:
            if self.mapped.pop(id(array), None) is not None:
                self.mapped_bytes -= array.nbytes
            else:
                self.held -= array.nbytes

    def touched(self, nbytes: int) -> None:
        """An access may have made up to ``nbytes`` of mapped pages resident:
        past half the budget since the last drop, drop them all."""
        if not self.mapped:
            return
        with self._lock:
            self._since += nbytes
            if self._since <= self.half:
                return
            self._since = 0
            self.drops += 1
            for view in self.mapped.values():
                view.madvise(mmap.MADV_DONTNEED)

    def figures(self) -> dict:
        """For a stage's manifest: the budget, the tables' largest size, what
        of it went to mapped files and how often their pages were dropped."""
        return {
            "table_memory_bytes": self.budget,
            "tables_bytes": self.most,
            "tables_mapped_bytes": self.most_mapped,
            "tables_dropped": self.drops,
        }
