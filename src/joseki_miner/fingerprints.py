"""Duplicate games by their 128-bit fingerprints (the kernel's two 64-bit
hashes of setup stones and moves): an open-addressing hash table on flat
arrays (numba), 20 bytes a slot (two hashes and a 32-bit id), at most
three quarters full: 27 to 53 bytes a game.  Linear probing at that load
takes a few probes more for a new game, nothing beside a game's replay.

A Python dict of tuples costs about ten times that a game, and a
collection of millions of games is mostly distinct games, every one of
which the table must remember.

Knows nothing of boards, files or the method; ids are whatever the caller
numbers its games with (ingest: the game's row in games.parquet).
"""

from __future__ import annotations

import numpy as np
from numba import njit

_EMPTY = -1


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
                ids[s] = first_id + added
                added += 1
                out[i] = -1
                break
            if keys[s, 0] == h1[i] and keys[s, 1] == h2[i]:
                out[i] = ids[s]
                break
            s = (s + 1) & mask
    return len(h1), added


@njit(cache=True)
def _rehash(keys, ids, new_keys, new_ids):
    mask = len(new_ids) - 1
    for s in range(len(ids)):
        if ids[s] != _EMPTY:
            t = _slot(keys[s, 0], mask)
            while new_ids[t] != _EMPTY:
                t = (t + 1) & mask
            new_keys[t] = keys[s]
            new_ids[t] = ids[s]


MAX_ID = 2**31 - 2  # ids are int32, -1 marking an empty slot


def room_in(capacity: int) -> int:
    """Fingerprints a table of ``capacity`` slots holds: three quarters."""
    return capacity // 4 * 3


class FingerprintTable:
    """Fingerprints seen so far, each with the id of the game first seen."""

    def __init__(self, capacity: int = 1 << 16) -> None:
        capacity = 1 << max(4, (capacity - 1).bit_length())
        self.keys = np.zeros((capacity, 2), np.uint64)
        self.ids = np.full(capacity, _EMPTY, np.int32)
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
        return out

    def _grow(self) -> None:
        keys = np.zeros((2 * len(self.ids), 2), np.uint64)
        ids = np.full(2 * len(self.ids), _EMPTY, np.int32)
        _rehash(self.keys, self.ids, keys, ids)
        self.keys, self.ids = keys, ids
