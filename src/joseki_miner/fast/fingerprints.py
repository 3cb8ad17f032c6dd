"""Duplicate games by their 128-bit fingerprints (the kernel's two 64-bit
hashes of setup stones and moves): an open-addressing hash table on flat
arrays (numba), 20 bytes a slot (two hashes and a 32-bit id), at most
three quarters full: 27 to 53 bytes a game.  Linear probing at that load
takes a few probes more for a new game, nothing beside a game's replay.

A Python dict of tuples costs about ten times that a game, and a
collection of millions of games is mostly distinct games, every one of
which the table must remember.

Its arrays come from an ``Arena``: past the arena's budget they are mapped
files, of which the process keeps about the budget resident, so the
table's memory does not grow with the games (``mapped``).

Knows nothing of boards, files or the method; ids are whatever the caller
numbers its games with (ingest: the game's row in games.parquet).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from joseki_miner.fast.mapped import PAGE, Arena

# a slot holds its game's id + 1, so 0 marks an empty slot and a table of
# zeros (a new mapped file) is empty
_EMPTY = 0


@njit(cache=True, inline="always")
def _slot(h1, mask):
    # Fibonacci hashing: the top bits of h1 * 2**64 / golden ratio, so
    # fingerprints that differ only in high bits spread too
    return np.int64(((h1 * np.uint64(11400714819323198485)) >> np.uint64(32)) & np.uint64(mask))


@njit(cache=True)
def _insert(keys, ids, h1, h2, start, first_id, out, room):
    """For fingerprints from ``start`` on, in order: the id of the first
    occurrence, or -1 when it is new (then it is stored with the next id
    from first_id).  Stops before storing more than ``room``; returns the
    index it stopped at and the number stored."""
    mask = len(ids) - 1
    added = 0
    for i in range(start, len(h1)):
        s = _slot(h1[i], mask)
        while True:
            if ids[s] == _EMPTY:
                if added == room:
                    return i, added
                keys[s, 0] = h1[i]
                keys[s, 1] = h2[i]
                ids[s] = first_id + added + 1
                added += 1
                out[i] = -1
                break
            if keys[s, 0] == h1[i] and keys[s, 1] == h2[i]:
                out[i] = ids[s] - 1
                break
            s = (s + 1) & mask
    return len(h1), added


@njit(cache=True)
def _rehash(keys, ids, new_keys, new_ids, lo, hi):
    """Slots lo..hi-1 of the old table into the new one."""
    mask = len(new_ids) - 1
    for s in range(lo, hi):
        if ids[s] != _EMPTY:
            t = _slot(keys[s, 0], mask)
            while new_ids[t] != _EMPTY:
                t = (t + 1) & mask
            new_keys[t] = keys[s]
            new_ids[t] = ids[s]


MAX_ID = 2**31 - 2  # ids + 1 are int32
# slots rehashed at a time: each may touch a page of the new table, so a
# step stays far within any budget of a mapped table
_REHASH_STEP = 4096


def room_in(capacity: int) -> int:
    """Fingerprints a table of ``capacity`` slots holds: three quarters."""
    return capacity // 4 * 3


class FingerprintTable:
    """Fingerprints seen so far, each with the id of the game first seen."""

    def __init__(self, capacity: int = 1 << 16, arena: Arena | None = None) -> None:
        capacity = 1 << max(4, (capacity - 1).bit_length())
        self.arena = arena if arena is not None else Arena()
        self.keys = self.arena.zeros((capacity, 2), np.uint64)
        self.ids = self.arena.zeros(capacity, np.int32)
        self.size = 0

    def __len__(self) -> int:
        return self.size

    @property
    def nbytes(self) -> int:
        return self.keys.nbytes + self.ids.nbytes

    def first_ids(self, h1: np.ndarray, h2: np.ndarray, first_id: int) -> np.ndarray:
        """Per fingerprint (h1[i], h2[i]), in order: the id of the game first
        seen with it, or -1 for a new one, which is stored with the next id
        counting from ``first_id`` (so the new ones of a call are numbered
        first_id, first_id + 1, ... in order)."""
        h1 = np.ascontiguousarray(h1, dtype=np.uint64)
        h2 = np.ascontiguousarray(h2, dtype=np.uint64)
        out = np.empty(len(h1), np.int64)
        if first_id + len(h1) > MAX_ID:
            raise OverflowError(f"more than {MAX_ID:,} distinct games")
        at = 0
        while at < len(h1):
            room = room_in(len(self.ids)) - self.size
            if room == 0:
                self._grow()
                continue
            at, added = _insert(self.keys, self.ids, h1, h2, at, first_id, out, room)
            self.size += added
            first_id += added
        self.arena.touched(3 * PAGE * len(h1))  # a page of keys, maybe the next, one of ids
        return out

    def _grow(self) -> None:
        keys = self.arena.zeros((2 * len(self.ids), 2), np.uint64)
        ids = self.arena.zeros(2 * len(self.ids), np.int32)
        for lo in range(0, len(self.ids), _REHASH_STEP):
            hi = min(len(self.ids), lo + _REHASH_STEP)
            _rehash(self.keys, self.ids, keys, ids, lo, hi)
            self.arena.touched(2 * PAGE * (hi - lo) + 20 * (hi - lo))
        self.arena.free(self.keys)
        self.arena.free(self.ids)
        self.keys, self.ids = keys, ids
